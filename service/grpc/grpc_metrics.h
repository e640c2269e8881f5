// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The gRPC calls' figures, for /metrics: khet_grpc_requests_total{method,
// code} and khet_grpc_request_duration_seconds{method} (for Watch, the
// stream's whole life). Methods are KhetService's names, codes gRPC's
// canonical ones: both bounded sets, whatever the clients send. Health
// checks and reflection are gRPC's own services and are not counted.
#ifndef KHET_SERVICE_GRPC_GRPC_METRICS_H_
#define KHET_SERVICE_GRPC_GRPC_METRICS_H_

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/support/status.h"
#include "service/metrics/metrics.h"

namespace khet {

class GrpcMetrics {
 public:
  // Adds the families to `registry`, which must outlive this.
  explicit GrpcMetrics(metrics::Registry* registry);

  // One finished call. Lock-free once the method and code were seen.
  void Record(absl::string_view method, grpc::StatusCode code,
              absl::Duration latency);

 private:
  metrics::CounterFamily& calls_;
  metrics::HistogramFamily& latency_;
};

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_GRPC_METRICS_H_
