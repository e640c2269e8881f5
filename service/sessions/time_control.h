// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Time controls (khet.v1.TimeControl): their limits and how records and
// announcements write them. The clocks themselves live in Session.
#ifndef KHET_SERVICE_SESSIONS_TIME_CONTROL_H_
#define KHET_SERVICE_SESSIONS_TIME_CONTROL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "khet/v1/game.pb.h"

namespace khet {

// Whether `tc` runs clocks (FISCHER or PER_MOVE).
bool HasClocks(const v1::TimeControl& tc);

// OK for NONE (with no other field set), FISCHER with base_ms 1 s to 24 h
// and increment_ms 0 to 1 h, or PER_MOVE with per_move_ms 1 s to 7 days;
// INVALID_ARGUMENT naming the field and its range otherwise.
absl::Status CheckTimeControl(const v1::TimeControl& tc);

// The time each clock starts a game with: base_ms or per_move_ms; 0 for
// NONE.
int64_t InitialClockMs(const v1::TimeControl& tc);

// As a game record's TimeControl header writes it, in seconds: "fischer
// 300+5", "per move 86400"; "" for NONE. Fractions of a second are written
// with up to three decimals ("fischer 0.5+0").
std::string TimeControlText(const v1::TimeControl& tc);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_TIME_CONTROL_H_
