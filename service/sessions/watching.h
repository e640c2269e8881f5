// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Watch: a session's events after a version, then live ones, as an
// EventStream that counts as a watcher (per session and over the service)
// until destroyed. The fan-out itself is the session's EventHub.
#ifndef KHET_SERVICE_SESSIONS_WATCHING_H_
#define KHET_SERVICE_SESSIONS_WATCHING_H_

#include <memory>

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/events/event_stream.h"
#include "service/events/watcher_limit.h"
#include "service/sessions/caller.h"
#include "service/sessions/service_core.h"

namespace khet {

// after_version is 0 to the session's current version; INVALID_ARGUMENT
// naming both otherwise. RESOURCE_EXHAUSTED beyond either watcher limit.
// On a shared store a copy held at or past after_version is watched without
// asking the store (SessionRegistry::ReadHeld); "current" is then the
// store's version or one the store's notices are still bringing.
absl::StatusOr<std::unique_ptr<EventStream>> Watch(
    const ServiceCore& core, SessionStore* store, WatcherLimit& watchers,
    const v1::WatchRequest& request);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_WATCHING_H_
