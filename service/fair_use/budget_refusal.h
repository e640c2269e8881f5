// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A refusal by one of the per-caller budgets: RESOURCE_EXHAUSTED whose
// message names the budget and the caller, carrying (as a status payload)
// which budget refused and when to try again, so that each door can answer
// Retry-After and count the refusal (khet_budget_refusals_total) without
// reading the message.
#ifndef KHET_SERVICE_FAIR_USE_BUDGET_REFUSAL_H_
#define KHET_SERVICE_FAIR_USE_BUDGET_REFUSAL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace khet {

// The budgets; their names are the metric's `budget` label values.
enum class Budget {
  kCalls,              // calls per second per caller (token buckets)
  kUnclaimedSessions,  // sessions created and never claimed, per address
  kArchivedGames,      // unrated games archived per session per hour
  kSuggestions,        // SuggestMove searches at once per address
  kAnalyses,           // game analyses at once per address
};
inline constexpr Budget kAllBudgets[] = {
    Budget::kCalls, Budget::kUnclaimedSessions, Budget::kArchivedGames,
    Budget::kSuggestions, Budget::kAnalyses};

// "calls", "unclaimed_sessions", "archived_games", "suggestions",
// "analyses".
absl::string_view BudgetName(Budget budget);

// Whole seconds to wait, rounded up, at least 1.
int64_t RetryAfterSeconds(absl::Duration wait);

// RESOURCE_EXHAUSTED with `message`, which should name the budget and the
// caller and end with ", try again in S s" (TryAgainIn), carrying `budget`
// and RetryAfterSeconds(retry_after).
absl::Status BudgetRefusal(Budget budget, absl::string_view message,
                           absl::Duration retry_after);

// "try again in S s" for RetryAfterSeconds(wait).
std::string TryAgainIn(absl::Duration wait);

struct RefusedBudget {
  Budget budget;
  int64_t retry_after_seconds = 1;
};

// The budget that refused, if `status` is a BudgetRefusal.
std::optional<RefusedBudget> RefusedBy(const absl::Status& status);

}  // namespace khet

#endif  // KHET_SERVICE_FAIR_USE_BUDGET_REFUSAL_H_
