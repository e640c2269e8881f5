// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/evaluate.h"

#include <algorithm>
#include <cstdlib>

namespace khet {
namespace {

constexpr int kPyramidValue = 100;
constexpr int kAnubisValue = 90;
constexpr int kObeliskValue = 55;  // one storey

// By PieceType: what one hit takes.
constexpr int kHitValue[8] = {
    0, 0, kPyramidValue, 0, kAnubisValue, 0, kObeliskValue, 0};

// Weights of the terms (see evaluate.h).
constexpr int kShotTakesPercent = 85;     // an enemy piece in our beam now
constexpr int kShotOwnPiecePercent = 20;  // an own piece in our beam now
constexpr int kOwnPharaohInShot = 150;    // our beam would hit our Pharaoh
constexpr int kCheck = 220;               // their beam hits our Pharaoh
constexpr int kThreatSavedPercent = 25;   // the one threatened piece we save
constexpr int kThreatLostPercent = 75;    // the others
constexpr int kTheirPieceInTheirBeamPercent = 25;
constexpr int kBeamNearOurPharaoh = 32;    // per crossing, at most 4
constexpr int kBeamNearTheirPharaoh = 22;  // per crossing, at most 4
constexpr int kMaxCrossings = 4;
constexpr int kExposedSquare = 2;  // per square of the lines
constexpr int kAnubisGuard = 12;
constexpr int kAnubisFacingOut = 8;
constexpr int kObeliskGuard = 10;
constexpr int kMirrorNearPharaoh = 3;  // Scarab/Eye, per step closer than 7
constexpr int kBeamSquare = 1;
constexpr int kTempo = 8;

constexpr int Index(Color c) { return static_cast<int>(c); }
inline Bitboard Bit(Square s) { return s >= 0 ? SquareBit(s) : Bitboard{0}; }

int Distance(Square a, Square b) {
  return std::max(std::abs(FileOf(a) - FileOf(b)),
                  std::abs(RankOf(a) - RankOf(b)));
}

// Squares from which a beam would travel on to the Pharaoh on k: the four
// beams traced outwards from it.
Bitboard PharaohLines(const Position& pos, Square k) {
  if (k < 0) return 0;
  Bitboard lines = 0;
  for (int d = 0; d < 4; ++d) {
    lines |= TraceBeamFrom(pos, k, static_cast<Direction>(d)).squares;
  }
  return lines;
}

int Material(Piece p) {
  return p.type() == PieceType::kObelisk ? kObeliskValue * p.height()
                                         : HitValue(p);
}

// Guards and mirrors of colour c.
int Placement(const Position& pos, const EvalState& st, int c) {
  int score = 0;
  const Square own_k = st.pharaoh[c];
  const Square enemy_k = st.pharaoh[c ^ 1];
  if (enemy_k >= 0) {
    for (Bitboard b = st.mirrors[c]; b != 0;) {
      score += kMirrorNearPharaoh * (7 - Distance(PopLowest(b), enemy_k));
    }
  }
  if (own_k >= 0) {
    for (Bitboard b = Neighbours(own_k) & pos.occupied(static_cast<Color>(c));
         b != 0;) {
      const Square s = PopLowest(b);
      const Piece p = pos.at(s);
      if (p.type() == PieceType::kAnubis) {
        score += kAnubisGuard;
        const int facing = p.orientation();
        const int outwards = (FileOf(s) - FileOf(own_k)) * kFileStep[facing] +
                             (RankOf(s) - RankOf(own_k)) * kRankStep[facing];
        if (outwards > 0) score += kAnubisFacingOut;
      } else if (p.type() == PieceType::kObelisk) {
        score += kObeliskGuard;
      }
    }
  }
  return score;
}

}  // namespace

int HitValue(Piece p) { return kHitValue[static_cast<int>(p.type())]; }

Piece PieceAfterMove(const Position& pos, Move m, Square s) {
  if (m.is_rotation()) return pos.at(s);
  if (s == m.to()) return pos.at(m.from());
  if (s == m.from() && m.kind() == MoveKind::kMove) return pos.at(m.to());
  return pos.at(s);
}

EvalState ComputeEvalState(const Position& pos) {
  EvalState st;
  for (Bitboard b = pos.occupied(); b != 0;) {
    const Square s = PopLowest(b);
    const Piece p = pos.at(s);
    const int c = Index(p.color());
    st.material[c] += Material(p);
    if (p.type() == PieceType::kPharaoh) st.pharaoh[c] = s;
    if (p.type() == PieceType::kScarab || p.type() == PieceType::kEye) {
      st.mirrors[c] |= SquareBit(s);
    }
  }
  for (int c = 0; c < 2; ++c) {
    st.beam[c] = TraceBeamPath(pos, static_cast<Color>(c));
  }
  return st;
}

void UpdateEvalState(const Position& before, const EvalState& state, Move move,
                     Bitboard hits, const Position& after, EvalState* next) {
  *next = state;
  const int mover = Index(before.side_to_move());
  const Square from = move.from(), to = move.to();
  if (!move.is_rotation()) {
    if (from == state.pharaoh[mover]) next->pharaoh[mover] = to;
    if (Contains(state.mirrors[mover], from)) {
      next->mirrors[mover] ^= SquareBit(from) | SquareBit(to);
    }
  }
  for (Bitboard h = hits; h != 0;) {
    const Square s = PopLowest(h);
    const Piece p = PieceAfterMove(before, move, s);
    const int c = Index(p.color());
    next->material[c] -= HitValue(p);
    if (p.type() == PieceType::kPharaoh) next->pharaoh[c] = -1;
  }
  const Bitboard changed = SquareBit(from) | SquareBit(to) | hits;
  for (int c = 0; c < 2; ++c) {
    if ((changed & state.beam[c].squares) != 0) {
      next->beam[c] = TraceBeamPath(after, static_cast<Color>(c));
    }
    if (state.lines_known[c] &&
        (changed & (state.lines[c] | Bit(state.pharaoh[c]))) != 0) {
      next->lines_known[c] = false;
    }
  }
}

void ComputeLines(const Position& pos, EvalState* state) {
  for (int c = 0; c < 2; ++c) {
    if (!state->lines_known[c]) {
      state->lines[c] = PharaohLines(pos, state->pharaoh[c]);
      state->lines_known[c] = true;
    }
  }
}

int EvaluateState(const Position& pos, EvalState* state) {
  EvalState& st = *state;
  ComputeLines(pos, state);
  const Color us_color = pos.side_to_move();
  const int us = Index(us_color);
  const int them = us ^ 1;
  const BeamPath& mover = st.beam[us];
  const BeamPath& other = st.beam[them];

  int score = st.material[us] - st.material[them];
  score += Placement(pos, st, us) - Placement(pos, st, them);

  // Our shot as it lies: any move that does not touch our beam fires it.
  for (Bitboard h = mover.hits; h != 0;) {
    const Piece p = pos.at(PopLowest(h));
    if (Index(p.color()) == them) {
      score += HitValue(p) * kShotTakesPercent / 100;
    } else if (p.type() == PieceType::kPharaoh) {
      score -= kOwnPharaohInShot;
    } else {
      score -= HitValue(p) * kShotOwnPiecePercent / 100;
    }
  }

  // Their shot as it lies, after our move unless we change it.
  int threatened = 0, biggest = 0;
  for (Bitboard h = other.hits; h != 0;) {
    const Piece p = pos.at(PopLowest(h));
    if (Index(p.color()) == us) {
      if (p.type() == PieceType::kPharaoh) {
        score -= kCheck;
      } else {
        threatened += HitValue(p);
        biggest = std::max(biggest, HitValue(p));
      }
    } else {
      score += HitValue(p) * kTheirPieceInTheirBeamPercent / 100;
    }
  }
  score -= (biggest * kThreatSavedPercent +
            (threatened - biggest) * kThreatLostPercent) /
           100;

  // Pharaoh exposure: beams passing one mirror away from a kill.
  score -= kBeamNearOurPharaoh *
           std::min(PopCount(other.squares & st.lines[us]), kMaxCrossings);
  score += kBeamNearTheirPharaoh *
           std::min(PopCount(mover.squares & st.lines[them]), kMaxCrossings);
  score -= kExposedSquare * (PopCount(st.lines[us]) - PopCount(st.lines[them]));

  score += kBeamSquare * (PopCount(mover.squares) - PopCount(other.squares));
  return score + kTempo;
}

}  // namespace khet
