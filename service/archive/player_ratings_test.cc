// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Ratings through SessionService: rated games between players with ids
// update both players' Glicko-2 ratings exactly as RateGame computes them;
// games that are not rated (the setting off, a player without an id, a
// computer seat, one id in both seats, a seat taken over) change nothing;
// GetPlayer and ListPlayers answer and refuse bad input; a rating that
// could not be written is applied when the service starts again.
#include "service/archive/player_ratings.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "service/base/status_or_matchers.h"
#include "service/core/service_test_fixture.h"
#include "service/core/session_service.h"
#include "service/ratings/glicko2.h"

namespace khet {
namespace {

class PlayerRatingsTest : public ServiceTest {
 protected:
  struct Board {
    std::string id, owner, silver, red;
  };

  // A Classic 2 board, rated or not, with Silver and Red seated under the
  // given ids ("" for none).
  Board NewBoard(bool rated, const std::string& silver_id,
                 const std::string& red_id) {
    Board b;
    v1::CreateSessionRequest create;
    create.set_name("board");
    create.set_setup_id("classic-2");
    create.mutable_settings()->set_rated(rated);
    absl::StatusOr<v1::CreateSessionResponse> created =
        service_->CreateSession(create);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return b;
    b.id = created->session().id();
    b.owner = created->owner_token();
    b.silver = Join(b, v1::SILVER, "Ann", silver_id);
    b.red = Join(b, v1::RED, "Bob", red_id);
    return b;
  }

  std::string Join(const Board& b, v1::Color color, const std::string& name,
                   const std::string& id) {
    v1::JoinSeatRequest join;
    join.set_session_id(b.id);
    join.set_color(color);
    join.set_player_name(name);
    join.set_player_id(id);
    absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
    EXPECT_TRUE(joined.ok()) << joined.status();
    return joined.ok() ? joined->player_token() : "";
  }

  absl::Status Resign(const Board& b, const std::string& token) {
    v1::ResignRequest resign;
    resign.set_session_id(b.id);
    return service_->Resign(resign, Caller{token}).status();
  }

  absl::StatusOr<v1::Player> Player(const std::string& id) {
    v1::GetPlayerRequest get;
    get.set_player_id(id);
    return service_->GetPlayer(get);
  }
};

TEST_F(PlayerRatingsTest, ARatedGameUpdatesBothPlayersByGlicko2) {
  const Board b = NewBoard(/*rated=*/true, "irc:ann", "sl/bob");
  const v1::Session s = GetSession(b.id);
  EXPECT_TRUE(s.game_rated());
  EXPECT_EQ(s.seats(0).player_id(), "irc:ann");
  EXPECT_ERROR(Player("irc:ann"), kNotFound, "irc:ann");

  ASSERT_TRUE(Resign(b, b.silver).ok());  // Red wins
  const absl::StatusOr<RatedPair> want =
      RateGame(Glicko2Rating(), Glicko2Rating(), /*first_score=*/0);
  ASSERT_OK(want);
  absl::StatusOr<v1::Player> ann = Player("irc:ann");
  absl::StatusOr<v1::Player> bob = Player("sl/bob");
  ASSERT_OK(ann);
  ASSERT_OK(bob);
  EXPECT_EQ(ann->name(), "Ann");
  EXPECT_DOUBLE_EQ(ann->rating(), want->first.rating);
  EXPECT_DOUBLE_EQ(ann->deviation(), want->first.deviation);
  EXPECT_DOUBLE_EQ(ann->volatility(), want->first.volatility);
  EXPECT_DOUBLE_EQ(bob->rating(), want->second.rating);
  EXPECT_LT(ann->rating(), 1500);
  EXPECT_GT(bob->rating(), 1500);
  EXPECT_EQ(ann->games(), 1);
  EXPECT_EQ(ann->losses(), 1);
  EXPECT_EQ(bob->wins(), 1);
  EXPECT_EQ(bob->draws(), 0);

  // A rematch (colours swapped) rates from the new values: a draw now.
  v1::RematchRequest rematch;
  rematch.set_session_id(b.id);
  ASSERT_OK(service_->Rematch(rematch, Caller{b.owner}));
  v1::OfferDrawRequest offer;
  offer.set_session_id(b.id);
  ASSERT_OK(service_->OfferDraw(offer, Caller{b.red}));  // Ann, now Red
  v1::AcceptDrawRequest accept;
  accept.set_session_id(b.id);
  ASSERT_OK(service_->AcceptDraw(accept, Caller{b.silver}));  // Bob
  const absl::StatusOr<RatedPair> draw = RateGame(
      Glicko2Rating{bob->rating(), bob->deviation(), bob->volatility()},
      Glicko2Rating{ann->rating(), ann->deviation(), ann->volatility()}, 0.5);
  ASSERT_OK(draw);
  absl::StatusOr<v1::Player> bob2 = Player("sl/bob");
  ASSERT_OK(bob2);
  EXPECT_DOUBLE_EQ(bob2->rating(), draw->first.rating);
  EXPECT_EQ(bob2->games(), 2);
  EXPECT_EQ(bob2->draws(), 1);

  // The leaderboard: Bob first, then Ann.
  v1::ListPlayersRequest list;
  absl::StatusOr<v1::ListPlayersResponse> board = service_->ListPlayers(list);
  ASSERT_OK(board);
  ASSERT_EQ(board->players_size(), 2);
  EXPECT_EQ(board->players(0).player_id(), "sl/bob");
  EXPECT_EQ(board->players(1).player_id(), "irc:ann");
  EXPECT_EQ(board->next_page_token(), "");
  list.set_page_size(1);
  board = service_->ListPlayers(list);
  ASSERT_OK(board);
  ASSERT_EQ(board->players_size(), 1);
  EXPECT_EQ(board->next_page_token(), "1");
  list.set_page_token("1");
  board = service_->ListPlayers(list);
  ASSERT_OK(board);
  ASSERT_EQ(board->players_size(), 1);
  EXPECT_EQ(board->players(0).player_id(), "irc:ann");
  EXPECT_EQ(board->next_page_token(), "");
}

TEST_F(PlayerRatingsTest, UnratedGamesChangeNoRating) {
  // The setting off.
  Board b = NewBoard(/*rated=*/false, "ann", "bob");
  ASSERT_TRUE(Resign(b, b.silver).ok());
  // A player without an id.
  b = NewBoard(/*rated=*/true, "ann", "");
  ASSERT_TRUE(Resign(b, b.silver).ok());
  // One id in both seats.
  b = NewBoard(/*rated=*/true, "ann", "ann");
  ASSERT_TRUE(Resign(b, b.silver).ok());
  // A seat taken over by another player during the game.
  b = NewBoard(/*rated=*/true, "ann", "bob");
  v1::LeaveSeatRequest leave;
  leave.set_session_id(b.id);
  ASSERT_OK(service_->LeaveSeat(leave, Caller{b.red}));
  const std::string cy = Join(b, v1::RED, "Cy", "cy");
  EXPECT_FALSE(GetSession(b.id).game_rated());
  ASSERT_TRUE(Resign(b, cy).ok());
  for (const char* id : {"ann", "bob", "cy"}) {
    EXPECT_ERROR(Player(id), kNotFound, id);
  }
  absl::StatusOr<v1::ListPlayersResponse> board =
      service_->ListPlayers(v1::ListPlayersRequest());
  ASSERT_OK(board);
  EXPECT_EQ(board->players_size(), 0);
}

TEST_F(PlayerRatingsTest, AComputerSeatMakesTheGameUnrated) {
  v1::CreateSessionRequest create;
  create.set_name("board");
  create.set_setup_id("classic-2");
  create.mutable_settings()->set_rated(true);
  absl::StatusOr<v1::CreateSessionResponse> created =
      service_->CreateSession(create);
  ASSERT_OK(created);
  Board b;
  b.id = created->session().id();
  b.owner = created->owner_token();
  b.silver = Join(b, v1::SILVER, "Ann", "ann");
  v1::SeatComputerRequest computer;
  computer.set_session_id(b.id);
  computer.set_color(v1::RED);
  computer.set_level(1);
  absl::StatusOr<v1::Session> s =
      service_->SeatComputer(computer, Caller{b.owner});
  ASSERT_OK(s);
  EXPECT_FALSE(s->game_rated());
  ASSERT_TRUE(Resign(b, b.silver).ok());
  EXPECT_ERROR(Player("ann"), kNotFound, "ann");
}

TEST_F(PlayerRatingsTest, BadIdsAndPagesAreRefused) {
  v1::CreateSessionRequest create;
  create.set_name("board");
  create.set_setup_id("classic-2");
  absl::StatusOr<v1::CreateSessionResponse> created =
      service_->CreateSession(create);
  ASSERT_OK(created);
  v1::JoinSeatRequest join;
  join.set_session_id(created->session().id());
  join.set_player_name("Ann");
  join.set_player_id("ann smith");
  EXPECT_ERROR(service_->JoinSeat(join), kInvalidArgument,
               "may hold only letters");
  join.set_player_id(std::string(129, 'a'));
  EXPECT_ERROR(service_->JoinSeat(join), kInvalidArgument, "1 to 128");
  // Nothing was seated.
  EXPECT_FALSE(GetSession(created->session().id()).seats(0).occupied());

  EXPECT_ERROR(Player(""), kInvalidArgument, "1 to 128");
  EXPECT_ERROR(Player("a\nb"), kInvalidArgument, "may hold only");
  v1::ListPlayersRequest list;
  list.set_page_size(101);
  EXPECT_ERROR(service_->ListPlayers(list), kInvalidArgument, "page_size");
  list.set_page_size(0);
  list.set_page_token("x");
  EXPECT_ERROR(service_->ListPlayers(list), kInvalidArgument, "page_token");
}

TEST_F(PlayerRatingsTest, ARatingNotWrittenIsAppliedAtTheNextStart) {
  const Board b = NewBoard(/*rated=*/true, "ann", "bob");
  store_.fail_ratings = true;
  // The game's end is written; its ratings are not.
  ASSERT_TRUE(Resign(b, b.red).ok());
  EXPECT_ERROR(Player("ann"), kNotFound, "ann");
  store_.fail_ratings = false;
  Start();
  absl::StatusOr<v1::Player> ann = Player("ann");
  ASSERT_OK(ann);
  EXPECT_EQ(ann->wins(), 1);
  EXPECT_GT(ann->rating(), 1500);
}

}  // namespace
}  // namespace khet
