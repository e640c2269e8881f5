// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A watcher's stream: the session's stored events after a version, read from
// the store a page at a time, then its live events from an EventHub
// subscription, each version once and in order.
#ifndef KHET_SERVICE_EVENTS_WATCH_STREAM_H_
#define KHET_SERVICE_EVENTS_WATCH_STREAM_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "service/events/event_hub.h"
#include "service/events/event_stream.h"
#include "service/events/watcher_limit.h"
#include "service/store/session_store.h"

namespace khet {

class WatchStream final : public EventStream {
 public:
  // `sub` was subscribed to `hub` when the session was at version
  // `history_until`, so the store holds every event up to it and `sub` gets
  // every later one. `store` must outlive the stream. `place` is the
  // watcher's in the service's count, given back last when it is destroyed.
  WatchStream(SessionStore* store, std::string session_id,
              int64_t after_version, int64_t history_until,
              std::shared_ptr<EventHub> hub, std::shared_ptr<Subscription> sub,
              WatcherLimit::Place place);
  ~WatchStream() override;

  absl::StatusOr<SharedEventPtr> NextShared(absl::Duration timeout) override;
  void Cancel() override;
  void NotifyWhenReady(std::function<void()> ready) override;

 private:
  static constexpr int kHistoryPage = 128;

  const WatcherLimit::Place place_;  // first: destroyed last
  SessionStore* const store_;
  const std::string session_id_;
  const int64_t history_until_;
  const std::shared_ptr<EventHub> hub_;
  const std::shared_ptr<Subscription> sub_;
  int64_t last_version_;           // of the last event returned
  std::deque<v1::Event> history_;  // read from the store, not yet returned
  bool history_done_ = false;
  std::atomic<bool> cancelled_{false};
};

}  // namespace khet

#endif  // KHET_SERVICE_EVENTS_WATCH_STREAM_H_
