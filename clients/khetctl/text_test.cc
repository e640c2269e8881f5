// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What khetctl says to people, without a server: khetd's refusals in plain
// words with their exit codes, scores in words, and boards with their key.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "clients/khetctl/khetctl.h"
#include "clients/khetctl/legend.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/notation.h"
#include "engine/setups.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace khet::ctl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ErrorTextTest, AMoveOutOfTurnNamesWhoseMoveItIs) {
  const grpc::Status status(grpc::StatusCode::FAILED_PRECONDITION,
                            "it is Red's turn");
  EXPECT_EQ(ErrorText(status), "Not your turn: it is Red's move.");
  EXPECT_EQ(ExitCode(status), kExitError);
}

// gRPC answers UNIMPLEMENTED without a message for a request the server
// could not read as much as for a call it lacks: both are named.
TEST(ErrorTextTest, AnUnreadRequestIsNotBlamedOnTheServersAge) {
  const std::string text =
      ErrorText(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, ""));
  EXPECT_THAT(text, HasSubstr("could not read it (is every text UTF-8?)"));
  EXPECT_THAT(text, HasSubstr("does not know this call"));
  EXPECT_EQ(ErrorText(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                   "POST is not allowed here")),
            "Not served: POST is not allowed here.");
}

TEST(ErrorTextTest, AnUnreachableServerSaysWhyOnceAndExitsThree) {
  const grpc::Status status(
      grpc::StatusCode::UNAVAILABLE,
      "failed to connect to all addresses; last error: UNKNOWN: "
      "ipv4:127.0.0.1:1: Failed to connect to remote host: Connection "
      "refused");
  EXPECT_EQ(ErrorText(status),
            "Cannot reach khetd (connection refused): is it running, and is "
            "--server right?");
  EXPECT_EQ(ExitCode(status), kExitUnreachable);
  EXPECT_EQ(ExitCode(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "")),
            kExitUnreachable);
}

TEST(ErrorTextTest, AMissingTokenNamesTheFlagNotTheMetadata) {
  const std::string text = ErrorText(grpc::Status(
      grpc::StatusCode::UNAUTHENTICATED,
      "this call needs the owner's token (authorization: Bearer <token>)"));
  EXPECT_THAT(text, HasSubstr("This call needs the owner's token: "));
  EXPECT_THAT(text, HasSubstr("--token"));
  EXPECT_THAT(text, Not(HasSubstr("Bearer")));
}

TEST(ErrorTextTest, NoCodeNameAndOneFullStop) {
  for (const auto code :
       {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::NOT_FOUND,
        grpc::StatusCode::PERMISSION_DENIED, grpc::StatusCode::ABORTED,
        grpc::StatusCode::INTERNAL}) {
    const std::string text = ErrorText(grpc::Status(code, "no session \"x\"."));
    EXPECT_THAT(text, Not(HasSubstr("_"))) << text;
    EXPECT_THAT(text, Not(HasSubstr(".."))) << text;
    EXPECT_THAT(text, HasSubstr("no session \"x\".")) << text;
  }
}

TEST(ScoreInWordsTest, MaterialInPyramids) {
  EXPECT_EQ(ScoreInWords(8, v1::SILVER), "+0.08 (about even)");
  EXPECT_EQ(ScoreInWords(-50, v1::SILVER), "-0.50 (Red slightly ahead)");
  EXPECT_EQ(ScoreInWords(120, v1::SILVER),
            "+1.20 (Silver ahead by about a Pyramid)");
  EXPECT_EQ(ScoreInWords(-310, v1::RED),
            "-3.10 (Silver ahead by about 3 Pyramids)");
}

TEST(ScoreInWordsTest, WinsAndLossesInTheMoversOwnMoves) {
  EXPECT_EQ(ScoreInWords(29999, v1::SILVER), "Silver wins with this move");
  EXPECT_EQ(ScoreInWords(29995, v1::RED), "Red wins in 3 moves");
  EXPECT_EQ(ScoreInWords(-29998, v1::SILVER),
            "Red wins in 1 move, whatever Silver plays");
}

constexpr char kBoard[] =
    "    a   b   c   d   e   f   g   h   i   j\n"
    " 8  xs  .s  .   .   as  k   as  pse .r  .s   8\n"
    " 1  .r  .s  Pnw An  K*  An  .   .   .r  Xn   1\n"
    "    a   b   c   d   e   f   g   h   i   j\n"
    "Silver to move, Khet 2.0\n";

TEST(BoardForPeopleTest, AGameInProgressKeepsWhoseMoveItIs) {
  v1::Session session;
  session.mutable_result()->set_outcome(v1::ONGOING);
  const std::string board = BoardForPeople(kBoard, session);
  EXPECT_THAT(board, HasSubstr("Silver to move, Khet 2.0\nKey: "));
}

TEST(BoardForPeopleTest, AFinishedGameSaysWhoWonInstead) {
  v1::Session session;
  session.mutable_result()->set_outcome(v1::RED_WINS);
  session.mutable_result()->set_text("Red wins: Silver resigned");
  session.mutable_board()->set_edition(v1::KHET_2);
  const std::string board = BoardForPeople(kBoard, session);
  EXPECT_THAT(board, Not(HasSubstr("to move")));
  EXPECT_THAT(board, HasSubstr("   j\nGame over: Red wins: Silver resigned "
                               "(Khet 2.0)\nKey: "));
}

TEST(LegendLineTest, NamesThePiecesOnTheBoardAndTheTurns) {
  const std::string line = LegendLine(kBoard);
  EXPECT_THAT(line, HasSubstr("K Pharaoh, P Pyramid, A Anubis, X Sphinx"));
  EXPECT_THAT(line, Not(HasSubstr("Scarab")));  // none on that board
  EXPECT_THAT(line, HasSubstr("c1R/c1L"));
  EXPECT_THAT(LegendLine(std::string(kBoard) + "s/ Khet 1.0"),
              Not(HasSubstr("Djed")));  // only squares count, not the text
}

// Every move the legend shows (the lines of its "Moves" part that start
// with notation) is legal at the start of Classic 2, or of Classic 1 for an
// Obelisk's, and its shot hits nothing: no example costs a newcomer a piece.
TEST(LegendTest, TheExampleMovesAreLegalAndLoseNothing) {
  std::vector<std::string> examples;
  bool in_moves = false;
  for (absl::string_view line : absl::StrSplit(LegendText(), '\n')) {
    if (absl::StartsWith(line, "Moves")) in_moves = true;
    if (!in_moves || !absl::StartsWith(line, "  ") ||
        absl::StartsWith(line, "   ")) {
      continue;
    }
    // The notation column ends where the explanation starts.
    const absl::string_view notation =
        absl::StripLeadingAsciiWhitespace(line).substr(0, 17);
    for (absl::string_view word :
         absl::StrSplit(notation, ' ', absl::SkipEmpty())) {
      examples.emplace_back(word);
    }
  }
  EXPECT_THAT(examples,
              ::testing::ElementsAre("j4-j3", "f4=g3", "c1R", "c1L", "d1^d2"));
  for (const std::string& example : examples) {
    SCOPED_TRACE(example);
    const bool obelisk = example.find('^') != std::string::npos;
    absl::StatusOr<Position> start =
        SetupPosition(obelisk ? "classic-1" : "classic-2");
    ASSERT_TRUE(start.ok());
    absl::StatusOr<Move> move = ParseMove(*start, example);
    ASSERT_TRUE(move.ok()) << move.status();
    Game game(*start);
    ASSERT_TRUE(game.Play(*move).ok());
    EXPECT_EQ(HitComment(*start, *move), "");
  }
}

}  // namespace
}  // namespace khet::ctl
