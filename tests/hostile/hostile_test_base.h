// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What every hostile-traffic test shares: its own real khetd (memory store,
// gRPC and HTTP on free 127.0.0.1 ports, the test's flags, its log in a
// fresh directory), requests over new raw connections, a gRPC stub, and
// khetd's memory, threads and CPU time read from /proc.
#ifndef KHET_TESTS_HOSTILE_HOSTILE_TEST_BASE_H_
#define KHET_TESTS_HOSTILE_HOSTILE_TEST_BASE_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tests/support/khetd_child.h"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {

// One POST request with a Content-Length and `extra_headers` (each
// "Name: value\r\n").
std::string PostRequest(absl::string_view path, absl::string_view body,
                        absl::string_view extra_headers = "");

class HostileTest : public ::testing::Test {
 protected:
  // Removes the directory unless the test failed (its khetd.log stays).
  ~HostileTest() override;

  // Starts khetd with --store=memory, --calls_per_second=0 (no budget of
  // calls per caller) and `flags` (which may say otherwise). A fatal failure,
  // with khetd's log, if it does not start: call through
  // ASSERT_NO_FATAL_FAILURE.
  void StartKhetd(const std::vector<std::string>& flags);

  KhetdChild& khetd() { return *khetd_; }
  pid_t pid() { return khetd_->process().pid(); }
  int http_port() const { return khetd_->http_port(); }
  // The test's own directory (khetd's log is there), made on first use.
  const std::string& dir();

  // Sends `request` on a new connection from `from` (empty: any loopback
  // address) and reads the answer within `timeout`.
  absl::StatusOr<RawResponse> Exchange(
      absl::string_view request, const std::string& from = "",
      absl::Duration timeout = absl::Seconds(10));

  // Waits up to `timeout` for khetd's log to hold `text`; whether it does.
  bool LogHas(absl::string_view text,
              absl::Duration timeout = absl::Seconds(10));

  // Creates a session (Classic 2) over HTTP; its id. A non-fatal failure
  // and "" if that fails.
  std::string CreateSession();

  std::unique_ptr<v1::KhetService::Stub> NewStub();

  // khetd's resident bytes, threads and CPU time (user + system, in
  // nanoseconds); -1 and a non-fatal failure if /proc cannot be read.
  int64_t ResidentBytes();
  int Threads();
  int64_t CpuNanos();

 private:
  std::string dir_;
  std::unique_ptr<KhetdChild> khetd_;
};

}  // namespace khet::hostile

#endif  // KHET_TESTS_HOSTILE_HOSTILE_TEST_BASE_H_
