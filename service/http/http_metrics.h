// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The HTTP requests' figures, for /metrics: khet_http_requests_total{route,
// method,status} and khet_http_request_duration_seconds{route} (for long
// polls and event streams, the wait or the stream's life). Routes are the
// gateway's patterns ("/v1/sessions/{id}:move") or a fixed word for the
// rest ("static", "metrics", "unmatched", "none" before routing), methods
// the standard ones or "other": no label value comes from the request, so
// no client can add series.
#ifndef KHET_SERVICE_HTTP_HTTP_METRICS_H_
#define KHET_SERVICE_HTTP_HTTP_METRICS_H_

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "service/metrics/metrics.h"

namespace khet {

class HttpMetrics {
 public:
  // Adds the families to `registry`, which must outlive this.
  explicit HttpMetrics(metrics::Registry* registry);

  // One answered request. `route` must be a pattern or one of the fixed
  // words above. Lock-free once the label set was seen.
  void Record(absl::string_view route, absl::string_view method,
              int http_status, absl::Duration latency);

  // `method` if it is a standard HTTP method, else "other".
  static absl::string_view MethodLabel(absl::string_view method);

 private:
  metrics::CounterFamily& requests_;
  metrics::HistogramFamily& latency_;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_METRICS_H_
