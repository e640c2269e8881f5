// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Ending a game other than by a move: resignation, draws offered, accepted
// or claimed by repetition (seated players, a game in progress), a flag
// fallen, the owner's reset, which ends any game and empties both seats,
// and a rematch after a finished game.
#ifndef KHET_SERVICE_PLAY_GAME_ENDINGS_H_
#define KHET_SERVICE_PLAY_GAME_ENDINGS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.pb.h"
#include "service/sessions/service_core.h"

namespace khet {

absl::StatusOr<v1::Session> Resign(const ServiceCore& core,
                                   const v1::ResignRequest& request,
                                   const Caller& caller);
absl::StatusOr<v1::Session> OfferDraw(const ServiceCore& core,
                                      const v1::OfferDrawRequest& request,
                                      const Caller& caller);
absl::StatusOr<v1::Session> AcceptDraw(const ServiceCore& core,
                                       const v1::AcceptDrawRequest& request,
                                       const Caller& caller);
absl::StatusOr<v1::Session> ClaimRepetitionDraw(
    const ServiceCore& core, const v1::ClaimRepetitionDrawRequest& request,
    const Caller& caller);
absl::StatusOr<v1::Session> ResetGame(const ServiceCore& core,
                                      const v1::ResetGameRequest& request,
                                      const Caller& caller);
// The owner or a seated player, after a finished game: the players swap
// seats (tokens and all) and a new game starts (GameStarted).
absl::StatusOr<v1::Session> Rematch(const ServiceCore& core,
                                    const v1::RematchRequest& request,
                                    const Caller& caller);

// The side to move loses on time if its flag fell by `now`: commits the
// game's end (GameOver, TIME_FORFEIT) with its clocks stopped. OK and
// nothing done when no flag fell. On error nothing changes.
absl::Status ForfeitOnTime(SessionRegistry& registry, SessionEntry& entry,
                           absl::Time now)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

// Ends the game, empties the seats and commits GameReset (timed out or
// not). On error nothing changes.
absl::Status ResetSession(SessionRegistry& registry, SessionEntry& entry,
                          bool timed_out)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

}  // namespace khet

#endif  // KHET_SERVICE_PLAY_GAME_ENDINGS_H_
