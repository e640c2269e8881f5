// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Wall time of one SuggestMove with a time budget (limits.max_time_ms of
// 20, 200 and 1000 ms) through the service, from the Classic 2 start, in
// two ways measured in the same run:
//   before: the search as it was, which made and zeroed a 32 MiB table for
//           each search and started its clock only after that;
//   after:  the service's own search, a kept table taken from its pool
//           with the clock already running (service/search/search_tables.h).
// Run
//   build/release/service/suggestion_benchmark
// It prints Google Benchmark's lines, then one table of medians over every
// suggestion of each case: wall time, its ratio to the budget, and after
// over before. Prints figures; asserts none.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "engine/search.h"
#include "service/core/session_service.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

constexpr int kBudgetsMs[] = {20, 200, 1000};

// The set-up as it was before tables were kept: a new table made and
// zeroed for every search, outside the search's clock.
SearchResult AsBefore(const Position& pos, const SearchLimits& limits,
                      const SearchStyle& style, const std::atomic<bool>* stop) {
  const auto table = std::make_unique<SearchTable>();
  SearchLimits late = limits;
  late.started = absl::InfinitePast();  // the clock starts in Search
  return Search(pos, late, style, stop, table.get());
}

// One service with a session to suggest moves in.
struct Bench {
  MemoryStore store;
  std::unique_ptr<SessionService> service;
  std::string session_id;
};

Bench& BenchFor(bool after) {
  static std::map<bool, std::unique_ptr<Bench>>* const benches =
      new std::map<bool, std::unique_ptr<Bench>>;
  std::unique_ptr<Bench>& bench = (*benches)[after];
  if (bench == nullptr) {
    bench = std::make_unique<Bench>();
    ServiceOptions options;
    options.store = &bench->store;
    if (!after) options.search = AsBefore;
    bench->service = *SessionService::Create(options);
    v1::CreateSessionRequest create;
    create.set_name("bench");
    create.set_setup_id("classic-2");
    bench->session_id = bench->service->CreateSession(create)->session().id();
  }
  return *bench;
}

// Wall seconds of every suggestion, by (budget in ms, after).
std::map<std::pair<int, bool>, std::vector<double>>& Walls() {
  static auto* const walls =
      new std::map<std::pair<int, bool>, std::vector<double>>;
  return *walls;
}

void BM_Suggestion(benchmark::State& state) {
  const int budget_ms = static_cast<int>(state.range(0));
  const bool after = state.range(1) != 0;
  Bench& bench = BenchFor(after);
  v1::SuggestMoveRequest request;
  request.set_session_id(bench.session_id);
  request.mutable_limits()->set_max_time_ms(budget_ms);
  double ratio_sum = 0;
  for (auto _ : state) {
    const absl::Time start = absl::Now();
    const auto reply = bench.service->SuggestMove(request, CallControl{});
    const double wall = absl::ToDoubleSeconds(absl::Now() - start);
    if (!reply.ok()) {
      state.SkipWithError(reply.status().ToString().c_str());
      return;
    }
    state.SetIterationTime(wall);
    Walls()[{budget_ms, after}].push_back(wall);
    ratio_sum += wall * 1000 / budget_ms;
  }
  state.counters["wall_over_budget"] =
      ratio_sum / static_cast<double>(state.iterations());
  state.SetLabel(after ? "after" : "before");
}
BENCHMARK(BM_Suggestion)
    ->ArgsProduct({{20, 200, 1000}, {0, 1}})
    ->ArgNames({"budget_ms", "after"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->Repetitions(5);

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void PrintSummary() {
  std::printf(
      "\nbudget_ms  n  before_ms  before/budget  after_ms  after/budget  "
      "after/before\n");
  for (const int budget : kBudgetsMs) {
    const std::vector<double>& before = Walls()[{budget, false}];
    const std::vector<double>& after = Walls()[{budget, true}];
    if (before.empty() || after.empty()) continue;
    const double b = Median(before) * 1000, a = Median(after) * 1000;
    std::printf("%9d %2zu %10.1f %14.2f %9.1f %13.2f %13.2f\n", budget,
                std::min(before.size(), after.size()), b, b / budget, a,
                a / budget, a / b);
  }
}

}  // namespace
}  // namespace khet

int main(int argc, char** argv) {
  // Before and after take turns, so that a change in the machine's load
  // falls on both.
  std::vector<char*> args(argv, argv + argc);
  char interleave[] = "--benchmark_enable_random_interleaving=true";
  args.insert(args.begin() + 1, interleave);
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  khet::PrintSummary();
  return 0;
}
