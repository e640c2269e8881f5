// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the store tests share: a status matcher (Abseil 20220623 has none)
// and a scratch directory removed at the end of the test.
#ifndef KHET_SERVICE_STORE_STORE_TESTING_H_
#define KHET_SERVICE_STORE_STORE_TESTING_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/status_or_matchers.h"
#include "service/store/session_store.h"

namespace khet {

// The event of `version` a test stores: its bytes name it.
inline EventRecord Event(int64_t version) {
  return EventRecord{version, absl::StrCat("event ", version)};
}

// Matches an absl::Status or StatusOr whose code is `code` and whose message
// contains `part`.
MATCHER_P2(StatusIs, code, part,
           absl::StrCat("has code ", absl::StatusCodeToString(code),
                        " and a message containing \"", part, "\"")) {
  const absl::Status& status = StatusOf(arg);
  *result_listener << "which is " << status;
  return status.code() == code &&
         status.message().find(part) != absl::string_view::npos;
}

#define KHET_ASSERT_OK(expr)                                \
  do {                                                      \
    const auto& khet_status_ = (expr);                      \
    ASSERT_TRUE(::khet::StatusOf(khet_status_).ok())        \
        << #expr << ": " << ::khet::StatusOf(khet_status_); \
  } while (0)
#define KHET_EXPECT_OK(expr)                                \
  do {                                                      \
    const auto& khet_status_ = (expr);                      \
    EXPECT_TRUE(::khet::StatusOf(khet_status_).ok())        \
        << #expr << ": " << ::khet::StatusOf(khet_status_); \
  } while (0)

// A new empty directory under the test temporary directory, removed with
// everything in it when this goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = testing::TempDir() + "khet_store_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    }
    path_ = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_STORE_TESTING_H_
