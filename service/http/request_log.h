// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// One log line per HTTP request: method, route, session, HTTP status, code,
// latency and, for an error, its message (escaped and cut to
// LoggedMessage's bound); or the same as a JSON object (FormatJsonLog, with
// the client's address). Never a token. The request is counted in the
// gateway's metrics at the same time.
#ifndef KHET_SERVICE_HTTP_REQUEST_LOG_H_
#define KHET_SERVICE_HTTP_REQUEST_LOG_H_

#include <chrono>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "service/fair_use/caller_budgets.h"
#include "service/http/http_metrics.h"
#include "service/text/json_request_log.h"

namespace khet {

// Where finished requests go; one per gateway.
struct RequestRecorder {
  std::function<void(const std::string& line)> sink;
  LogFormat format = LogFormat::kText;
  HttpMetrics* metrics = nullptr;  // null: not counted
  // Where refusals by a budget are counted (door "http"); null: nowhere.
  CallerBudgets* callers = nullptr;
};

class RequestLog {
 public:
  // Starts the clock. `recorder` must outlive the log. `route` is the
  // route's pattern, or the path when no route took the request; the
  // metrics count it under `route` too unless set_metric_route says
  // otherwise.
  RequestLog(const RequestRecorder* recorder, absl::string_view method,
             absl::string_view route, absl::string_view session_id,
             absl::string_view peer);

  // For a route that learns its session from its answer (CreateSession).
  void set_session_id(absl::string_view id) { session_id_ = std::string(id); }
  // The route's label in the metrics (HttpMetrics' fixed words) when the
  // logged route is a path from the request.
  void set_metric_route(absl::string_view route) {
    metric_route_ = std::string(route);
  }

  // Counts the request and writes the line; later calls do nothing.
  void Done(int http_status, const absl::Status& status);

 private:
  const RequestRecorder* const recorder_;
  const std::string method_;
  const std::string route_;
  std::string metric_route_;  // empty: route_
  std::string session_id_;
  const std::string peer_;
  const std::chrono::steady_clock::time_point start_;
  bool done_ = false;
};

// The text line as RequestLog writes it; a budget's refusal adds
// ` budget=<name>` before the message (which names the caller).
std::string FormatHttpLog(absl::string_view method, absl::string_view route,
                          absl::string_view session_id, int http_status,
                          const absl::Status& status, double latency_ms);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_REQUEST_LOG_H_
