// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The evaluation behind the computer opponent: what a position is worth to
// the side to move, in hundredths of a Pyramid. Search keeps an EvalState
// beside each position and updates it move by move: the lasers, the lines
// to each Pharaoh, material and mirror pieces change only where a move or a
// shot changed the board, so most of it is carried over rather than traced
// again.
//
// Terms, each for the side to move minus the same for the other side:
//   material      Pyramid 100, Anubis 90, Obelisk 55 a storey (Khet 1.0);
//                 Pharaoh, Scarab/Djed, Eye and Sphinx cannot be taken
//   the shot now  the side to move's laser, fired after any move that does
//                 not touch it, takes what it hits now: most of an enemy
//                 piece's value, a cost for an own piece
//   the threat    the other side's laser as it lies: own pieces it hits are
//                 threatened (the side to move saves at most one), and its
//                 hitting the own Pharaoh is a check that must be parried
//   exposure      beams traced outwards from each Pharaoh (mirrors work both
//                 ways: the lines along which a beam would reach it); an
//                 enemy beam crossing such a line is one mirror away from a
//                 kill, and long lines are a weakness
//   guards        an Anubis next to its Pharaoh (more if it faces outwards),
//                 an Obelisk next to it
//   laser control squares the own beam crosses; Scarabs and Eyes near the
//                 enemy Pharaoh (the pieces that redirect beams at it)
//   tempo         a small bonus for having the move
// Whether the side to move can hit the enemy Pharaoh with one move is not
// an evaluation term: search finds it exactly (see search.h).
#ifndef KHET_ENGINE_EVALUATE_H_
#define KHET_ENGINE_EVALUATE_H_

#include "engine/bitboard.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {

// What the laser takes when it hits p: a whole piece, or one Obelisk of a
// stack. 0 for pieces it cannot take and for the Pharaoh (the game ends).
int HitValue(Piece p);

// What stands on s after move m was made in pos (before its shot), as far
// as colour and type go: what a hit on s takes.
Piece PieceAfterMove(const Position& pos, Move m, Square s);

// What evaluation and search know about a position beyond its pieces, by
// colour (index static_cast<int>(Color)).
struct EvalState {
  Square pharaoh[2] = {-1, -1};          // -1: none
  BeamPath beam[2];                      // each laser as if it fired now
  Bitboard lines[2] = {0, 0};            // exposure of each Pharaoh (see above)
  bool lines_known[2] = {false, false};  // lines are computed when needed
  int material[2] = {0, 0};
  Bitboard mirrors[2] = {0, 0};  // Scarabs/Djeds and Eyes
};

// The state of `pos` from scratch.
EvalState ComputeEvalState(const Position& pos);

// The state after `move` was played in `before` (by its side to move),
// reaching `after`, with its shot hitting `hits`.
// REQUIRES: state describes before; hits as MakeMove reported them.
void UpdateEvalState(const Position& before, const EvalState& state, Move move,
                     Bitboard hits, const Position& after, EvalState* next);

// Fills in state->lines if they are not known. Search calls it before
// playing the moves of a position, so that its children inherit them.
void ComputeLines(const Position& pos, EvalState* state);

// The evaluation; fills in state->lines when it needs them.
// REQUIRES: *state describes pos.
int EvaluateState(const Position& pos, EvalState* state);

}  // namespace khet

#endif  // KHET_ENGINE_EVALUATE_H_
