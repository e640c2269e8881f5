// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Who may do what to a session: the checks every request handler makes
// before changing anything. Each error names the session and the problem.
#ifndef KHET_SERVICE_SESSIONS_SESSION_ACCESS_H_
#define KHET_SERVICE_SESSIONS_SESSION_ACCESS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/position.h"
#include "service/sessions/caller.h"
#include "service/sessions/session.h"

namespace khet {

// UNAUTHENTICATED without a token, PERMISSION_DENIED unless the owner's.
absl::Status RequireOwner(const Session& s, const Caller& caller);

// The caller's seat; UNAUTHENTICATED without a token, PERMISSION_DENIED
// unless a seated player's.
absl::StatusOr<Color> RequirePlayer(const Session& s, const Caller& caller);

// The owner or a seated player, for `call` (named in the errors):
// UNAUTHENTICATED without a token, PERMISSION_DENIED otherwise.
absl::Status RequireOwnerOrPlayer(const Session& s, const Caller& caller,
                                  absl::string_view call,
                                  absl::string_view action);

// FAILED_PRECONDITION unless a game is in progress, saying why not.
absl::Status RequireGameInProgress(const Session& s);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_SESSION_ACCESS_H_
