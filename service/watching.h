// Watch: a session's events after a version, then live ones, as an
// EventStream that counts as a watcher (per session and over the service)
// until destroyed. The fan-out itself is the session's EventHub.
#ifndef KHET_SERVICE_WATCHING_H_
#define KHET_SERVICE_WATCHING_H_

#include <memory>

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/service_core.h"
#include "service/session_service.h"
#include "service/watcher_limit.h"

namespace khet {

// after_version is 0 to the session's current version; INVALID_ARGUMENT
// naming both otherwise. RESOURCE_EXHAUSTED beyond either watcher limit.
absl::StatusOr<std::unique_ptr<EventStream>> Watch(
    const ServiceCore& core, SessionStore* store, WatcherLimit& watchers,
    const v1::WatchRequest& request);

}  // namespace khet

#endif  // KHET_SERVICE_WATCHING_H_
