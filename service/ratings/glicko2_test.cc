// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/ratings/glicko2.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace khet {
namespace {

// The Glicko-2 scale's factor, as Glickman's example uses it.
constexpr double kScale = 173.7178;

// Glickman's worked example ("Example of the Glicko-2 system", 2013): a
// 1500 / 200 / 0.06 player beats a 1400 / 30 player and loses to 1550 / 100
// and 1700 / 300 players.
TEST(Glicko2Test, GlickmansWorkedExample) {
  const Glicko2Rating player{1500, 200, 0.06};
  const std::vector<RatedGame> games = {
      {{1400, 30}, 1}, {{1550, 100}, 0}, {{1700, 300}, 0}};
  const absl::StatusOr<Glicko2Rating> rated = RatePeriod(player, games);
  ASSERT_TRUE(rated.ok()) << rated.status();
  // The example prints mu' = -0.2069, phi' = 0.8722 and RD' = 151.52:
  // each rounded to its last printed digit.
  EXPECT_NEAR((rated->rating - 1500) / kScale, -0.2069, 0.00005);
  EXPECT_NEAR(rated->deviation / kScale, 0.8722, 0.00005);
  EXPECT_NEAR(rated->deviation, 151.52, 0.005);
  // It prints sigma' = 0.05999, cut after five decimals (unrounded it is
  // 0.0599960).
  EXPECT_GE(rated->volatility, 0.05999);
  EXPECT_LT(rated->volatility, 0.06000);
  EXPECT_NEAR(rated->volatility, 0.059996, 0.0000005);
  // It prints r' = 1464.06, which is 173.7178 * -0.2069 + 1500 from the
  // rounded mu'; unrounded, r' is 1464.05: within a hundredth of it.
  EXPECT_NEAR(rated->rating, 1464.06, 0.01);
  EXPECT_NEAR(rated->rating, 1500 + kScale * -0.2069, 0.01);
}

TEST(Glicko2Test, NoGamesOnlyWidensTheDeviation) {
  const Glicko2Rating player{1623.5, 200, 0.06};
  const absl::StatusOr<Glicko2Rating> rated = RatePeriod(player, {});
  ASSERT_TRUE(rated.ok()) << rated.status();
  EXPECT_EQ(rated->rating, 1623.5);
  EXPECT_EQ(rated->volatility, 0.06);
  // phi* = sqrt(phi^2 + sigma^2) on the Glicko-2 scale: 200.2714.
  EXPECT_NEAR(rated->deviation, 200.2714, 0.0001);
  EXPECT_GT(rated->deviation, player.deviation);
}

TEST(Glicko2Test, NewPlayerHasTheDefaults) {
  const Glicko2Rating fresh;
  EXPECT_EQ(fresh.rating, 1500);
  EXPECT_EQ(fresh.deviation, 350);
  EXPECT_EQ(fresh.volatility, 0.06);
  EXPECT_EQ(kGlicko2Tau, 0.5);
}

TEST(Glicko2Test, DrawBetweenEqualsOnlyNarrowsTheDeviations) {
  const Glicko2Rating equal{1500, 350, 0.06};
  const absl::StatusOr<RatedPair> rated = RateGame(equal, equal, 0.5);
  ASSERT_TRUE(rated.ok()) << rated.status();
  for (const Glicko2Rating& r : {rated->first, rated->second}) {
    EXPECT_NEAR(r.rating, 1500, 1e-9);
    EXPECT_LT(r.deviation, 350);
    EXPECT_GT(r.deviation, 250);
    EXPECT_NEAR(r.volatility, 0.06, 0.0001);
  }
  EXPECT_EQ(rated->first.deviation, rated->second.deviation);
}

TEST(Glicko2Test, AGameMovesEqualPlayersByOppositeAmounts) {
  const Glicko2Rating a{1500, 350, 0.06};
  const absl::StatusOr<RatedPair> rated = RateGame(a, a, 1);
  ASSERT_TRUE(rated.ok()) << rated.status();
  EXPECT_GT(rated->first.rating, 1500);
  EXPECT_LT(rated->second.rating, 1500);
  EXPECT_NEAR(rated->first.rating - 1500, 1500 - rated->second.rating, 1e-9);
  EXPECT_NEAR(rated->first.deviation, rated->second.deviation, 1e-9);
  EXPECT_NEAR(rated->first.volatility, rated->second.volatility, 1e-12);
}

TEST(Glicko2Test, SwappingThePlayersSwapsTheResults) {
  const Glicko2Rating a{1610, 80, 0.05};
  const Glicko2Rating b{1480, 230, 0.07};
  const absl::StatusOr<RatedPair> ab = RateGame(a, b, 0);
  const absl::StatusOr<RatedPair> ba = RateGame(b, a, 1);
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_EQ(ab->first.rating, ba->second.rating);
  EXPECT_EQ(ab->first.deviation, ba->second.deviation);
  EXPECT_EQ(ab->second.rating, ba->first.rating);
  EXPECT_EQ(ab->second.volatility, ba->first.volatility);
  // The upset: the stronger, surer player loses less than the other gains.
  EXPECT_LT(ab->first.rating, a.rating);
  EXPECT_GT(ab->second.rating, b.rating);
  EXPECT_LT(a.rating - ab->first.rating, ab->second.rating - b.rating);
}

TEST(Glicko2Test, EachGameIsItsOwnPeriod) {
  const Glicko2Rating a{1500, 200, 0.06};
  const Glicko2Rating b{1400, 30, 0.06};
  const absl::StatusOr<RatedPair> game = RateGame(a, b, 1);
  const RatedGame as_period{b, 1};
  const absl::StatusOr<Glicko2Rating> period = RatePeriod(a, {&as_period, 1});
  ASSERT_TRUE(game.ok() && period.ok());
  EXPECT_EQ(game->first.rating, period->rating);
  EXPECT_EQ(game->first.deviation, period->deviation);
  EXPECT_EQ(game->first.volatility, period->volatility);
}

// Results far from expectation (a settled player beats much stronger ones
// again and again) raise the volatility: the bracket's other start, where
// delta^2 > phi^2 + v.
TEST(Glicko2Test, SurprisingResultsRaiseTheVolatility) {
  const Glicko2Rating player{1500, 50, 0.06};
  const std::vector<RatedGame> games(10, RatedGame{{2100, 30}, 1});
  const absl::StatusOr<Glicko2Rating> rated = RatePeriod(player, games);
  ASSERT_TRUE(rated.ok()) << rated.status();
  EXPECT_GT(rated->volatility, 0.06);
  EXPECT_GT(rated->rating, 1600);
  // Results as expected (a sure loss each time) lower it a little.
  const std::vector<RatedGame> losses(10, RatedGame{{2100, 30}, 0});
  const absl::StatusOr<Glicko2Rating> expected = RatePeriod(player, losses);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_LT(expected->volatility, 0.06);
  EXPECT_LT(expected->rating, 1500);
}

TEST(Glicko2Test, RejectsInvalidInput) {
  const Glicko2Rating ok;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(RateGame(ok, ok, 1.5).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RateGame(ok, ok, nan).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RateGame({1500, 0, 0.06}, ok, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RateGame(ok, {1500, 350, -0.1}, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RatePeriod({nan, 350, 0.06}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RateGame(ok, ok, 1, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_NE(RateGame(ok, ok, 1.5).status().message().find("1.5"),
            std::string::npos);
}

}  // namespace
}  // namespace khet
