// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_hostile/hostile_latencies.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/time/time.h"

namespace khet::hostile {

void Latencies::Add(absl::Time start, absl::Time end) {
  ms.push_back(absl::ToDoubleMilliseconds(end - start));
  started.push_back(start);
}

void Latencies::Merge(const Latencies& other) {
  ms.insert(ms.end(), other.ms.begin(), other.ms.end());
  started.insert(started.end(), other.started.begin(), other.started.end());
  for (const auto& [error, n] : other.errors) errors[error] += n;
}

std::vector<double> Latencies::SlowestPerSecond(absl::Time from) const {
  std::vector<double> slowest;
  for (size_t i = 0; i < ms.size(); ++i) {
    const int64_t second = absl::ToInt64Seconds(started[i] - from);
    if (second < 0) continue;
    if (slowest.size() <= static_cast<size_t>(second)) {
      slowest.resize(second + 1, 0);
    }
    slowest[second] = std::max(slowest[second], ms[i]);
  }
  return slowest;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p * values.size()));
  rank = std::clamp<size_t>(rank, 1, values.size());
  return values[rank - 1];
}

}  // namespace khet::hostile
