// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The quiescence search at the full-width search's leaves
// (Searcher::Quiesce of search_internal.h): a win in one is found exactly;
// otherwise the side to move stands pat on the evaluation and tries at
// most kMaxQuiesceMoves captures, kMaxQuiescePlies deep. A side in check
// answers with its evasions instead, for the first kCheckEvasionPlies.
#include <algorithm>

#include "engine/bitboard.h"
#include "engine/evaluate.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/search.h"
#include "engine/search_internal.h"
#include "engine/search_ordering.h"

namespace khet {
namespace search_internal {
namespace {

constexpr int kMaxQuiescePlies = 4;
constexpr int kMaxQuiesceMoves = 6;
constexpr int kCheckEvasionPlies = 2;

}  // namespace

int Searcher::Quiesce(const Position& pos, EvalState& st, int alpha, int beta,
                      int ply, int qply) {
  pv_len_[ply] = ply;
  if (Abort()) return 0;
  const Color us = pos.side_to_move();
  const Color them = Opponent(us);
  const BeamPath& own = st.beam[Index(us)];
  const BeamPath& other = st.beam[Index(them)];
  const Bitboard our_k = Bit(st.pharaoh[Index(us)]);
  const Bitboard their_k = Bit(st.pharaoh[Index(them)]);
  // Our beam already hits their Pharaoh: almost every move wins.
  if ((own.hits & their_k) != 0 && (own.hits & our_k) == 0) {
    MoveList& moves = move_lists_[ply].items[0];
    GenerateMoves(pos, &moves);
    for (const Move m : moves) {
      const Bitboard touched = SquareBit(m.from()) | SquareBit(m.to());
      if ((touched & own.squares) == 0) return kMateScore - (ply + 1);
    }
  }
  const bool in_check = (other.hits & our_k) != 0;
  const int stand = EvaluateState(pos, &st);
  int best = stand;
  if (in_check) {
    if (qply >= kCheckEvasionPlies || ply >= kMaxPly - 2) return stand;
    best = -(kMateScore - (ply + 2));  // unless an evasion works
  } else {
    if (stand >= beta) return stand;
    if (qply >= kMaxQuiescePlies || ply >= kMaxPly - 2) return stand;
    alpha = std::max(alpha, stand);
  }

  // Wins in one, captures, and in check the evasions.
  int n = 0, best_known = -kInfinity;
  Move win;
  if (ScoreMoves(pos, st, in_check,
                 in_check ? Listing::kEvasions : Listing::kCaptures, {}, ply,
                 &n, &best_known, &win)) {
    return kMateScore - (ply + 1);
  }
  best = std::max(best, best_known);
  ScoredMove* list = scored_[ply].items;
  const int limit = in_check ? n : std::min(n, kMaxQuiesceMoves);
  for (int i = 0; i < limit; ++i) {
    PickNext(list, i, n);
    Position child;
    EvalState cs;
    Play(pos, st, list[i], ply, &child, &cs);
    const int score = -Quiesce(child, cs, -beta, -alpha, ply + 1, qply + 1);
    if (aborted_) return 0;
    if (score > best) {
      best = score;
      if (score > alpha) {
        alpha = score;
        if (score >= beta) break;
      }
    }
  }
  return best;
}

}  // namespace search_internal
}  // namespace khet
