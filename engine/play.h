// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Playing a move: the piece moves or turns, the mover's laser fires once and
// every hit piece is removed at once.
#ifndef KHET_ENGINE_PLAY_H_
#define KHET_ENGINE_PLAY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/position.h"

namespace khet {

struct Removal {
  Square square = -1;
  Piece before;  // what stood there when the laser fired
  Piece after;   // empty, or the bottom Obelisk left of a hit stack
};

// Bit 0: Silver's Pharaoh was hit; bit 1: Red's.
using PharaohsHit = uint8_t;
inline bool PharaohWasHit(PharaohsHit h, Color c) {
  return (h >> static_cast<int>(c)) & 1;
}

struct MoveEffects {
  Move move;                      // as played, in GenerateMoves' form
  Bitboard hit = 0;               // squares hit by the laser
  std::vector<Removal> removals;  // by square
  PharaohsHit pharaohs_hit = 0;
};

// Plays `move` for the side to move, fires its laser, removes what was hit
// and passes the turn; the fast path for search. REQUIRES: move is legal in
// *pos, as listed by GenerateMoves or returned by CheckMove.
PharaohsHit MakeMove(Position* pos, Move move);

// As MakeMove, reusing the mover's beam when the move leaves it unchanged.
// REQUIRES: mover_beam == TraceBeamPath(*pos, pos->side_to_move()).
PharaohsHit MakeMove(Position* pos, Move move, const BeamPath& mover_beam);

// As above, also setting *hits to the squares the laser hit (search weighs
// what a move takes before searching it).
PharaohsHit MakeMove(Position* pos, Move move, const BeamPath& mover_beam,
                     Bitboard* hits);

// As MakeMove, but checks the move first and reports every effect. An
// illegal move returns INVALID_ARGUMENT with the reason and leaves *pos
// unchanged.
absl::StatusOr<MoveEffects> ApplyMove(Position* pos, Move move);

}  // namespace khet

#endif  // KHET_ENGINE_PLAY_H_
