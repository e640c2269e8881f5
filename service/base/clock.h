// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Time, injected so that inactivity timeouts are tested without sleeping.
#ifndef KHET_SERVICE_BASE_CLOCK_H_
#define KHET_SERVICE_BASE_CLOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"

namespace khet {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() = 0;
};

// The system clock. Never deleted.
Clock* RealClock();

// A clock that moves only when told. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1'700'000'000))
      : now_(start) {}
  absl::Time Now() override {
    MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_BASE_CLOCK_H_
