// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Glicko-2 ratings (Mark E. Glickman, "Example of the Glicko-2 system",
// 2013; the volatility's iteration as corrected in its 2022 revision).
//
// A player has a rating r, a rating deviation RD (the uncertainty of r) and
// a volatility sigma (how erratic the player's results are). A new player
// starts at 1500 / 350 / 0.06. The system constant tau, which limits how
// fast the volatility changes, is 0.5.
//
// The games of one rating period are rated together against the opponents'
// pre-period values. For club play every game is its own rating period:
// RateGame updates both players at once from their values before the game.
// A period without games only widens the deviation.
#ifndef KHET_SERVICE_RATINGS_GLICKO2_H_
#define KHET_SERVICE_RATINGS_GLICKO2_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace khet {

inline constexpr double kDefaultRating = 1500.0;
inline constexpr double kDefaultRatingDeviation = 350.0;
inline constexpr double kDefaultVolatility = 0.06;
// The system constant tau (Glickman suggests 0.3 to 1.2).
inline constexpr double kGlicko2Tau = 0.5;

// A player's rating on the Glicko scale (the Elo-like one, not the
// internal Glicko-2 scale). Valid: all finite, deviation and volatility > 0.
struct Glicko2Rating {
  double rating = kDefaultRating;
  double deviation = kDefaultRatingDeviation;
  double volatility = kDefaultVolatility;
};

// One game of a rating period from the rated player's side: the opponent's
// rating before the period (its volatility is not used) and the player's
// score, 1 for a win, 0.5 for a draw, 0 for a loss.
struct RatedGame {
  Glicko2Rating opponent;
  double score = 0.0;
};

// The player's rating after a rating period with `games` (Glickman's steps
// 1-8); no games: the same rating and volatility, the deviation grown to
// sqrt(RD^2 + (173.7178 sigma)^2). InvalidArgument for an invalid rating
// (the player's or an opponent's), a score outside [0, 1], or tau <= 0.
absl::StatusOr<Glicko2Rating> RatePeriod(const Glicko2Rating& player,
                                         absl::Span<const RatedGame> games,
                                         double tau = kGlicko2Tau);

// Both players after one game between them, the game its own rating
// period. `first_score` is the first player's score (1, 0.5 or 0; the
// second scores 1 - first_score). Errors as RatePeriod's.
struct RatedPair {
  Glicko2Rating first;
  Glicko2Rating second;
};
absl::StatusOr<RatedPair> RateGame(const Glicko2Rating& first,
                                   const Glicko2Rating& second,
                                   double first_score,
                                   double tau = kGlicko2Tau);

}  // namespace khet

#endif  // KHET_SERVICE_RATINGS_GLICKO2_H_
