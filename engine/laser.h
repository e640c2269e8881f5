// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The laser as data: beams, their straight segments in board coordinates,
// how each beam ended, and which squares were hit.
//
// Tracing follows section 4-5 of the rules. A beam leaves its source (a
// Sphinx's square in Khet 2.0; in Khet 1.0 an emitter one step off the board,
// south of j1 for Silver firing north, north of a8 for Red firing south) and
// runs square by square until it leaves the board, is absorbed by a Sphinx,
// strikes an Anubis's front, hits a piece, or enters an Eye of Horus, where
// it ends and two child beams start: first the reflected one, then the one
// passing straight through. Beams are traced one at a time in the order of
// their ids. A beam that arrives at an occupied square travelling in a
// direction with which some beam already arrived there ends as kLooped: its
// future was already traced. So tracing always ends (at most 320 states).
#ifndef KHET_ENGINE_LASER_H_
#define KHET_ENGINE_LASER_H_

#include <cstdint>
#include <vector>

#include "engine/bitboard.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {

// A point at a square centre, 0-based: file 0..9 (a..j), rank 0..7 (1..8).
// The Khet 1.0 emitters and the ends of beams that leave the board lie one
// step beyond the edge (file -1 or 10, rank -1 or 8): draw those to the edge.
struct BeamPoint {
  int8_t file = 0;
  int8_t rank = 0;
  friend bool operator==(BeamPoint a, BeamPoint b) {
    return a.file == b.file && a.rank == b.rank;
  }
};

enum class BeamEnd : uint8_t {
  kLeftBoard = 0,  // ran off the edge
  kHit = 1,        // struck a non-mirrored face: that piece is hit
  kAbsorbed = 2,   // reached a Sphinx
  kBlocked = 3,    // struck the front of an Anubis, no effect
  kSplit = 4,      // entered an Eye of Horus: two child beams go on
  kLooped = 5,     // repeated an already traced (square, direction) state
};

struct BeamSegment {
  int beam = 0;  // id of the beam this segment belongs to
  BeamPoint from;
  BeamPoint to;
  Direction travel = Direction::kNorth;
};

struct Beam {
  int id = 0;
  int parent = -1;  // the beam that split into this one, -1 for the first
  BeamEnd end = BeamEnd::kLeftBoard;
  Square end_square = -1;  // where it ended; -1 if it left the board
  Piece end_piece;         // the piece on end_square, if any
};

struct BeamTrace {
  Color shooter = Color::kSilver;
  std::vector<Beam> beams;            // by id: beams[i].id == i
  std::vector<BeamSegment> segments;  // grouped by beam, in travel order
  Bitboard hit = 0;                   // squares whose piece was hit
};

// The full trace of `shooter`'s laser on the unchanged board.
BeamTrace TraceLaser(const Position& pos, Color shooter);

// Only the squares hit by `shooter`'s laser; the fast path used to play
// moves. Always equals TraceLaser(pos, shooter).hit.
Bitboard LaserHits(const Position& pos, Color shooter);

// The squares a shot depends on, and what it hits. A move that changes the
// contents of none of `squares` leaves the shot, and so `hits`, as it was:
// search traces once per position instead of once per move.
struct BeamPath {
  Bitboard squares = 0;  // the source and every square the beams cross
  Bitboard hits = 0;     // == LaserHits
};
BeamPath TraceBeamPath(const Position& pos, Color shooter);

// The path of a beam leaving `from` (whatever stands there) travelling
// `dir`, as if a laser fired from that square: `squares` holds the squares
// it crosses, `from` left out, and `hits` what it would hit. Mirrors work
// both ways, so traced outwards from a Pharaoh in each direction these are
// the paths along which a beam could reach it (search's evaluation).
BeamPath TraceBeamFrom(const Position& pos, Square from, Direction dir);

}  // namespace khet

#endif  // KHET_ENGINE_LASER_H_
