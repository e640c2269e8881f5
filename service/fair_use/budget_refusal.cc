// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/fair_use/budget_refusal.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace khet {
namespace {

// The payload's type URL; its value is "<budget name> <seconds>".
constexpr absl::string_view kPayload = "type.khet/khet.BudgetRefusal";

}  // namespace

absl::string_view BudgetName(Budget budget) {
  switch (budget) {
    case Budget::kCalls:
      return "calls";
    case Budget::kUnclaimedSessions:
      return "unclaimed_sessions";
    case Budget::kArchivedGames:
      return "archived_games";
    case Budget::kSuggestions:
      return "suggestions";
    case Budget::kAnalyses:
      return "analyses";
  }
  return "calls";
}

int64_t RetryAfterSeconds(absl::Duration wait) {
  const double seconds = std::ceil(absl::ToDoubleSeconds(wait));
  if (!(seconds >= 1)) return 1;
  // A day at most: beyond it a client should not sleep on our word.
  return seconds > 86400 ? 86400 : static_cast<int64_t>(seconds);
}

std::string TryAgainIn(absl::Duration wait) {
  return absl::StrCat("try again in ", RetryAfterSeconds(wait), " s");
}

absl::Status BudgetRefusal(Budget budget, absl::string_view message,
                           absl::Duration retry_after) {
  absl::Status status = absl::ResourceExhaustedError(message);
  status.SetPayload(kPayload,
                    absl::Cord(absl::StrCat(BudgetName(budget), " ",
                                            RetryAfterSeconds(retry_after))));
  return status;
}

std::optional<RefusedBudget> RefusedBy(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kResourceExhausted) {
    return std::nullopt;
  }
  absl::optional<absl::Cord> payload = status.GetPayload(kPayload);
  if (!payload.has_value()) return std::nullopt;
  const std::string text(*payload);
  const std::pair<absl::string_view, absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits(' ', 1));
  RefusedBudget refused{Budget::kCalls, 1};
  if (!absl::SimpleAtoi(parts.second, &refused.retry_after_seconds)) {
    return std::nullopt;
  }
  for (const Budget budget : kAllBudgets) {
    if (BudgetName(budget) == parts.first) {
      refused.budget = budget;
      return refused;
    }
  }
  return std::nullopt;
}

}  // namespace khet
