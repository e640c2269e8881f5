// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's flags for the service's limits (ServiceLimits): sessions,
// watchers, the computer's threads and budgets, and each caller's share.
#ifndef KHET_SERVICE_KHETD_LIMIT_FLAGS_H_
#define KHET_SERVICE_KHETD_LIMIT_FLAGS_H_

#include "absl/status/statusor.h"
#include "service/sessions/service_limits.h"

namespace khet {

// The limits the flags set; INVALID_ARGUMENT naming the first flag that is
// out of range.
absl::StatusOr<ServiceLimits> ReadLimitFlags();

}  // namespace khet

#endif  // KHET_SERVICE_KHETD_LIMIT_FLAGS_H_
