// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/khetd/khetd_metrics.h"

namespace khet {

KhetdMetrics::KhetdMetrics()
    : searches_(registry_.AddCounter(
          "khet_computer_searches_total",
          "Searches of computer seats ended, by outcome (played, "
          "claimed-draw, stale, gone, retrying, failed, cancelled).",
          {"outcome"})),
      search_time_(registry_
                       .AddHistogram("khet_computer_search_duration_seconds",
                                     "How long each computer seat's search "
                                     "ran, in seconds.",
                                     {}, metrics::LatencyBounds())
                       .Get({})) {}

std::function<void(std::string_view, absl::Duration)>
KhetdMetrics::ComputerSearchHook() {
  return [this](std::string_view outcome, absl::Duration searched) {
    searches_.Get({absl::string_view(outcome.data(), outcome.size())})
        .Increment();
    search_time_.Observe(absl::ToDoubleSeconds(searched));
  };
}

void KhetdMetrics::AddWatchers(SessionService* core) {
  registry_.AddGaugeCallback(
      "khet_watchers",
      "Watchers now: gRPC Watch streams, HTTP long polls and event streams.",
      {}, [core](const metrics::GaugeCallback::Emit& emit) {
        emit({}, core->watcher_count());
      });
  registry_.AddGaugeCallback(
      "khet_store_notices_waiting",
      "Other replicas' changes heard from the shared store and not yet "
      "brought to this replica's watchers (0 on a store of one process).",
      {}, [core](const metrics::GaugeCallback::Emit& emit) {
        emit({}, core->notice_backlog().waiting);
      });
  registry_.AddGaugeCallback(
      "khet_store_notice_wait_seconds",
      "How long the oldest of those changes has waited, in seconds: how far "
      "this replica's watchers are behind.",
      {}, [core](const metrics::GaugeCallback::Emit& emit) {
        emit({}, absl::ToDoubleSeconds(core->notice_backlog().oldest));
      });
}

}  // namespace khet
