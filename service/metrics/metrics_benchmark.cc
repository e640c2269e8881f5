// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What counting costs on the hot path: a call's counter found by its two
// labels and incremented, and its latency observed, from one thread and
// from two at once (the same series: the worst case for sharing).
#include "benchmark/benchmark.h"
#include "service/metrics/metrics.h"

namespace khet::metrics {
namespace {

Registry& Shared() {
  static Registry* registry = new Registry;
  return *registry;
}

void BM_CounterByLabels(benchmark::State& state) {
  static CounterFamily& calls =
      Shared().AddCounter("bench_calls_total", "Calls.", {"method", "code"});
  for (auto _ : state) calls.Get({"MakeMove", "OK"}).Increment();
}
BENCHMARK(BM_CounterByLabels)->Threads(1)->Threads(2);

void BM_HistogramByLabel(benchmark::State& state) {
  static HistogramFamily& latency = Shared().AddHistogram(
      "bench_latency_seconds", "Latency.", {"method"}, LatencyBounds());
  double value = 0.0002;
  for (auto _ : state) {
    latency.Get({"MakeMove"}).Observe(value);
    value = value < 1 ? value * 1.5 : 0.0002;  // across the buckets
  }
}
BENCHMARK(BM_HistogramByLabel)->Threads(1)->Threads(2);

}  // namespace
}  // namespace khet::metrics

BENCHMARK_MAIN();
