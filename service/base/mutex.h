// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A mutex and condition variable for the service, on the C++ standard ones,
// with Abseil's thread-safety annotations so ABSL_GUARDED_BY works as with
// absl::Mutex.
//
// Why not absl::Mutex: Debian's Abseil is built without ThreadSanitizer
// annotations, so TSan cannot see the ordering an absl::Mutex creates and
// reports races in correctly locked code. std::mutex goes through pthreads,
// which TSan understands, so the tsan preset checks the service for real.
#ifndef KHET_SERVICE_BASE_MUTEX_H_
#define KHET_SERVICE_BASE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace khet {

class ABSL_LOCKABLE Mutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // Takes the lock if it is free; false (not held) if not.
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) {
    return mu_.try_lock();
  }
  // Tells the thread-safety analysis that the caller holds the lock; not
  // checked at run time.
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Like absl::CondVar: the Wait functions return true if they timed out.
class CondVar {
 public:
  // Releases *mu while waiting for a Signal/SignalAll or until `timeout`
  // passes; holds it again on return. Spurious wake-ups happen: callers
  // re-check their condition in a loop. REQUIRES: *mu is held; timeout is
  // finite.
  bool WaitWithTimeout(Mutex* mu, absl::Duration timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const std::cv_status status =
        cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout));
    lock.release();  // the caller still owns the lock
    return status == std::cv_status::timeout;
  }
  // As WaitWithTimeout, until the wall-clock `deadline`.
  bool WaitWithDeadline(Mutex* mu, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return true;
    return WaitWithTimeout(mu, left);
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace khet

#endif  // KHET_SERVICE_BASE_MUTEX_H_
