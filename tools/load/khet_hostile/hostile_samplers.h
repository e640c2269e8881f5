// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What khet-hostile samples while it measures: khetd's peak threads and
// memory, how late this tool itself wakes up, and the CPU both use.
#ifndef KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_SAMPLERS_H_
#define KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_SAMPLERS_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>

#include "absl/time/time.h"
#include "tools/load/khet_hostile/hostile_latencies.h"

namespace khet::hostile {

// Samples khetd's threads and RSS every 100 ms while it runs; the peaks.
class PeakSampler {
 public:
  // Starts sampling process `pid`.
  explicit PeakSampler(pid_t pid);
  PeakSampler(const PeakSampler&) = delete;
  PeakSampler& operator=(const PeakSampler&) = delete;
  // Stops sampling.
  ~PeakSampler();

  int peak_threads() const { return peak_threads_; }
  int64_t peak_rss() const { return peak_rss_; }

 private:
  const pid_t pid_;
  std::atomic<bool> stop_{false};
  std::atomic<int> peak_threads_{0};
  std::atomic<int64_t> peak_rss_{0};
  std::thread thread_;
};

// How late this process wakes from 1 ms sleeps while it runs: the
// machine's own delays, to tell from khetd's in the timeline.
class WakeLag {
 public:
  // Starts sleeping and measuring.
  WakeLag();
  WakeLag(const WakeLag&) = delete;
  WakeLag& operator=(const WakeLag&) = delete;

  // Stops; the lags, as latencies. REQUIRES: called once.
  Latencies Stop();

 private:
  std::atomic<bool> stop_{false};
  Latencies lags_;
  std::thread thread_;
};

// The CPU khetd and this tool use from construction to Shares(), in cores.
class CpuShare {
 public:
  // Starts counting for khetd, process `pid`, and for this process.
  explicit CpuShare(pid_t pid);

  // Cores used since construction: khetd's, then this tool's.
  std::pair<double, double> Shares() const;

 private:
  // This process's CPU time so far, user and system, in nanoseconds.
  static int64_t SelfNanos();

  const pid_t pid_;
  const absl::Time start_;
  const int64_t khetd_;
  const int64_t self_;
};

}  // namespace khet::hostile

#endif  // KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_SAMPLERS_H_
