// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/text/json_request_log.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/text/quoted_input.h"

namespace khet {
namespace {

// The length of the well-formed UTF-8 character at text[at], or 0 if the
// bytes there are not one.
size_t Utf8Length(absl::string_view text, size_t at) {
  const unsigned char lead = static_cast<unsigned char>(text[at]);
  size_t n;
  char32_t c;
  if (lead >= 0xc2 && lead <= 0xdf) {
    n = 2;
    c = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    c = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    c = lead & 0x07;
  } else {
    return 0;
  }
  if (at + n > text.size()) return 0;
  for (size_t i = 1; i < n; ++i) {
    const unsigned char b = static_cast<unsigned char>(text[at + i]);
    if ((b & 0xc0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3f);
  }
  // No overlong forms, surrogates or code points beyond U+10FFFF.
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
      (c >= 0xd800 && c <= 0xdfff)) {
    return 0;
  }
  return n;
}

// `text` as a JSON string of at most about `max_bytes` of it, then "..."
// when cut (never inside a character): quotes, backslashes and control
// characters escaped, bytes that are not UTF-8 as U+FFFD.
std::string JsonString(absl::string_view text, size_t max_bytes) {
  std::string out = "\"";
  size_t at = 0;
  while (at < text.size()) {
    const size_t n = Utf8Length(text, at);
    if (at + std::max<size_t>(n, 1) > max_bytes) {
      out += "...";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(text[at]);
    if (n > 0) {
      out.append(text.data() + at, n);
      at += n;
      continue;
    }
    ++at;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      absl::StrAppendFormat(&out, "\\u%04x", c);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      out += "\\ufffd";
    }
  }
  out += '"';
  return out;
}

// Request text bounded as the text lines bound it; null when empty.
std::string Shown(absl::string_view text) {
  constexpr size_t kMax = 64;
  return text.empty() ? "null" : JsonString(text, kMax);
}

}  // namespace

bool ParseLogFormat(absl::string_view text, LogFormat* format) {
  if (text == "text") {
    *format = LogFormat::kText;
  } else if (text == "json") {
    *format = LogFormat::kJson;
  } else {
    return false;
  }
  return true;
}

std::string FormatJsonLog(const RequestLogEntry& entry, absl::Time now) {
  return absl::StrCat(
      "{\"time\":",
      Shown(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", now, absl::UTCTimeZone())),
      ",\"protocol\":", Shown(entry.protocol),
      ",\"method\":", Shown(entry.method), ",\"route\":", Shown(entry.route),
      ",\"status\":",
      entry.http_status == 0 ? "null" : absl::StrCat(entry.http_status),
      ",\"code\":", Shown(entry.code),
      ",\"ms\":", absl::StrFormat("%.3f", entry.ms),
      ",\"peer\":", Shown(entry.peer), ",\"session\":", Shown(entry.session_id),
      ",\"message\":",
      entry.message.empty() ? "null"
                            : JsonString(entry.message, kMaxLoggedMessageBytes),
      "}");
}

std::string FormatJsonMessage(absl::string_view message, absl::Time now) {
  return absl::StrCat(
      "{\"time\":",
      Shown(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", now, absl::UTCTimeZone())),
      ",\"message\":", JsonString(message, kMaxLoggedMessageBytes), "}");
}

}  // namespace khet
