// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Sessions as a whole: creating one (its owner token returned once, only
// its hash kept), reading, deleting (the owner; from the store first, then
// SessionDeleted to the watchers) and choosing its setup (the owner or a
// seated player, no game in progress; a named setup or a custom position
// with rule options).
#ifndef KHET_SERVICE_CORE_SESSION_LIFECYCLE_H_
#define KHET_SERVICE_CORE_SESSION_LIFECYCLE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/sessions/service_core.h"

namespace khet {

// A new session (or one from a record), unclaimed, counted toward the
// caller's budget of unclaimed sessions (unclaimed_sessions.h).
absl::StatusOr<v1::CreateSessionResponse> CreateSession(
    const ServiceCore& core, const v1::CreateSessionRequest& request,
    const Caller& caller);

absl::StatusOr<v1::Session> GetSession(const ServiceCore& core,
                                       const v1::GetSessionRequest& request);

absl::Status DeleteSession(const ServiceCore& core,
                           const v1::DeleteSessionRequest& request,
                           const Caller& caller);

absl::StatusOr<v1::Session> ChooseSetup(const ServiceCore& core,
                                        const v1::ChooseSetupRequest& request,
                                        const Caller& caller);

// RenderBoard: the board as text, with the last shot unless asked not to.
absl::StatusOr<v1::RenderBoardResponse> RenderBoard(
    const ServiceCore& core, const v1::RenderBoardRequest& request);

}  // namespace khet

#endif  // KHET_SERVICE_CORE_SESSION_LIFECYCLE_H_
