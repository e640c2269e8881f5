// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/position.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "engine/names.h"

namespace khet {
uint64_t Position::ComputeHash() const {
  uint64_t h = side_ == Color::kRed ? internal::Zobrist().red_to_move : 0;
  if (physical_facings_) h ^= internal::Zobrist().physical_facings;
  for (Square s = 0; s < kSquares; ++s) {
    if (board_[s] != 0) h ^= internal::Zobrist().piece[s][board_[s]];
  }
  return h;
}

void Position::SetPhysicalFacings(bool on) {
  if (on == physical_facings_) return;
  physical_facings_ = on;
  hash_ ^= internal::Zobrist().physical_facings;
  for (Square s = 0; s < kSquares; ++s) {
    const Piece p = at(s);
    const bool red = !p.empty() && p.color() == Color::kRed;
    switch (p.type()) {
      case PieceType::kPharaoh:
        Set(s, p.WithOrientation(on && red ? static_cast<int>(Direction::kSouth)
                                           : 0));
        break;
      case PieceType::kScarab:
      case PieceType::kEye:
        // NW and NE keep the codes of '/' and '\'; Red's face the other way.
        Set(s, p.WithOrientation(ScarabDiagonal(p.orientation()) +
                                 (on && red ? 2 : 0)));
        break;
      default:
        break;
    }
  }
}

Square Position::PharaohSquare(Color c) const {
  for (Bitboard b = occupied(c); b != 0;) {
    const Square s = PopLowest(b);
    if (at(s).type() == PieceType::kPharaoh) return s;
  }
  return -1;
}

absl::Status Position::Validate() const {
  int pharaohs[2] = {0, 0};
  int sphinxes[2] = {0, 0};
  for (Square s = 0; s < kSquares; ++s) {
    const Piece p = at(s);
    if (p.empty()) continue;
    const Color c = p.color();
    const int ci = static_cast<int>(c);
    if (!Contains(AllowedSquares(c), s)) {
      return absl::InvalidArgumentError(
          absl::StrCat(SquareName(s), ": a ", ColorName(c),
                       " piece may not stand on a square reserved for ",
                       ColorName(Opponent(c))));
    }
    switch (p.type()) {
      case PieceType::kPharaoh:
        if (++pharaohs[ci] > 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              SquareName(s), ": ", ColorName(c), " has a second Pharaoh"));
        }
        if (!physical_facings_ && p.orientation() != 0) {
          return absl::InvalidArgumentError(
              absl::StrCat(SquareName(s), ": a Pharaoh has no orientation"));
        }
        break;
      case PieceType::kSphinx: {
        if (edition_ == Edition::kKhet1) {
          return absl::InvalidArgumentError(absl::StrCat(
              SquareName(s), ": Khet 1.0 has fixed lasers, not Sphinxes"));
        }
        if (s != SphinxSquare(c)) {
          return absl::InvalidArgumentError(absl::StrCat(
              SquareName(s), ": ", ColorName(c), "'s Sphinx must stand on ",
              SquareName(SphinxSquare(c))));
        }
        ++sphinxes[ci];
        const auto facing = static_cast<Direction>(p.orientation());
        const bool ok =
            c == Color::kSilver
                ? facing == Direction::kNorth || facing == Direction::kWest
                : facing == Direction::kSouth || facing == Direction::kEast;
        if (!ok) {
          return absl::InvalidArgumentError(absl::StrCat(
              SquareName(s), ": ", ColorName(c), "'s Sphinx must face ",
              c == Color::kSilver ? "north or west" : "south or east"));
        }
        break;
      }
      case PieceType::kAnubis:
        if (edition_ == Edition::kKhet1) {
          return absl::InvalidArgumentError(absl::StrCat(
              SquareName(s), ": Khet 1.0 has Obelisks, not Anubis"));
        }
        break;
      case PieceType::kObelisk:
        if (edition_ == Edition::kKhet2) {
          return absl::InvalidArgumentError(absl::StrCat(
              SquareName(s), ": Khet 2.0 has Anubis, not Obelisks"));
        }
        if (p.height() > 2) {
          return absl::InvalidArgumentError(
              absl::StrCat(SquareName(s), ": Obelisks stack at most two high"));
        }
        break;
      case PieceType::kScarab:
      case PieceType::kEye:
        if (!physical_facings_ && p.orientation() > 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              SquareName(s), ": a Scarab or Eye is either / or \\"));
        }
        break;
      case PieceType::kPyramid:
      case PieceType::kNone:
        break;
    }
  }
  for (Color c : {Color::kSilver, Color::kRed}) {
    const int ci = static_cast<int>(c);
    if (pharaohs[ci] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(ColorName(c), " has no Pharaoh"));
    }
    if (edition_ == Edition::kKhet2 && sphinxes[ci] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(SquareName(SphinxSquare(c)), ": ", ColorName(c),
                       " needs its Sphinx there in Khet 2.0"));
    }
  }
  if (hash_ != ComputeHash()) {
    return absl::InternalError("position hash is out of date");
  }
  return absl::OkStatus();
}

}  // namespace khet
