// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The requests that wait for events (long polls and event streams): at
// most a fixed number at once, so that they cannot take every server
// thread, and all of them ended at once on shutdown. Thread-safe.
#ifndef KHET_SERVICE_HTTP_WAITING_REQUESTS_H_
#define KHET_SERVICE_HTTP_WAITING_REQUESTS_H_

#include <memory>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/core/session_service.h"

namespace khet {

class WaitingRequests {
 public:
  explicit WaitingRequests(int max_waiting) : max_waiting_(max_waiting) {}

  // One waiting request's place; gives it back (and forgets its stream)
  // when destroyed.
  class Place {
   public:
    ~Place();
    Place(const Place&) = delete;
    Place& operator=(const Place&) = delete;

    // Makes Shutdown cancel `stream` (at once if it already happened)
    // until this place is given back. `stream` must outlive the place.
    void Watch(EventStream* stream);

   private:
    friend class WaitingRequests;
    explicit Place(WaitingRequests* owner) : owner_(owner) {}
    WaitingRequests* const owner_;
    EventStream* stream_ = nullptr;
  };

  // A place, or RESOURCE_EXHAUSTED when max_waiting are taken, or
  // UNAVAILABLE after Shutdown.
  absl::StatusOr<std::unique_ptr<Place>> Enter();

  // Cancels every watched stream and refuses new places.
  void Shutdown();
  // Waits until every place is given back or `timeout` passed; true if
  // none is taken.
  bool WaitUntilNoneWaits(absl::Duration timeout);
  bool shutting_down();
  int waiting();

 private:
  const int max_waiting_;
  Mutex mu_;
  CondVar given_back_;  // signalled when a place is given back
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  std::set<EventStream*> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_WAITING_REQUESTS_H_
