// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/wire/convert.h"

#include <random>

#include "absl/strings/match.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/setups.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

TEST(ConvertTest, BoardListsEveryPieceWithTokensAndDescriptions) {
  const Position pos = *SetupPosition("classic-2");
  const v1::Board board = BoardToProto(pos);
  EXPECT_EQ(board.position(), FormatPosition(pos));
  EXPECT_EQ(board.side_to_move(), v1::SILVER);
  EXPECT_EQ(board.edition(), v1::KHET_2);
  EXPECT_EQ(board.pieces_size(), PopCount(pos.occupied()));
  const v1::Piece* sphinx = nullptr;
  for (const v1::Piece& p : board.pieces()) {
    if (p.square() == "j1") sphinx = &p;
  }
  ASSERT_NE(sphinx, nullptr);
  EXPECT_EQ(sphinx->type(), v1::SPHINX);
  EXPECT_EQ(sphinx->color(), v1::SILVER);
  EXPECT_EQ(sphinx->orientation(), "N");
  EXPECT_EQ(sphinx->token(), "Xn");
  EXPECT_EQ(sphinx->description(), "Silver Sphinx N");
  EXPECT_EQ(sphinx->height(), 1);
  EXPECT_EQ(board.pieces(0).square(), "c1");  // a1 to j8 order
}

TEST(ConvertTest, PieceOrientationsAndKhet1Names) {
  const Position pos = *SetupPosition("classic-1");
  const v1::Board board = BoardToProto(pos);
  bool stack = false, djed = false, pyramid = false;
  for (const v1::Piece& p : board.pieces()) {
    if (p.type() == v1::OBELISK) {
      stack = true;
      EXPECT_EQ(p.height(), 2);
      EXPECT_EQ(p.orientation(), "");
      EXPECT_TRUE(absl::StrContains(p.description(), "Obelisk stack"));
    }
    if (p.square() == "e4") {
      djed = true;
      EXPECT_EQ(p.type(), v1::SCARAB);
      EXPECT_EQ(p.orientation(), "/");
      EXPECT_EQ(p.description(), "Silver Djed /");
    }
    if (p.square() == "h4") {
      pyramid = true;
      EXPECT_EQ(p.orientation(), "NE");
      EXPECT_EQ(p.token(), "pne");
      EXPECT_EQ(p.color(), v1::RED);
    }
  }
  EXPECT_TRUE(stack && djed && pyramid);
  EXPECT_EQ(board.edition(), v1::KHET_1);
}

// Every legal move of every setup survives the trip through the contract,
// in its structured form and in notation.
TEST(ConvertTest, MovesRoundTripForEverySetup) {
  for (const SetupInfo& info : AllSetups()) {
    const Position pos = *SetupPosition(info.id);
    MoveList moves;
    GenerateMoves(pos, &moves);
    for (Move m : moves) {
      v1::Move proto = MoveToProto(pos, m);
      EXPECT_EQ(proto.notation(), FormatMove(pos, m));
      absl::StatusOr<Move> by_notation = MoveFromProto(pos, proto);
      ASSERT_TRUE(by_notation.ok()) << by_notation.status();
      EXPECT_EQ(*by_notation, m) << proto.notation();
      proto.clear_notation();
      absl::StatusOr<Move> structured = MoveFromProto(pos, proto);
      ASSERT_TRUE(structured.ok()) << structured.status();
      EXPECT_EQ(*structured, m) << proto.DebugString();
      EXPECT_EQ(proto.swap(), absl::StrContains(FormatMove(pos, m), "="));
    }
  }
}

TEST(ConvertTest, MoveFromProtoRejectsBadShapes) {
  const Position pos = *SetupPosition("classic-2");
  v1::Move m;
  EXPECT_EQ(MoveFromProto(pos, m).status().code(),
            absl::StatusCode::kInvalidArgument);
  m.set_from("e4");
  EXPECT_TRUE(absl::StrContains(MoveFromProto(pos, m).status().message(),
                                "give a kind or a to square"));
  m.set_to("e9");
  EXPECT_TRUE(
      absl::StrContains(MoveFromProto(pos, m).status().message(), "e9"));
  m.set_to("e6");
  EXPECT_TRUE(absl::StrContains(MoveFromProto(pos, m).status().message(),
                                "not neighbours"));
  m.set_kind(v1::ROTATE_CLOCKWISE);
  m.set_to("e5");
  EXPECT_TRUE(absl::StrContains(MoveFromProto(pos, m).status().message(),
                                "a rotation stays on e4"));
  m.set_to("");
  EXPECT_EQ(*MoveFromProto(pos, m), Move::Rotate(MakeSquare(4, 3), true));
  m.set_kind(static_cast<v1::MoveKind>(9));
  EXPECT_TRUE(absl::StrContains(MoveFromProto(pos, m).status().message(),
                                "unknown move kind"));
}

TEST(ConvertTest, ShotOfTheClassicStart) {
  const Position pos = *SetupPosition("classic-2");
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  const v1::LaserShot shot = ShotToProto(trace, pos.edition());
  EXPECT_EQ(shot.shooter(), v1::SILVER);
  ASSERT_EQ(shot.beams_size(), 1);
  EXPECT_EQ(shot.beams(0).parent_id(), -1);
  EXPECT_EQ(shot.beams(0).end(), v1::LEFT_BOARD);
  EXPECT_EQ(shot.beams(0).end_square(), "");
  EXPECT_FALSE(shot.beams(0).has_end_piece());
  ASSERT_EQ(shot.segments_size(), 5);
  EXPECT_EQ(shot.segments(0).travel(), v1::NORTH);
  EXPECT_EQ(shot.segments(0).from().file(), 9);
  EXPECT_EQ(shot.segments(0).to().rank(), 3);
  EXPECT_EQ(shot.segments(1).travel(), v1::WEST);
  EXPECT_EQ(shot.segments(4).to().rank(), 8);  // one beyond the edge
  EXPECT_EQ(shot.hit_squares_size(), 0);
  EXPECT_EQ(shot.text(),
            "beam 0 from j1: north to j4, west to h4, north to h5, east to "
            "j5, north off the board; left the board\n");
}

TEST(ConvertTest, SplitShotAndRemovals) {
  const Position pos = *SetupPosition("osiris");
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  const v1::LaserShot shot = ShotToProto(trace, pos.edition());
  ASSERT_EQ(shot.beams_size(), static_cast<int>(trace.beams.size()));
  for (int i = 0; i < shot.beams_size(); ++i) {
    EXPECT_EQ(shot.beams(i).id(), i);
    if (shot.beams(i).end() == v1::SPLIT) {
      EXPECT_EQ(shot.beams(i).end_piece().type(), v1::EYE_OF_HORUS);
    }
  }
  Removal r{MakeSquare(3, 0), Piece(Color::kRed, PieceType::kObelisk, 1),
            Piece(Color::kRed, PieceType::kObelisk, 0)};
  const v1::Removal proto = RemovalToProto(r, Edition::kKhet1);
  EXPECT_EQ(proto.square(), "d1");
  EXPECT_EQ(proto.before().height(), 2);
  EXPECT_EQ(proto.after().height(), 1);
  r.after = Piece();
  EXPECT_FALSE(RemovalToProto(r, Edition::kKhet1).has_after());
}

TEST(ConvertTest, ResultsWithText) {
  Game game(*SetupPosition("classic-2"));
  v1::GameResult r = ResultToProto(game);
  EXPECT_EQ(r.outcome(), v1::ONGOING);
  EXPECT_EQ(r.reason(), v1::RESULT_REASON_UNSPECIFIED);
  ASSERT_TRUE(game.Resign(Color::kSilver).ok());
  r = ResultToProto(game);
  EXPECT_EQ(r.outcome(), v1::RED_WINS);
  EXPECT_EQ(r.reason(), v1::RESIGNATION);
  EXPECT_EQ(r.text(), "Red wins: Silver resigned");
  absl::StatusOr<GameResult> back = ResultFromProto(r);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, game.result());
  Game drawn(*SetupPosition("classic-2"));
  ASSERT_TRUE(drawn.AgreeDraw().ok());
  EXPECT_EQ(ResultToProto(drawn).text(), "Draw: agreed by both players");
  r.set_reason(static_cast<v1::ResultReason>(42));
  EXPECT_FALSE(ResultFromProto(r).ok());
}

TEST(ConvertTest, OptionsTimesAndSetups) {
  RuleOptions o;
  o.both_pharaohs_hit_draws = true;
  o.ply_limit = 222;
  EXPECT_EQ(*OptionsFromProto(OptionsToProto(o)), o);
  v1::RuleOptions bad;
  bad.set_ply_limit(-5);
  EXPECT_FALSE(OptionsFromProto(bad).ok());
  const absl::Time t = absl::FromUnixNanos(1'700'000'000'123'456'789);
  EXPECT_EQ(TimeFromProto(TimeToProto(t)), t);
  EXPECT_EQ(TimeToProto(t).nanos(), 123'456'789);
  const v1::Setup setup = SetupToProto(*FindSetup("osiris"));
  EXPECT_EQ(setup.id(), "osiris");
  EXPECT_TRUE(setup.beam_splitter());
  EXPECT_EQ(setup.position(), FormatPosition(*SetupPosition("osiris")));
  EXPECT_EQ(*FromProto(ToProto(Color::kRed)), Color::kRed);
  EXPECT_FALSE(FromProto(v1::COLOR_UNSPECIFIED).ok());
}

TEST(ConvertTest, LevelsAndLimits) {
  const v1::Level level = LevelToProto(*FindLevel(1));
  EXPECT_EQ(level.number(), 1);
  EXPECT_EQ(level.name(), "A'NOOB'IS");
  EXPECT_FALSE(level.description().empty());
  SearchLimits limits;
  limits.max_depth = 6;
  limits.max_nodes = 123456;
  limits.max_time = absl::Milliseconds(1500);
  const v1::SearchLimits l = SearchLimitsToProto(limits);
  EXPECT_EQ(l.max_depth(), 6);
  EXPECT_EQ(l.max_nodes(), 123456);
  EXPECT_EQ(l.max_time_ms(), 1500);
  EXPECT_EQ(SearchLimitsToProto(SearchLimits()).max_time_ms(), 0);
}

// BoardWire writes the bytes of BoardToProto's serialization: the start of
// every setup and the positions of random games from it (pieces taken,
// Obelisk stacks split, both editions).
TEST(ConvertTest, BoardWireIsTheBoardsSerialization) {
  std::mt19937 rng(7);
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(info.id);
    absl::StatusOr<Position> start = SetupPosition(info.id);
    ASSERT_TRUE(start.ok()) << start.status();
    for (int game = 0; game < 3; ++game) {
      Position pos = *start;
      for (int ply = 0; ply < 120; ++ply) {
        ASSERT_EQ(BoardWire(pos), BoardToProto(pos).SerializeAsString())
            << FormatPosition(pos);
        MoveList moves;
        GenerateMoves(pos, &moves);
        if (moves.size == 0) break;
        const PharaohsHit hit = MakeMove(&pos, moves.moves[rng() % moves.size]);
        if (PharaohWasHit(hit, Color::kSilver) ||
            PharaohWasHit(hit, Color::kRed)) {
          ASSERT_EQ(BoardWire(pos), BoardToProto(pos).SerializeAsString());
          break;
        }
      }
    }
  }
}

}  // namespace
}  // namespace khet
