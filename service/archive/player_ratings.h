// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Players and their ratings. A rated game (Session::game_rated) goes to the
// archive with its two players' ids; its ratings are applied from there:
// the oldest pending game first, each game its own Glicko-2 rating period
// (service/ratings/glicko2.h), both players' new ratings and the game's
// mark written in one store write (SessionStore::ApplyRating). A process
// that dies in between leaves the game pending, and the next ApplyPending
// (after each rated game is archived, and at start-up) applies it; on a
// shared store the store lets one replica win each game.
#ifndef KHET_SERVICE_ARCHIVE_PLAYER_RATINGS_H_
#define KHET_SERVICE_ARCHIVE_PLAYER_RATINGS_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/base/mutex.h"
#include "service/store/session_store.h"

namespace khet {

// OK for a player id JoinSeat accepts: 1-128 characters, each a letter, a
// digit or one of - _ . : @ / +; INVALID_ARGUMENT naming the problem.
absl::Status CheckPlayerId(std::string_view id);

class PlayerRatings {
 public:
  explicit PlayerRatings(SessionStore* store) : store_(store) {}

  // NOT_FOUND for a player with no rated game; INVALID_ARGUMENT for an
  // id CheckPlayerId refuses.
  absl::StatusOr<v1::Player> GetPlayer(const v1::GetPlayerRequest& request);
  // page_size 1-100 (0: 20); the page token is the offset of the next page.
  absl::StatusOr<v1::ListPlayersResponse> ListPlayers(
      const v1::ListPlayersRequest& request);

  // Applies the ratings of every pending rated game; how many it applied.
  // One call at a time per process.
  absl::StatusOr<int> ApplyPending();

 private:
  // Applies one pending game: OK when applied or applied by another
  // replica meanwhile.
  absl::Status ApplyGame(const ArchivedGame& game)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(apply_mu_);

  SessionStore* const store_;
  Mutex apply_mu_;
};

}  // namespace khet

#endif  // KHET_SERVICE_ARCHIVE_PLAYER_RATINGS_H_
