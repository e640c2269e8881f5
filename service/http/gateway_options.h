// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the HTTP gateway may use: its limits and where its log goes.
#ifndef KHET_SERVICE_HTTP_GATEWAY_OPTIONS_H_
#define KHET_SERVICE_HTTP_GATEWAY_OPTIONS_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/time/time.h"
#include "service/fair_use/caller_budgets.h"
#include "service/http/board_pushes.h"
#include "service/http/http_server.h"
#include "service/metrics/metrics.h"
#include "service/text/json_request_log.h"

namespace khet {

struct HttpGatewayOptions {
  // The server's limits, timeouts and TLS files (service/http/http_server.h);
  // server.max_body_bytes is the largest request body (beyond: 413).
  HttpServerOptions server;
  // Whether boards may register URLs to have their session's events pushed
  // to (board_pushes.h), and with what limits.
  bool push_events = true;
  PushOptions pushes;
  // Long polls and event streams at once; beyond: 429 RESOURCE_EXHAUSTED.
  // A waiting request holds no thread. Sized for 10,000 in-world boards,
  // each holding a long poll, and as many others.
  int max_waiting = 20000;
  // Threads running the routes' calls into the service (which may wait for
  // the store); the server's I/O threads never do. 10,000 in-world boards,
  // a move every 10 s, on SQLite committing in 9 ms (a busy disk) keep
  // about 9 busy; 8 stalled them (docs/PERFORMANCE.md).
  int serving_threads = 32;
  // On shutdown, how long requests in flight may take to answer.
  absl::Duration shutdown_grace = absl::Seconds(5);
  // An event stream sends a comment line after this long without events.
  absl::Duration stream_keepalive = absl::Seconds(15);
  // SuggestMove's deadline when the request gives no timeoutMs, and the
  // longest one it may give.
  absl::Duration suggest_timeout = absl::Seconds(5);
  absl::Duration max_suggest_timeout = absl::Seconds(30);
  // Receives one line per request, e.g. "http method=POST
  // route=/v1/sessions/{id}:move session=s0001 status=200 code=OK
  // latency_ms=0.84". Never a token. Empty: stderr.
  std::function<void(const std::string& line)> log;
  // Those lines, or JSON objects (FormatJsonLog) with the client's address.
  LogFormat log_format = LogFormat::kText;
  // When set, GET /metrics answers with its figures in the Prometheus text
  // format, and the gateway adds its own to it: requests by route, method
  // and status with their latency (HttpMetrics) and the waiting requests
  // (khet_http_waiting_requests). Not owned; must outlive the gateway and be
  // read only while it lives (the waiting gauge asks the gateway).
  metrics::Registry* metrics = nullptr;
  // Who calls and what each caller may spend (caller_budgets.h): every API
  // call (the routes under /v1/; not the web board's files, nor /metrics)
  // is identified and admitted by it before its route runs, and every
  // refusal by a budget is counted in it. Null: no budget, and the core
  // gets no client address. Not owned; must outlive the gateway.
  CallerBudgets* callers = nullptr;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_GATEWAY_OPTIONS_H_
