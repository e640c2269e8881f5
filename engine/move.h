// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A move in 16 bits: origin square, destination square and kind.
#ifndef KHET_ENGINE_MOVE_H_
#define KHET_ENGINE_MOVE_H_

#include <cstdint>

#include "engine/types.h"

namespace khet {

enum class MoveKind : uint8_t {
  // The piece on `from` (a whole Obelisk stack included) goes to the adjacent
  // square `to`: a step onto an empty square, a Scarab/Eye swap, or a single
  // Obelisk stacking onto another.
  kMove = 0,
  // Only the top Obelisk of the stack on `from` goes to `to`.
  kMoveTop = 1,
  // A quarter turn in place; `to` equals `from`.
  kRotateClockwise = 2,
  kRotateAnticlockwise = 3,
};

class Move {
 public:
  constexpr Move() = default;  // the null move; never legal
  constexpr Move(Square from, Square to, MoveKind kind)
      : bits_(static_cast<uint16_t>(from | (to << 7) |
                                    (static_cast<int>(kind) << 14))) {}
  static constexpr Move FromBits(uint16_t bits) {
    Move m;
    m.bits_ = bits;
    return m;
  }
  static constexpr Move Rotate(Square s, bool clockwise) {
    return Move(s, s,
                clockwise ? MoveKind::kRotateClockwise
                          : MoveKind::kRotateAnticlockwise);
  }

  constexpr Square from() const { return bits_ & 127; }
  constexpr Square to() const { return (bits_ >> 7) & 127; }
  constexpr MoveKind kind() const { return static_cast<MoveKind>(bits_ >> 14); }
  constexpr bool is_rotation() const { return (bits_ >> 15) != 0; }
  constexpr bool is_null() const { return bits_ == 0; }
  constexpr uint16_t bits() const { return bits_; }

  friend constexpr bool operator==(Move a, Move b) {
    return a.bits_ == b.bits_;
  }

 private:
  uint16_t bits_ = 0;
};

// Room for every legal move of any position that fits on the board.
inline constexpr int kMaxMoves = 1024;

struct MoveList {
  int size = 0;
  Move moves[kMaxMoves];

  const Move* begin() const { return moves; }
  const Move* end() const { return moves + size; }
  void push_back(Move m) { moves[size++] = m; }
};

}  // namespace khet

#endif  // KHET_ENGINE_MOVE_H_
