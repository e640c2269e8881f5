// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/grpc/grpc_metrics.h"

#include "service/grpc/status_conversion.h"

namespace khet {

GrpcMetrics::GrpcMetrics(metrics::Registry* registry)
    : calls_(registry->AddCounter(
          "khet_grpc_requests_total",
          "KhetService calls finished, by method and gRPC status code.",
          {"method", "code"})),
      latency_(registry->AddHistogram(
          "khet_grpc_request_duration_seconds",
          "KhetService calls' latency in seconds, by method (Watch: the "
          "stream's life).",
          {"method"}, metrics::LatencyBounds())) {}

void GrpcMetrics::Record(absl::string_view method, grpc::StatusCode code,
                         absl::Duration latency) {
  calls_.Get({method, StatusCodeName(code)}).Increment();
  latency_.Get({method}).Observe(absl::ToDoubleSeconds(latency));
}

}  // namespace khet
