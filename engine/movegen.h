// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Legal moves: all of them, those of one square, and the check that says
// why a move is illegal.
#ifndef KHET_ENGINE_MOVEGEN_H_
#define KHET_ENGINE_MOVEGEN_H_

#include "absl/status/statusor.h"
#include "engine/move.h"
#include "engine/position.h"

namespace khet {

// Replaces *list with every legal move of the side to move, each once: a
// Scarab's or Eye's turn appears only as clockwise, a Pharaoh or Obelisk has
// no turn, a Sphinx only the turn to its other allowed facing. With physical
// facings (Position::physical_facings()) a Scarab, Eye or Pharaoh has both
// quarter turns, two distinct moves. Does not look at whether the game is
// over.
void GenerateMoves(const Position& pos, MoveList* list);

// The number of moves GenerateMoves would produce, without listing them.
int CountMoves(const Position& pos);

// Replaces *list with the legal moves of the piece on `from` (empty if the
// square holds no piece of the side to move): a front end's control pad.
void GenerateMovesFrom(const Position& pos, Square from, MoveList* list);

// Returns the move in the form GenerateMoves lists it (a Scarab's or Eye's
// anticlockwise turn becomes clockwise, except with physical facings) if it
// is legal, or INVALID_ARGUMENT
// saying exactly why not, e.g. "e4: no piece of yours there".
absl::StatusOr<Move> CheckMove(const Position& pos, Move move);

}  // namespace khet

#endif  // KHET_ENGINE_MOVEGEN_H_
