// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Taking moves back in a game in progress, between its seated players. A
// player asks to take back their last move (TakebackPlies: one ply, or two
// when the opponent has replied); the opponent accepts (the moves are
// undone, TakebackAnswered) or declines (TakebackAnswered, nothing undone).
// A computer opponent grants a request at once. Refused, naming why, when
// the board's `takebacks` setting is off, the game is rated, no game is in
// progress or the requester has no move to take back.
#ifndef KHET_SERVICE_PLAY_TAKEBACKS_H_
#define KHET_SERVICE_PLAY_TAKEBACKS_H_

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/sessions/service_core.h"

namespace khet {

absl::StatusOr<v1::Session> RequestTakeback(
    const ServiceCore& core, const v1::RequestTakebackRequest& request,
    const Caller& caller);
absl::StatusOr<v1::Session> AcceptTakeback(
    const ServiceCore& core, const v1::AcceptTakebackRequest& request,
    const Caller& caller);
absl::StatusOr<v1::Session> DeclineTakeback(
    const ServiceCore& core, const v1::DeclineTakebackRequest& request,
    const Caller& caller);

}  // namespace khet

#endif  // KHET_SERVICE_PLAY_TAKEBACKS_H_
