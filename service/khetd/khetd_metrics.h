// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Everything khetd counts for GET /metrics, in one registry: the gRPC calls
// (GrpcMetrics), the HTTP requests and waiting requests (the gateway adds
// them), the store (StoreMetrics), the watchers, and the computer seats'
// searches (khet_computer_searches_total{outcome},
// khet_computer_search_duration_seconds). No series names a session or
// holds a token.
#ifndef KHET_SERVICE_KHETD_KHETD_METRICS_H_
#define KHET_SERVICE_KHETD_KHETD_METRICS_H_

#include <functional>
#include <string_view>

#include "absl/time/time.h"
#include "service/core/session_service.h"
#include "service/grpc/grpc_metrics.h"
#include "service/metrics/metrics.h"
#include "service/store/metered_store.h"

namespace khet {

class KhetdMetrics {
 public:
  KhetdMetrics();

  metrics::Registry* registry() { return &registry_; }
  GrpcMetrics* grpc() { return &grpc_; }
  StoreMetrics* store() { return &store_; }

  // For ServiceOptions::computer_search_done.
  std::function<void(std::string_view outcome, absl::Duration searched)>
  ComputerSearchHook();

  // Adds khet_watchers and the shared store's notice backlog
  // (khet_store_notices_waiting, khet_store_notice_wait_seconds), read from
  // `core` at each scrape. `core` must outlive
  // every scrape.
  void AddWatchers(SessionService* core);

 private:
  metrics::Registry registry_;
  GrpcMetrics grpc_{&registry_};
  StoreMetrics store_{&registry_};
  metrics::CounterFamily& searches_;
  metrics::Histogram& search_time_;
};

}  // namespace khet

#endif  // KHET_SERVICE_KHETD_KHETD_METRICS_H_
