// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-load's figures: the calls of one kind of phase over its rounds,
// tallied into calls/s, latency percentiles and khetd's CPU per call.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_FIGURES_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_FIGURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/load/khet_load/load_worker.h"

namespace khet::load {

// What one kind of phase measured over all its rounds.
struct Figures {
  double calls_per_second = 0;  // median over rounds
  double server_cpu_us = 0;     // khetd's CPU time per call, median; 0: unknown
  double p50_ms = 0, p99_ms = 0, p999_ms = 0;
  int64_t calls = 0;
};

// The rounds' samples of one kind of phase: each round's calls that
// started and ended inside its window.
class Tally {
 public:
  // Adds the calls of `samples` that started and ended inside
  // [window_start, window_end] as one round. `server_cpu_ns`: khetd's CPU
  // time during the window (0: unknown).
  void AddRound(const std::vector<Sample>& samples, int64_t window_start,
                int64_t window_end, int64_t server_cpu_ns);

  // The figures of all rounds so far: calls/s and CPU per call are the
  // median over rounds, the latencies pool all rounds.
  Figures Compute();

 private:
  std::vector<int64_t> latencies_;
  std::vector<double> rates_;
  std::vector<double> cpu_us_;
};

// `bytes` as "1.5 MiB", or as "12.0 KiB" below a MiB.
std::string FormatBytes(double bytes);

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_FIGURES_H_
