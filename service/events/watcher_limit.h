// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The service's live watchers over all sessions, counted against one limit
// (ServiceLimits::max_watchers), whatever serves them: gRPC streams, HTTP
// long polls and event streams alike.
#ifndef KHET_SERVICE_EVENTS_WATCHER_LIMIT_H_
#define KHET_SERVICE_EVENTS_WATCHER_LIMIT_H_

#include <atomic>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace khet {

class WatcherLimit {
 public:
  // One watcher's place, given back when destroyed (it may outlive the
  // WatcherLimit). Movable.
  class Place {
   public:
    Place() = default;
    Place(Place&& other) noexcept : count_(std::move(other.count_)) {}
    Place& operator=(Place&& other) noexcept {
      Release();
      count_ = std::move(other.count_);
      return *this;
    }
    ~Place() { Release(); }

   private:
    friend class WatcherLimit;
    explicit Place(std::shared_ptr<std::atomic<int>> count)
        : count_(std::move(count)) {}
    void Release() {
      if (count_ != nullptr) count_->fetch_sub(1);
      count_ = nullptr;
    }
    std::shared_ptr<std::atomic<int>> count_;
  };

  explicit WatcherLimit(int max) : max_(max) {}

  // A place, or RESOURCE_EXHAUSTED naming the limit when `max` are taken.
  absl::StatusOr<Place> Take() {
    int taken = count_->load();
    do {
      if (taken >= max_) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "the service has the maximum of ", max_,
            " watchers over all sessions (max_watchers); try again later"));
      }
    } while (!count_->compare_exchange_weak(taken, taken + 1));
    return Place(count_);
  }

  // Places taken now.
  int count() const { return count_->load(); }

 private:
  const int max_;
  const std::shared_ptr<std::atomic<int>> count_ =
      std::make_shared<std::atomic<int>>(0);
};

}  // namespace khet

#endif  // KHET_SERVICE_EVENTS_WATCHER_LIMIT_H_
