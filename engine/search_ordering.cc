// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Listing and ordering the moves of a node (Searcher::ScoreMoves of
// search_internal.h): every move that touches the mover's beam is played
// to see what its shot does, kept for the search to reuse; a win in one
// ends the listing, moves decided without search (own Pharaoh hit, check
// left standing) get known scores, and the rest get ordering keys
// (search_ordering.h) for PickNext.
#include "engine/search_ordering.h"

#include <algorithm>
#include <cstdint>

#include "engine/bitboard.h"
#include "engine/evaluate.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/play.h"
#include "engine/search.h"
#include "engine/search_internal.h"

namespace khet {
namespace search_internal {

bool Searcher::ScoreMoves(const Position& pos, const EvalState& st,
                          bool in_check, Listing listing,
                          absl::Span<const Move> skip, int ply, int* count,
                          int* best_known, Move* win) {
  const Color us = pos.side_to_move();
  const BeamPath& own = st.beam[Index(us)];
  const BeamPath& other = st.beam[Index(Opponent(us))];
  MoveList& moves = move_lists_[ply].items[0];
  GenerateMoves(pos, &moves);
  ScoredMove* out = scored_[ply].items;
  ProbedChild* probed = probed_[ply].items;
  // Every move that leaves the beam alone fires the same shot.
  const Shot untouched =
      ShotOf(pos, Move(), own.hits, st, style_.both_pharaohs_hit_draws);
  const bool untouched_evades = (own.hits & other.squares) != 0;
  bool untouched_listed = false;
  const int lose_now = -(kMateScore - (ply + 1));
  const int lose_next = -(kMateScore - (ply + 2));
  int n = 0, probes = 0;
  *best_known = -kInfinity;
  for (const Move m : moves) {
    if (std::find(skip.begin(), skip.end(), m) != skip.end()) continue;
    const Bitboard touched = SquareBit(m.from()) | SquareBit(m.to());
    const bool touches_own = (touched & own.squares) != 0;
    // Moves the listing leaves out whatever their shot: cheap tests first.
    if (!touches_own) {
      if (listing == Listing::kCaptures &&
          (untouched.kind == ShotKind::kNormal &&
           (untouched.gain <= 0 || untouched_listed))) {
        continue;
      }
      if (listing == Listing::kEvasions &&
          untouched.kind == ShotKind::kNormal &&
          (touched & other.squares) == 0 &&
          (!untouched_evades || untouched_listed)) {
        continue;
      }
    }
    Shot shot = untouched;
    Bitboard hits = own.hits;
    int16_t probe = -1;
    if (touches_own) {
      if (probes < kMaxProbed) {
        ProbedChild& c = probed[probes];
        c.pos = pos;
        MakeMove(&c.pos, m, own, &c.hits);
        hits = c.hits;
        probe = static_cast<int16_t>(probes++);
      } else {
        Position child = pos;
        MakeMove(&child, m, own, &hits);
      }
      shot = ShotOf(pos, m, hits, st, style_.both_pharaohs_hit_draws);
    }
    switch (shot.kind) {
      case ShotKind::kWins:
        *win = m;
        *count = n;
        return true;
      case ShotKind::kLoses:
        *best_known = std::max(*best_known, lose_now);
        if (listing == Listing::kAll) {
          out[n++] = ScoredMove{m, probe, false, true, kOrderKnown, lose_now};
        }
        continue;
      case ShotKind::kDraws:
        *best_known = std::max(*best_known, 0);
        if (listing == Listing::kAll) {
          out[n++] = ScoredMove{m, probe, false, true, kOrderKnown + 2, 0};
        }
        continue;
      case ShotKind::kNormal:
        break;
    }
    // In check, a move that neither changes the enemy beam nor takes a
    // piece from it leaves the Pharaoh in the beam: the enemy wins next.
    if (in_check && (touched & other.squares) == 0 &&
        (hits & other.squares) == 0) {
      *best_known = std::max(*best_known, lose_next);
      if (listing == Listing::kAll) {
        out[n++] =
            ScoredMove{m, probe, false, true, kOrderKnown + 1, lose_next};
      }
      continue;
    }
    const bool capture = shot.gain > 0;
    if (listing == Listing::kCaptures && !capture) continue;
    if (!touches_own) {
      if (listing != Listing::kAll && untouched_listed) continue;
      untouched_listed = true;
    }
    int order;
    if (capture) {
      order = kOrderCapture + shot.gain;
    } else if (m == killers_[ply][0] || m == killers_[ply][1]) {
      order = kOrderKiller + (m == killers_[ply][0]);
    } else {
      order = std::min(History(us, m), kOrderHistoryCap) + shot.gain;
    }
    out[n++] = ScoredMove{m, probe, capture, false, order, 0};
  }
  *count = n;
  return false;
}

}  // namespace search_internal
}  // namespace khet
