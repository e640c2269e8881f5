// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/board_text.h"

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "engine/laser.h"
#include "engine/notation.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::Parsed;
using ::khet::testing_positions::Start;

TEST(RenderBoardTest, ClassicStartWithSilversLaser) {
  const Position pos = Start("classic-2");
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  EXPECT_EQ(RenderBoard(pos, &trace),
            "    a   b   c   d   e   f   g   h   i   j\n"
            " 8  xs  .s  .   .   as  k   as  pse .r  |    8\n"
            " 7  .r  .   psw .   .   .   .   .   .   |    7\n"
            " 6  .r  .   .   Pnw .   .   .   .   .   |    6\n"
            " 5  pne .   Psw .   s\\  s/  .   pse-----Pnw  5\n"
            " 4  pse .   Pnw .   S/  S\\  .   pne-----Psw  4\n"
            " 3  .r  .   .   .   .   .   pse .   .   |    3\n"
            " 2  .r  .   .   .   .   .   .   Pne .   |    2\n"
            " 1  .r  .s  Pnw An  K   An  .   .   .r  Xn   1\n"
            "    a   b   c   d   e   f   g   h   i   j\n"
            "Silver to move, Khet 2.0\n");
}

TEST(RenderBoardTest, WithoutATraceOnlyPiecesAndReservedSquares) {
  EXPECT_EQ(RenderBoard(Start("classic-1"), nullptr),
            "    a   b   c   d   e   f   g   h   i   j\n"
            " 8  .r  .s  .   .   o2  k   o2  pse .r  .s   8\n"
            " 7  .r  .   psw .   .   .   .   .   .   .s   7\n"
            " 6  .r  .   .   Pnw .   .   .   .   .   .s   6\n"
            " 5  pne .   Psw .   s\\  s/  .   pse .   Pnw  5\n"
            " 4  pse .   Pnw .   S/  S\\  .   pne .   Psw  4\n"
            " 3  .r  .   .   .   .   .   pse .   .   .s   3\n"
            " 2  .r  .   .   .   .   .   .   Pne .   .s   2\n"
            " 1  .r  .s  Pnw O2  K   O2  .   .   .r  .s   1\n"
            "    a   b   c   d   e   f   g   h   i   j\n"
            "Silver to move, Khet 1.0\n");
}

TEST(RenderBoardTest, CrossingBeamsAndAHit) {
  // Up the j-file, west along rank 5, north, east along rank 7 and south
  // down the h-file across rank 5 into the Red Pharaoh on h3.
  const Position pos = Parsed("xs9/3Pse3Psw2/10/3Pne5Psw/10/7k2/10/4K4Xn s 2");
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  EXPECT_EQ(RenderBoard(pos, &trace),
            "    a   b   c   d   e   f   g   h   i   j\n"
            " 8  xs  .s  .   .   .   .   .   .   .r  .s   8\n"
            " 7  .r  .   .   Pse-------------Psw .   .s   7\n"
            " 6  .r  .   .   |   .   .   .   |   .   .s   6\n"
            " 5  .r  .   .   Pne-------------+-------Psw  5\n"
            " 4  .r  .   .   .   .   .   .   |   .   |    4\n"
            " 3  .r  .   .   .   .   .   .   k*  .   |    3\n"
            " 2  .r  .   .   .   .   .   .   .   .   |    2\n"
            " 1  .r  .s  .   .   K   .   .   .   .r  Xn   1\n"
            "    a   b   c   d   e   f   g   h   i   j\n"
            "Silver to move, Khet 2.0\n");
}

TEST(RenderBoardTest, Khet1EmitterAndObeliskStackHit) {
  const Position pos = Parsed("3k6/10/10/10/o28S\\/10/10/4K5 r 1");
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  EXPECT_EQ(RenderBoard(pos, &trace),
            "    a   b   c   d   e   f   g   h   i   j\n"
            " 8  .r  .s  .   k   .   .   .   .   .r  .s   8\n"
            " 7  .r  .   .   .   .   .   .   .   .   .s   7\n"
            " 6  .r  .   .   .   .   .   .   .   .   .s   6\n"
            " 5  .r  .   .   .   .   .   .   .   .   .s   5\n"
            " 4  o2*---------------------------------S\\   4\n"
            " 3  .r  .   .   .   .   .   .   .   .   |    3\n"
            " 2  .r  .   .   .   .   .   .   .   .   |    2\n"
            " 1  .r  .s  .   .   K   .   .   .   .r  |    1\n"
            "    a   b   c   d   e   f   g   h   i   j\n"
            "Red to move, Khet 1.0\n");
}

TEST(RenderBoardTest, EverySetupFitsAChatMessageInFixedColumns) {
  for (const SetupInfo& info : AllSetups()) {
    const Position pos = Start(info.id);
    for (Color shooter : {Color::kSilver, Color::kRed}) {
      const BeamTrace trace = TraceLaser(pos, shooter);
      const std::string board = RenderBoard(pos, &trace);
      EXPECT_LT(board.size() + FormatTrace(trace).size(), 2000u) << info.id;
      std::vector<absl::string_view> lines = absl::StrSplit(board, '\n');
      ASSERT_EQ(lines.size(), 12u) << board;  // 11 lines and a final newline
      EXPECT_EQ(lines.back(), "");
      for (int i = 1; i <= 8; ++i) {
        EXPECT_EQ(lines[i].size(), 46u) << info.id << "\n" << board;
      }
      // Every hit piece is marked, and only those.
      int stars = 0;
      for (char c : board) stars += c == '*';
      EXPECT_EQ(stars, PopCount(trace.hit)) << info.id << "\n" << board;
    }
  }
}

}  // namespace
}  // namespace khet
