// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Client text shown back safely: quoted and bounded in error messages,
// escaped and bounded in log lines. A 60 KB move string must not come back
// as a 60 KB error (gRPC would refuse the metadata) or a 60 KB log line.
#ifndef KHET_SERVICE_TEXT_QUOTED_INPUT_H_
#define KHET_SERVICE_TEXT_QUOTED_INPUT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"

namespace khet {

// Client input (session, request, setup and colour scheme ids, squares,
// moves, positions, page tokens; never a token) as an error message quotes
// it: in double quotes, its first 64 characters, then, when cut, the size
// of the whole: `"e4-e5e4-e5e4"... (60000 bytes)`. Printable characters of
// every script stay; `"` and `\` are escaped with a backslash; \n, \r and
// \t are written so; other control and hidden characters
// (IsHiddenCharacter) \u{XXXX}; bytes that are not UTF-8 \xNN. A cut never
// falls inside a character.
std::string QuoteInput(std::string_view text);

// A message for a log line, escaped as absl::CEscape does (one line of
// ASCII) and at most `max_bytes` long, then, when cut, `... (N bytes)` with
// the message's size. A cut never falls inside an escape.
inline constexpr size_t kMaxLoggedMessageBytes = 256;
std::string LoggedMessage(absl::string_view message,
                          size_t max_bytes = kMaxLoggedMessageBytes);

}  // namespace khet

#endif  // KHET_SERVICE_TEXT_QUOTED_INPUT_H_
