// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Clocks through SessionService on a fake clock: Fischer and per-move time
// controls, flags falling at their moment (also after a restart), moves too
// late, clocks stopped by a game's end and restarted by a new game, and bad
// time controls.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "engine/game_record.h"
#include "gtest/gtest.h"
#include "service/base/status_or_matchers.h"
#include "service/core/service_test_fixture.h"
#include "service/core/session_service.h"
#include "service/sessions/time_control.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

v1::TimeControl Fischer(int64_t base_ms, int64_t increment_ms) {
  v1::TimeControl tc;
  tc.set_kind(v1::TimeControl::FISCHER);
  tc.set_base_ms(base_ms);
  tc.set_increment_ms(increment_ms);
  return tc;
}

v1::TimeControl PerMove(int64_t ms) {
  v1::TimeControl tc;
  tc.set_kind(v1::TimeControl::PER_MOVE);
  tc.set_per_move_ms(ms);
  return tc;
}

class ClocksTest : public ServiceTest {
 protected:
  struct Board {
    std::string id, owner, silver, red;
  };

  absl::StatusOr<v1::CreateSessionResponse> Create(const v1::TimeControl& tc) {
    v1::CreateSessionRequest create;
    create.set_name("clocked");
    create.set_setup_id("classic-2");
    *create.mutable_rules()->mutable_time_control() = tc;
    return service_->CreateSession(create);
  }

  // A board with `tc`, both seats taken: its game (and Silver's clock)
  // starts now.
  Board NewBoard(const v1::TimeControl& tc) {
    Board b;
    absl::StatusOr<v1::CreateSessionResponse> created = Create(tc);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return b;
    b.id = created->session().id();
    b.owner = created->owner_token();
    for (v1::Color c : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(b.id);
      join.set_color(c);
      join.set_player_name(c == v1::SILVER ? "Ann" : "Bob");
      absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
      EXPECT_TRUE(joined.ok()) << joined.status();
      if (joined.ok()) {
        (c == v1::SILVER ? b.silver : b.red) = joined->player_token();
      }
    }
    return b;
  }

  absl::StatusOr<v1::MakeMoveResponse> Move(const Board& b,
                                            const std::string& token,
                                            const std::string& notation) {
    v1::MakeMoveRequest move;
    move.set_session_id(b.id);
    move.mutable_move()->set_notation(notation);
    return service_->MakeMove(move, Caller{token});
  }

  v1::Session Get(const Board& b) { return GetSession(b.id); }
  // Every event of the session so far.
  std::vector<v1::Event> Events(const Board& b) { return EventsAfter(b.id, 0); }
};

TEST_F(ClocksTest, FischerClocksRunForTheSideToMoveAndGainTheIncrement) {
  const absl::Time start = clock_.Now();
  const Board b = NewBoard(Fischer(60'000, 2'000));
  v1::Session s = Get(b);
  ASSERT_EQ(s.status(), v1::IN_PROGRESS);
  ASSERT_TRUE(s.has_clocks());
  EXPECT_EQ(s.clocks().silver_ms(), 60'000);
  EXPECT_EQ(s.clocks().red_ms(), 60'000);
  EXPECT_EQ(s.clocks().running(), v1::SILVER);
  EXPECT_EQ(TimeFromProto(s.clocks().as_of()), start);
  EXPECT_EQ(TimeFromProto(s.clocks().flag_at()), start + absl::Seconds(60));
  EXPECT_EQ(s.rules().time_control().kind(), v1::TimeControl::FISCHER);

  clock_.Advance(absl::Seconds(10));
  absl::StatusOr<v1::MakeMoveResponse> moved = Move(b, b.silver, "j5L");
  ASSERT_OK(moved);
  s = Get(b);
  EXPECT_EQ(s.clocks().silver_ms(), 52'000);  // 60 - 10 + 2
  EXPECT_EQ(s.clocks().red_ms(), 60'000);
  EXPECT_EQ(s.clocks().running(), v1::RED);
  EXPECT_EQ(TimeFromProto(s.clocks().flag_at()),
            start + absl::Seconds(10) + absl::Seconds(60));
  // Every event carries the clocks as they stood after it.
  const std::vector<v1::Event> events = Events(b);
  ASSERT_FALSE(events.empty());
  for (const v1::Event& e : events) EXPECT_TRUE(e.has_clocks()) << e.version();
  EXPECT_TRUE(events.back().has_move_made());
  EXPECT_EQ(events.back().clocks().silver_ms(), 52'000);
  EXPECT_EQ(events.back().clocks().running(), v1::RED);
  EXPECT_EQ(service_->NextFlagFall(), start + absl::Seconds(70));
}

// A move's answer carries the clocks after it, the MoveMade event's,
// also when a retry of the move gets it again.
TEST_F(ClocksTest, AMovesAnswerCarriesTheClocksAfterIt) {
  const Board b = NewBoard(Fischer(60'000, 2'000));
  clock_.Advance(absl::Seconds(10));
  absl::StatusOr<v1::MakeMoveResponse> moved = Move(b, b.silver, "j5L");
  ASSERT_OK(moved);
  ASSERT_TRUE(moved->has_clocks());
  EXPECT_EQ(moved->clocks().silver_ms(), 52'000);
  EXPECT_EQ(moved->clocks().running(), v1::RED);
  EXPECT_EQ(moved->clocks().SerializeAsString(),
            Events(b).back().clocks().SerializeAsString());

  // The reply holds the same clocks, as its last field; a retry of it is
  // answered the same.
  clock_.Advance(absl::Seconds(4));
  v1::MakeMoveRequest request;
  request.set_session_id(b.id);
  request.mutable_move()->set_notation("e5-f6");
  request.set_request_id("red-1");
  absl::StatusOr<v1::MakeMoveResponse> reply =
      service_->MakeMove(request, Caller{b.red});
  ASSERT_OK(reply);
  ASSERT_TRUE(reply->has_clocks());
  EXPECT_EQ(reply->clocks().red_ms(), 58'000);  // 60 - 4 + 2
  EXPECT_EQ(reply->clocks().running(), v1::SILVER);
  EXPECT_EQ(reply->clocks().SerializeAsString(),
            Events(b).back().clocks().SerializeAsString());
  clock_.Advance(absl::Seconds(1));
  absl::StatusOr<v1::MakeMoveResponse> again =
      service_->MakeMove(request, Caller{b.red});
  ASSERT_OK(again);
  EXPECT_EQ(again->SerializeAsString(), reply->SerializeAsString());

  // Without a time control there are none.
  ClocksTest::Board plain = NewBoard(v1::TimeControl());
  absl::StatusOr<v1::MakeMoveResponse> untimed =
      Move(plain, plain.silver, "j5L");
  ASSERT_OK(untimed);
  EXPECT_FALSE(untimed->has_clocks());
}

TEST_F(ClocksTest, AFlagFallsAtItsMomentAndTheGameIsArchived) {
  const absl::Time start = clock_.Now();
  const Board b = NewBoard(Fischer(30'000, 0));
  ASSERT_OK(Move(b, b.silver, "j5L"));
  // Red's clock started with the move; its flag falls 30 s later, exactly.
  clock_.Advance(absl::Seconds(30) - absl::Milliseconds(1));
  EXPECT_EQ(service_->SweepFlags(), 0);
  EXPECT_EQ(service_->SweepTimeouts(), 0);
  EXPECT_EQ(Get(b).status(), v1::IN_PROGRESS);
  clock_.Advance(absl::Milliseconds(1));
  EXPECT_EQ(service_->NextFlagFall(), start + absl::Seconds(30));
  EXPECT_EQ(service_->SweepFlags(), 1);
  const v1::Session s = Get(b);
  EXPECT_EQ(s.status(), v1::FINISHED);
  EXPECT_EQ(s.result().outcome(), v1::SILVER_WINS);
  EXPECT_EQ(s.result().reason(), v1::TIME_FORFEIT);
  EXPECT_EQ(s.result().text(), "Silver wins: Red's time ran out");
  EXPECT_EQ(s.clocks().red_ms(), 0);
  EXPECT_EQ(s.clocks().silver_ms(), 30'000);
  EXPECT_EQ(s.clocks().running(), v1::COLOR_UNSPECIFIED);
  EXPECT_FALSE(s.clocks().has_flag_at());
  EXPECT_EQ(service_->NextFlagFall(), absl::InfiniteFuture());
  const std::vector<v1::Event> events = Events(b);
  ASSERT_TRUE(events.back().has_game_over());
  EXPECT_EQ(events.back().announcement(),
            "Red (Bob) runs out of time: Silver wins.");
  EXPECT_EQ(events.back().clocks().red_ms(), 0);

  // The archived record names the time control and the forfeit, and reads.
  v1::GetGameRecordRequest get;
  get.set_session_id(b.id);
  absl::StatusOr<v1::GetGameRecordResponse> record =
      service_->GetGameRecord(get);
  ASSERT_OK(record);
  EXPECT_TRUE(record->game().archived());
  EXPECT_TRUE(
      absl::StrContains(record->text(), "[TimeControl \"fischer 30+0\"]"))
      << record->text();
  EXPECT_TRUE(
      absl::StrContains(record->text(), "[Termination \"time forfeit\"]"))
      << record->text();
  absl::StatusOr<GameRecord> read = ParseGameRecord(record->text());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->game.result().reason, ResultReason::kTimeForfeit);
  EXPECT_EQ(read->game.result().outcome, Outcome::kSilverWins);
  // The flagged game is over: no more moves, no second forfeit.
  EXPECT_ERROR(Move(b, b.red, "e5-f6"), kFailedPrecondition, "");
  EXPECT_EQ(service_->SweepTimeouts(), 0);
}

TEST_F(ClocksTest, AMoveAfterTheFlagFellIsRefusedAndChangesNothing) {
  const Board b = NewBoard(Fischer(5'000, 1'000));
  clock_.Advance(absl::Seconds(5));
  const int64_t version = Get(b).version();
  EXPECT_ERROR(Move(b, b.silver, "j5L"), kFailedPrecondition,
               "Silver's time ran out");
  EXPECT_EQ(Get(b).version(), version);
  EXPECT_EQ(Get(b).moves_size(), 0);
  EXPECT_EQ(service_->SweepTimeouts(), 1);
  EXPECT_EQ(Get(b).result().outcome(), v1::RED_WINS);
}

TEST_F(ClocksTest, PerMoveClocksStartAfreshAfterEachMove) {
  const Board b = NewBoard(PerMove(30'000));
  clock_.Advance(absl::Seconds(25));
  ASSERT_OK(Move(b, b.silver, "j5L"));
  v1::Session s = Get(b);
  EXPECT_EQ(s.clocks().silver_ms(), 30'000);  // unused time is not kept
  EXPECT_EQ(s.clocks().red_ms(), 30'000);
  EXPECT_EQ(s.clocks().running(), v1::RED);
  clock_.Advance(absl::Seconds(29));
  ASSERT_OK(Move(b, b.red, "e5-f6"));
  clock_.Advance(absl::Seconds(31));
  EXPECT_EQ(service_->SweepTimeouts(), 1);
  s = Get(b);
  EXPECT_EQ(s.result().outcome(), v1::RED_WINS);
  EXPECT_EQ(s.result().reason(), v1::TIME_FORFEIT);
}

TEST_F(ClocksTest, FlagsFallAfterARestart) {
  const Board b = NewBoard(Fischer(60'000, 0));
  ASSERT_OK(Move(b, b.silver, "j5L"));
  Start();
  EXPECT_EQ(service_->SweepTimeouts(), 0);  // notes the loaded clocks
  clock_.Advance(absl::Seconds(60));
  EXPECT_EQ(service_->SweepFlags(), 1);
  EXPECT_EQ(Get(b).result().reason(), v1::TIME_FORFEIT);
}

TEST_F(ClocksTest, AResignationStopsTheClocksAndANewGameRestartsThem) {
  const Board b = NewBoard(Fischer(60'000, 0));
  clock_.Advance(absl::Seconds(12));
  v1::ResignRequest resign;
  resign.set_session_id(b.id);
  ASSERT_OK(service_->Resign(resign, Caller{b.silver}));
  v1::Session s = Get(b);
  EXPECT_EQ(s.clocks().silver_ms(), 48'000);  // its time used is taken off
  EXPECT_EQ(s.clocks().running(), v1::COLOR_UNSPECIFIED);
  clock_.Advance(absl::Hours(1));
  EXPECT_EQ(Get(b).clocks().silver_ms(), 48'000);  // stopped
  EXPECT_EQ(service_->SweepTimeouts(), 0);

  v1::ResetGameRequest reset;
  reset.set_session_id(b.id);
  ASSERT_OK(service_->ResetGame(reset, Caller{b.owner}));
  s = Get(b);
  EXPECT_EQ(s.status(), v1::WAITING_FOR_PLAYERS);
  EXPECT_EQ(s.clocks().silver_ms(), 60'000);
  EXPECT_EQ(s.clocks().red_ms(), 60'000);
  EXPECT_EQ(s.clocks().running(), v1::COLOR_UNSPECIFIED);
}

TEST_F(ClocksTest, AClockedGameIsNotResetForInactivity) {
  const Board b = NewBoard(PerMove(7 * 24 * 3600 * 1000LL));
  clock_.Advance(absl::Hours(2));  // past the default one-hour timeout
  EXPECT_EQ(service_->SweepTimeouts(), 0);
  EXPECT_EQ(Get(b).status(), v1::IN_PROGRESS);
}

TEST_F(ClocksTest, ASetupChosenLaterSetsTheClocks) {
  absl::StatusOr<v1::CreateSessionResponse> created = Create({});
  ASSERT_OK(created);
  EXPECT_FALSE(created->session().has_clocks());
  v1::ChooseSetupRequest choose;
  choose.set_session_id(created->session().id());
  choose.set_setup_id("dynasty-2");
  *choose.mutable_rules()->mutable_time_control() = PerMove(90'000);
  absl::StatusOr<v1::Session> chosen =
      service_->ChooseSetup(choose, Caller{created->owner_token()});
  ASSERT_OK(chosen);
  EXPECT_EQ(chosen->clocks().silver_ms(), 90'000);
  EXPECT_EQ(chosen->rules().time_control().per_move_ms(), 90'000);
  // Rules given again without a time control take the clocks away.
  choose.mutable_rules()->clear_time_control();
  chosen = service_->ChooseSetup(choose, Caller{created->owner_token()});
  ASSERT_OK(chosen);
  EXPECT_FALSE(chosen->has_clocks());
}

TEST_F(ClocksTest, BadTimeControlsAreRefusedNamingTheField) {
  EXPECT_ERROR(
      Create(Fischer(500, 0)), kInvalidArgument,
      "rules.time_control.base_ms must be 1000 to 86400000 ms, not 500");
  EXPECT_ERROR(Create(Fischer(60'000, -1)), kInvalidArgument,
               "rules.time_control.increment_ms");
  EXPECT_ERROR(Create(PerMove(8 * 24 * 3600 * 1000LL)), kInvalidArgument,
               "rules.time_control.per_move_ms");
  v1::TimeControl mixed = PerMove(60'000);
  mixed.set_increment_ms(5);
  EXPECT_ERROR(Create(mixed), kInvalidArgument, "are for FISCHER");
  v1::TimeControl none;
  none.set_base_ms(60'000);
  EXPECT_ERROR(Create(none), kInvalidArgument, "no kind");
  v1::TimeControl unknown;
  unknown.set_kind(static_cast<v1::TimeControl::Kind>(9));
  EXPECT_ERROR(Create(unknown), kInvalidArgument, "kind 9");
}

TEST(TimeControlTextTest, AsRecordsWriteIt) {
  EXPECT_EQ(TimeControlText(Fischer(300'000, 5'000)), "fischer 300+5");
  EXPECT_EQ(TimeControlText(Fischer(1'500, 250)), "fischer 1.5+0.25");
  EXPECT_EQ(TimeControlText(PerMove(86'400'000)), "per move 86400");
  EXPECT_EQ(TimeControlText(v1::TimeControl()), "");
}

}  // namespace
}  // namespace khet
