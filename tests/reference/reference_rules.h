// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A second, deliberately simple implementation of the Khet rules, written
// from the rules text (docs/khet-rules.md, sections 1-5) and independently of
// engine/: plain arrays, explicit if-chains, square-by-square laser walks.
// It is slow on purpose. Tests compare the fast engine against it; when the
// two disagree, the rules text decides which one is wrong.
//
// This file must not include anything from engine/. Its numeric codes
// (squares, move kinds, orientations, directions, beam end reasons) are those
// documented in engine/types.h, engine/move.h and engine/laser.h so that the
// tests can compare values directly.
#ifndef KHET_TESTS_REFERENCE_REFERENCE_RULES_H_
#define KHET_TESTS_REFERENCE_REFERENCE_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace khet::reference {

// Directions of travel and of facing.
inline constexpr int kNorth = 0;  // towards rank 8
inline constexpr int kEast = 1;   // towards the j-file
inline constexpr int kSouth = 2;
inline constexpr int kWest = 3;

// One square of the board.
//   type:   0 empty, 'K' Pharaoh, 'P' Pyramid, 'S' Scarab (Djed in Khet 1.0),
//           'A' Anubis, 'X' Sphinx, 'O' Obelisk, 'E' Eye of Horus.
//   facing: Pyramid: the way its mirror faces, 0 NE, 1 SE, 2 SW, 3 NW;
//           Anubis and Sphinx: the way it faces, a direction above;
//           Scarab and Eye: 0 '/' (mirrors face NW and SE), 1 '\' (NE, SW);
//           Pharaoh and Obelisk: 0.
//           With physical facings (Board::physical_facings): a Pharaoh's is
//           the way it faces, a direction above; a Scarab's or Eye's the way
//           its front mirror faces, 0 NW, 1 NE, 2 SE, 3 SW, where NW and SE
//           are the '/' diagonal and NE and SW the '\' one.
//   height: Obelisk: 1, or 2 for a stack; every other piece: 0.
struct Cell {
  char type = 0;
  bool red = false;
  int facing = 0;
  int height = 0;
  friend bool operator==(const Cell&, const Cell&) = default;
};

struct Board {
  Cell cells[8][10];  // [rank][file]; rank 0 is rank 1, file 0 is the a-file
  bool red_to_move = false;
  int edition = 2;  // 1: Khet 1.0, 2: Khet 2.0
  // The rule option of the tournament of seed 003: a Pharaoh and a Scarab
  // (Djed, Eye) have four facings, and turning one a quarter is a move.
  bool physical_facings = false;
  friend bool operator==(const Board&, const Board&) = default;
};

// Squares are numbered rank * 10 + file: a1 = 0, j1 = 9, a8 = 70, j8 = 79.
inline int SquareOf(int file, int rank) { return rank * 10 + file; }
inline int FileOfSquare(int square) { return square % 10; }
inline int RankOfSquare(int square) { return square / 10; }

// Move kinds.
inline constexpr int kMovePiece = 0;  // step, swap, stacking, whole stack
inline constexpr int kMoveTopObelisk = 1;
inline constexpr int kRotateClockwise = 2;
inline constexpr int kRotateAnticlockwise = 3;

struct Move {
  int from = 0;
  int to = 0;  // equals from for rotations
  int kind = kMovePiece;
  friend bool operator==(const Move&, const Move&) = default;
  friend bool operator<(const Move& a, const Move& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    return a.kind < b.kind;
  }
};

// True if a piece of this colour may end a move on (file, rank): section 1's
// restricted squares, and in Khet 2.0 the Sphinx corners a8 and j1.
bool MayEnter(const Board& board, bool red, int file, int rank);

// Every legal move of the side to move, each once (section 3). A Scarab,
// Djed or Eye turn is listed once, as clockwise; a Pharaoh or Obelisk never
// turns; a Sphinx turns only to its other allowed facing. With physical
// facings a Pharaoh, Scarab, Djed or Eye turns both ways, two moves.
std::vector<Move> LegalMoves(const Board& board);

// How a beam ended; the numbers match engine/laser.h's BeamEnd.
inline constexpr int kLeftBoard = 0;
inline constexpr int kHit = 1;
inline constexpr int kAbsorbed = 2;
inline constexpr int kBlocked = 3;
inline constexpr int kSplit = 4;
inline constexpr int kLooped = 5;

// A square centre, or a point one step off the board (file -1 or 10, rank
// -1 or 8) for the Khet 1.0 emitters and beams that left the board.
struct Point {
  int file = 0;
  int rank = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

struct Segment {
  int beam = 0;
  Point from;
  Point to;
  int travel = kNorth;
  friend bool operator==(const Segment&, const Segment&) = default;
};

struct Beam {
  int id = 0;
  int parent = -1;
  int end = kLeftBoard;
  int end_square = -1;  // -1 when the beam left the board
  Cell end_piece;       // what stands on end_square (empty if none)
  friend bool operator==(const Beam&, const Beam&) = default;
};

struct Trace {
  bool red_shooter = false;
  std::vector<Beam> beams;        // by id
  std::vector<Segment> segments;  // beam by beam, in travel order
  bool hit[80] = {};              // by square
};

// The trace of one colour's laser on the unchanged board (sections 4 and 5).
// Khet 2.0: the beam starts on the shooter's Sphinx (j1 Silver, a8 Red) in
// its facing; no Sphinx there, no beam. Khet 1.0: it starts one step off the
// board, south of j1 going north (Silver) or north of a8 going south (Red).
Trace TraceLaser(const Board& board, bool red_shooter);

struct Removal {
  int square = 0;
  Cell before;  // what stood there when the laser fired
  Cell after;   // empty, or the bottom Obelisk of a hit stack
  friend bool operator==(const Removal&, const Removal&) = default;
};

struct MoveResult {
  Board after;
  std::vector<Removal> removals;  // by square, ascending
  bool silver_pharaoh_hit = false;
  bool red_pharaoh_hit = false;
};

// Plays a move: the piece moves or turns, the mover's laser fires on the new
// board, every hit piece is removed at once (a stack loses its top obelisk),
// and the turn passes. REQUIRES: move is in LegalMoves(board).
MoveResult ApplyMove(const Board& board, const Move& move);

// Leaf positions after exactly `depth` moves. A move that hits a Pharaoh ends
// the game: its position counts as a leaf at the last ply and has no
// children before it.
uint64_t Perft(const Board& board, int depth);

// Text in the notation of docs/notation.md ("<rank 8>/.../<rank 1> <side>
// <edition>", e.g. "x3k.../... s 2"; with physical facings "Kn", "Snw" and a
// last field "f"), for messages and hand-written tests.
std::string BoardToText(const Board& board);
// Parses that notation; returns false on malformed text (no rule checks).
bool BoardFromText(const std::string& text, Board* board);
// "e4", "e4-e5", "e4^e5", "e4R", "e4L". Swaps are written "e4-f5" here.
std::string SquareName(int square);
std::string MoveToText(const Move& move);

}  // namespace khet::reference

#endif  // KHET_TESTS_REFERENCE_REFERENCE_RULES_H_
