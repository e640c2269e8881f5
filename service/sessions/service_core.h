// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the request handlers of SessionService share. The handlers are
// grouped by job in files of their own (sessions, seats, the move path,
// game endings, settings, watching, timeouts, suggestions); each takes a
// ServiceCore and validates, authenticates, changes a copy of the session
// and commits it through the registry.
#ifndef KHET_SERVICE_SESSIONS_SERVICE_CORE_H_
#define KHET_SERVICE_SESSIONS_SERVICE_CORE_H_

#include "service/base/random_source.h"
#include "service/sessions/caller.h"
#include "service/sessions/service_limits.h"
#include "service/sessions/session_registry.h"

namespace khet {

class UnclaimedSessions;

// Not owned; each outlives the handlers.
struct ServiceCore {
  SessionRegistry* registry = nullptr;
  const ServiceLimits* limits = nullptr;
  RandomSource* random = nullptr;
  UnclaimedSessions* unclaimed = nullptr;
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_SERVICE_CORE_H_
