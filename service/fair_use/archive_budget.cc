// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/fair_use/archive_budget.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "service/fair_use/budget_refusal.h"

namespace khet {

absl::Status CheckNewGameBudget(const ServiceCore& core, const Session& s) {
  const int limit = core.limits->max_unrated_games_per_hour;
  if (limit <= 0 || !s.game_begun()) return absl::OkStatus();
  const absl::Time now = core.registry->clock()->Now();
  const int archived = s.unrated_games_in_window(now);
  if (archived < limit) return absl::OkStatus();
  const absl::Duration wait = s.unrated_games_window_end() - now;
  return BudgetRefusal(
      Budget::kArchivedGames,
      absl::StrCat("session \"", s.id(), "\" has archived ", archived,
                   " unrated games within the hour: at most ", limit,
                   " an hour, so no new game follows this one yet; ",
                   TryAgainIn(wait)),
      wait);
}

}  // namespace khet
