// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/ratings/glicko2.h"

#include <cmath>
#include <numbers>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"

namespace khet {
namespace {

// Glicko to Glicko-2 scale: mu = (r - 1500) / kScale, phi = RD / kScale.
constexpr double kScale = 173.7178;
// The volatility iteration stops when its bracket is this narrow.
constexpr double kConvergence = 0.000001;

absl::Status CheckRating(const Glicko2Rating& r, const char* whose) {
  if (!std::isfinite(r.rating) || !std::isfinite(r.deviation) ||
      !std::isfinite(r.volatility) || r.deviation <= 0 || r.volatility <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid ", whose, " rating ", r.rating, " / ", r.deviation, " / ",
        r.volatility, " (finite; deviation and volatility above 0)"));
  }
  return absl::OkStatus();
}

// g(phi): how much an opponent's uncertainty discounts a game.
double G(double phi) {
  return 1.0 / std::sqrt(1.0 + 3.0 * phi * phi /
                                   (std::numbers::pi * std::numbers::pi));
}

// E(mu, mu_j, phi_j): the expected score against the opponent.
double Expected(double mu, double mu_j, double g_j) {
  return 1.0 / (1.0 + std::exp(-g_j * (mu - mu_j)));
}

// Step 5: the new volatility, the root of f by the Illinois algorithm.
double NewVolatility(double phi, double sigma, double v, double delta,
                     double tau) {
  const double a = std::log(sigma * sigma);
  const double phi2 = phi * phi;
  const double delta2 = delta * delta;
  auto f = [&](double x) {
    const double ex = std::exp(x);
    const double d = phi2 + v + ex;
    return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) -
           (x - a) / (tau * tau);
  };
  double big_a = a;
  double big_b;
  if (delta2 > phi2 + v) {
    big_b = std::log(delta2 - phi2 - v);
  } else {
    int k = 1;
    while (f(a - k * tau) < 0) ++k;
    big_b = a - k * tau;
  }
  double f_a = f(big_a);
  double f_b = f(big_b);
  while (std::abs(big_b - big_a) > kConvergence) {
    const double big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
    const double f_c = f(big_c);
    // "<= 0" as in the 2022 revision: with the 2013 text's "< 0" an exact
    // root at C would never close the bracket.
    if (f_c * f_b <= 0) {
      big_a = big_b;
      f_a = f_b;
    } else {
      f_a /= 2.0;
    }
    big_b = big_c;
    f_b = f_c;
  }
  return std::exp(big_a / 2.0);
}

}  // namespace

absl::StatusOr<Glicko2Rating> RatePeriod(const Glicko2Rating& player,
                                         absl::Span<const RatedGame> games,
                                         double tau) {
  if (!(tau > 0) || !std::isfinite(tau)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid tau ", tau, " (above 0)"));
  }
  KHET_RETURN_IF_ERROR(CheckRating(player, "player's"));
  for (const RatedGame& game : games) {
    KHET_RETURN_IF_ERROR(CheckRating(game.opponent, "opponent's"));
    if (!(game.score >= 0 && game.score <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid score ", game.score, " (0 to 1)"));
    }
  }
  // Step 2: the Glicko-2 scale.
  const double mu = (player.rating - kDefaultRating) / kScale;
  const double phi = player.deviation / kScale;
  const double sigma = player.volatility;
  if (games.empty()) {
    // Only the deviation grows (step 6 with no games).
    return Glicko2Rating{player.rating,
                         kScale * std::sqrt(phi * phi + sigma * sigma), sigma};
  }
  // Steps 3 and 4: the estimated variance v and improvement delta.
  double information = 0;  // 1 / v
  double score_sum = 0;    // sum of g(phi_j) (s_j - E_j)
  for (const RatedGame& game : games) {
    const double mu_j = (game.opponent.rating - kDefaultRating) / kScale;
    const double g_j = G(game.opponent.deviation / kScale);
    const double e_j = Expected(mu, mu_j, g_j);
    information += g_j * g_j * e_j * (1.0 - e_j);
    score_sum += g_j * (game.score - e_j);
  }
  const double v = 1.0 / information;
  const double delta = v * score_sum;
  // Steps 5 to 7.
  const double new_sigma = NewVolatility(phi, sigma, v, delta, tau);
  const double phi_star = std::sqrt(phi * phi + new_sigma * new_sigma);
  const double new_phi = 1.0 / std::sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  const double new_mu = mu + new_phi * new_phi * score_sum;
  // Step 8: back to the Glicko scale.
  return Glicko2Rating{kScale * new_mu + kDefaultRating, kScale * new_phi,
                       new_sigma};
}

absl::StatusOr<RatedPair> RateGame(const Glicko2Rating& first,
                                   const Glicko2Rating& second,
                                   double first_score, double tau) {
  const RatedGame for_first{second, first_score};
  const RatedGame for_second{first, 1.0 - first_score};
  RatedPair out;
  KHET_ASSIGN_OR_RETURN(out.first, RatePeriod(first, {&for_first, 1}, tau));
  KHET_ASSIGN_OR_RETURN(out.second, RatePeriod(second, {&for_second, 1}, tau));
  return out;
}

}  // namespace khet
