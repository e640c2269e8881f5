// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tests/hostile/hostile_test_base.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "nlohmann/json.hpp"
#include "tests/support/text_file.h"
#include "tools/load/common/khetd_process.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif

namespace khet::hostile {

std::string PostRequest(absl::string_view path, absl::string_view body,
                        absl::string_view extra_headers) {
  return absl::StrCat("POST ", path,
                      " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ",
                      body.size(), "\r\n", extra_headers, "\r\n", body);
}

HostileTest::~HostileTest() {
  khetd_.reset();  // killed before its directory goes
  if (!dir_.empty() && !HasFailure()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

const std::string& HostileTest::dir() {
  if (dir_.empty()) {
    const ::testing::TestInfo* test =
        ::testing::UnitTest::GetInstance()->current_test_info();
    // A parameterised test's name holds a '/'.
    dir_ = (std::filesystem::temp_directory_path() /
            absl::StrCat("khet_hostile_",
                         absl::StrReplaceAll(test->name(), {{"/", "_"}}), "_",
                         getpid()))
               .string();
    std::filesystem::create_directories(dir_);
  }
  return dir_;
}

void HostileTest::StartKhetd(const std::vector<std::string>& flags) {
  // Each test plays many clients from loopback: the calls' budget per
  // caller is off unless the test turns it on (budgets_test).
  std::vector<std::string> all = {"--store=memory", "--calls_per_second=0"};
  all.insert(all.end(), flags.begin(), flags.end());
  const std::string log = dir() + "/khetd.log";
  absl::StatusOr<std::unique_ptr<KhetdChild>> started =
      KhetdChild::Start(KHETD_PATH, all, log, {.http = true});
  ASSERT_TRUE(started.ok())
      << started.status() << "\nkhetd's log (" << log << "):\n"
      << ReadTextFile(log);
  khetd_ = std::move(*started);
}

absl::StatusOr<RawResponse> HostileTest::Exchange(absl::string_view request,
                                                  const std::string& from,
                                                  absl::Duration timeout) {
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(http_port(), from);
  if (!connection.ok()) return connection.status();
  if (!(*connection)->Send(request)) {
    return absl::UnavailableError("the server did not take the request");
  }
  return (*connection)->Read(timeout);
}

bool HostileTest::LogHas(absl::string_view text, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!absl::StrContains(khetd_->log(), text)) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

std::string HostileTest::CreateSession() {
  absl::StatusOr<RawResponse> created =
      Exchange(PostRequest("/v1/sessions", R"({"name":"hostile"})"));
  EXPECT_TRUE(created.ok()) << created.status();
  if (!created.ok()) return "";
  EXPECT_EQ(created->status, 200) << created->body;
  const nlohmann::json body =
      nlohmann::json::parse(created->body, nullptr, false);
  if (!body.is_object() || !body["session"]["id"].is_string()) {
    ADD_FAILURE() << "CreateSession answered " << created->body;
    return "";
  }
  return body["session"]["id"];
}

std::unique_ptr<v1::KhetService::Stub> HostileTest::NewStub() {
  return v1::KhetService::NewStub(grpc::CreateChannel(
      khetd_->address(), grpc::InsecureChannelCredentials()));
}

int64_t HostileTest::ResidentBytes() {
  absl::StatusOr<int64_t> bytes = khet::ResidentBytes(pid());
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : -1;
}

int HostileTest::Threads() {
  absl::StatusOr<int> threads = ThreadCount(pid());
  EXPECT_TRUE(threads.ok()) << threads.status();
  return threads.ok() ? *threads : -1;
}

int64_t HostileTest::CpuNanos() {
  absl::StatusOr<int64_t> nanos = khet::CpuNanos(pid());
  EXPECT_TRUE(nanos.ok()) << nanos.status();
  return nanos.ok() ? *nanos : -1;
}

}  // namespace khet::hostile
