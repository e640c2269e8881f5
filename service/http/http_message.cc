// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_message.h"

#include "absl/strings/match.h"

namespace khet {

size_t HttpRequest::HeaderCount(absl::string_view name) const {
  size_t count = 0;
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) ++count;
  }
  return count;
}

std::string HttpRequest::Header(absl::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

}  // namespace khet
