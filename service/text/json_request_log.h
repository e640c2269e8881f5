// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Request log lines as JSON, one object per line, for log collectors: the
// same keys in the same order for every request of either protocol, never a
// token. khetd's --log_format picks them or the text lines.
#ifndef KHET_SERVICE_TEXT_JSON_REQUEST_LOG_H_
#define KHET_SERVICE_TEXT_JSON_REQUEST_LOG_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace khet {

enum class LogFormat { kText, kJson };

// "text" or "json"; false for anything else.
bool ParseLogFormat(absl::string_view text, LogFormat* format);

// One finished request.
struct RequestLogEntry {
  absl::string_view protocol;  // "grpc" or "http"
  absl::string_view method;    // the RPC's name, or the HTTP method
  // The route pattern ("/v1/sessions/{id}:move") or the request's path when
  // no route matched; for gRPC the full method ("/khet.v1.KhetService/X").
  absl::string_view route;
  int http_status = 0;           // 0 (gRPC): written as null
  absl::string_view code;        // the canonical code's name: "OK", "NOT_FOUND"
  double ms = 0;                 // latency
  absl::string_view peer;        // the client's address; empty: null
  absl::string_view session_id;  // empty (unknown): null
  absl::string_view message;     // the error's; empty (OK): null
};

// `{"time":"2026-11-23T10:00:00.123Z","protocol":"http","method":"POST",
// "route":"/v1/sessions/{id}:move","status":200,"code":"OK","ms":0.84,
// "peer":"127.0.0.1","session":"s0001","message":null}`, without a newline.
// Strings are UTF-8 (a byte that is not: U+FFFD) with quotes, backslashes
// and control characters escaped, cut (never inside a character, marked
// "...") after 64 bytes, messages after LoggedMessage's bound.
std::string FormatJsonLog(const RequestLogEntry& entry, absl::Time now);

// Any other line (a computer seat's search) in the same form:
// `{"time":"...","message":"..."}`, the message cut at LoggedMessage's bound.
std::string FormatJsonMessage(absl::string_view message, absl::Time now);

}  // namespace khet

#endif  // KHET_SERVICE_TEXT_JSON_REQUEST_LOG_H_
