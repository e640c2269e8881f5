// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_metrics.h"

#include <charconv>

namespace khet {

HttpMetrics::HttpMetrics(metrics::Registry* registry)
    : requests_(registry->AddCounter(
          "khet_http_requests_total",
          "HTTP requests answered, by route pattern, method and status.",
          {"route", "method", "status"})),
      latency_(registry->AddHistogram(
          "khet_http_request_duration_seconds",
          "HTTP requests' latency in seconds, by route pattern (long polls "
          "and event streams: their whole wait).",
          {"route"}, metrics::LatencyBounds())) {}

absl::string_view HttpMetrics::MethodLabel(absl::string_view method) {
  for (const absl::string_view known :
       {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    if (method == known) return known;
  }
  return "other";
}

void HttpMetrics::Record(absl::string_view route, absl::string_view method,
                         int http_status, absl::Duration latency) {
  char status[12];
  const std::to_chars_result written =
      std::to_chars(status, status + sizeof(status), http_status);
  requests_
      .Get({route, MethodLabel(method),
            absl::string_view(status,
                              static_cast<size_t>(written.ptr - status))})
      .Increment();
  latency_.Get({route}).Observe(absl::ToDoubleSeconds(latency));
}

}  // namespace khet
