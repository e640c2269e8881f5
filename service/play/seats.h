// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Seats and tokens: a player joins a free seat and gets a new token (only
// its hash is kept), leaves it, or seats the computer. Taking the seat
// that completes the pair starts a game when none is in progress. See the
// decisions in session_service.h for who may free which seat.
#ifndef KHET_SERVICE_PLAY_SEATS_H_
#define KHET_SERVICE_PLAY_SEATS_H_

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/sessions/service_core.h"

namespace khet {

absl::StatusOr<v1::JoinSeatResponse> JoinSeat(
    const ServiceCore& core, const v1::JoinSeatRequest& request);

absl::StatusOr<v1::Session> LeaveSeat(const ServiceCore& core,
                                      const v1::LeaveSeatRequest& request,
                                      const Caller& caller);

absl::StatusOr<v1::Session> SeatComputer(const ServiceCore& core,
                                         const v1::SeatComputerRequest& request,
                                         const Caller& caller);

}  // namespace khet

#endif  // KHET_SERVICE_PLAY_SEATS_H_
