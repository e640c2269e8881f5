// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Request bodies are JSON as RFC 8259 writes it, nothing looser: protobuf's
// JSON parser also takes single-quoted strings and trailing commas, and
// keeps the last of a repeated key, so every body passes this check first.
#ifndef KHET_SERVICE_HTTP_STRICT_JSON_H_
#define KHET_SERVICE_HTTP_STRICT_JSON_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace khet {

// How deep objects and arrays may nest in a request body (the deepest
// request message nests 4).
inline constexpr int kMaxJsonDepth = 32;

// OK when `text` is one JSON value by RFC 8259 (UTF-8, double-quoted
// strings, no trailing commas or comments) with no key twice in one object
// and nesting at most kMaxJsonDepth; otherwise INVALID_ARGUMENT naming the
// problem and where it is.
absl::Status CheckStrictJson(absl::string_view text);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_STRICT_JSON_H_
