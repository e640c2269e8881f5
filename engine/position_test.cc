// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/position.h"

#include <random>

#include "engine/movegen.h"
#include "engine/play.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::Sq;

Position Minimal() {
  Position pos;
  pos.Set(Sq("j1"), Piece(Color::kSilver, PieceType::kSphinx, 0));
  pos.Set(Sq("a8"), Piece(Color::kRed, PieceType::kSphinx, 2));
  pos.Set(Sq("e1"), Piece(Color::kSilver, PieceType::kPharaoh));
  pos.Set(Sq("f8"), Piece(Color::kRed, PieceType::kPharaoh));
  return pos;
}

TEST(PositionTest, IsASmallValueType) {
  EXPECT_LE(sizeof(Position), 128u);
  const Position a = Minimal();
  Position b = a;
  EXPECT_EQ(a, b);
  b.Set(Sq("e4"), Piece(Color::kSilver, PieceType::kPyramid, kNE));
  EXPECT_NE(a, b);
  EXPECT_NE(a.hash(), b.hash());
}

TEST(PositionTest, SideToMoveIsPartOfTheHashAndEquality) {
  const Position a = Minimal();
  Position b = a;
  b.FlipSideToMove();
  EXPECT_NE(a, b);
  EXPECT_NE(a.hash(), b.hash());
  b.set_side_to_move(Color::kSilver);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
}

TEST(PositionTest, IncrementalHashEqualsRecomputedOverRandomGames) {
  std::mt19937 rng(7);
  for (const SetupInfo& info : AllSetups()) {
    Position pos = *SetupPosition(info.id);
    for (int ply = 0; ply < 200; ++ply) {
      MoveList moves;
      GenerateMoves(pos, &moves);
      ASSERT_GT(moves.size, 0);
      const Move m = moves.moves[rng() % moves.size];
      const PharaohsHit hit = MakeMove(&pos, m);
      ASSERT_EQ(pos.hash(), pos.ComputeHash()) << info.id << " ply " << ply;
      if (hit != 0) break;
    }
  }
}

TEST(PositionTest, ValidateNamesTheSquareAndTheReason) {
  EXPECT_TRUE(Minimal().Validate().ok());

  Position no_pharaoh = Minimal();
  no_pharaoh.Set(Sq("f8"), Piece());
  EXPECT_EQ(no_pharaoh.Validate().message(), "Red has no Pharaoh");

  Position two = Minimal();
  two.Set(Sq("d1"), Piece(Color::kSilver, PieceType::kPharaoh));
  EXPECT_EQ(two.Validate().message(), "e1: Silver has a second Pharaoh");

  Position reserved = Minimal();
  reserved.Set(Sq("a4"), Piece(Color::kSilver, PieceType::kPyramid, kNE));
  EXPECT_EQ(reserved.Validate().message(),
            "a4: a Silver piece may not stand on a square reserved for Red");

  Position sphinx = Minimal();
  sphinx.Set(Sq("j1"), Piece(Color::kSilver, PieceType::kSphinx, 1));
  EXPECT_EQ(sphinx.Validate().message(),
            "j1: Silver's Sphinx must face north or west");

  Position moved = Minimal();
  moved.Set(Sq("a8"), Piece());
  moved.Set(Sq("b7"), Piece(Color::kRed, PieceType::kSphinx, 2));
  EXPECT_EQ(moved.Validate().message(), "b7: Red's Sphinx must stand on a8");

  Position obelisk = Minimal();
  obelisk.Set(Sq("d1"), Piece(Color::kSilver, PieceType::kObelisk, 0));
  EXPECT_EQ(obelisk.Validate().message(),
            "d1: Khet 2.0 has Anubis, not Obelisks");

  Position tall = Minimal();
  tall.set_edition(Edition::kKhet1);
  tall.Set(Sq("j1"), Piece());
  tall.Set(Sq("a8"), Piece());
  tall.Set(Sq("d1"), Piece(Color::kSilver, PieceType::kObelisk, 2));
  EXPECT_EQ(tall.Validate().message(), "d1: Obelisks stack at most two high");

  for (const Position& bad :
       {no_pharaoh, two, reserved, sphinx, moved, obelisk, tall}) {
    EXPECT_EQ(bad.Validate().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace khet
