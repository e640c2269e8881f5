// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Live events of one session, fanned out to its watchers: each event is
// published once as a SharedEvent and every watcher gets a reference to it,
// never a copy. Publishing never
// blocks on a watcher: each subscription queues at most `buffer` events,
// and one that would overflow is cut off (marked behind, its queue dropped)
// so that the watcher resumes from the stored history instead.
#ifndef KHET_SERVICE_EVENTS_EVENT_HUB_H_
#define KHET_SERVICE_EVENTS_EVENT_HUB_H_

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.pb.h"
#include "service/base/mutex.h"
#include "service/events/shared_event.h"

namespace khet {

// One watcher's queue of live events. Thread-safe.
class Subscription {
 public:
  explicit Subscription(int buffer) : buffer_(buffer) {}

  enum class State { kEvent, kTimedOut, kBehind, kClosed, kCancelled };
  struct Item {
    State state = State::kTimedOut;
    SharedEventPtr event;  // when state == kEvent
  };
  // The next queued event, waiting up to `timeout`. Queued events come
  // before kClosed; kBehind and kCancelled come at once.
  Item Next(absl::Duration timeout);

  // Wakes a waiting Next; every later Next returns kCancelled.
  void Cancel();

  // Calls `ready` once when Next(zero) would not time out: at once (on this
  // thread) if that is so now, else from the next Push, Close or Cancel,
  // outside this subscription's lock. Replaces a request not yet run.
  void NotifyWhenReady(std::function<void()> ready);
  // Drops a pending request; after it returns, no `ready` of this
  // subscription is running or will run.
  void ForgetReady();

 private:
  friend class EventHub;
  // Queues the event; false (and now behind) if the queue was full.
  // Returns in *ready the request to run once the caller holds no lock.
  bool Push(const SharedEventPtr& event, std::function<void()>* ready);
  void Close();
  // Whether Next(zero) would answer at once.
  bool ReadyLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes the pending request out, counted as running until RunReady.
  std::function<void()> TakeReadyLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs a request from TakeReadyLocked (nothing if empty) with no lock held.
  void RunReady(std::function<void()> ready);

  const int buffer_;
  Mutex mu_;
  CondVar changed_;  // signalled on every change below
  std::deque<SharedEventPtr> queue_ ABSL_GUARDED_BY(mu_);
  bool behind_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> ready_ ABSL_GUARDED_BY(mu_);
  int ready_running_ ABSL_GUARDED_BY(mu_) = 0;
};

// The subscriptions of one session. Thread-safe.
class EventHub {
 public:
  explicit EventHub(int buffer) : buffer_(buffer) {}

  // A new subscription receiving every event published from now on;
  // RESOURCE_EXHAUSTED if `max_watchers` are already subscribed. After
  // Close the subscription is closed at once.
  absl::StatusOr<std::shared_ptr<Subscription>> Subscribe(int max_watchers);
  // Stops publishing to `sub` (a no-op if it was already cut off).
  void Unsubscribe(const Subscription* sub);

  // Queues the events for every subscriber, in order; never blocks on one.
  // A subscriber whose queue is full is cut off and forgotten.
  void Publish(const std::vector<SharedEventPtr>& events);
  // The same for events not shared yet: each is shared once here.
  void Publish(std::vector<v1::Event> events);

  // No more events: every subscription ends after its queued events.
  void Close();

  int watcher_count();

 private:
  const int buffer_;
  Mutex mu_;
  std::vector<std::shared_ptr<Subscription>> subs_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace khet

#endif  // KHET_SERVICE_EVENTS_EVENT_HUB_H_
