// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Speed of the rules core and the search from the Classic 2 start, single
// thread. Run
//   build/release/engine/engine_benchmark --benchmark_repetitions=7
//       --benchmark_report_aggregates_only=true
// and compare medians; BM_CopyPosition is the in-run baseline (the cost of
// the copy that every copy-make move pays), and perft's moves/s the
// baseline for the search's nodes/s.
#include "benchmark/benchmark.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/perft.h"
#include "engine/play.h"
#include "engine/search.h"
#include "engine/setups.h"

namespace khet {
namespace {

Position Start(const char* id = "classic-2") { return *SetupPosition(id); }

void BM_CopyPosition(benchmark::State& state) {
  const Position pos = Start();
  for (auto _ : state) {
    Position copy = pos;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_CopyPosition);

void BM_GenerateMoves(benchmark::State& state) {
  const Position pos = Start();
  MoveList list;
  for (auto _ : state) {
    GenerateMoves(pos, &list);
    benchmark::DoNotOptimize(list.moves[0]);
  }
  state.counters["moves"] = list.size;
}
BENCHMARK(BM_GenerateMoves);

void BM_CountMoves(benchmark::State& state) {
  const Position pos = Start();
  for (auto _ : state) benchmark::DoNotOptimize(CountMoves(pos));
}
BENCHMARK(BM_CountMoves);

void BM_LaserHits(benchmark::State& state) {
  const Position pos = Start();
  for (auto _ : state) benchmark::DoNotOptimize(LaserHits(pos, Color::kSilver));
}
BENCHMARK(BM_LaserHits);

void BM_TraceLaser(benchmark::State& state) {
  const Position pos = Start(state.range(0) == 0 ? "classic-2" : "osiris");
  for (auto _ : state) {
    BeamTrace trace = TraceLaser(pos, Color::kSilver);
    benchmark::DoNotOptimize(trace.hit);
  }
}
BENCHMARK(BM_TraceLaser)->Arg(0)->Arg(1);

// Copy, play and fire every move of the start position; time per move.
// Arg 0 traces the laser for every move; arg 1 reuses the mover's beam when
// the move does not touch it (what search and perft do).
void BM_MakeMove(benchmark::State& state) {
  const Position pos = Start();
  MoveList list;
  GenerateMoves(pos, &list);
  const BeamPath beam = TraceBeamPath(pos, pos.side_to_move());
  for (auto _ : state) {
    for (Move m : list) {
      Position child = pos;
      benchmark::DoNotOptimize(state.range(0) == 0 ? MakeMove(&child, m)
                                                   : MakeMove(&child, m, beam));
      benchmark::DoNotOptimize(child);
    }
  }
  state.SetItemsProcessed(state.iterations() * list.size);
}
BENCHMARK(BM_MakeMove)->Arg(0)->Arg(1);

void BM_Perft(benchmark::State& state) {
  const Position pos = Start();
  const int depth = static_cast<int>(state.range(0));
  const bool bulk = state.range(1) != 0;
  uint64_t leaves = 0;
  for (auto _ : state) leaves = Perft(pos, depth, bulk);
  state.counters["leaves"] = static_cast<double>(leaves);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * leaves));
}
BENCHMARK(BM_Perft)
    ->Args({4, 0})
    ->Args({5, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// The computer opponent: a fixed-depth search (Arg: depth) from Classic 2,
// its time, nodes and nodes/s with the real evaluation.
void BM_Search(benchmark::State& state) {
  const Position pos = Start();
  SearchLimits limits;
  limits.max_depth = static_cast<int>(state.range(0));
  uint64_t nodes = 0;
  for (auto _ : state) {
    const SearchResult result = Search(pos, limits);
    nodes = result.nodes;
    benchmark::DoNotOptimize(result.best_move);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["nodes/s"] = benchmark::Counter(
      static_cast<double>(nodes) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Search)->Arg(5)->Arg(7)->Unit(benchmark::kMillisecond);

// Nodes/s of fixed-node searches from five setups of both editions and the
// Eye of Horus (Arg: the setup's index), a million nodes each.
void BM_SearchNodes(benchmark::State& state) {
  static constexpr const char* kIds[] = {"classic-2", "imhotep-2", "dynasty-2",
                                         "classic-1", "classic-2b"};
  const Position pos = Start(kIds[state.range(0)]);
  SearchLimits limits;
  limits.max_nodes = 1000000;
  uint64_t nodes = 0;
  for (auto _ : state) {
    const SearchResult result = Search(pos, limits);
    nodes = result.nodes;
    benchmark::DoNotOptimize(result.best_move);
  }
  state.SetLabel(kIds[state.range(0)]);
  state.counters["nodes/s"] = benchmark::Counter(
      static_cast<double>(nodes) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SearchNodes)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace khet

BENCHMARK_MAIN();
