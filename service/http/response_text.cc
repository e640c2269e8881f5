// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/response_text.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "boost/beast/http/status.hpp"

namespace khet {
namespace {

namespace http = boost::beast::http;

std::string ReasonPhrase(int status) {
  if (status == 499) return "Client Closed Request";
  const std::string reason(http::obsolete_reason(
      http::int_to_status(static_cast<unsigned>(status))));
  return reason == "<unknown-status>" ? "Unknown" : reason;
}

// Now as an HTTP date ("Tue, 24 Nov 2026 08:49:37 GMT"), formatted once a
// second per thread.
const std::string& HttpDateNow() {
  thread_local int64_t second = -1;
  thread_local std::string text;
  const absl::Time now = absl::Now();
  if (absl::ToUnixSeconds(now) != second) {
    second = absl::ToUnixSeconds(now);
    text =
        absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", now, absl::UTCTimeZone());
  }
  return text;
}

}  // namespace

std::string ResponseHeadText(const HttpResponse& response, bool keep_alive) {
  std::string text = absl::StrCat("HTTP/1.1 ", response.status, " ",
                                  ReasonPhrase(response.status), "\r\n",
                                  "Date: ", HttpDateNow(), "\r\n");
  if (!response.content_type.empty()) {
    absl::StrAppend(&text, "Content-Type: ", response.content_type, "\r\n");
  }
  for (const auto& [name, value] : response.headers) {
    absl::StrAppend(&text, name, ": ", value, "\r\n");
  }
  absl::StrAppend(&text, "Connection: ", keep_alive ? "keep-alive" : "close",
                  "\r\n");
  return text;
}

std::string ChunkText(absl::string_view data) {
  char size[20];
  const int n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string out(size, static_cast<size_t>(n));
  out.append(data.data(), data.size());
  out += "\r\n";
  return out;
}

}  // namespace khet
