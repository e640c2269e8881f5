// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/game.h"

#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::Sq;

// Silver and Red turn a Pyramid off both beams back and forth: the start
// recurs every four plies.
void Shuffle(Game* game) {
  ASSERT_TRUE(game->Play(Move::Rotate(Sq("c1"), true)).ok());
  ASSERT_TRUE(game->Play(Move::Rotate(Sq("h8"), true)).ok());
  ASSERT_TRUE(game->Play(Move::Rotate(Sq("c1"), false)).ok());
  ASSERT_TRUE(game->Play(Move::Rotate(Sq("h8"), false)).ok());
}

TEST(GameTest, ThirdRepetitionCanBeClaimedByThePlayerToMove) {
  Game game(*SetupPosition("classic-2"));
  EXPECT_EQ(game.RepetitionCount(), 1);
  Shuffle(&game);
  EXPECT_EQ(game.RepetitionCount(), 2);
  EXPECT_EQ(game.ClaimRepetitionDraw(Color::kSilver).message(),
            "the current position has occurred 2 times; a claim needs three");
  Shuffle(&game);
  EXPECT_EQ(game.RepetitionCount(), 3);
  EXPECT_FALSE(game.over());
  EXPECT_EQ(game.ClaimRepetitionDraw(Color::kRed).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(game.ClaimRepetitionDraw(Color::kSilver).ok());
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kRepetitionClaimed}));
}

TEST(GameTest, AutomaticRepetitionAndPlyLimitOptionsDraw) {
  Game repeat(*SetupPosition("classic-2"),
              RuleOptions{.automatic_repetition_draw = true});
  Shuffle(&repeat);
  Shuffle(&repeat);
  EXPECT_EQ(repeat.result(),
            (GameResult{Outcome::kDraw, ResultReason::kRepetition}));

  Game limited(*SetupPosition("classic-2"), RuleOptions{.ply_limit = 4});
  Shuffle(&limited);
  EXPECT_EQ(limited.result(),
            (GameResult{Outcome::kDraw, ResultReason::kPlyLimit}));
  EXPECT_EQ(limited.ply(), 4);
}

TEST(GameTest, FinishedGamesRefuseMovesAndChangeNothing) {
  Game game(*SetupPosition("classic-2"));
  ASSERT_TRUE(game.Resign(Color::kRed).ok());
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kSilverWins, ResultReason::kResignation}));
  const auto played = game.Play(Move::Rotate(Sq("c1"), true));
  EXPECT_EQ(played.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(played.status().message(),
            "the game is over: silver wins (resignation)");
  EXPECT_EQ(game.ply(), 0);
  EXPECT_EQ(game.AgreeDraw().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(GameTest, IllegalMoveLeavesTheGameAsItWas) {
  Game game(*SetupPosition("classic-2"));
  const Position before = game.position();
  EXPECT_EQ(game.Play(Move::Rotate(Sq("e1"), true)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(game.position(), before);
  EXPECT_EQ(game.ply(), 0);
}

TEST(GameTest, PharaohHitEndsTheGame) {
  // Facing west, Silver's Sphinx fires along rank 1 into the NE Pyramid on
  // f1, which turns the beam north up the f-file into Red's Pharaoh.
  Position pos;
  pos.Set(Sq("j1"), Piece(Color::kSilver, PieceType::kSphinx, 3));
  pos.Set(Sq("a8"), Piece(Color::kRed, PieceType::kSphinx, 2));
  pos.Set(Sq("f1"), Piece(Color::kSilver, PieceType::kPyramid, kNE));
  pos.Set(Sq("c3"), Piece(Color::kSilver, PieceType::kPharaoh));
  pos.Set(Sq("f6"), Piece(Color::kRed, PieceType::kPharaoh));
  Game game(pos);
  ASSERT_TRUE(game.Play(Move::Rotate(Sq("j1"), true)).ok());  // j1 faces N
  EXPECT_FALSE(game.over());
  ASSERT_TRUE(game.Play(Move::Rotate(Sq("a8"), false)).ok());     // a8 faces E
  const auto effects = game.Play(Move::Rotate(Sq("j1"), false));  // W again
  ASSERT_TRUE(effects.ok()) << effects.status();
  EXPECT_TRUE(PharaohWasHit(effects->pharaohs_hit, Color::kRed));
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kSilverWins, ResultReason::kPharaohHit}));
}

}  // namespace
}  // namespace khet
