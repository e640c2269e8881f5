// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// An 80-square set in one 128-bit word: bit s is square s (a1 = bit 0).
#ifndef KHET_ENGINE_BITBOARD_H_
#define KHET_ENGINE_BITBOARD_H_

#include <cstdint>

#include "engine/types.h"

namespace khet {

__extension__ using Bitboard = unsigned __int128;

inline constexpr Bitboard SquareBit(Square s) { return Bitboard{1} << s; }
inline constexpr bool Contains(Bitboard b, Square s) {
  return ((b >> s) & 1) != 0;
}
inline constexpr Bitboard kAllSquares = (Bitboard{1} << kSquares) - 1;

inline int PopCount(Bitboard b) {
  return __builtin_popcountll(static_cast<uint64_t>(b)) +
         __builtin_popcountll(static_cast<uint64_t>(b >> 64));
}
// REQUIRES: b != 0.
inline Square LowestSquare(Bitboard b) {
  const auto lo = static_cast<uint64_t>(b);
  return lo != 0 ? __builtin_ctzll(lo)
                 : 64 + __builtin_ctzll(static_cast<uint64_t>(b >> 64));
}
// REQUIRES: b != 0.
inline Square HighestSquare(Bitboard b) {
  const auto hi = static_cast<uint64_t>(b >> 64);
  return hi != 0 ? 127 - __builtin_clzll(hi)
                 : 63 - __builtin_clzll(static_cast<uint64_t>(b));
}
// Removes and returns the lowest square. REQUIRES: b != 0.
inline Square PopLowest(Bitboard& b) {
  const Square s = LowestSquare(b);
  b &= b - 1;
  return s;
}

namespace internal {
struct BoardTables {
  Bitboard allowed[2];  // by Color
  Bitboard neighbours[kSquares];
  Bitboard ray[4][kSquares];  // by Direction, then square
};
constexpr BoardTables MakeBoardTables() {
  BoardTables t{};
  // Silver only: the j-file, b1 and b8. Red only: the a-file, i1 and i8.
  Bitboard silver_only =
      SquareBit(MakeSquare(1, 0)) | SquareBit(MakeSquare(1, 7));
  Bitboard red_only = SquareBit(MakeSquare(8, 0)) | SquareBit(MakeSquare(8, 7));
  for (int r = 0; r < kRanks; ++r) {
    silver_only |= SquareBit(MakeSquare(9, r));
    red_only |= SquareBit(MakeSquare(0, r));
  }
  t.allowed[0] = kAllSquares & ~red_only;
  t.allowed[1] = kAllSquares & ~silver_only;
  for (Square s = 0; s < kSquares; ++s) {
    for (int df = -1; df <= 1; ++df) {
      for (int dr = -1; dr <= 1; ++dr) {
        const int f = FileOf(s) + df, r = RankOf(s) + dr;
        if ((df != 0 || dr != 0) && IsOnBoard(f, r)) {
          t.neighbours[s] |= SquareBit(MakeSquare(f, r));
        }
      }
    }
    for (int d = 0; d < 4; ++d) {
      int f = FileOf(s) + kFileStep[d], r = RankOf(s) + kRankStep[d];
      for (; IsOnBoard(f, r); f += kFileStep[d], r += kRankStep[d]) {
        t.ray[d][s] |= SquareBit(MakeSquare(f, r));
      }
    }
  }
  return t;
}
inline constexpr BoardTables kBoardTables = MakeBoardTables();
}  // namespace internal

// Squares a piece of colour c may stand on: everything except the squares
// reserved for the other colour (section 1 of the rules).
inline Bitboard AllowedSquares(Color c) {
  return internal::kBoardTables.allowed[static_cast<int>(c)];
}
// The up-to-eight neighbours of s.
inline Bitboard Neighbours(Square s) {
  return internal::kBoardTables.neighbours[s];
}
// Squares strictly beyond s in direction d, up to the board edge.
inline Bitboard Ray(Square s, Direction d) {
  return internal::kBoardTables.ray[static_cast<int>(d)][s];
}

}  // namespace khet

#endif  // KHET_ENGINE_BITBOARD_H_
