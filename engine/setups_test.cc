// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/setups.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace khet {
namespace {

TEST(SetupsTest, EveryNamedSetupExistsWithAStableId) {
  std::set<std::string> ids;
  for (const SetupInfo& info : AllSetups()) ids.insert(std::string(info.id));
  EXPECT_EQ(ids, (std::set<std::string>{
                     "classic-2", "imhotep-2", "dynasty-2", "classic-2b",
                     "imhotep-2b", "dynasty-2b", "osiris", "isis", "classic-1",
                     "imhotep-1", "dynasty-1", "classic-1b", "imhotep-1b",
                     "dynasty-1b"}));
  EXPECT_EQ(FindSetup("classic-2b")->name, "Classic 2b");
  EXPECT_EQ(FindSetup("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(SetupsTest, EverySetupIsAValidPositionWithSilverToMove) {
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(info.id);
    const absl::StatusOr<Position> pos = SetupPosition(info.id);
    ASSERT_TRUE(pos.ok()) << pos.status();
    EXPECT_TRUE(pos->Validate().ok()) << pos->Validate();
    EXPECT_EQ(pos->side_to_move(), Color::kSilver);
    EXPECT_EQ(pos->edition(), info.edition);
    int eyes = 0, pieces = 0;
    for (Square s = 0; s < kSquares; ++s) {
      if (!pos->at(s).empty()) ++pieces;
      if (pos->at(s).type() == PieceType::kEye) ++eyes;
    }
    EXPECT_EQ(eyes, info.beam_splitter ? 2 : 0);
    // 13 pieces a side in Khet 2.0 (Sphinx included), 12 in Khet 1.0
    // (Obelisk stacks count once) plus Osiris and Isis's extra Scarab.
    const int expected = info.edition == Edition::kKhet2 ? 26 : 24;
    EXPECT_EQ(pieces, info.id == "osiris" || info.id == "isis" ? 28 : expected);
  }
}

TEST(SetupsTest, ClassicSquaresMatchTheRules) {
  const Position pos = *SetupPosition("classic-2");
  EXPECT_EQ(pos.at(MakeSquare(9, 0)),
            Piece(Color::kSilver, PieceType::kSphinx, 0));  // X j1 N
  EXPECT_EQ(pos.at(MakeSquare(4, 0)),
            Piece(Color::kSilver, PieceType::kPharaoh));  // K e1
  EXPECT_EQ(pos.at(MakeSquare(5, 3)),
            Piece(Color::kSilver, PieceType::kScarab, kBackslash));  // S f4 '\'
  EXPECT_EQ(pos.at(MakeSquare(7, 7)),
            Piece(Color::kRed, PieceType::kPyramid, kSE));  // p h8 SE
  const Position one = *SetupPosition("classic-1");
  EXPECT_EQ(one.at(MakeSquare(3, 0)),
            Piece(Color::kSilver, PieceType::kObelisk, 1));  // d1 stack
  EXPECT_TRUE(one.at(MakeSquare(9, 0)).empty());             // no Sphinx
  const Position b = *SetupPosition("dynasty-2b");
  EXPECT_EQ(b.at(MakeSquare(7, 3)),
            Piece(Color::kSilver, PieceType::kEye, kBackslash));  // h4
  EXPECT_EQ(b.at(MakeSquare(2, 4)),
            Piece(Color::kRed, PieceType::kEye, kBackslash));  // c5
}

}  // namespace
}  // namespace khet
