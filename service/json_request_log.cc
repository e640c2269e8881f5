#include "service/json_request_log.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/quoted_input.h"

namespace khet {
namespace {

// `text` as a JSON string; `text` is ASCII (escaped before), so only quotes,
// backslashes and control characters need escaping.
std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      absl::StrAppendFormat(&out, "\\u%04x", u);
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

// Request text, escaped and cut short if long; null when empty.
std::string Shown(absl::string_view text) {
  constexpr size_t kMax = 64;
  if (text.empty()) return "null";
  std::string out = absl::CEscape(text.substr(0, std::min(text.size(), kMax)));
  if (text.size() > kMax) out += "...";
  return JsonString(out);
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
      JsonString(
          absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", now, absl::UTCTimeZone())),
      ",\"protocol\":", JsonString(entry.protocol),
      ",\"method\":", Shown(entry.method), ",\"route\":", Shown(entry.route),
      ",\"status\":",
      entry.http_status == 0 ? "null" : absl::StrCat(entry.http_status),
      ",\"code\":", JsonString(entry.code),
      ",\"ms\":", absl::StrFormat("%.3f", entry.ms),
      ",\"peer\":", Shown(entry.peer), ",\"session\":", Shown(entry.session_id),
      ",\"message\":",
      entry.message.empty() ? "null" : JsonString(LoggedMessage(entry.message)),
      "}");
}

}  // namespace khet
