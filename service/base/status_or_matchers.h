// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Test macros for calls that answer an absl::Status or an absl::StatusOr:
// ASSERT_OK(expr) stops the test unless expr is OK, EXPECT_OK(expr) expects
// it OK, EXPECT_ERROR(expr, kCode, text) expects an error with that
// absl::StatusCode whose message contains `text`. Tests only.
#ifndef KHET_SERVICE_BASE_STATUS_OR_MATCHERS_H_
#define KHET_SERVICE_BASE_STATUS_OR_MATCHERS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace khet {

// The status an absl::Status or absl::StatusOr holds.
inline const absl::Status& StatusOf(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace khet

#define ASSERT_OK(expr)                                  \
  do {                                                   \
    const absl::Status status_ = ::khet::StatusOf(expr); \
    ASSERT_TRUE(status_.ok()) << status_;                \
  } while (false)

#define EXPECT_OK(expr)                                  \
  do {                                                   \
    const absl::Status status_ = ::khet::StatusOf(expr); \
    EXPECT_TRUE(status_.ok()) << status_;                \
  } while (false)

#define EXPECT_ERROR(expr, want, text)                             \
  do {                                                             \
    const absl::Status status_ = ::khet::StatusOf(expr);           \
    EXPECT_EQ(status_.code(), absl::StatusCode::want) << status_;  \
    EXPECT_TRUE(absl::StrContains(status_.message(), text))        \
        << "message: " << status_.message() << "; want: " << text; \
  } while (false)

#endif  // KHET_SERVICE_BASE_STATUS_OR_MATCHERS_H_
