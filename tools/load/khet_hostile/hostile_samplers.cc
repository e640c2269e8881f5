// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_hostile/hostile_samplers.h"

#include <sys/resource.h>
#include <sys/time.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tools/load/common/khetd_process.h"
#include "tools/load/khet_hostile/hostile_latencies.h"

namespace khet::hostile {

PeakSampler::PeakSampler(pid_t pid) : pid_(pid) {
  thread_ = std::thread([this] {
    while (!stop_) {
      absl::StatusOr<int> threads = ThreadCount(pid_);
      absl::StatusOr<int64_t> rss = ResidentBytes(pid_);
      if (threads.ok())
        peak_threads_ = std::max(peak_threads_.load(), *threads);
      if (rss.ok()) peak_rss_ = std::max(peak_rss_.load(), *rss);
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
}

PeakSampler::~PeakSampler() {
  stop_ = true;
  thread_.join();
}

WakeLag::WakeLag() {
  thread_ = std::thread([this] {
    while (!stop_) {
      const absl::Time start = absl::Now();
      absl::SleepFor(absl::Milliseconds(1));
      lags_.Add(start, absl::Now() - absl::Milliseconds(1));
    }
  });
}

Latencies WakeLag::Stop() {
  stop_ = true;
  thread_.join();
  return lags_;
}

CpuShare::CpuShare(pid_t pid)
    : pid_(pid),
      start_(absl::Now()),
      khetd_(CpuNanos(pid).value_or(0)),
      self_(SelfNanos()) {}

std::pair<double, double> CpuShare::Shares() const {
  const double wall = absl::ToDoubleSeconds(absl::Now() - start_) * 1e9;
  return {(CpuNanos(pid_).value_or(0) - khetd_) / wall,
          (SelfNanos() - self_) / wall};
}

int64_t CpuShare::SelfNanos() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  auto nanos = [](const timeval& t) {
    return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_usec * 1000;
  };
  return nanos(usage.ru_utime) + nanos(usage.ru_stime);
}

}  // namespace khet::hostile
