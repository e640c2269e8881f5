// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/archive/player_ratings.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/ratings/glicko2.h"
#include "service/text/quoted_input.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

constexpr size_t kMaxPlayerIdLength = 128;
constexpr int kPlayersPageSize = 20;
constexpr int kMaxPageSize = 100;
// Pending games read at a time, and tries per game against other writers.
constexpr int kPendingBatch = 32;
constexpr int kTriesPerGame = 8;

bool IdCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
         c == ':' || c == '@' || c == '/' || c == '+';
}

v1::Player PlayerToProto(const PlayerRecord& p) {
  v1::Player out;
  out.set_player_id(p.id);
  out.set_name(p.name);
  out.set_rating(p.rating);
  out.set_deviation(p.deviation);
  out.set_volatility(p.volatility);
  out.set_games(static_cast<int32_t>(p.games));
  out.set_wins(static_cast<int32_t>(p.wins));
  out.set_draws(static_cast<int32_t>(p.draws));
  out.set_losses(static_cast<int32_t>(p.losses));
  *out.mutable_updated_at() = TimeToProto(p.updated_at);
  return out;
}

// The player as stored, or a new player at the defaults.
absl::StatusOr<PlayerRecord> StoredOrNew(SessionStore& store,
                                         const std::string& id) {
  absl::StatusOr<PlayerRecord> stored = store.GetPlayer(id);
  if (stored.ok() || !absl::IsNotFound(stored.status())) return stored;
  PlayerRecord fresh;
  fresh.id = id;
  fresh.rating = kDefaultRating;
  fresh.deviation = kDefaultRatingDeviation;
  fresh.volatility = kDefaultVolatility;
  return fresh;
}

// `player` after a game with `score` (1, 0.5, 0) and new rating `after`.
PlayerRecord After(PlayerRecord player, const Glicko2Rating& after,
                   double score, const std::string& name, absl::Time when) {
  player.name = name;
  player.rating = after.rating;
  player.deviation = after.deviation;
  player.volatility = after.volatility;
  ++player.games;
  if (score == 1) {
    ++player.wins;
  } else if (score == 0) {
    ++player.losses;
  } else {
    ++player.draws;
  }
  player.updated_at = when;
  return player;
}

Glicko2Rating RatingOf(const PlayerRecord& p) {
  return Glicko2Rating{p.rating, p.deviation, p.volatility};
}

}  // namespace

absl::Status CheckPlayerId(std::string_view id) {
  if (id.empty() || id.size() > kMaxPlayerIdLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("player_id must be 1 to ", kMaxPlayerIdLength,
                     " characters, not ", id.size()));
  }
  for (char c : id) {
    if (!IdCharacter(c)) {
      return absl::InvalidArgumentError(
          absl::StrCat("player_id ", QuoteInput(id),
                       " may hold only letters, digits and - _ . : @ / +"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Player> PlayerRatings::GetPlayer(
    const v1::GetPlayerRequest& request) {
  KHET_RETURN_IF_ERROR(CheckPlayerId(request.player_id()));
  KHET_ASSIGN_OR_RETURN(PlayerRecord player,
                        store_->GetPlayer(request.player_id()));
  return PlayerToProto(player);
}

absl::StatusOr<v1::ListPlayersResponse> PlayerRatings::ListPlayers(
    const v1::ListPlayersRequest& request) {
  if (request.page_size() < 0 || request.page_size() > kMaxPageSize) {
    return absl::InvalidArgumentError(absl::StrCat("page_size must be 0 to ",
                                                   kMaxPageSize, ", not ",
                                                   request.page_size()));
  }
  const int size =
      request.page_size() == 0 ? kPlayersPageSize : request.page_size();
  int64_t offset = 0;
  if (!request.page_token().empty() &&
      (!absl::SimpleAtoi(request.page_token(), &offset) || offset < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token ", QuoteInput(request.page_token()),
                     " is not one a ListPlayers answer gave"));
  }
  // One more than the page: whether a next page exists.
  KHET_ASSIGN_OR_RETURN(std::vector<PlayerRecord> players,
                        store_->ListPlayers(offset, size + 1));
  v1::ListPlayersResponse out;
  for (int i = 0; i < static_cast<int>(players.size()) && i < size; ++i) {
    *out.add_players() = PlayerToProto(players[i]);
  }
  if (static_cast<int>(players.size()) > size) {
    out.set_next_page_token(absl::StrCat(offset + size));
  }
  return out;
}

absl::StatusOr<int> PlayerRatings::ApplyPending() {
  MutexLock lock(&apply_mu_);
  int applied = 0;
  while (true) {
    KHET_ASSIGN_OR_RETURN(std::vector<ArchivedGame> games,
                          store_->PendingRatedGames(kPendingBatch));
    if (games.empty()) return applied;
    for (const ArchivedGame& game : games) {
      KHET_RETURN_IF_ERROR(ApplyGame(game));
      ++applied;
    }
  }
}

absl::Status PlayerRatings::ApplyGame(const ArchivedGame& game) {
  double silver_score;
  if (game.result == "1-0") {
    silver_score = 1;
  } else if (game.result == "0-1") {
    silver_score = 0;
  } else if (game.result == "1/2-1/2") {
    silver_score = 0.5;
  } else {
    return absl::InternalError(absl::StrCat("rated game \"", game.id,
                                            "\" has no result: ", game.result));
  }
  absl::Status status;
  for (int attempt = 0; attempt < kTriesPerGame; ++attempt) {
    KHET_ASSIGN_OR_RETURN(PlayerRecord silver,
                          StoredOrNew(*store_, game.silver_id));
    KHET_ASSIGN_OR_RETURN(PlayerRecord red, StoredOrNew(*store_, game.red_id));
    KHET_ASSIGN_OR_RETURN(
        RatedPair rated,
        RateGame(RatingOf(silver), RatingOf(red), silver_score));
    status =
        store_->ApplyRating(game.id,
                            After(std::move(silver), rated.first, silver_score,
                                  game.silver, game.ended_at),
                            After(std::move(red), rated.second,
                                  1 - silver_score, game.red, game.ended_at));
    // FAILED_PRECONDITION: another replica applied it meanwhile.
    if (status.ok() || absl::IsFailedPrecondition(status)) {
      return absl::OkStatus();
    }
    if (!absl::IsAborted(status)) return status;
  }
  return status;
}

}  // namespace khet
