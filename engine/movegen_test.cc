// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/movegen.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/play.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::Sq;

std::vector<uint16_t> Bits(const MoveList& list) {
  std::vector<uint16_t> bits;
  for (Move m : list) bits.push_back(m.bits());
  std::sort(bits.begin(), bits.end());
  return bits;
}

TEST(MovegenTest, ClassicStartHas77MovesCountedByHand) {
  // X 1, K 3, A d1 5, A f1 6, S e4 6, S f4 6 (with the g3 swap), P c1 6,
  // P h2 8, P c4 9, P j4 6, P c5 8, P j5 6, P d6 7.
  const Position pos = *SetupPosition("classic-2");
  MoveList list;
  GenerateMoves(pos, &list);
  EXPECT_EQ(list.size, 77);
  EXPECT_EQ(CountMoves(pos), 77);
  GenerateMovesFrom(pos, Sq("f4"), &list);
  EXPECT_EQ(list.size, 6);
  EXPECT_NE(std::find(list.begin(), list.end(),
                      Move(Sq("f4"), Sq("g3"), MoveKind::kMove)),
            list.end());
  GenerateMovesFrom(pos, Sq("g3"), &list);  // Red's piece: not Silver's move
  EXPECT_EQ(list.size, 0);
}

TEST(MovegenTest, ListsEveryMoveOnceAndPerSquareListsPartitionIt) {
  std::mt19937 rng(11);
  for (const SetupInfo& info : AllSetups()) {
    Position pos = *SetupPosition(info.id);
    for (int ply = 0; ply < 120; ++ply) {
      MoveList all;
      GenerateMoves(pos, &all);
      ASSERT_EQ(CountMoves(pos), all.size);
      std::vector<uint16_t> bits = Bits(all);
      ASSERT_EQ(std::adjacent_find(bits.begin(), bits.end()), bits.end());
      std::vector<uint16_t> joined;
      for (Square s = 0; s < kSquares; ++s) {
        MoveList one;
        GenerateMovesFrom(pos, s, &one);
        for (Move m : one) {
          ASSERT_EQ(m.from(), s);
          joined.push_back(m.bits());
        }
      }
      std::sort(joined.begin(), joined.end());
      ASSERT_EQ(joined, bits) << info.id << " ply " << ply;
      if (MakeMove(&pos, all.moves[rng() % all.size]) != 0) break;
    }
  }
}

TEST(MovegenTest, CheckMoveExplainsIllegalMoves) {
  const Position pos = *SetupPosition("classic-2");
  auto why = [&](Move m) {
    return std::string(CheckMove(pos, m).status().message());
  };
  EXPECT_EQ(why(Move(Sq("e3"), Sq("e4"), MoveKind::kMove)),
            "e3: there is no piece there");
  EXPECT_EQ(why(Move(Sq("g3"), Sq("g4"), MoveKind::kMove)),
            "g3: the Pyramid there is Red's, and Silver is to move");
  EXPECT_EQ(why(Move(Sq("e1"), Sq("e3"), MoveKind::kMove)),
            "e1: e3 is not next to e1; a piece moves one square");
  EXPECT_EQ(why(Move::Rotate(Sq("e1"), true)),
            "e1: a Pharaoh does not rotate (its facing changes nothing)");
  EXPECT_EQ(why(Move::Rotate(Sq("j1"), true)),
            "j1: the Sphinx may only point north or west, so it turns "
            "anticlockwise from here");
  EXPECT_EQ(why(Move(Sq("j1"), Sq("i2"), MoveKind::kMove)),
            "j1: a Sphinx never moves; it may only turn");
  EXPECT_EQ(why(Move(Sq("h2"), Sq("i1"), MoveKind::kMove)),
            "h2: i1 is reserved for Red pieces");
  EXPECT_EQ(why(Move(Sq("e4"), Sq("e5"), MoveKind::kMove)),
            "e4: a Scarab swaps only with a Pyramid, Anubis or Obelisk, not "
            "with the Red Scarab on e5");
  EXPECT_EQ(why(Move(Sq("d1"), Sq("c1"), MoveKind::kMove)),
            "d1: c1 is occupied by the Silver Pyramid on c1; only a Scarab or "
            "Eye may swap");
  EXPECT_EQ(why(Move(Sq("d1"), Sq("d2"), MoveKind::kMoveTop)),
            "d1: only the top of an Obelisk stack moves on its own");
  EXPECT_EQ(why(Move()), "the null move is not a move");
  // A Scarab's anticlockwise turn is legal and comes back as clockwise.
  EXPECT_EQ(*CheckMove(pos, Move::Rotate(Sq("e4"), false)),
            Move::Rotate(Sq("e4"), true));
}

TEST(MovegenTest, ApplyMoveRefusesIllegalMovesAndChangesNothing) {
  Position pos = *SetupPosition("classic-2");
  const Position before = pos;
  const auto result =
      ApplyMove(&pos, Move(Sq("e1"), Sq("e3"), MoveKind::kMove));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(pos, before);
}

}  // namespace
}  // namespace khet
