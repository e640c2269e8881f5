// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/play.h"

#include <random>

#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/setups.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

// The fast paths must agree with the full ones on every move of positions
// drawn from random games of every setup: MakeMove with a reused beam, plain
// MakeMove and the checked ApplyMove.
TEST(PlayTest, ReusedBeamAndCheckedApplyGiveTheSameResult) {
  std::mt19937 rng(3);
  int reused = 0, retraced = 0;
  for (const SetupInfo& info : AllSetups()) {
    Position pos = *SetupPosition(info.id);
    for (int ply = 0; ply < 80; ++ply) {
      MoveList moves;
      GenerateMoves(pos, &moves);
      const BeamPath beam = TraceBeamPath(pos, pos.side_to_move());
      ASSERT_EQ(beam.hits, LaserHits(pos, pos.side_to_move()));
      for (Move m : moves) {
        Position plain = pos, cached = pos, checked = pos;
        const PharaohsHit a = MakeMove(&plain, m);
        const PharaohsHit b = MakeMove(&cached, m, beam);
        const absl::StatusOr<MoveEffects> c = ApplyMove(&checked, m);
        ASSERT_TRUE(c.ok()) << c.status();
        ASSERT_EQ(plain, cached) << info.id << " ply " << ply;
        ASSERT_EQ(plain, checked);
        ASSERT_EQ(plain.hash(), cached.hash());
        ASSERT_EQ(a, b);
        ASSERT_EQ(a, c->pharaohs_hit);
        const bool touches =
            ((SquareBit(m.from()) | SquareBit(m.to())) & beam.squares) != 0;
        ++(touches ? retraced : reused);
      }
      if (MakeMove(&pos, moves.moves[rng() % moves.size]) != 0) break;
    }
  }
  // Both paths were exercised.
  EXPECT_GT(reused, 1000);
  EXPECT_GT(retraced, 1000);
}

TEST(PlayTest, ApplyMoveReportsRemovalsAndHitStacksLoseOneObelisk) {
  Position pos;
  pos.set_edition(Edition::kKhet1);
  const Square e1 = MakeSquare(4, 0), j3 = MakeSquare(9, 2),
               j2 = MakeSquare(9, 1), f8 = MakeSquare(5, 7);
  pos.Set(e1, Piece(Color::kSilver, PieceType::kPharaoh));
  pos.Set(f8, Piece(Color::kRed, PieceType::kPharaoh));
  pos.Set(j3, Piece(Color::kRed, PieceType::kObelisk, 1));  // a Red stack
  pos.Set(MakeSquare(4, 4), Piece(Color::kSilver, PieceType::kPyramid, kNE));
  // Silver turns its Pyramid; the fixed laser runs up the j-file into j3.
  const absl::StatusOr<MoveEffects> effects =
      ApplyMove(&pos, Move::Rotate(MakeSquare(4, 4), true));
  ASSERT_TRUE(effects.ok()) << effects.status();
  ASSERT_EQ(effects->removals.size(), 1u);
  EXPECT_EQ(effects->removals[0].square, j3);
  EXPECT_EQ(effects->removals[0].before,
            Piece(Color::kRed, PieceType::kObelisk, 1));
  EXPECT_EQ(effects->removals[0].after,
            Piece(Color::kRed, PieceType::kObelisk, 0));
  EXPECT_EQ(pos.at(j3), Piece(Color::kRed, PieceType::kObelisk, 0));
  EXPECT_EQ(effects->pharaohs_hit, 0);
  EXPECT_TRUE(pos.at(j2).empty());
  EXPECT_EQ(pos.side_to_move(), Color::kRed);
}

}  // namespace
}  // namespace khet
