// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// How the service sets up a search, for suggestions and computer seats
// alike: levels by number, time caps, and the game's history.
#ifndef KHET_SERVICE_SEARCH_SEARCH_SETUP_H_
#define KHET_SERVICE_SEARCH_SEARCH_SETUP_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/search.h"

namespace khet {

// The level numbered `number`; INVALID_ARGUMENT naming the range if none.
absl::StatusOr<Level> LevelOf(int number);

// `limits` with its time limit no longer than `cap`.
SearchLimits CapTime(SearchLimits limits, absl::Duration cap);

// `style` for a search in `game`'s current position: its rule option and
// the positions before it, which the search scores as draws to return to.
SearchStyle StyleForGame(const Game& game, SearchStyle style);

}  // namespace khet

#endif  // KHET_SERVICE_SEARCH_SEARCH_SETUP_H_
