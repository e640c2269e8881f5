// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/watching.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/events/watch_stream.h"

namespace khet {

absl::StatusOr<std::unique_ptr<EventStream>> Watch(
    const ServiceCore& core, SessionStore* store, WatcherLimit& watchers,
    const v1::WatchRequest& request) {
  return core.registry->ReadHeld(
      request.session_id(),
      [&](const SessionEntry& held) {
        return request.after_version() >= 0 &&
               request.after_version() <= held.session.version();
      },
      [&](SessionEntry& entry) -> absl::StatusOr<std::unique_ptr<EventStream>> {
        // Beyond the current version no event would ever be sent: the
        // watch would wait for nothing.
        const int64_t current = entry.session.version();
        if (request.after_version() < 0 || request.after_version() > current) {
          return absl::InvalidArgumentError(
              absl::StrCat("after_version must be 0 to session ", entry.id,
                           "'s current version ", current, ", not ",
                           request.after_version()));
        }
        KHET_ASSIGN_OR_RETURN(WatcherLimit::Place place, watchers.Take());
        // Subscribed under the session lock: every event up to `current` is
        // in the store, every later one will reach the subscription.
        KHET_ASSIGN_OR_RETURN(
            std::shared_ptr<Subscription> sub,
            entry.hub->Subscribe(core.limits->max_watchers_per_session));
        return std::make_unique<WatchStream>(
            store, entry.id, request.after_version(), current, entry.hub,
            std::move(sub), std::move(place));
      });
}

}  // namespace khet
