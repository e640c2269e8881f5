// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/conversion_positions.h"

#include <string>

#include "engine/notation.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using testing_positions::Sq;
using testing_positions::Start;

// Classic 2 without two of Red's Pyramids: Silver is two pieces up.
Position TwoUp() {
  Position pos = Start("classic-2");
  pos.Set(Sq("c7"), Piece());
  pos.Set(Sq("a5"), Piece());
  return pos;
}

TEST(ConversionPositionsTest, CountsPiecesAndObeliskStoreys) {
  EXPECT_EQ(PieceCount(Start("classic-2"), Color::kSilver), 9);
  // Classic 1: seven Pyramids and two Obelisk stacks of two storeys.
  EXPECT_EQ(PieceCount(Start("classic-1"), Color::kRed), 11);
  EXPECT_EQ(PieceLead(TwoUp(), Color::kSilver), 2);
  EXPECT_EQ(PieceLead(TwoUp(), Color::kRed), -2);
}

TEST(ConversionPositionsTest, ReadsWhatItWrites) {
  const ConversionPosition p{"classic-2", 7, 23, Color::kSilver, TwoUp()};
  const std::string text = "# a comment\n\n" + FormatConversionPosition(p) +
                           "\n" + FormatConversionPosition(p) + "\n";
  absl::StatusOr<std::vector<ConversionPosition>> read =
      ParseConversionPositions(text);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 2u);
  const ConversionPosition& q = (*read)[0];
  EXPECT_EQ(q.setup, "classic-2");
  EXPECT_EQ(q.game, 7);
  EXPECT_EQ(q.ply, 23);
  EXPECT_EQ(q.winner, Color::kSilver);
  EXPECT_EQ(FormatPosition(q.position), FormatPosition(p.position));
}

TEST(ConversionPositionsTest, RefusesWhatIsNotAWonPosition) {
  const std::string two_up = FormatPosition(TwoUp());
  const std::string start = FormatPosition(Start("classic-2"));
  struct Case {
    std::string line;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"classic-2 1 2 silver", "line 2: expected <setup>"},
           {"classic-9 1 2 silver " + two_up, "line 2: no setup \"classic-9\""},
           {"classic-2 0 2 silver " + two_up, "line 2: game \"0\""},
           {"classic-2 1 x silver " + two_up, "line 2: ply \"x\""},
           {"classic-2 1 2 gold " + two_up, "line 2: winner \"gold\""},
           {"classic-2 1 2 red " + two_up, "line 2: red is -2 pieces up"},
           {"classic-2 1 2 silver " + start, "line 2: silver is 0 pieces up"},
           {"classic-2 1 2 silver 10/10 s 2", "line 2: position"},
       }) {
    absl::StatusOr<std::vector<ConversionPosition>> read =
        ParseConversionPositions("# header\n" + c.line + "\n");
    ASSERT_FALSE(read.ok()) << c.line;
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(read.status().message()).rfind(c.message, 0), 0u)
        << read.status().message();
  }
}

}  // namespace
}  // namespace khet
