// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's background sweeps over the sessions: every interval, games past
// their inactivity timeout are reset and sessions nobody joined removed;
// and clocked games end at the moment a flag falls.
#ifndef KHET_SERVICE_KHETD_BACKGROUND_SWEEPS_H_
#define KHET_SERVICE_KHETD_BACKGROUND_SWEEPS_H_

#include <thread>

#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/core/session_service.h"

namespace khet {

// Starts both sweeping threads; the destructor stops and joins them. Each
// sweep says on stderr what it reset or removed, if anything. `core` must
// outlive this.
class BackgroundSweeps {
 public:
  BackgroundSweeps(SessionService* core, absl::Duration interval);
  ~BackgroundSweeps();
  BackgroundSweeps(const BackgroundSweeps&) = delete;
  BackgroundSweeps& operator=(const BackgroundSweeps&) = delete;

 private:
  // Waits until `next` or until stopped; true once stopped.
  bool WaitUntil(absl::Time next);
  void SweepTimeouts(absl::Duration interval);
  void SweepFlags();

  SessionService* const core_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread timeouts_;
  std::thread flags_;
};

}  // namespace khet

#endif  // KHET_SERVICE_KHETD_BACKGROUND_SWEEPS_H_
