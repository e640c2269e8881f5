// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Whitespace, tokens and line-numbered errors for reading game records
// (game_record_reader.h).
#include "engine/game_record_reader.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/absl_view.h"
#include "engine/names.h"

namespace khet {
namespace game_record_internal {
bool IsSpace(char c) {
  return absl::ascii_isspace(static_cast<unsigned char>(c));
}

std::string Shown(std::string_view token) {
  constexpr size_t kMaxPlain = 64;
  bool plain = token.size() <= kMaxPlain;
  for (char c : token) plain = plain && c > 0x20 && c < 0x7F;
  return plain ? std::string(token) : QuotedText(token);
}

std::string_view TrimWhitespace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

absl::Status LineError(int line, std::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", line, ": ", Av(message)));
}

}  // namespace game_record_internal
}  // namespace khet
