// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/text/quoted_input.h"

#include <cstdint>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/text/unicode_text.h"

namespace khet {
std::string QuoteInput(std::string_view text) {
  constexpr int kMaxCharacters = 64;
  std::string out = "\"";
  int characters = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    if (characters++ == kMaxCharacters) break;
    const size_t start = pos;
    const std::optional<char32_t> c = NextCodePoint(text, &pos);
    if (!c.has_value()) {
      absl::StrAppendFormat(&out, "\\x%02x",
                            static_cast<unsigned char>(text[start]));
    } else if (*c == '"' || *c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(*c));
    } else if (*c == '\n') {
      out += "\\n";
    } else if (*c == '\r') {
      out += "\\r";
    } else if (*c == '\t') {
      out += "\\t";
    } else if (IsHiddenCharacter(*c)) {
      absl::StrAppendFormat(&out, "\\u{%04X}", static_cast<uint32_t>(*c));
    } else {
      out.append(text.substr(start, pos - start));
    }
  }
  out.push_back('"');
  if (pos < text.size()) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

std::string LoggedMessage(absl::string_view message, size_t max_bytes) {
  std::string out;
  if (message.size() <= max_bytes) {  // escaping never shortens
    out = absl::CEscape(message);
    if (out.size() <= max_bytes) return out;
    out.clear();
  }
  for (const char c : message) {
    const std::string escaped = absl::CEscape(absl::string_view(&c, 1));
    if (out.size() + escaped.size() > max_bytes) break;
    out += escaped;
  }
  absl::StrAppend(&out, "... (", message.size(), " bytes)");
  return out;
}

}  // namespace khet
