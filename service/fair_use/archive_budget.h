// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The budget of unrated games archived per session per hour
// (ServiceLimits::max_unrated_games_per_hour): every game that ends, or is
// abandoned by a new one, goes to the archive for good, so a caller holding
// both seats could play, resign and start again without end. Once a
// session has archived the budget's unrated games in the hour's window, a
// new game may not follow a begun one until the window ends: a reset, a
// rematch, a chosen setup, or a seat taken that would start the next game
// is refused (RESOURCE_EXHAUSTED, Retry-After: the window's end). Refusing
// the new game, rather than not archiving, keeps every game played in the
// archive and tells the players why; the game in progress is always played
// to its end.
#ifndef KHET_SERVICE_FAIR_USE_ARCHIVE_BUDGET_H_
#define KHET_SERVICE_FAIR_USE_ARCHIVE_BUDGET_H_

#include "absl/status/status.h"
#include "service/sessions/service_core.h"
#include "service/sessions/session.h"

namespace khet {

// OK, or the budget's refusal if a new game may not follow `s`'s current
// one now (by the registry's clock). A game not begun (no move, not over)
// is no game to follow: OK.
absl::Status CheckNewGameBudget(const ServiceCore& core, const Session& s);

}  // namespace khet

#endif  // KHET_SERVICE_FAIR_USE_ARCHIVE_BUDGET_H_
