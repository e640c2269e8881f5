// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Early returns for absl::Status and absl::StatusOr, which Abseil 20220623
// does not provide. For the service core's .cc files.
#ifndef KHET_SERVICE_BASE_STATUS_MACROS_H_
#define KHET_SERVICE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns the status of `expr` from the enclosing function if it is not OK.
#define KHET_RETURN_IF_ERROR(expr)                              \
  do {                                                          \
    if (absl::Status khet_status_ = (expr); !khet_status_.ok()) \
      return khet_status_;                                      \
  } while (false)

#define KHET_STATUS_CONCAT_INNER_(a, b) a##b
#define KHET_STATUS_CONCAT_(a, b) KHET_STATUS_CONCAT_INNER_(a, b)

// `lhs` = the value of the StatusOr `expr`, or returns its status.
#define KHET_ASSIGN_OR_RETURN(lhs, expr)                                    \
  KHET_ASSIGN_OR_RETURN_IMPL_(KHET_STATUS_CONCAT_(khet_or_, __LINE__), lhs, \
                              expr)
#define KHET_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                                \
  if (!var.ok()) return var.status();               \
  lhs = std::move(*var)

#endif  // KHET_SERVICE_BASE_STATUS_MACROS_H_
