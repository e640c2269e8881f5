// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's HTTP connection limits, per client address and in total: a new
// connection beyond either is refused at once with a status line (429 per
// address, 503 in total) and closed, while the connections already open
// are served as before. Clients appear from several addresses of
// 127.0.0.0/8.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/hostile/hostile_test_base.h"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {
namespace {

using HttpConnectionLimitsTest = HostileTest;

// Opens a connection from `from` and has one request answered 200 on it,
// so that the server has certainly accepted it; nullptr and a failure
// otherwise.
std::unique_ptr<RawConnection> OpenServed(int port, const std::string& from) {
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(port, from);
  EXPECT_TRUE(connection.ok()) << connection.status();
  if (!connection.ok()) return nullptr;
  EXPECT_TRUE((*connection)->Send(GetRequest("/v1/setups")));
  absl::StatusOr<RawResponse> answer = (*connection)->Read(absl::Seconds(5));
  EXPECT_TRUE(answer.ok()) << from << ": " << answer.status();
  if (!answer.ok()) return nullptr;
  EXPECT_EQ(answer->status, 200) << from;
  EXPECT_TRUE(answer->keep_alive) << from;
  return std::move(*connection);
}

// A new connection from `from` is answered `status` at once and ended.
void ExpectRefused(int port, const std::string& from, int status) {
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(port, from);
  ASSERT_TRUE(connection.ok()) << connection.status();
  // The server may answer before reading anything; the request may then
  // meet a closed socket, which does not matter.
  (*connection)->Send(GetRequest("/v1/setups"));
  absl::StatusOr<RawResponse> answer = (*connection)->Read(absl::Seconds(3));
  ASSERT_TRUE(answer.ok()) << from << ": " << answer.status();
  EXPECT_EQ(answer->status, status) << from;
  EXPECT_NE((*connection)->WaitForEnd(absl::Seconds(3)), Ending::kOpen)
      << from << ": a refused connection should be closed";
}

// Every connection in `held` still answers a request.
void ExpectStillServed(std::vector<std::unique_ptr<RawConnection>>& held) {
  for (size_t i = 0; i < held.size(); ++i) {
    ASSERT_TRUE(held[i]->Send(GetRequest("/v1/setups"))) << i;
    absl::StatusOr<RawResponse> answer = held[i]->Read(absl::Seconds(5));
    ASSERT_TRUE(answer.ok()) << i << ": " << answer.status();
    EXPECT_EQ(answer->status, 200) << i;
  }
}

// Finding (80 slow clients held every HTTP thread): one client address
// holds at most --http_max_connections_per_address connections; more from
// it are 429, others are served, and a closed one frees its place.
TEST_F(HttpConnectionLimitsTest, PerAddressLimitRefusesNewOnesAndServesOld) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--http_max_connections_per_address=8",
                                      "--http_idle_timeout_seconds=30"}));
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 8; ++i) {
    held.push_back(OpenServed(http_port(), "127.0.0.2"));
    ASSERT_NE(held.back(), nullptr);
  }
  ExpectRefused(http_port(), "127.0.0.2", 429);
  ASSERT_NE(OpenServed(http_port(), "127.0.0.3"), nullptr);
  ExpectStillServed(held);

  // One of the eight goes away: a new one from its address is served
  // again once the server has seen the close.
  held.pop_back();
  const absl::Time deadline = absl::Now() + absl::Seconds(2);
  int status = 0;
  while (absl::Now() < deadline) {
    absl::StatusOr<RawResponse> answer =
        Exchange(GetRequest("/v1/setups"), "127.0.0.2");
    status = answer.ok() ? answer->status : -1;
    if (status == 200) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(status, 200);
}

// All client addresses together hold at most --http_max_connections
// connections; one more is 503, and the others are served.
TEST_F(HttpConnectionLimitsTest, TotalLimitRefusesNewOnesAndServesOld) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--http_max_connections=12",
                                      "--http_max_connections_per_address=8",
                                      "--http_idle_timeout_seconds=30"}));
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 12; ++i) {
    held.push_back(
        OpenServed(http_port(), absl::StrCat("127.0.0.", 2 + i % 3)));
    ASSERT_NE(held.back(), nullptr);
  }
  ExpectRefused(http_port(), "127.0.0.5", 503);
  ExpectStillServed(held);
}

}  // namespace
}  // namespace khet::hostile
