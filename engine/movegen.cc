// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/movegen.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "engine/names.h"

namespace khet {
namespace {

bool Swappable(Piece p) {
  const PieceType t = p.type();
  return t == PieceType::kPyramid || t == PieceType::kAnubis ||
         t == PieceType::kObelisk;
}

bool IsSingleObelisk(Piece p, Color c) {
  return p.type() == PieceType::kObelisk && p.color() == c && p.height() == 1;
}

// The rotation a Sphinx of colour c facing `facing` may make: Silver turns
// between north and west, Red between south and east.
bool SphinxTurnIsClockwise(Color c, Direction facing) {
  return c == Color::kSilver ? facing == Direction::kWest
                             : facing == Direction::kEast;
}

// Destinations of a Scarab or Eye on s: empty squares and swaps, both pieces
// landing on squares their colours may enter.
Bitboard ScarabTargets(const Position& pos, Square s, Color c, Bitboard empty) {
  const Bitboard allowed = AllowedSquares(c);
  const Bitboard near = Neighbours(s) & allowed;
  Bitboard targets = near & empty;
  for (Bitboard b = near & pos.occupied(); b != 0;) {
    const Square t = PopLowest(b);
    const Piece other = pos.at(t);
    if (Swappable(other) && Contains(AllowedSquares(other.color()), s)) {
      targets |= SquareBit(t);
    }
  }
  return targets;
}

// Squares near s holding a single Obelisk of colour c that another one may
// stack onto.
Bitboard StackTargets(const Position& pos, Square s, Color c) {
  Bitboard targets = 0;
  for (Bitboard b = Neighbours(s) & pos.occupied(c) & AllowedSquares(c);
       b != 0;) {
    const Square t = PopLowest(b);
    if (IsSingleObelisk(pos.at(t), c)) targets |= SquareBit(t);
  }
  return targets;
}

// Feeds the moves of the pieces on `pieces` (all of the side to move) to a
// sink with AddTargets(from, targets, kind) and Add(move). kPhysical is
// pos.physical_facings(), a template argument to keep the loop as it was.
template <bool kPhysical, typename Sink>
void GenerateFor(const Position& pos, Bitboard pieces, Sink& sink) {
  const Color c = pos.side_to_move();
  const Bitboard empty = kAllSquares & ~pos.occupied();
  const Bitboard steps_allowed = empty & AllowedSquares(c);
  while (pieces != 0) {
    const Square s = PopLowest(pieces);
    const Piece p = pos.at(s);
    switch (p.type()) {
      case PieceType::kPharaoh:
        sink.AddTargets(s, Neighbours(s) & steps_allowed, MoveKind::kMove);
        if (kPhysical) {
          sink.Add(Move::Rotate(s, true));
          sink.Add(Move::Rotate(s, false));
        }
        break;
      case PieceType::kPyramid:
      case PieceType::kAnubis:
        sink.AddTargets(s, Neighbours(s) & steps_allowed, MoveKind::kMove);
        sink.Add(Move::Rotate(s, true));
        sink.Add(Move::Rotate(s, false));
        break;
      case PieceType::kScarab:
      case PieceType::kEye:
        sink.AddTargets(s, ScarabTargets(pos, s, c, empty), MoveKind::kMove);
        sink.Add(Move::Rotate(s, true));
        if (kPhysical) sink.Add(Move::Rotate(s, false));
        break;
      case PieceType::kSphinx:
        sink.Add(Move::Rotate(
            s,
            SphinxTurnIsClockwise(c, static_cast<Direction>(p.orientation()))));
        break;
      case PieceType::kObelisk: {
        const Bitboard steps = Neighbours(s) & steps_allowed;
        const Bitboard stack = StackTargets(pos, s, c);
        if (p.height() == 1) {
          sink.AddTargets(s, steps | stack, MoveKind::kMove);
        } else {
          sink.AddTargets(s, steps, MoveKind::kMove);
          sink.AddTargets(s, steps | stack, MoveKind::kMoveTop);
        }
        break;
      }
      case PieceType::kNone:
        break;
    }
  }
}

template <typename Sink>
void Generate(const Position& pos, Bitboard pieces, Sink& sink) {
  if (pos.physical_facings()) {
    GenerateFor<true>(pos, pieces, sink);
  } else {
    GenerateFor<false>(pos, pieces, sink);
  }
}

// Writes through a local cursor so the count stays in a register.
struct ListSink {
  Move* out;
  void AddTargets(Square from, Bitboard targets, MoveKind kind) {
    const Move base(from, 0, kind);
    while (targets != 0) {
      *out++ = Move::FromBits(base.bits() |
                              static_cast<uint16_t>(PopLowest(targets) << 7));
    }
  }
  void Add(Move m) { *out++ = m; }
};

struct CountSink {
  int count = 0;
  void AddTargets(Square, Bitboard targets, MoveKind) {
    count += PopCount(targets);
  }
  void Add(Move) { ++count; }
};

absl::Status Illegal(Square from, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(SquareName(from), ": ", why));
}

absl::StatusOr<Move> CheckRotation(const Position& pos, Move move, Piece p) {
  const Square s = move.from();
  const bool clockwise = move.kind() == MoveKind::kRotateClockwise;
  if (move.to() != s) {
    return Illegal(s, "a rotation stays on its square");
  }
  switch (p.type()) {
    case PieceType::kPharaoh:
      if (pos.physical_facings()) return move;
      return Illegal(s,
                     "a Pharaoh does not rotate (its facing changes nothing)");
    case PieceType::kObelisk:
      return Illegal(s, "an Obelisk does not rotate");
    case PieceType::kScarab:
    case PieceType::kEye:
      if (pos.physical_facings()) return move;
      // Both quarter turns give the same position: list it as clockwise.
      return Move::Rotate(s, true);
    case PieceType::kSphinx: {
      const auto facing = static_cast<Direction>(p.orientation());
      if (clockwise != SphinxTurnIsClockwise(pos.side_to_move(), facing)) {
        return Illegal(
            s, absl::StrCat(
                   "the Sphinx may only point ",
                   pos.side_to_move() == Color::kSilver ? "north or west"
                                                        : "south or east",
                   ", so it turns ", clockwise ? "anticlockwise" : "clockwise",
                   " from here"));
      }
      return move;
    }
    default:
      return move;
  }
}

absl::StatusOr<Move> CheckStep(const Position& pos, Move move, Piece p) {
  const Square from = move.from(), to = move.to();
  const Color c = pos.side_to_move();
  if (to < 0 || to >= kSquares) {
    return Illegal(from, absl::StrCat(SquareName(to), " is not on the board"));
  }
  if (!Contains(Neighbours(from), to)) {
    return Illegal(
        from, absl::StrCat(SquareName(to), " is not next to ", SquareName(from),
                           "; a piece moves one square"));
  }
  if (p.type() == PieceType::kSphinx) {
    return Illegal(from, "a Sphinx never moves; it may only turn");
  }
  if (!Contains(AllowedSquares(c), to)) {
    return Illegal(from, absl::StrCat(SquareName(to), " is reserved for ",
                                      ColorName(Opponent(c)), " pieces"));
  }
  const bool top_only = move.kind() == MoveKind::kMoveTop;
  if (top_only && !(p.type() == PieceType::kObelisk && p.height() == 2)) {
    return Illegal(from, "only the top of an Obelisk stack moves on its own");
  }
  const Piece target = pos.at(to);
  if (target.empty()) return move;

  const std::string occupant = absl::StrCat(
      ColorName(target.color()), " ",
      PieceTypeName(target.type(), pos.edition()), " on ", SquareName(to));
  if (p.type() == PieceType::kScarab || p.type() == PieceType::kEye) {
    if (!Swappable(target)) {
      return Illegal(from,
                     absl::StrCat("a ", PieceTypeName(p.type(), pos.edition()),
                                  " swaps only with a Pyramid, Anubis or "
                                  "Obelisk, not with the ",
                                  occupant));
    }
    if (!Contains(AllowedSquares(target.color()), from)) {
      return Illegal(
          from, absl::StrCat("the swap would put the ", occupant, " on ",
                             SquareName(from), ", reserved for ", ColorName(c),
                             " pieces"));
    }
    return move;
  }
  if (p.type() == PieceType::kObelisk && target.type() == PieceType::kObelisk) {
    if (target.color() != c) {
      return Illegal(from, "only Obelisks of the same colour stack");
    }
    if (target.height() == 2 || (p.height() == 2 && !top_only)) {
      return Illegal(from, "Obelisks stack at most two high");
    }
    return move;
  }
  return Illegal(from,
                 absl::StrCat(SquareName(to), " is occupied by the ", occupant,
                              "; only a Scarab or Eye may swap"));
}

}  // namespace

void GenerateMoves(const Position& pos, MoveList* list) {
  ListSink sink{list->moves};
  Generate(pos, pos.occupied(pos.side_to_move()), sink);
  list->size = static_cast<int>(sink.out - list->moves);
}

int CountMoves(const Position& pos) {
  CountSink sink;
  Generate(pos, pos.occupied(pos.side_to_move()), sink);
  return sink.count;
}

void GenerateMovesFrom(const Position& pos, Square from, MoveList* list) {
  list->size = 0;
  if (from < 0 || from >= kSquares) return;
  ListSink sink{list->moves};
  Generate(pos, pos.occupied(pos.side_to_move()) & SquareBit(from), sink);
  list->size = static_cast<int>(sink.out - list->moves);
}

absl::StatusOr<Move> CheckMove(const Position& pos, Move move) {
  const Square from = move.from();
  if (move.is_null()) {
    return absl::InvalidArgumentError("the null move is not a move");
  }
  if (from >= kSquares) {
    return absl::InvalidArgumentError(
        absl::StrCat(SquareName(from), " is not on the board"));
  }
  const Piece p = pos.at(from);
  if (p.empty()) return Illegal(from, "there is no piece there");
  if (p.color() != pos.side_to_move()) {
    return Illegal(from,
                   absl::StrCat("the ", PieceTypeName(p.type(), pos.edition()),
                                " there is ", ColorName(p.color()), "'s, and ",
                                ColorName(pos.side_to_move()), " is to move"));
  }
  return move.is_rotation() ? CheckRotation(pos, move, p)
                            : CheckStep(pos, move, p);
}

}  // namespace khet
