// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The full-width search (Searcher::Negamax of search_internal.h): negamax
// alpha-beta with principal variation search, mate-distance pruning, a
// repetition check and the transposition table. The table's move and the
// ply's two killers are tried before the other moves are listed; late
// quiet moves are searched shallower first (late move reductions). Depth 0
// hands over to Quiesce (search_quiesce.cc).
#include <algorithm>
#include <cstdint>

#include "engine/bitboard.h"
#include "engine/evaluate.h"
#include "engine/movegen.h"
#include "engine/play.h"
#include "engine/search.h"
#include "engine/search_internal.h"
#include "engine/search_ordering.h"
#include "engine/search_table.h"

namespace khet {
namespace search_internal {

int Searcher::Negamax(const Position& pos, EvalState& st, int depth, int alpha,
                      int beta, int ply, bool pv_node) {
  if (depth <= 0) return Quiesce(pos, st, alpha, beta, ply, 0);
  pv_len_[ply] = ply;
  if (Abort()) return 0;
  path_[ply] = pos.hash();
  if (ply > 0 && IsRepetition(ply)) return 0;
  if (ply >= kMaxPly - 1) return EvaluateState(pos, &st);
  // Neither side can do better than winning now or worse than losing now.
  alpha = std::max(alpha, -kMateScore + ply);
  beta = std::min(beta, kMateScore - ply - 1);
  if (alpha >= beta) return alpha;

  const uint64_t key = pos.hash();
  Move table_move;
  if (const TableEntry* e = table_.Probe(key)) {
    table_move = Move::FromBits(e->move);
    if (!pv_node && e->depth >= depth) {
      const int s = FromTable(e->score, ply);
      if (e->bound == kExact || (e->bound == kLower && s >= beta) ||
          (e->bound == kUpper && s <= alpha)) {
        return s;
      }
    }
  }

  const Color us = pos.side_to_move();
  const bool in_check =
      (st.beam[Index(Opponent(us))].hits & Bit(st.pharaoh[Index(us)])) != 0;
  if (depth == 1) ComputeLines(pos, &st);  // for the children to inherit

  const int alpha_start = alpha;
  int best = -kInfinity;
  Move best_move;
  int searched = 0;

  // Searches one move; true on a cut.
  auto search = [&](const ScoredMove& sm, int score_if_known) {
    const Move m = sm.move;
    int score = score_if_known;
    if (sm.known_score) {
      pv_len_[ply + 1] = ply + 1;
    } else {
      Position child;
      EvalState cs;
      Play(pos, st, sm, ply, &child, &cs);
      if (depth > 1) table_.Prefetch(child.hash());
      if (searched == 0) {
        score = -Negamax(child, cs, depth - 1, -beta, -alpha, ply + 1, pv_node);
      } else {
        // Late quiet moves are tried a ply shallower first.
        int reduction = 0;
        if (depth >= 3 && searched >= 4 && !sm.capture && !in_check &&
            sm.order < kOrderKiller) {
          reduction = searched >= 12 && depth >= 5 ? 2 : 1;
        }
        score = -Negamax(child, cs, depth - 1 - reduction, -alpha - 1, -alpha,
                         ply + 1, false);
        if (score > alpha && reduction > 0 && !aborted_) {
          score = -Negamax(child, cs, depth - 1, -alpha - 1, -alpha, ply + 1,
                           false);
        }
        if (score > alpha && score < beta && !aborted_) {
          score = -Negamax(child, cs, depth - 1, -beta, -alpha, ply + 1, true);
        }
      }
      ++searched;
      if (aborted_) return true;
    }
    if (score > best) {
      best = score;
      best_move = m;
      if (score > alpha) {
        alpha = score;
        UpdatePv(ply, m);
        if (score >= beta) {
          if (!sm.capture && !sm.known_score) {
            if (killers_[ply][0] != m) {
              killers_[ply][1] = killers_[ply][0];
              killers_[ply][0] = m;
            }
            int& h = History(us, m);
            h = std::min(h + depth * depth, kOrderHistoryCap);
          }
          return true;
        }
      }
    }
    return false;
  };

  // The table's move and the killers first, before the others are even
  // listed: a cut here saves playing every move that touches the beam.
  bool cut = false;
  Move early[3] = {table_move, killers_[ply][0], killers_[ply][1]};
  for (int i = 0; i < 3 && !cut; ++i) {
    const Move m = early[i];
    bool legal = !m.is_null() && (i == 0 || m != early[0]) &&
                 (i < 2 || m != early[1]) && pos.at(m.from()).color() == us &&
                 !pos.at(m.from()).empty();
    if (legal) {
      MoveList& mine = move_lists_[ply].items[0];
      GenerateMovesFrom(pos, m.from(), &mine);
      legal = std::find(mine.begin(), mine.end(), m) != mine.end();
    }
    if (!legal) {
      early[i] = Move();
      continue;
    }
    Position child = pos;
    Bitboard hits = 0;
    MakeMove(&child, m, st.beam[Index(us)], &hits);
    const Shot shot = ShotOf(pos, m, hits, st, style_.both_pharaohs_hit_draws);
    if (shot.kind == ShotKind::kWins) {
      const int score = kMateScore - (ply + 1);
      table_.Store(key, m, ToTable(score, ply), depth, kExact);
      pv_[ply][ply] = m;
      pv_len_[ply] = ply + 1;
      return score;
    }
    if (shot.kind != ShotKind::kNormal) {
      early[i] = Move();  // decided without search: left to the listing
      continue;
    }
    // Play replays the move: cheap next to listing every move.
    const int order = i == 0 ? kOrderCapture << 2 : kOrderKiller;
    cut = search(ScoredMove{m, -1, shot.gain > 0, false, order, 0}, 0);
    if (aborted_) return 0;
  }

  if (!cut) {
    int n = 0, best_known = -kInfinity;
    Move win;
    if (ScoreMoves(pos, st, in_check, Listing::kAll, early, ply, &n,
                   &best_known, &win)) {
      const int score = kMateScore - (ply + 1);
      table_.Store(key, win, ToTable(score, ply), depth, kExact);
      pv_[ply][ply] = win;
      pv_len_[ply] = ply + 1;
      return score;
    }
    if (n == 0 && searched == 0) return 0;  // no move: call it a draw
    ScoredMove* list = scored_[ply].items;
    for (int i = 0; i < n; ++i) {
      PickNext(list, i, n);
      if (search(list[i], list[i].known)) break;
    }
    if (aborted_) return 0;
  }
  const Bound bound = best >= beta         ? kLower
                      : best > alpha_start ? kExact
                                           : kUpper;
  table_.Store(key, best_move, ToTable(best, ply), depth, bound);
  return best;
}

}  // namespace search_internal
}  // namespace khet
