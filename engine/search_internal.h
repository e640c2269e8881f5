// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The searcher behind Search (search.h): one search's state, and the
// members that the search*.cc files define between them. Internal to those
// files.
//
// Contract: a Searcher runs one search (Run, search.cc) and is then thrown
// away. Negamax (search_negamax.cc) is the full-width search, Quiesce
// (search_quiesce.cc) the capture search at its leaves, ScoreMoves
// (search_ordering.cc) lists and orders the moves of a node for both. Node
// counting, the stop flag and the clock are read only through Abort, so
// that without max_time a search depends on its arguments alone.
#ifndef KHET_ENGINE_SEARCH_INTERNAL_H_
#define KHET_ENGINE_SEARCH_INTERNAL_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "engine/bitboard.h"
#include "engine/evaluate.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/search.h"
#include "engine/search_ordering.h"
#include "engine/search_table.h"

namespace khet {
namespace search_internal {

constexpr int kInfinity = 32000;
constexpr int kMaxPly = 100;
constexpr uint64_t kCheckEvery = 1024;  // nodes between clock/flag reads

class Random;  // search.cc's

class Searcher {
 public:
  // `start`: when the clock started.
  Searcher(const SearchLimits& limits, const SearchStyle& style,
           const std::atomic<bool>* stop, SearchTable::Storage& table,
           std::chrono::steady_clock::time_point start)
      : limits_(limits),
        style_(style),
        stop_(stop),
        table_(table, TableEntries(limits)),
        history_(2 * kHistorySize, 0),
        history_keys_(style.history),
        start_(start) {
    std::sort(history_keys_.begin(), history_keys_.end());
    if (limits_.max_time > absl::ZeroDuration()) {
      deadline_ = start_ + absl::ToChronoNanoseconds(limits_.max_time);
    }
  }

  // The iterative-deepening driver at the root (search.cc).
  SearchResult Run(const Position& root);

 private:
  struct RootMove {
    Move move;
    int score = -kInfinity;
    int last_score = -kInfinity;  // of the last completed iteration
    bool known_score = false;
    int known = 0;
    int gain = 0;
  };

  // Counts a node; true once the search must stop.
  bool Abort() {
    if (aborted_) return true;
    if (limits_.max_nodes != 0 && nodes_ >= limits_.max_nodes) {
      aborted_ = true;
      return true;
    }
    ++nodes_;
    if (nodes_ % kCheckEvery == 0) {
      if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
        aborted_ = true;
      } else if (deadline_.has_value() &&
                 std::chrono::steady_clock::now() >= *deadline_) {
        aborted_ = true;
      }
    }
    return aborted_;
  }

  bool IsRepetition(int ply) const {
    const uint64_t key = path_[ply];
    for (int i = ply - 2; i >= 0; i -= 2) {
      if (path_[i] == key) return true;
    }
    return !history_keys_.empty() &&
           std::binary_search(history_keys_.begin(), history_keys_.end(), key);
  }

  // Lists and orders the moves of `pos` (see Listing), playing those that
  // touch the mover's beam to see what their shot does. Moves decided
  // without search (they hit the own Pharaoh, or leave it in check) get
  // known scores; *best_known is the best of those. Returns true with *win
  // set if a move wins at once.
  // Moves in `skip` (null moves in it match nothing) are left out.
  bool ScoreMoves(const Position& pos, const EvalState& st, bool in_check,
                  Listing listing, absl::Span<const Move> skip, int ply,
                  int* count, int* best_known, Move* win);

  int Negamax(const Position& pos, EvalState& st, int depth, int alpha,
              int beta, int ply, bool pv_node);
  int Quiesce(const Position& pos, EvalState& st, int alpha, int beta, int ply,
              int qply);

  // Plays sm in pos into *child with its state (reusing the child played
  // by ScoreMoves).
  void Play(const Position& pos, const EvalState& st, const ScoredMove& sm,
            int ply, Position* child, EvalState* child_state) {
    Bitboard hits = 0;
    if (sm.probe >= 0) {
      const ProbedChild& probed = probed_[ply].items[sm.probe];
      *child = probed.pos;
      hits = probed.hits;
    } else {
      *child = pos;
      MakeMove(child, sm.move, st.beam[Index(pos.side_to_move())], &hits);
    }
    UpdateEvalState(pos, st, sm.move, hits, *child, child_state);
  }

  void UpdatePv(int ply, Move m) {
    pv_[ply][ply] = m;
    for (int i = ply + 1; i < pv_len_[ply + 1]; ++i) {
      pv_[ply][i] = pv_[ply + 1][i];
    }
    pv_len_[ply] = std::max(pv_len_[ply + 1], ply + 1);
  }

  int& History(Color c, Move m) {
    return history_[Index(c) * kHistorySize + HistoryIndex(m)];
  }

  // A beginner's move, judged by its own shot alone (search.cc).
  SearchResult Careless(const std::vector<RootMove>& moves, Random& random);

  const SearchLimits& limits_;
  const SearchStyle& style_;
  const std::atomic<bool>* stop_;
  TranspositionTable table_;
  std::vector<int> history_;
  std::vector<uint64_t> history_keys_;
  std::chrono::steady_clock::time_point start_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  uint64_t nodes_ = 0;
  bool aborted_ = false;
  uint64_t path_[kMaxPly + 1] = {};
  Move killers_[kMaxPly + 1][2] = {};
  Move pv_[kMaxPly + 1][kMaxPly + 1] = {};
  int pv_len_[kMaxPly + 2] = {};
  Scratch<MoveList, 1> move_lists_[kMaxPly + 1];
  Scratch<ScoredMove, kMaxMoves> scored_[kMaxPly + 1];
  Scratch<ProbedChild, kMaxProbed> probed_[kMaxPly + 1];
};

}  // namespace search_internal
}  // namespace khet

#endif  // KHET_ENGINE_SEARCH_INTERNAL_H_
