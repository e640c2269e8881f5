// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What a move's shot does, and the order the search tries moves in.
// Internal to the search*.cc files.
//
// Contract: ShotOf judges a move by its own shot alone (a win, a loss, a
// draw, or what it takes minus what it loses). A ScoredMove carries an
// ordering key: captures (most gained first), then killers, then the
// history heuristic; moves decided without search (kOrderKnown) come last.
// PickNext hands out a list's moves best key first. The listing itself,
// Searcher::ScoreMoves, is in search_ordering.cc.
#ifndef KHET_ENGINE_SEARCH_ORDERING_H_
#define KHET_ENGINE_SEARCH_ORDERING_H_

#include <algorithm>
#include <cstdint>
#include <utility>

#include "engine/bitboard.h"
#include "engine/evaluate.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {
namespace search_internal {

constexpr int Index(Color c) { return static_cast<int>(c); }
inline Bitboard Bit(Square s) { return s >= 0 ? SquareBit(s) : Bitboard{0}; }

// ---- what a move's shot does ------------------------------------------------

// The mover's Pharaoh's square after move m.
inline Square PharaohAfter(const EvalState& st, Color mover, Move m) {
  const Square k = st.pharaoh[Index(mover)];
  return !m.is_rotation() && m.from() == k ? m.to() : k;
}

enum class ShotKind : uint8_t {
  kNormal,  // no Pharaoh hit
  kWins,    // the enemy Pharaoh only
  kLoses,   // the own Pharaoh (both, under the default rules)
  kDraws,   // both, with both_pharaohs_hit_draws
};

struct Shot {
  ShotKind kind = ShotKind::kNormal;
  int gain = 0;  // value taken from the enemy minus value lost
};

inline Shot ShotOf(const Position& pos, Move m, Bitboard hits,
                   const EvalState& st, bool both_draw) {
  Shot shot;
  const Color mover = pos.side_to_move();
  const bool theirs = (hits & Bit(st.pharaoh[Index(Opponent(mover))])) != 0;
  const bool mine = (hits & Bit(PharaohAfter(st, mover, m))) != 0;
  if (mine || theirs) {
    shot.kind = mine && theirs
                    ? (both_draw ? ShotKind::kDraws : ShotKind::kLoses)
                : mine ? ShotKind::kLoses
                       : ShotKind::kWins;
    return shot;
  }
  while (hits != 0) {
    const Piece p = PieceAfterMove(pos, m, PopLowest(hits));
    shot.gain += p.color() == mover ? -HitValue(p) : HitValue(p);
  }
  return shot;
}

// ---- move ordering ----------------------------------------------------------

// Move ordering keys.
constexpr int kOrderCapture = 1 << 26;  // plus the gain
constexpr int kOrderKiller = 1 << 25;
constexpr int kOrderHistoryCap = (1 << 24) - 1;
constexpr int kOrderKnown = -(1 << 30);  // decided without search: last

inline int HistoryIndex(Move m) {
  if (m.is_rotation()) {
    return m.from() * 82 + 80 + (m.kind() == MoveKind::kRotateAnticlockwise);
  }
  return m.from() * 82 + m.to();
}
constexpr int kHistorySize = kSquares * 82;

// Children played to see their shot, kept for when they are searched.
constexpr int kMaxProbed = 128;

struct ScoredMove {
  Move move;
  int16_t probe = -1;  // index of the played child, -1 if not played
  bool capture = false;
  bool known_score = false;
  int order = 0;
  int known = 0;  // the score, when known_score
};

struct ProbedChild {
  Position pos;
  Bitboard hits = 0;
};

// Room for N values of T, left uninitialised: the per-ply move lists are
// megabytes, and a search touches only the plies it reaches.
template <typename T, int N>
struct Scratch {
  Scratch() {}
  ~Scratch() {}
  union {
    T items[N];
  };
};

// Which moves ScoreMoves lists.
enum class Listing : uint8_t {
  kAll,       // every move (full-width search)
  kCaptures,  // moves whose shot takes more than it loses; one of the moves
              // that leave the beam alone stands for all of them
  kEvasions,  // in check: the moves that change the enemy beam
};

// Orders list[i..n): selection for the first few picks (a cut usually
// comes early), then one sort of the rest.
inline void PickNext(ScoredMove* list, int i, int n) {
  constexpr int kSelections = 4;
  if (i > kSelections) return;
  if (i == kSelections) {
    std::sort(list + i, list + n, [](const ScoredMove& a, const ScoredMove& b) {
      return a.order > b.order;
    });
    return;
  }
  int best = i;
  for (int j = i + 1; j < n; ++j) {
    if (list[j].order > list[best].order) best = j;
  }
  if (best != i) std::swap(list[i], list[best]);
}

}  // namespace search_internal
}  // namespace khet

#endif  // KHET_ENGINE_SEARCH_ORDERING_H_
