// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The cost of one MakeMove in the service core alone (no gRPC, no HTTP), on
// the memory store: random legal moves from the Classic 2 start, given in
// notation with a request_id as clients send them, with 0, 8 or 64 watchers
// reading every event and taking its wire bytes as a gRPC Watch stream
// writes them. A game that ends or reaches 200 plies is reset and
// both seats taken again outside the measured time. Each move's heap
// allocations in the core (MakeMove and the watchers' reads) are counted
// too: allocs_per_move. BM_EngineMove does the engine's part of a move
// alone (Game::Play and the laser's trace) and counts its allocations.
//   build/release/service/move_path_benchmark
// Prints Google Benchmark's lines (time per move); asserts nothing.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/setups.h"
#include "service/core/session_service.h"
#include "service/store/memory_store.h"

// Every heap allocation of the process, counted.
std::atomic<int64_t> g_allocations{0};

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC takes these frees for frees of memory from new; they are the
// counterparts of the malloc above.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace khet {
namespace {

constexpr int kPlyLimit = 200;

class Table {
 public:
  explicit Table(int watchers) {
    ServiceOptions options;
    options.store = &store_;
    service_ = *SessionService::Create(options);
    v1::CreateSessionRequest create;
    create.set_name("bench");
    auto created = service_->CreateSession(create);
    session_id_ = created->session().id();
    owner_ = Caller{created->owner_token()};
    for (int i = 0; i < watchers; ++i) {
      v1::WatchRequest watch;
      watch.set_session_id(session_id_);
      streams_.push_back(*service_->Watch(watch));
    }
    NewGame();
  }

  // Plays one random legal move through MakeMove; false if the game needs
  // a reset.
  bool PlayOne() {
    MoveList moves;
    GenerateMoves(pos_, &moves);
    const khet::Move move = moves.moves[rng_() % moves.size];
    v1::MakeMoveRequest request;
    request.set_session_id(session_id_);
    request.mutable_move()->set_notation(FormatMove(pos_, move));
    request.set_request_id(absl::StrCat("m", ++count_));
    const Caller& mover = tokens_[static_cast<int>(pos_.side_to_move())];
    const int64_t allocations = g_allocations.load();
    auto reply = service_->MakeMove(request, mover);
    if (!reply.ok()) std::abort();
    benchmark::DoNotOptimize(reply);
    const bool hit = MakeMove(&pos_, move) != 0;
    for (auto& stream : streams_) {
      while (true) {
        absl::StatusOr<SharedEventPtr> next =
            stream->NextShared(absl::ZeroDuration());
        if (!next.ok()) std::abort();
        if (*next == nullptr) break;
        benchmark::DoNotOptimize((*next)->wire().data());
      }
    }
    allocations_ += g_allocations.load() - allocations;
    return !hit && ++plies_ < kPlyLimit;
  }

  int64_t allocations() const { return allocations_; }

  void NewGame() {
    if (plies_ > 0) {
      v1::ResetGameRequest reset;
      reset.set_session_id(session_id_);
      if (!service_->ResetGame(reset, owner_).ok()) std::abort();
    }
    for (int i = 0; i < 2; ++i) {
      v1::JoinSeatRequest join;
      join.set_session_id(session_id_);
      join.set_player_name(i == 0 ? "Silver" : "Red");
      join.set_color(i == 0 ? v1::SILVER : v1::RED);
      auto joined = service_->JoinSeat(join);
      if (!joined.ok()) std::abort();
      tokens_[i] = Caller{joined->player_token()};
    }
    pos_ = *SetupPosition("classic-2");
    plies_ = 0;
    for (auto& stream : streams_) {
      while (*stream->NextShared(absl::ZeroDuration()) != nullptr) {
      }
    }
  }

 private:
  MemoryStore store_;
  std::unique_ptr<SessionService> service_;
  std::string session_id_;
  Caller owner_;
  Caller tokens_[2];
  std::vector<std::unique_ptr<EventStream>> streams_;
  Position pos_;
  int plies_ = 0;
  int64_t count_ = 0;
  int64_t allocations_ = 0;
  std::mt19937_64 rng_{7};
};

void BM_MakeMove(benchmark::State& state) {
  Table table(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    if (!table.PlayOne()) {
      state.PauseTiming();
      table.NewGame();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allocs_per_move"] =
      benchmark::Counter(static_cast<double>(table.allocations()),
                         benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_MakeMove)
    ->ArgName("watchers")
    ->Arg(0)
    ->Arg(8)
    ->Arg(64)
    ->MinTime(2.0);

void BM_EngineMove(benchmark::State& state) {
  const Position start = *SetupPosition("classic-2");
  std::mt19937_64 rng(7);
  Game game(start);
  int64_t allocations = 0;
  for (auto _ : state) {
    MoveList moves;
    GenerateMoves(game.position(), &moves);
    const khet::Move move = moves.moves[rng() % moves.size];
    const Color mover = game.position().side_to_move();
    const int64_t before = g_allocations.load();
    auto effects = game.Play(move);
    if (!effects.ok()) std::abort();
    BeamTrace trace = TraceLaser(game.position(), mover);
    benchmark::DoNotOptimize(trace);
    allocations += g_allocations.load() - before;
    if (game.over() || game.ply() >= kPlyLimit) {
      state.PauseTiming();
      game = Game(start);
      state.ResumeTiming();
    }
  }
  state.counters["allocs_per_move"] = benchmark::Counter(
      static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_EngineMove)->MinTime(1.0);

}  // namespace
}  // namespace khet

BENCHMARK_MAIN();
