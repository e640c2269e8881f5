// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// ListSessions: the sessions, newest first then by id, in pages with opaque
// page tokens, optionally of one game status. On a shared store the list
// is the store's: the copies are first caught up with it (SyncAll reads
// every session's version, and the states of those new or changed), so a
// session made on another replica is listed even if its notice was lost.
#ifndef KHET_SERVICE_CORE_SESSION_LISTING_H_
#define KHET_SERVICE_CORE_SESSION_LISTING_H_

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/sessions/service_core.h"

namespace khet {

absl::StatusOr<v1::ListSessionsResponse> ListSessions(
    const ServiceCore& core, const v1::ListSessionsRequest& request);

}  // namespace khet

#endif  // KHET_SERVICE_CORE_SESSION_LISTING_H_
