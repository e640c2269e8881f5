// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Position: the pieces on the board, the side to move, the edition and
// whether pieces have physical facings, with an incrementally updated Zobrist
// hash. A 128-byte value type: copy it to try a move (copy-make).
#ifndef KHET_ENGINE_POSITION_H_
#define KHET_ENGINE_POSITION_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "engine/bitboard.h"
#include "engine/types.h"

namespace khet {

namespace internal {
struct ZobristKeys {
  uint64_t piece[kSquares][kPieceCodes];  // [square][Piece::code()]
  uint64_t red_to_move;
  uint64_t physical_facings;
};
constexpr uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
constexpr ZobristKeys MakeZobristKeys() {
  ZobristKeys keys{};
  uint64_t state = 0x4b686574;  // fixed: hashes are stable across runs
  for (auto& square : keys.piece) {
    for (int code = 1; code < kPieceCodes; ++code) {
      square[code] = SplitMix64(state);
    }
  }
  keys.red_to_move = SplitMix64(state);
  keys.physical_facings = SplitMix64(state);
  return keys;
}
inline constexpr ZobristKeys kZobristKeys = MakeZobristKeys();
inline const ZobristKeys& Zobrist() { return kZobristKeys; }
}  // namespace internal

class Position {
 public:
  // An empty board, Silver to move, Khet 2.0, two-state facings.
  Position() = default;

  Piece at(Square s) const { return Piece::FromCode(board_[s]); }
  Color side_to_move() const { return side_; }
  Edition edition() const { return edition_; }
  // RuleOptions::physical_facings: Pharaohs, Scarabs and Eyes have four
  // facings (types.h), and their quarter turns are moves of their own.
  bool physical_facings() const { return physical_facings_; }
  uint64_t hash() const { return hash_; }
  Bitboard occupied() const { return occupied_[0] | occupied_[1]; }
  Bitboard occupied(Color c) const { return occupied_[static_cast<int>(c)]; }

  // Places p on s (replacing what was there); an empty p clears s.
  void Set(Square s, Piece p) {
    const auto& z = internal::Zobrist();
    const Piece old = at(s);
    if (!old.empty()) {
      hash_ ^= z.piece[s][old.code()];
      occupied_[static_cast<int>(old.color())] &= ~SquareBit(s);
    }
    board_[s] = p.code();
    if (!p.empty()) {
      hash_ ^= z.piece[s][p.code()];
      occupied_[static_cast<int>(p.color())] |= SquareBit(s);
    }
  }
  void set_side_to_move(Color c) {
    if (c != side_) FlipSideToMove();
  }
  void FlipSideToMove() {
    side_ = Opponent(side_);
    hash_ ^= internal::Zobrist().red_to_move;
  }
  void set_edition(Edition e) { edition_ = e; }

  // Switches between the two forms of facings, turning the pieces already on
  // the board: to physical facings, each Pharaoh faces the opponent (Silver
  // north, Red south) and each Scarab or Eye keeps its diagonal with its
  // front mirror towards the opponent (Silver NW or NE, Red SE or SW); back
  // to two-state facings, a Pharaoh's facing is dropped and a Scarab or Eye
  // keeps its diagonal. Does nothing if the position is already in that form.
  void SetPhysicalFacings(bool on);

  // The hash computed from scratch; equals hash() for every position.
  uint64_t ComputeHash() const;

  // Squares of c's Pharaoh, or -1 if it has none.
  Square PharaohSquare(Color c) const;

  // OK if this is a position a game may reach: each side exactly one Pharaoh;
  // in Khet 2.0 exactly one Sphinx per side, on its corner (Silver j1 facing
  // N or W, Red a8 facing S or E), no Obelisks; in Khet 1.0 no Sphinx or
  // Anubis; every piece on a square its colour may enter. Otherwise
  // INVALID_ARGUMENT naming the square and the reason.
  absl::Status Validate() const;

  friend bool operator==(const Position& a, const Position& b) {
    return a.board_ == b.board_ && a.side_ == b.side_ &&
           a.edition_ == b.edition_ &&
           a.physical_facings_ == b.physical_facings_;
  }

 private:
  Bitboard occupied_[2] = {0, 0};
  std::array<uint8_t, kSquares> board_{};
  uint64_t hash_ = 0;
  Color side_ = Color::kSilver;
  Edition edition_ = Edition::kKhet2;
  bool physical_facings_ = false;
};

// Square of c's Sphinx in Khet 2.0: j1 for Silver, a8 for Red.
inline constexpr Square SphinxSquare(Color c) {
  return c == Color::kSilver ? MakeSquare(9, 0) : MakeSquare(0, 7);
}

}  // namespace khet

#endif  // KHET_ENGINE_POSITION_H_
