// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A session's settings (timeout, quiet mode, colour scheme, board size,
// hints, takebacks, language, rated): their defaults, their checks, and
// UpdateSettings by the owner. A change that changes nothing adds no event.
#ifndef KHET_SERVICE_SESSIONS_SESSION_SETTINGS_H_
#define KHET_SERVICE_SESSIONS_SESSION_SETTINGS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/sessions/service_core.h"
#include "service/sessions/session.h"

namespace khet {

// A new session's settings before its request's own.
v1::Settings DefaultSettings();

// Applies the fields set in `update` (a timeout of min_timeout_seconds
// (ServiceLimits) to a week); INVALID_ARGUMENT naming the first bad value,
// with *settings unchanged.
absl::Status ApplySettings(const v1::SettingsUpdate& update,
                           v1::Settings* settings, int64_t min_timeout_seconds);

// SettingsChanged with `s`'s settings as the contract shows them, announced.
v1::Event SettingsChangedEvent(const Session& s);

absl::StatusOr<v1::Session> UpdateSettings(
    const ServiceCore& core, const v1::UpdateSettingsRequest& request,
    const Caller& caller);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_SESSION_SETTINGS_H_
