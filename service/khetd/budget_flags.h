// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's flags for the budgets of calls per caller (CallerBudgetOptions):
// trusted proxies, and calls a second per address and in-world object.
#ifndef KHET_SERVICE_KHETD_BUDGET_FLAGS_H_
#define KHET_SERVICE_KHETD_BUDGET_FLAGS_H_

#include "absl/status/statusor.h"
#include "service/fair_use/caller_budgets.h"

namespace khet {

// The budgets the flags set; INVALID_ARGUMENT naming the flag that is wrong.
absl::StatusOr<CallerBudgetOptions> ReadBudgetFlags();

}  // namespace khet

#endif  // KHET_SERVICE_KHETD_BUDGET_FLAGS_H_
