// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/announcements.h"

#include "engine/notation.h"
#include "engine/setups.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

TEST(AnnouncementsTest, Moves) {
  std::vector<Removal> hits = {
      {MakeSquare(7, 4), Piece(Color::kRed, PieceType::kPyramid, kNE), {}}};
  EXPECT_EQ(MoveAnnouncement(Color::kSilver, "alice", "e4-e5", hits,
                             Edition::kKhet2, /*quiet=*/true),
            "Silver (alice) plays e4-e5. The laser hits Red Pyramid NE on h5.");
  EXPECT_EQ(MoveAnnouncement(Color::kSilver, "alice", "e4-e5", {},
                             Edition::kKhet2, /*quiet=*/false),
            "Silver (alice) plays e4-e5.");
  EXPECT_EQ(MoveAnnouncement(Color::kSilver, "alice", "e4-e5", {},
                             Edition::kKhet2, /*quiet=*/true),
            "");
  hits.push_back({MakeSquare(3, 7), Piece(Color::kRed, PieceType::kObelisk, 1),
                  Piece(Color::kRed, PieceType::kObelisk, 0)});
  hits.push_back(
      {MakeSquare(5, 7), Piece(Color::kRed, PieceType::kPharaoh), {}});
  EXPECT_EQ(
      MoveAnnouncement(Color::kRed, "", "a8L", hits, Edition::kKhet1, false),
      "Red plays a8L. The laser hits Red Pyramid NE on h5, Red Obelisk "
      "stack on d8 (its top Obelisk falls) and Red Pharaoh on f8.");
}

TEST(AnnouncementsTest, GameOver) {
  Game game(*SetupPosition("classic-2"));
  ASSERT_TRUE(game.Resign(Color::kRed).ok());
  EXPECT_EQ(GameOverAnnouncement(game, "alice", "bob"),
            "Red (bob) resigns: Silver wins.");
  // Silver's Sphinx turned west shoots along rank 1; with the Anubis f1
  // gone the next shot hits Silver's own Pharaoh e1.
  Game hit(*SetupPosition("classic-2"));
  for (const char* m : {"j1L", "a8L", "j1R", "a8R", "j1L"}) {
    ASSERT_TRUE(hit.Play(*ParseMove(hit.position(), m)).ok()) << m;
  }
  ASSERT_TRUE(hit.over());
  EXPECT_EQ(GameOverAnnouncement(hit, "alice", "bob"),
            "Silver's Pharaoh is hit: Red wins.");
}

TEST(AnnouncementsTest, Others) {
  EXPECT_EQ(SeatAnnouncement(Color::kRed, "bob", true),
            "bob takes the Red seat.");
  EXPECT_EQ(
      ComputerSeatAnnouncement(Color::kSilver, 2, "SCARAB'S APPRENTICE", false),
      "The computer (level 2, SCARAB'S APPRENTICE) leaves the Silver "
      "seat.");
  EXPECT_EQ(GameStartAnnouncement("Osiris", "a", "b", Color::kRed),
            "A new game of Osiris begins: Silver (a) against Red (b). Red "
            "moves first.");
  EXPECT_EQ(GameStartAnnouncement("", "a", "b", Color::kSilver),
            "A new game from a custom position begins: Silver (a) against "
            "Red (b).");
  EXPECT_EQ(ResetAnnouncement(true, 5400),
            "No move for 90 min: the game is reset; both seats are free.");
  EXPECT_EQ(DurationText(86400), "1 d");
  EXPECT_EQ(DurationText(61), "61 s");
  RuleOptions options;
  options.ply_limit = 222;
  EXPECT_EQ(SetupAnnouncement("Classic 1", options),
            "The setup is now Classic 1. Draw after 222 plies.");
}

}  // namespace
}  // namespace khet
