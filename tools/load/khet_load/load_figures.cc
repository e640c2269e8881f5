// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_figures.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tools/load/khet_load/load_worker.h"

namespace khet::load {
namespace {

// The `p` percentile of `sorted` nanoseconds by the nearest rank, in ms.
double Percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p * sorted.size()));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1] / 1e6;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

void Tally::AddRound(const std::vector<Sample>& samples, int64_t window_start,
                     int64_t window_end, int64_t server_cpu_ns) {
  int64_t n = 0;
  for (const Sample& s : samples) {
    if (s.start_ns < window_start || s.end_ns > window_end) continue;
    latencies_.push_back(s.end_ns - s.start_ns);
    ++n;
  }
  rates_.push_back(n / ((window_end - window_start) / 1e9));
  if (server_cpu_ns > 0 && n > 0) cpu_us_.push_back(server_cpu_ns / 1e3 / n);
}

Figures Tally::Compute() {
  std::sort(latencies_.begin(), latencies_.end());
  Figures f;
  f.calls_per_second = Median(rates_);
  f.server_cpu_us = Median(cpu_us_);
  f.p50_ms = Percentile(latencies_, 0.5);
  f.p99_ms = Percentile(latencies_, 0.99);
  f.p999_ms = Percentile(latencies_, 0.999);
  f.calls = static_cast<int64_t>(latencies_.size());
  return f;
}

std::string FormatBytes(double bytes) {
  if (std::abs(bytes) >= 1024.0 * 1024) {
    return absl::StrFormat("%.1f MiB", bytes / (1024.0 * 1024));
  }
  return absl::StrFormat("%.1f KiB", bytes / 1024.0);
}

}  // namespace khet::load
