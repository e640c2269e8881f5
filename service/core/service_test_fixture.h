// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the tests that drive SessionService share: a service over a
// FlakyStore (everything passes through until a test tells it to fail), a
// fake clock and a fake random source; Start() (re)starts it on the same
// store, as khetd does after a restart; a session and its events read back.
#ifndef KHET_SERVICE_CORE_SERVICE_TEST_FIXTURE_H_
#define KHET_SERVICE_CORE_SERVICE_TEST_FIXTURE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/core/session_service.h"
#include "service/search/test_fakes.h"

namespace khet {

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }

  // A new service on the store, clock and random source; the old one is
  // gone first.
  void Start() {
    service_.reset();
    ServiceOptions options;
    options.store = &store_;
    options.clock = &clock_;
    options.random = &random_;
    absl::StatusOr<std::unique_ptr<SessionService>> service =
        SessionService::Create(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = *std::move(service);
  }

  // The session as GetSession answers it; an empty one (and a failure) if
  // it cannot be read.
  v1::Session GetSession(const std::string& id) {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    absl::StatusOr<v1::Session> s = service_->GetSession(get);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : v1::Session();
  }

  // The session's events after version `after`, up to its current version.
  std::vector<v1::Event> EventsAfter(const std::string& id, int64_t after) {
    v1::WatchRequest watch;
    watch.set_session_id(id);
    watch.set_after_version(after);
    absl::StatusOr<std::unique_ptr<EventStream>> stream =
        service_->Watch(watch);
    EXPECT_TRUE(stream.ok()) << stream.status();
    std::vector<v1::Event> out;
    if (!stream.ok()) return out;
    const int64_t last = GetSession(id).version();
    while (out.empty() || out.back().version() < last) {
      absl::StatusOr<std::optional<v1::Event>> next =
          (*stream)->Next(absl::Seconds(5));
      if (!next.ok() || !next->has_value()) break;
      out.push_back(**next);
    }
    return out;
  }

  FlakyStore store_;
  FakeClock clock_;
  FakeRandom random_;
  std::unique_ptr<SessionService> service_;
};

}  // namespace khet

#endif  // KHET_SERVICE_CORE_SERVICE_TEST_FIXTURE_H_
