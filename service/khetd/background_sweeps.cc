// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/khetd/background_sweeps.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "absl/time/clock.h"

namespace khet {

BackgroundSweeps::BackgroundSweeps(SessionService* core,
                                   absl::Duration interval)
    : core_(core),
      timeouts_([this, interval] { SweepTimeouts(interval); }),
      flags_([this] { SweepFlags(); }) {}

BackgroundSweeps::~BackgroundSweeps() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  timeouts_.join();
  flags_.join();
}

bool BackgroundSweeps::WaitUntil(absl::Time next) {
  MutexLock lock(&mu_);
  while (!stop_ && absl::Now() < next) {
    cv_.WaitWithTimeout(&mu_, next - absl::Now());
  }
  return stop_;
}

// Resets timed-out games every interval until told to stop.
void BackgroundSweeps::SweepTimeouts(absl::Duration interval) {
  const absl::Time start = absl::Now();
  for (int64_t round = 1;; ++round) {
    if (WaitUntil(start + round * interval)) return;
    const int reset = core_->SweepTimeouts();
    if (reset > 0) {
      std::fprintf(stderr, "khetd: reset or ended %d timed-out game(s)\n",
                   reset);
    }
    const int removed = core_->SweepUnclaimed();
    if (removed > 0) {
      std::fprintf(stderr,
                   "khetd: removed %d session(s) nobody joined within "
                   "--unclaimed_session_timeout_seconds\n",
                   removed);
    }
  }
}

// Ends clocked games at the moment a flag falls: waits for the next flag
// time (looking again at least every 100 ms, for clocks started since),
// then sweeps the flagged games.
void BackgroundSweeps::SweepFlags() {
  for (;;) {
    if (WaitUntil(std::min(core_->NextFlagFall(),
                           absl::Now() + absl::Milliseconds(100)))) {
      return;
    }
    core_->SweepFlags();
  }
}

}  // namespace khet
