// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/play.h"

#include "engine/laser.h"
#include "engine/movegen.h"

namespace khet {
namespace {

void MovePiece(Position* pos, Move move) {
  const Square from = move.from(), to = move.to();
  const Piece p = pos->at(from);
  switch (move.kind()) {
    case MoveKind::kRotateClockwise:
    case MoveKind::kRotateAnticlockwise: {
      const bool two_states =
          (p.type() == PieceType::kScarab || p.type() == PieceType::kEye) &&
          !pos->physical_facings();
      const int turn = move.kind() == MoveKind::kRotateClockwise ? 1 : 3;
      pos->Set(from, p.WithOrientation(two_states ? p.orientation() ^ 1
                                                  : p.orientation() + turn));
      return;
    }
    case MoveKind::kMove: {
      const Piece target = pos->at(to);
      if (target.empty()) {
        pos->Set(to, p);
        pos->Set(from, Piece());
      } else if (p.type() == PieceType::kObelisk &&
                 target.type() == PieceType::kObelisk) {
        pos->Set(to, target.WithOrientation(1));  // stacks two high
        pos->Set(from, Piece());
      } else {  // a Scarab or Eye swaps
        pos->Set(to, p);
        pos->Set(from, target);
      }
      return;
    }
    case MoveKind::kMoveTop: {
      const Piece single = p.WithOrientation(0);
      const Piece target = pos->at(to);
      pos->Set(from, single);
      pos->Set(to, target.empty() ? single : target.WithOrientation(1));
      return;
    }
  }
}

// Removes the pieces on `hits` (one Obelisk of a stack) and reports the
// Pharaohs among them.
template <typename OnRemoval>
PharaohsHit RemoveHits(Position* pos, Bitboard hits, OnRemoval on_removal) {
  PharaohsHit pharaohs = 0;
  while (hits != 0) {
    const Square s = PopLowest(hits);
    const Piece p = pos->at(s);
    const Piece after = p.type() == PieceType::kObelisk && p.height() == 2
                            ? p.WithOrientation(0)
                            : Piece();
    if (p.type() == PieceType::kPharaoh) {
      pharaohs |= static_cast<PharaohsHit>(1 << static_cast<int>(p.color()));
    }
    pos->Set(s, after);
    on_removal(Removal{s, p, after});
  }
  return pharaohs;
}

}  // namespace

PharaohsHit MakeMove(Position* pos, Move move) {
  const Color mover = pos->side_to_move();
  MovePiece(pos, move);
  const Bitboard hits = LaserHits(*pos, mover);
  PharaohsHit pharaohs = 0;
  if (hits != 0) pharaohs = RemoveHits(pos, hits, [](const Removal&) {});
  pos->FlipSideToMove();
  return pharaohs;
}

PharaohsHit MakeMove(Position* pos, Move move, const BeamPath& mover_beam) {
  const Bitboard touched = SquareBit(move.from()) | SquareBit(move.to());
  if ((touched & mover_beam.squares) != 0) return MakeMove(pos, move);
  MovePiece(pos, move);
  PharaohsHit pharaohs = 0;
  if (mover_beam.hits != 0) {
    pharaohs = RemoveHits(pos, mover_beam.hits, [](const Removal&) {});
  }
  pos->FlipSideToMove();
  return pharaohs;
}

PharaohsHit MakeMove(Position* pos, Move move, const BeamPath& mover_beam,
                     Bitboard* hits) {
  const Bitboard touched = SquareBit(move.from()) | SquareBit(move.to());
  const Color mover = pos->side_to_move();
  MovePiece(pos, move);
  *hits = (touched & mover_beam.squares) != 0 ? LaserHits(*pos, mover)
                                              : mover_beam.hits;
  PharaohsHit pharaohs = 0;
  if (*hits != 0) pharaohs = RemoveHits(pos, *hits, [](const Removal&) {});
  pos->FlipSideToMove();
  return pharaohs;
}

absl::StatusOr<MoveEffects> ApplyMove(Position* pos, Move move) {
  const absl::StatusOr<Move> legal = CheckMove(*pos, move);
  if (!legal.ok()) return legal.status();
  MoveEffects effects;
  effects.move = *legal;
  const Color mover = pos->side_to_move();
  MovePiece(pos, *legal);
  effects.hit = LaserHits(*pos, mover);
  effects.pharaohs_hit = RemoveHits(
      pos, effects.hit,
      [&effects](const Removal& r) { effects.removals.push_back(r); });
  pos->FlipSideToMove();
  return effects;
}

}  // namespace khet
