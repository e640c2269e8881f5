// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Test macros for calls that answer an absl::StatusOr: ASSERT_OK(expr)
// stops the test unless expr is OK; EXPECT_ERROR(expr, kCode, text) expects
// an error with that absl::StatusCode whose message contains `text`.
#ifndef KHET_SERVICE_BASE_STATUS_OR_MATCHERS_H_
#define KHET_SERVICE_BASE_STATUS_OR_MATCHERS_H_

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

#define ASSERT_OK(expr)                                  \
  do {                                                   \
    const auto& status_or_ = (expr);                     \
    ASSERT_TRUE(status_or_.ok()) << status_or_.status(); \
  } while (false)

#define EXPECT_ERROR(expr, want, text)                             \
  do {                                                             \
    const absl::Status status_ = (expr).status();                  \
    EXPECT_EQ(status_.code(), absl::StatusCode::want) << status_;  \
    EXPECT_TRUE(absl::StrContains(status_.message(), text))        \
        << "message: " << status_.message() << "; want: " << text; \
  } while (false)

#endif  // KHET_SERVICE_BASE_STATUS_OR_MATCHERS_H_
