// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The budgets the core keeps per caller besides unclaimed sessions: unrated
// games archived per session per hour (a new game refused, the game in
// progress played to its end), and SuggestMove searches and game analyses
// at once per client address.
#include "service/fair_use/archive_budget.h"

#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/core/session_service.h"
#include "service/fair_use/address_slots.h"
#include "service/fair_use/budget_refusal.h"
#include "service/search/test_fakes.h"
#include "service/store/memory_store.h"
#include "service/store/store_testing.h"

namespace khet {
namespace {

using ::testing::HasSubstr;

class CoreBudgetsTest : public ::testing::Test {
 protected:
  struct Board {
    std::string id;
    std::string owner;
    std::string silver;  // tokens by seat, as joined
    std::string red;
  };

  void Start(SearchFunction search = nullptr) {
    service_.reset();
    ServiceOptions options;
    options.store = &store_;
    options.clock = &clock_;
    options.random = &random_;
    options.limits = limits_;
    options.search = std::move(search);
    absl::StatusOr<std::unique_ptr<SessionService>> service =
        SessionService::Create(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = *std::move(service);
  }

  std::string Join(const std::string& id, v1::Color color,
                   const std::string& player_id = "") {
    v1::JoinSeatRequest join;
    join.set_session_id(id);
    join.set_color(color);
    join.set_player_name(color == v1::SILVER ? "Ann" : "Bob");
    join.set_player_id(player_id);
    absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
    EXPECT_TRUE(joined.ok()) << joined.status();
    return joined.ok() ? joined->player_token() : "";
  }

  Board NewBoard(bool rated = false) {
    v1::CreateSessionRequest create;
    create.set_name("budget board");
    create.mutable_settings()->set_rated(rated);
    absl::StatusOr<v1::CreateSessionResponse> created =
        service_->CreateSession(create);
    EXPECT_TRUE(created.ok()) << created.status();
    Board b;
    if (!created.ok()) return b;
    b.id = created->session().id();
    b.owner = created->owner_token();
    b.silver = Join(b.id, v1::SILVER, rated ? "irc:ann" : "");
    b.red = Join(b.id, v1::RED, rated ? "irc:bob" : "");
    return b;
  }

  v1::Session Get(const std::string& id) {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    absl::StatusOr<v1::Session> s = service_->GetSession(get);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : v1::Session();
  }

  // The token of whoever is to move now (seats swap on a rematch).
  std::string ToMove(const Board& b) {
    const v1::Session s = Get(b.id);
    const bool silver_moves = s.board().side_to_move() == v1::SILVER;
    // After an odd number of rematches Silver's seat holds b.red's player.
    const std::string& silver_seat =
        s.seats(0).player_name() == "Ann" ? b.silver : b.red;
    const std::string& red_seat = silver_seat == b.silver ? b.red : b.silver;
    return silver_moves ? silver_seat : red_seat;
  }

  // A move, then the other side resigns: one game ended and archived.
  void PlayAndResign(const Board& b) {
    v1::MakeMoveRequest move;
    move.set_session_id(b.id);
    move.mutable_move()->set_notation("j5L");  // each game's first, Silver's
    KHET_ASSERT_OK(service_->MakeMove(move, Caller{ToMove(b)}));
    v1::ResignRequest resign;
    resign.set_session_id(b.id);
    KHET_ASSERT_OK(service_->Resign(resign, Caller{ToMove(b)}));
  }

  absl::Status Rematch(const Board& b) {
    v1::RematchRequest rematch;
    rematch.set_session_id(b.id);
    return service_->Rematch(rematch, Caller{b.owner}).status();
  }

  MemoryStore store_;
  FakeClock clock_;
  FakeRandom random_;
  ServiceLimits limits_;
  ControlledSearch search_;  // outlives the service, whose threads use it
  std::unique_ptr<SessionService> service_;
};

TEST_F(CoreBudgetsTest, ABoardArchivesItsBudgetOfUnratedGamesAnHour) {
  limits_.max_unrated_games_per_hour = 2;
  Start();
  const Board b = NewBoard();
  PlayAndResign(b);
  KHET_ASSERT_OK(Rematch(b));
  clock_.Advance(absl::Minutes(10));
  PlayAndResign(b);
  // Two archived within the hour: no new game follows.
  const absl::Status refused = Rematch(b);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(),
              HasSubstr("has archived 2 unrated games within the hour: at "
                        "most 2 an hour"));
  ASSERT_TRUE(RefusedBy(refused).has_value());
  EXPECT_EQ(RefusedBy(refused)->budget, Budget::kArchivedGames);
  EXPECT_EQ(RefusedBy(refused)->retry_after_seconds, 3000);  // 50 min left
  v1::ResetGameRequest reset;
  reset.set_session_id(b.id);
  EXPECT_EQ(
      RefusedBy(service_->ResetGame(reset, Caller{b.owner}).status())->budget,
      Budget::kArchivedGames);
  v1::ChooseSetupRequest setup;
  setup.set_session_id(b.id);
  setup.set_setup_id("imhotep");
  EXPECT_EQ(
      RefusedBy(service_->ChooseSetup(setup, Caller{b.owner}).status())->budget,
      Budget::kArchivedGames);
  // Leaving is fine; sitting down again would start the next game.
  v1::LeaveSeatRequest leave;
  leave.set_session_id(b.id);
  KHET_ASSERT_OK(service_->LeaveSeat(leave, Caller{b.silver}));
  v1::JoinSeatRequest join;
  join.set_session_id(b.id);
  join.set_player_name("Cid");
  EXPECT_EQ(RefusedBy(service_->JoinSeat(join).status())->budget,
            Budget::kArchivedGames);
  EXPECT_EQ(Get(b.id).status(), v1::FINISHED);
  // The hour over, the board goes on.
  clock_.Advance(absl::Minutes(50));
  EXPECT_TRUE(service_->JoinSeat(join).ok());
  EXPECT_EQ(Get(b.id).status(), v1::IN_PROGRESS);
}

TEST_F(CoreBudgetsTest, TheGameInProgressIsPlayedAndArchived) {
  limits_.max_unrated_games_per_hour = 2;
  Start();
  const Board b = NewBoard();
  PlayAndResign(b);
  KHET_ASSERT_OK(Rematch(b));
  // A move, then a reset: the abandoned game is the second archived.
  v1::MakeMoveRequest move;
  move.set_session_id(b.id);
  move.mutable_move()->set_notation("j5L");
  KHET_ASSERT_OK(service_->MakeMove(move, Caller{ToMove(b)}));
  v1::ResetGameRequest reset;
  reset.set_session_id(b.id);
  KHET_ASSERT_OK(service_->ResetGame(reset, Caller{b.owner}));
  // A new game not yet begun is no game to follow: seats may be taken.
  Board again = b;
  again.silver = Join(b.id, v1::SILVER);
  again.red = Join(b.id, v1::RED);
  ASSERT_EQ(Get(b.id).status(), v1::IN_PROGRESS);
  // Over the budget now, the game still ends by play and is archived.
  PlayAndResign(again);
  v1::ListGamesRequest list;
  list.set_session_id(b.id);
  absl::StatusOr<v1::ListGamesResponse> games = service_->ListGames(list);
  KHET_ASSERT_OK(games);
  EXPECT_EQ(games->games_size(), 3);
  EXPECT_EQ(RefusedBy(Rematch(again))->budget, Budget::kArchivedGames);
}

TEST_F(CoreBudgetsTest, RatedGamesAreNotCounted) {
  limits_.max_unrated_games_per_hour = 1;
  Start();
  const Board b = NewBoard(/*rated=*/true);
  ASSERT_TRUE(Get(b.id).game_rated());
  for (int i = 0; i < 3; ++i) {
    PlayAndResign(b);
    KHET_ASSERT_OK(Rematch(b));
  }
}

TEST_F(CoreBudgetsTest, ZeroTurnsTheArchiveBudgetOff) {
  limits_.max_unrated_games_per_hour = 0;
  Start();
  const Board b = NewBoard();
  for (int i = 0; i < 5; ++i) {
    PlayAndResign(b);
    KHET_ASSERT_OK(Rematch(b));
  }
}

TEST_F(CoreBudgetsTest, SuggestionsAtOncePerAddress) {
  limits_.max_suggestions_per_address = 1;
  Start(search_.Function());
  const Board b = NewBoard();
  v1::SuggestMoveRequest request;
  request.set_session_id(b.id);
  CallControl mine;
  mine.address = "192.0.2.7";
  absl::StatusOr<v1::SuggestMoveResponse> first;
  std::thread waiting([&] { first = service_->SuggestMove(request, mine); });
  ASSERT_TRUE(search_.WaitForStarts(1));
  const absl::Status refused = service_->SuggestMove(request, mine).status();
  EXPECT_EQ(refused.message(),
            "too many suggestions at once from 192.0.2.7: at most 1, try "
            "again in 1 s");
  EXPECT_EQ(RefusedBy(refused)->budget, Budget::kSuggestions);
  // Another address is served.
  CallControl other;
  other.address = "192.0.2.8";
  absl::StatusOr<v1::SuggestMoveResponse> second;
  std::thread also([&] { second = service_->SuggestMove(request, other); });
  ASSERT_TRUE(search_.WaitForStarts(2));
  search_.Release();
  waiting.join();
  also.join();
  KHET_EXPECT_OK(first);
  KHET_EXPECT_OK(second);
  KHET_EXPECT_OK(service_->SuggestMove(request, mine));  // its place is back
}

TEST_F(CoreBudgetsTest, AnalysesAtOncePerAddress) {
  limits_.max_analyses_per_address = 1;
  Start(search_.Function());
  const Board a = NewBoard();
  PlayAndResign(a);
  const Board b = NewBoard();
  PlayAndResign(b);
  const auto analyze = [&](const Board& board, const std::string& address) {
    v1::AnalyzeGameRequest request;
    request.set_session_id(board.id);
    request.set_game_id("current");
    return service_->AnalyzeGame(request, Caller{"", address});
  };
  KHET_ASSERT_OK(analyze(a, "192.0.2.7"));
  ASSERT_TRUE(search_.WaitForStarts(1));
  const absl::Status refused = analyze(b, "192.0.2.7").status();
  EXPECT_THAT(refused.message(),
              HasSubstr("too many game analyses at once from 192.0.2.7"));
  EXPECT_EQ(RefusedBy(refused)->budget, Budget::kAnalyses);
  // Its progress is still answered; another address may start one.
  EXPECT_EQ(analyze(a, "192.0.2.7")->state(), v1::GameAnalysis::RUNNING);
  EXPECT_EQ(analyze(b, "192.0.2.8")->state(), v1::GameAnalysis::RUNNING);
  search_.Release();
}

TEST(AddressSlotsTest, HoldsPlacesUntilTheyAreGivenBack) {
  AddressSlots slots(Budget::kSuggestions, "suggestions", 2, absl::Seconds(1));
  absl::StatusOr<AddressSlots::Slot> one = slots.Take("192.0.2.7");
  absl::StatusOr<AddressSlots::Slot> two = slots.Take("192.0.2.7");
  KHET_ASSERT_OK(one);
  KHET_ASSERT_OK(two);
  EXPECT_EQ(slots.held("192.0.2.7"), 2);
  EXPECT_FALSE(slots.Take("192.0.2.7").ok());
  KHET_EXPECT_OK(slots.Take("192.0.2.8"));
  KHET_EXPECT_OK(slots.Take(""));  // unknown: not counted
  AddressSlots::Slot moved = *std::move(one);
  EXPECT_EQ(slots.held("192.0.2.7"), 2);
  moved = AddressSlots::Slot();
  EXPECT_EQ(slots.held("192.0.2.7"), 1);
  KHET_EXPECT_OK(slots.Take("192.0.2.7"));
  { AddressSlots::Slot gone = *std::move(two); }
  EXPECT_EQ(slots.held("192.0.2.7"), 0);
}

}  // namespace
}  // namespace khet
