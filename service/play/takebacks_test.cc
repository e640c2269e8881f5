// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Takebacks through SessionService: asked, accepted (one ply or two),
// declined, granted at once by a computer opponent, lapsing with a move,
// refused by the board's setting, in a rated game and for every kind of bad
// request; clocks and the repetition history follow the position taken back.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "service/base/status_or_matchers.h"
#include "service/core/service_test_fixture.h"
#include "service/core/session_service.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

class TakebacksTest : public ServiceTest {
 protected:
  struct Board {
    std::string id, owner, silver, red;
  };

  // A Classic 2 board with both seats taken (Silver Ann, Red Bob).
  Board NewBoard(const v1::SettingsUpdate& settings = {},
                 const v1::TimeControl* tc = nullptr) {
    Board b;
    v1::CreateSessionRequest create;
    create.set_name("takebacks");
    create.set_name("board");
    create.set_setup_id("classic-2");
    *create.mutable_settings() = settings;
    if (tc != nullptr) *create.mutable_rules()->mutable_time_control() = *tc;
    absl::StatusOr<v1::CreateSessionResponse> created =
        service_->CreateSession(create);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return b;
    b.id = created->session().id();
    b.owner = created->owner_token();
    for (v1::Color c : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(b.id);
      join.set_color(c);
      join.set_player_name(c == v1::SILVER ? "Ann" : "Bob");
      join.set_player_id(c == v1::SILVER ? "ann" : "bob");
      absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
      EXPECT_TRUE(joined.ok()) << joined.status();
      if (joined.ok()) {
        (c == v1::SILVER ? b.silver : b.red) = joined->player_token();
      }
    }
    return b;
  }

  absl::Status Move(const Board& b, const std::string& token,
                    const std::string& notation) {
    v1::MakeMoveRequest move;
    move.set_session_id(b.id);
    move.mutable_move()->set_notation(notation);
    return service_->MakeMove(move, Caller{token}).status();
  }

  // The first legal move of the side to move, in notation.
  std::string AnyMove(const Board& b) {
    v1::ListLegalMovesRequest list;
    list.set_session_id(b.id);
    absl::StatusOr<v1::ListLegalMovesResponse> moves =
        service_->ListLegalMoves(list);
    EXPECT_TRUE(moves.ok() && moves->moves_size() > 0) << moves.status();
    return moves.ok() && moves->moves_size() > 0 ? moves->moves(0).notation()
                                                 : "";
  }

  absl::StatusOr<v1::Session> Ask(const Board& b, const std::string& token) {
    v1::RequestTakebackRequest r;
    r.set_session_id(b.id);
    return service_->RequestTakeback(r, Caller{token});
  }
  absl::StatusOr<v1::Session> Accept(const Board& b, const std::string& token) {
    v1::AcceptTakebackRequest r;
    r.set_session_id(b.id);
    return service_->AcceptTakeback(r, Caller{token});
  }
  absl::StatusOr<v1::Session> Decline(const Board& b,
                                      const std::string& token) {
    v1::DeclineTakebackRequest r;
    r.set_session_id(b.id);
    return service_->DeclineTakeback(r, Caller{token});
  }

  v1::Session Get(const Board& b) { return GetSession(b.id); }
  std::vector<v1::Event> EventsAfter(const Board& b, int64_t after) {
    return ServiceTest::EventsAfter(b.id, after);
  }
};

TEST_F(TakebacksTest, TheMoverTakesBackTheLastMoveWhenTheOpponentAccepts) {
  const Board b = NewBoard();
  const std::string start = Get(b).board().position();
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  const int64_t before = Get(b).version();

  absl::StatusOr<v1::Session> asked = Ask(b, b.silver);
  ASSERT_OK(asked);
  EXPECT_EQ(asked->takeback_requested_by(), v1::SILVER);
  EXPECT_EQ(asked->moves_size(), 1);  // nothing undone yet

  absl::StatusOr<v1::Session> done = Accept(b, b.red);
  ASSERT_OK(done);
  EXPECT_EQ(done->moves_size(), 0);
  EXPECT_EQ(done->board().position(), start);
  EXPECT_EQ(done->board().side_to_move(), v1::SILVER);
  EXPECT_EQ(done->takeback_requested_by(), v1::COLOR_UNSPECIFIED);
  EXPECT_FALSE(done->has_last_shot());
  EXPECT_EQ(done->status(), v1::IN_PROGRESS);

  const std::vector<v1::Event> events = EventsAfter(b, before);
  ASSERT_EQ(events.size(), 2u);
  ASSERT_TRUE(events[0].has_takeback_requested());
  EXPECT_EQ(events[0].takeback_requested().by(), v1::SILVER);
  EXPECT_EQ(events[0].takeback_requested().plies(), 1);
  EXPECT_EQ(events[0].announcement(),
            "Silver (Ann) asks to take back 1 move(s).");
  ASSERT_TRUE(events[1].has_takeback_answered());
  EXPECT_TRUE(events[1].takeback_answered().accepted());
  EXPECT_EQ(events[1].takeback_answered().plies(), 1);
  EXPECT_EQ(events[1].takeback_answered().board().position(), start);
  EXPECT_EQ(events[1].announcement(), "Silver (Ann) takes back 1 move(s).");

  // The game goes on from there, with another move.
  EXPECT_TRUE(Move(b, b.silver, AnyMove(b)).ok());
}

TEST_F(TakebacksTest, AfterTheOpponentRepliedTwoPliesGoBack) {
  const Board b = NewBoard();
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  const v1::Session after_first = Get(b);
  ASSERT_TRUE(Move(b, b.red, "e5-f6").ok());
  ASSERT_TRUE(Move(b, b.silver, AnyMove(b)).ok());
  // Silver moved last; Red asks: Red's move and Silver's reply go.
  ASSERT_OK(Ask(b, b.red));
  absl::StatusOr<v1::Session> done = Accept(b, b.silver);
  ASSERT_OK(done);
  EXPECT_EQ(done->moves_size(), 1);
  EXPECT_EQ(done->board().position(), after_first.board().position());
  EXPECT_EQ(done->board().side_to_move(), v1::RED);
  EXPECT_EQ(done->last_shot().SerializeAsString(),
            after_first.last_shot().SerializeAsString());
  EXPECT_EQ(done->repetition_count(), after_first.repetition_count());
}

TEST_F(TakebacksTest, ADeclinedRequestUndoesNothing) {
  const Board b = NewBoard();
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  const v1::Session before = Get(b);
  ASSERT_OK(Ask(b, b.silver));
  absl::StatusOr<v1::Session> declined = Decline(b, b.red);
  ASSERT_OK(declined);
  EXPECT_EQ(declined->moves_size(), 1);
  EXPECT_EQ(declined->board().position(), before.board().position());
  EXPECT_EQ(declined->takeback_requested_by(), v1::COLOR_UNSPECIFIED);
  const std::vector<v1::Event> events = EventsAfter(b, before.version());
  ASSERT_EQ(events.size(), 2u);
  ASSERT_TRUE(events[1].has_takeback_answered());
  EXPECT_FALSE(events[1].takeback_answered().accepted());
  EXPECT_EQ(events[1].takeback_answered().plies(), 0);
  EXPECT_EQ(events[1].announcement(),
            "Silver (Ann)'s takeback request is declined.");
  // Nothing stands now to accept.
  EXPECT_ERROR(Accept(b, b.red), kFailedPrecondition,
               "no takeback request stands");
}

TEST_F(TakebacksTest, ARequestLapsesWhenAMoveIsPlayed) {
  const Board b = NewBoard();
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  ASSERT_OK(Ask(b, b.silver));
  ASSERT_TRUE(Move(b, b.red, "e5-f6").ok());
  EXPECT_EQ(Get(b).takeback_requested_by(), v1::COLOR_UNSPECIFIED);
  EXPECT_ERROR(Accept(b, b.red), kFailedPrecondition,
               "no takeback request stands");
  EXPECT_EQ(Get(b).moves_size(), 2);
}

TEST_F(TakebacksTest, BadRequestsAreRefusedAndChangeNothing) {
  const Board b = NewBoard();
  // No move of Silver's yet.
  EXPECT_ERROR(Ask(b, b.silver), kFailedPrecondition, "no move to take back");
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  // Red has no move yet either.
  EXPECT_ERROR(Ask(b, b.red), kFailedPrecondition, "Red has no move");
  EXPECT_ERROR(Ask(b, ""), kUnauthenticated, "");
  EXPECT_ERROR(Ask(b, "not-a-token"), kPermissionDenied, "");
  EXPECT_ERROR(Ask(b, b.owner), kPermissionDenied, "");
  ASSERT_OK(Ask(b, b.silver));
  EXPECT_ERROR(Ask(b, b.silver), kFailedPrecondition, "already asked");
  EXPECT_ERROR(Accept(b, b.silver), kFailedPrecondition,
               "cannot answer its own");
  EXPECT_ERROR(Decline(b, b.silver), kFailedPrecondition,
               "cannot answer its own");
  EXPECT_ERROR(Ask(b, b.red), kFailedPrecondition,
               "Silver's takeback request stands");
  v1::RequestTakebackRequest unknown;
  unknown.set_session_id("no-such-board");
  EXPECT_ERROR(service_->RequestTakeback(unknown, Caller{b.silver}), kNotFound,
               "no-such-board");
  const v1::Session s = Get(b);
  EXPECT_EQ(s.moves_size(), 1);
  EXPECT_EQ(s.takeback_requested_by(), v1::SILVER);
}

TEST_F(TakebacksTest, TheOwnersSettingTurnsThemOff) {
  v1::SettingsUpdate off;
  off.set_takebacks(false);
  const Board b = NewBoard(off);
  EXPECT_TRUE(Get(b).settings().takebacks_off());
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  EXPECT_ERROR(Ask(b, b.silver), kFailedPrecondition,
               "the owner's setting takebacks");
  // Turned on again, they work.
  v1::UpdateSettingsRequest on;
  on.set_session_id(b.id);
  on.mutable_settings()->set_takebacks(true);
  ASSERT_OK(service_->UpdateSettings(on, Caller{b.owner}));
  ASSERT_OK(Ask(b, b.silver));
}

TEST_F(TakebacksTest, RatedGamesAllowNone) {
  v1::SettingsUpdate rated;
  rated.set_rated(true);
  const Board b = NewBoard(rated);
  EXPECT_TRUE(Get(b).game_rated());
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  EXPECT_ERROR(Ask(b, b.silver), kFailedPrecondition, "is rated");
}

TEST_F(TakebacksTest, AFinishedGameHasNoTakebacks) {
  const Board b = NewBoard();
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  v1::ResignRequest resign;
  resign.set_session_id(b.id);
  ASSERT_OK(service_->Resign(resign, Caller{b.red}));
  EXPECT_ERROR(Ask(b, b.silver), kFailedPrecondition, "");
}

TEST_F(TakebacksTest, AComputerOpponentGrantsItAtOnce) {
  v1::CreateSessionRequest create;
  create.set_name("board");
  create.set_setup_id("classic-2");
  absl::StatusOr<v1::CreateSessionResponse> created =
      service_->CreateSession(create);
  ASSERT_OK(created);
  Board b;
  b.id = created->session().id();
  b.owner = created->owner_token();
  v1::JoinSeatRequest join;
  join.set_session_id(b.id);
  join.set_color(v1::SILVER);
  join.set_player_name("Ann");
  absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
  ASSERT_OK(joined);
  b.silver = joined->player_token();
  v1::SeatComputerRequest computer;
  computer.set_session_id(b.id);
  computer.set_color(v1::RED);
  computer.set_level(1);
  ASSERT_OK(service_->SeatComputer(computer, Caller{b.owner}));
  const std::string start = Get(b).board().position();
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  // Whether or not the computer has replied yet, Silver's move (and any
  // reply) goes, and it is Silver's turn again with no request standing.
  absl::StatusOr<v1::Session> granted = Ask(b, b.silver);
  ASSERT_OK(granted);
  EXPECT_EQ(granted->moves_size(), 0);
  EXPECT_EQ(granted->board().position(), start);
  EXPECT_EQ(granted->board().side_to_move(), v1::SILVER);
  EXPECT_EQ(granted->takeback_requested_by(), v1::COLOR_UNSPECIFIED);
}

TEST_F(TakebacksTest, ClocksKeepTheirTimesAndTheMoverToBeRunsFromNow) {
  v1::TimeControl tc;
  tc.set_kind(v1::TimeControl::FISCHER);
  tc.set_base_ms(60'000);
  tc.set_increment_ms(0);
  const Board b = NewBoard({}, &tc);
  clock_.Advance(absl::Seconds(10));
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());  // Silver 50 s left
  clock_.Advance(absl::Seconds(5));
  ASSERT_OK(Ask(b, b.silver));
  clock_.Advance(absl::Seconds(3));
  absl::StatusOr<v1::Session> done = Accept(b, b.red);  // Red used 8 s
  ASSERT_OK(done);
  EXPECT_EQ(done->clocks().silver_ms(), 50'000);
  EXPECT_EQ(done->clocks().red_ms(), 52'000);
  EXPECT_EQ(done->clocks().running(), v1::SILVER);
  EXPECT_EQ(TimeFromProto(done->clocks().flag_at()),
            clock_.Now() + absl::Seconds(50));
}

TEST_F(TakebacksTest, ATakebackSurvivesARestart) {
  const Board b = NewBoard();
  ASSERT_TRUE(Move(b, b.silver, "j5L").ok());
  ASSERT_TRUE(Move(b, b.red, "e5-f6").ok());
  ASSERT_OK(Ask(b, b.red));
  ASSERT_OK(Accept(b, b.silver));
  const v1::Session before = Get(b);
  Start();
  const v1::Session after = Get(b);
  EXPECT_EQ(after.moves_size(), 1);
  EXPECT_EQ(after.board().position(), before.board().position());
  EXPECT_EQ(after.version(), before.version());
}

}  // namespace
}  // namespace khet
