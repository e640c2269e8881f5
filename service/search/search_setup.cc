// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/search/search_setup.h"

#include "absl/strings/str_cat.h"
#include "engine/play.h"

namespace khet {

absl::StatusOr<Level> LevelOf(int number) {
  absl::StatusOr<Level> level = FindLevel(number);
  if (!level.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "level must be 1 to 5, not ", number, " (ListLevels names them)"));
  }
  return level;
}

SearchLimits CapTime(SearchLimits limits, absl::Duration cap) {
  if (limits.max_time == absl::ZeroDuration() || limits.max_time > cap) {
    limits.max_time = cap;
  }
  return limits;
}

SearchStyle StyleForGame(const Game& game, SearchStyle style) {
  style.both_pharaohs_hit_draws = game.options().both_pharaohs_hit_draws;
  style.history.clear();
  style.history.reserve(game.moves().size());
  Position pos = game.start();
  for (const Move m : game.moves()) {
    style.history.push_back(pos.hash());
    MakeMove(&pos, m);
  }
  return style;
}

}  // namespace khet
