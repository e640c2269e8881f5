// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The interface every watcher reads a session's events through.
#ifndef KHET_SERVICE_EVENTS_EVENT_STREAM_H_
#define KHET_SERVICE_EVENTS_EVENT_STREAM_H_

#include <functional>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.pb.h"
#include "service/events/shared_event.h"

namespace khet {

// One watcher's view of a session's events. Not thread-safe: one reader.
class EventStream {
 public:
  virtual ~EventStream() = default;
  // The next event, waiting up to `timeout`; null if none came in time.
  // RESOURCE_EXHAUSTED if this watcher fell behind (the message names the
  // version to resume after), NOT_FOUND once the session is deleted (after
  // its SessionDeleted event has been returned), CANCELLED after Cancel.
  // A live event is the one object published to every watcher; adapters
  // take its encodings from it, made once for all.
  virtual absl::StatusOr<SharedEventPtr> NextShared(absl::Duration timeout) = 0;
  // NextShared with the event copied out (nullopt for null), for readers
  // that want their own.
  absl::StatusOr<std::optional<v1::Event>> Next(absl::Duration timeout) {
    absl::StatusOr<SharedEventPtr> next = NextShared(timeout);
    if (!next.ok()) return next.status();
    if (*next == nullptr) return std::nullopt;
    return (*next)->event();
  }
  // Wakes a blocked Next and ends the stream; callable from any thread.
  virtual void Cancel() = 0;
  // For readers that must not block (event loops, gRPC reactors): asks for
  // `ready` to be called once, when Next(absl::ZeroDuration()) may answer
  // something other than nullopt (an event, an error, the end). If that is
  // so already, `ready` runs at once on this thread before the call
  // returns; otherwise later, on the thread that publishes, cancels or
  // closes, with no lock of the stream's held. One request at a time: a
  // later one replaces an earlier one that has not run. `ready` must be
  // quick (hand the work over, never call Next in it). Not called after the
  // stream is destroyed.
  virtual void NotifyWhenReady(std::function<void()> ready) = 0;
};

}  // namespace khet

#endif  // KHET_SERVICE_EVENTS_EVENT_STREAM_H_
