// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-hostile's latency figures: the latencies of one kind of well-behaved
// call with its failures, and their percentiles.
#ifndef KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_LATENCIES_H_
#define KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_LATENCIES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace khet::hostile {

// Latencies in ms of one kind of well-behaved call, and its failures.
struct Latencies {
  std::vector<double> ms;
  std::vector<absl::Time> started;  // when each call of `ms` started
  std::map<std::string, int> errors;

  // Adds a call that ran from `start` to `end`.
  void Add(absl::Time start, absl::Time end);
  // Adds all of `other`'s calls and failures.
  void Merge(const Latencies& other);
  // The slowest call started in each second after `from`, in ms.
  std::vector<double> SlowestPerSecond(absl::Time from) const;
};

// The `p` percentile (0 < p <= 1) of `values` by the nearest rank; 0 for
// none.
double Percentile(std::vector<double> values, double p);

}  // namespace khet::hostile

#endif  // KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_LATENCIES_H_
