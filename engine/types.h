// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Basic vocabulary of the Khet rules: colours, editions, squares, directions
// and the one-byte piece encoding shared by every part of the engine.
#ifndef KHET_ENGINE_TYPES_H_
#define KHET_ENGINE_TYPES_H_

#include <cstdint>

namespace khet {

inline constexpr int kFiles = 10;  // a..j, left to right as Silver sees it
inline constexpr int kRanks = 8;   // 1..8, rank 1 is Silver's home row
inline constexpr int kSquares = kFiles * kRanks;

enum class Color : uint8_t { kSilver = 0, kRed = 1 };
inline constexpr Color Opponent(Color c) {
  return c == Color::kSilver ? Color::kRed : Color::kSilver;
}

// Khet 1.0: fixed lasers, Djeds, Obelisks. Khet 2.0: Sphinxes, Scarabs, Anubis.
// The Eye of Horus may appear in either.
enum class Edition : uint8_t { kKhet1 = 1, kKhet2 = 2 };

// Square index = (rank - 1) * 10 + file, a1 = 0, j8 = 79.
using Square = int;
inline constexpr Square MakeSquare(int file, int rank0) {
  return rank0 * kFiles + file;
}
inline constexpr int FileOf(Square s) { return s % kFiles; }
inline constexpr int RankOf(Square s) { return s / kFiles; }  // 0-based
inline constexpr bool IsOnBoard(int file, int rank0) {
  return file >= 0 && file < kFiles && rank0 >= 0 && rank0 < kRanks;
}

// Orthogonal directions, in clockwise order. North is towards rank 8.
enum class Direction : uint8_t { kNorth = 0, kEast = 1, kSouth = 2, kWest = 3 };
inline constexpr Direction Reverse(Direction d) {
  return static_cast<Direction>((static_cast<int>(d) + 2) & 3);
}
inline constexpr Direction TurnClockwise(Direction d) {
  return static_cast<Direction>((static_cast<int>(d) + 1) & 3);
}
inline constexpr int kFileStep[4] = {0, 1, 0, -1};  // by Direction
inline constexpr int kRankStep[4] = {1, 0, -1, 0};

enum class PieceType : uint8_t {
  kNone = 0,
  kPharaoh = 1,
  kPyramid = 2,
  kScarab = 3,  // called the Djed in Khet 1.0; identical behaviour
  kAnubis = 4,
  kSphinx = 5,
  kObelisk = 6,
  kEye = 7,  // Eye of Horus beam splitter
};

// Orientation codes, two bits, meaning depends on the piece type:
//   Pyramid: the way its mirror faces: 0 NE, 1 SE, 2 SW, 3 NW (clockwise).
//   Anubis, Sphinx: the way it faces, as a Direction.
//   Scarab, Eye: 0 '/' (mirrors face NW and SE), 1 '\' (mirrors face NE, SW).
//     With physical facings (Position::physical_facings()): the way its front
//     mirror faces, 0 NW, 1 NE, 2 SE, 3 SW (clockwise), so that the diagonal
//     is always orientation & 1 (ScarabDiagonal) and a quarter turn flips it.
//   Obelisk: the stack height minus one (0 single, 1 stack of two).
//   Pharaoh: 0 (its facing is cosmetic); with physical facings the way it
//     faces, as a Direction. Either way it is hit on any face.
enum PyramidFacing : uint8_t { kNE = 0, kSE = 1, kSW = 2, kNW = 3 };
enum Diagonal : uint8_t { kSlash = 0, kBackslash = 1 };
enum ScarabFacing : uint8_t {
  kFrontNW = 0,
  kFrontNE = 1,
  kFrontSE = 2,
  kFrontSW = 3
};
// The mirror diagonal of a Scarab's or Eye's orientation, in either form.
inline constexpr Diagonal ScarabDiagonal(int orientation) {
  return static_cast<Diagonal>(orientation & 1);
}

// A piece in one byte: bits 0-1 orientation, bits 2-4 type, bit 5 colour.
// The empty square is 0. Cheap to copy and compare.
class Piece {
 public:
  constexpr Piece() = default;
  constexpr Piece(Color c, PieceType t, int orientation = 0)
      : code_(static_cast<uint8_t>((static_cast<int>(c) << 5) |
                                   (static_cast<int>(t) << 2) |
                                   (orientation & 3))) {}
  static constexpr Piece FromCode(uint8_t code) {
    Piece p;
    p.code_ = code & 63;
    return p;
  }

  constexpr bool empty() const { return code_ == 0; }
  constexpr PieceType type() const {
    return static_cast<PieceType>((code_ >> 2) & 7);
  }
  constexpr Color color() const { return static_cast<Color>(code_ >> 5); }
  constexpr int orientation() const { return code_ & 3; }
  constexpr uint8_t code() const { return code_; }
  // Obelisks only: 1 or 2.
  constexpr int height() const { return orientation() + 1; }
  constexpr Piece WithOrientation(int o) const {
    return Piece::FromCode(static_cast<uint8_t>((code_ & ~3) | (o & 3)));
  }

  friend constexpr bool operator==(Piece a, Piece b) {
    return a.code_ == b.code_;
  }

 private:
  uint8_t code_ = 0;
};

inline constexpr int kPieceCodes = 64;

}  // namespace khet

#endif  // KHET_ENGINE_TYPES_H_
