// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The search's driver (Search of search.h): the clock, the table, and
// iterative deepening at the root. The root's moves are listed once and
// searched from depth 1 up, best first, each iteration's scores ordering
// the next; the levels' noise and blunders are applied here, to root
// moves only. The tree below the root is search_negamax.cc's and
// search_quiesce.cc's; move listing and ordering search_ordering.cc's; the
// transposition table search_table.cc's.
#include "engine/search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/evaluate.h"
#include "engine/search_internal.h"
#include "engine/search_ordering.h"
#include "engine/search_table.h"

namespace khet {
namespace search_internal {
namespace {

constexpr int kDefaultDepth = 4;  // when no limit is set

}  // namespace

// ---- random numbers (deterministic, independent of the library) -------------

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-n, n].
  int Noise(int n) {
    return n <= 0 ? 0 : static_cast<int>(Next() % (2 * n + 1)) - n;
  }
  // Uniform in [0, 1).
  double Fraction() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// A beginner's move: its own shot judged (a win, a loss, what it takes and
// loses), the opponent's reply not looked at, and plenty of noise.
SearchResult Searcher::Careless(const std::vector<RootMove>& moves,
                                Random& random) {
  SearchResult result;
  int best = -kInfinity;
  const int noise = std::max(style_.score_noise, 50);
  for (const RootMove& rm : moves) {
    int score = rm.known_score ? rm.known : rm.gain + random.Noise(noise);
    if (score > best) {
      best = score;
      result.best_move = rm.move;
      result.score = score;
    }
  }
  result.principal_variation = {result.best_move};
  result.depth = 1;
  result.nodes = moves.size();
  return result;
}

SearchResult Searcher::Run(const Position& root) {
  SearchResult result;
  EvalState st = ComputeEvalState(root);
  const Color us = root.side_to_move();
  Random random(style_.seed ^ (root.hash() * 0x2545f4914f6cdd1dULL));

  const bool in_check =
      (st.beam[Index(Opponent(us))].hits & Bit(st.pharaoh[Index(us)])) != 0;
  ScoredMove* list = scored_[0].items;
  int n = 0, best_known = 0;
  Move win;
  ++nodes_;
  path_[0] = root.hash();
  // Wins in one the style overlooks are left out of the listing.
  std::vector<Move> overlooked;
  while (ScoreMoves(root, st, in_check, Listing::kAll, overlooked, 0, &n,
                    &best_known, &win)) {
    const Bitboard touched = SquareBit(win.from()) | SquareBit(win.to());
    if (style_.overlook_win_chance <= 0 ||
        (touched & st.beam[Index(us)].squares) == 0 ||
        random.Fraction() >= style_.overlook_win_chance) {
      result.best_move = win;
      result.score = kMateScore - 1;
      result.principal_variation = {win};
      result.depth = 1;
      result.nodes = nodes_;
      return result;
    }
    overlooked.push_back(win);
  }
  if (n == 0) {
    result.nodes = nodes_;
    return result;
  }
  std::vector<RootMove> moves;
  for (int i = 0; i < n; ++i) {
    PickNext(list, i, n);
    RootMove rm;
    rm.move = list[i].move;
    rm.known_score = list[i].known_score;
    rm.known = list[i].known;
    rm.gain = list[i].capture ? list[i].order - kOrderCapture : 0;
    moves.push_back(rm);
  }
  result.best_move = moves[0].move;
  result.principal_variation = {moves[0].move};
  result.score = moves[0].known_score ? moves[0].known : 0;

  if (style_.blunder_chance > 0 && random.Fraction() < style_.blunder_chance) {
    SearchResult careless = Careless(moves, random);
    careless.elapsed =
        absl::FromChrono(std::chrono::steady_clock::now() - start_);
    return careless;
  }

  const bool exact_all = style_.score_noise > 0;
  int max_depth = limits_.max_depth;
  if (max_depth <= 0 || max_depth > kMaxPly - 10) {
    max_depth = (limits_.max_nodes == 0 &&
                 limits_.max_time == absl::ZeroDuration() && stop_ == nullptr)
                    ? kDefaultDepth
                    : kMaxPly - 10;
  }
  const bool timed = deadline_.has_value();
  for (int depth = 1; depth <= max_depth; ++depth) {
    int alpha = -kInfinity;
    const int beta = kInfinity;
    int best = -kInfinity;
    int best_index = -1;
    int completed = 0;
    for (size_t i = 0; i < moves.size(); ++i) {
      RootMove& rm = moves[i];
      int score;
      if (rm.known_score) {
        score = rm.known;
      } else {
        Position child;
        EvalState ck;
        Play(root, st, ScoredMove{rm.move, -1, false, false, 0, 0}, 0, &child,
             &ck);
        if (best_index < 0 || exact_all) {
          score = -Negamax(child, ck, depth - 1, -beta,
                           exact_all ? kInfinity : -alpha, 1, true);
        } else {
          score = -Negamax(child, ck, depth - 1, -alpha - 1, -alpha, 1, false);
          if (!aborted_ && score > alpha) {
            score = -Negamax(child, ck, depth - 1, -beta, -alpha, 1, true);
          }
        }
        if (aborted_) break;
      }
      ++completed;
      rm.score = score;
      if (score > best) {
        best = score;
        best_index = static_cast<int>(i);
        if (!rm.known_score) {
          UpdatePv(0, rm.move);
        } else {
          pv_len_[0] = 1;
          pv_[0][0] = rm.move;
        }
        if (!exact_all) alpha = std::max(alpha, score);
      }
    }
    // Stopped during this iteration: the moves searched so far started
    // with the last iteration's best, so the best of them is worth playing
    // (with noise, every score of the iteration is needed: keep the last).
    if (completed == 0 || best_index < 0) break;
    if (aborted_ && exact_all) break;
    result.best_move = moves[best_index].move;
    result.score = best;
    result.principal_variation.assign(pv_[0], pv_[0] + pv_len_[0]);
    if (result.principal_variation.empty() ||
        result.principal_variation[0] != result.best_move) {
      result.principal_variation = {result.best_move};
    }
    if (aborted_) break;
    result.depth = depth;
    for (RootMove& rm : moves) rm.last_score = rm.score;
    // Best first for the next iteration, the rest by score.
    std::stable_sort(
        moves.begin(), moves.end(),
        [](const RootMove& a, const RootMove& b) { return a.score > b.score; });
    if (best >= kMateThreshold && kMateScore - best <= depth) {
      break;  // a forced win within the horizon: none can be faster
    }
    if (timed) {
      const auto spent = std::chrono::steady_clock::now() - start_;
      if (spent * 2 > *deadline_ - start_) break;  // the next would not end
    }
  }

  if (exact_all && result.depth > 0) {
    int best = -kInfinity * 2;
    const RootMove* chosen = nullptr;
    for (const RootMove& rm : moves) {
      const bool decided = std::abs(rm.last_score) >= kMateThreshold;
      const int noisy =
          rm.last_score + (decided ? 0 : random.Noise(style_.score_noise));
      if (noisy > best) {
        best = noisy;
        chosen = &rm;
      }
    }
    if (chosen != nullptr && chosen->move != result.best_move) {
      result.best_move = chosen->move;
      result.score = chosen->last_score;
      result.principal_variation = {chosen->move};
    }
  }
  result.nodes = nodes_;
  result.elapsed = absl::FromChrono(std::chrono::steady_clock::now() - start_);
  return result;
}

}  // namespace search_internal

SearchResult Search(const Position& pos, const SearchLimits& limits,
                    const SearchStyle& style, const std::atomic<bool>* stop,
                    SearchTable* table) {
  // The clock first: everything below counts against max_time.
  auto start = std::chrono::steady_clock::now();
  if (limits.started != absl::InfinitePast()) {
    const absl::Duration before = absl::Now() - limits.started;
    if (before > absl::ZeroDuration()) {
      start -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          absl::ToChronoNanoseconds(before));
    }
  }
  std::unique_ptr<SearchTable> own;
  if (table == nullptr) {
    own = TableAccess::Make(search_internal::TableEntries(limits));
    table = own.get();
  }
  auto searcher = std::make_unique<search_internal::Searcher>(
      limits, style, stop, TableAccess::StorageOf(*table), start);
  return searcher->Run(pos);
}

int Evaluate(const Position& pos) {
  EvalState st = ComputeEvalState(pos);
  return EvaluateState(pos, &st);
}

}  // namespace khet
