// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Sessions nobody claimed: the budget of them per creator (an address, an
// in-world object within its address's ceiling), freed by a seat taken or
// by the sweep that removes them once too old; counted again after a
// restart; never applied to sessions stored before the budget existed.
#include "service/fair_use/unclaimed_sessions.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/core/session_service.h"
#include "service/fair_use/budget_refusal.h"
#include "service/search/test_fakes.h"
#include "service/store/store_testing.h"

namespace khet {
namespace {

using ::testing::HasSubstr;

constexpr char kObjectA[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
constexpr char kObjectB[] = "11111111-2222-3333-4444-555555555555";

Caller CallerAt(const std::string& address,
                const std::string& object_key = "") {
  return Caller{"", address, object_key};
}

class UnclaimedSessionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    limits_.max_unclaimed_sessions_per_address = 3;
    limits_.inworld_max_unclaimed_sessions_per_address = 5;
    limits_.unclaimed_session_timeout = absl::Minutes(5);
    Start();
  }

  // A new service on the same store (as after a restart).
  void Start() {
    service_.reset();
    ServiceOptions options;
    options.store = &store_;
    options.clock = &clock_;
    options.random = &random_;
    options.limits = limits_;
    absl::StatusOr<std::unique_ptr<SessionService>> service =
        SessionService::Create(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = *std::move(service);
  }

  absl::StatusOr<v1::CreateSessionResponse> Create(const Caller& caller) {
    v1::CreateSessionRequest create;
    create.set_name("board");
    return service_->CreateSession(create, caller);
  }

  // Creates sessions as `caller` until one is refused (at most 100); how
  // many were made, and the refusal in *refused.
  int CreateUntilRefused(const Caller& caller, absl::Status* refused) {
    for (int made = 0; made < 100; ++made) {
      absl::StatusOr<v1::CreateSessionResponse> created = Create(caller);
      if (!created.ok()) {
        *refused = created.status();
        return made;
      }
    }
    return 100;
  }

  absl::StatusOr<v1::Session> Get(const std::string& id) {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    return service_->GetSession(get);
  }

  absl::Status Join(const std::string& id) {
    v1::JoinSeatRequest join;
    join.set_session_id(id);
    join.set_color(v1::SILVER);
    join.set_player_name("alice");
    return service_->JoinSeat(join).status();
  }

  ServiceLimits limits_;
  FlakyStore store_;
  FakeClock clock_;
  FakeRandom random_;
  std::unique_ptr<SessionService> service_;
};

TEST_F(UnclaimedSessionsTest, AnAddressHoldsAtMostItsBudget) {
  absl::Status refused;
  EXPECT_EQ(CreateUntilRefused(CallerAt("192.0.2.7"), &refused), 3);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(),
              HasSubstr("too many sessions nobody has joined from 192.0.2.7: "
                        "at most 3 at once"));
  EXPECT_THAT(refused.message(), HasSubstr("try again in 300 s"));
  const std::optional<RefusedBudget> budget = RefusedBy(refused);
  ASSERT_TRUE(budget.has_value());
  EXPECT_EQ(budget->budget, Budget::kUnclaimedSessions);
  EXPECT_EQ(budget->retry_after_seconds, 300);
  // Its oldest ages out first: the wait shrinks with time.
  clock_.Advance(absl::Seconds(100));
  EXPECT_EQ(
      RefusedBy(Create(CallerAt("192.0.2.7")).status())->retry_after_seconds,
      200);
  // Others are not counted with it; callers without an address not at all.
  EXPECT_TRUE(Create(CallerAt("192.0.2.8")).ok());
  EXPECT_TRUE(Create(CallerAt("2001:db8::/64")).ok());
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(Create(CallerAt("")).ok());
}

// Creations racing on several threads hold the address to its budget.
TEST_F(UnclaimedSessionsTest, RacingCreationsStayWithinTheBudget) {
  std::atomic<int> made = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        if (Create(CallerAt("192.0.2.7")).ok()) ++made;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(made, 3);
}

TEST_F(UnclaimedSessionsTest, ASeatTakenGivesThePlaceBack) {
  absl::StatusOr<v1::CreateSessionResponse> first =
      Create(CallerAt("192.0.2.7"));
  ASSERT_TRUE(first.ok());
  absl::StatusOr<v1::CreateSessionResponse> second =
      Create(CallerAt("192.0.2.7"));
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(Create(CallerAt("192.0.2.7")).ok());
  ASSERT_FALSE(Create(CallerAt("192.0.2.7")).ok());
  // A player joins one; the computer sits in another.
  KHET_ASSERT_OK(Join(first->session().id()));
  ASSERT_TRUE(Create(CallerAt("192.0.2.7")).ok());
  ASSERT_FALSE(Create(CallerAt("192.0.2.7")).ok());
  v1::SeatComputerRequest computer;
  computer.set_session_id(second->session().id());
  computer.set_color(v1::RED);
  computer.set_level(1);
  KHET_ASSERT_OK(
      service_->SeatComputer(computer, Caller{second->owner_token()}).status());
  ASSERT_TRUE(Create(CallerAt("192.0.2.7")).ok());
  // Leaving the seat again does not make it unclaimed.
  v1::LeaveSeatRequest leave;
  leave.set_session_id(second->session().id());
  leave.set_color(v1::RED);
  KHET_ASSERT_OK(
      service_->LeaveSeat(leave, Caller{second->owner_token()}).status());
  EXPECT_FALSE(Create(CallerAt("192.0.2.7")).ok());
  clock_.Advance(absl::Hours(1));
  service_->SweepUnclaimed();
  EXPECT_TRUE(Get(second->session().id()).ok());
}

TEST_F(UnclaimedSessionsTest, InworldObjectsSplitTheirAddressCeiling) {
  absl::Status refused;
  // Each object is a creator of its own...
  EXPECT_EQ(CreateUntilRefused(CallerAt("192.0.2.7", kObjectA), &refused), 3);
  EXPECT_THAT(refused.message(),
              HasSubstr(absl::StrCat("from in-world object ", kObjectA,
                                     " at 192.0.2.7: at most 3 at once")));
  // ...within its address's in-world ceiling, 5.
  EXPECT_EQ(CreateUntilRefused(CallerAt("192.0.2.7", kObjectB), &refused), 2);
  EXPECT_THAT(refused.message(),
              HasSubstr("from the in-world objects at 192.0.2.7: at most 5 at "
                        "once"));
  EXPECT_EQ(CreateUntilRefused(
                CallerAt("192.0.2.7", "22222222-2222-3333-4444-555555555555"),
                &refused),
            0);
  // The address's own calls without a key are apart.
  EXPECT_EQ(CreateUntilRefused(CallerAt("192.0.2.7"), &refused), 3);
}

TEST_F(UnclaimedSessionsTest, ZeroTurnsTheBudgetOff) {
  limits_.max_unclaimed_sessions_per_address = 0;
  Start();
  absl::Status refused;
  EXPECT_EQ(CreateUntilRefused(CallerAt("192.0.2.7"), &refused), 100);
}

TEST_F(UnclaimedSessionsTest, TheSweepRemovesUnclaimedSessionsOnceTooOld) {
  absl::StatusOr<v1::CreateSessionResponse> old = Create(CallerAt("192.0.2.7"));
  ASSERT_TRUE(old.ok());
  absl::StatusOr<v1::CreateSessionResponse> joined =
      Create(CallerAt("192.0.2.7"));
  ASSERT_TRUE(joined.ok());
  KHET_ASSERT_OK(Join(joined->session().id()));
  v1::WatchRequest watch;
  watch.set_session_id(old->session().id());
  absl::StatusOr<std::unique_ptr<EventStream>> watcher = service_->Watch(watch);
  KHET_ASSERT_OK(watcher);
  clock_.Advance(absl::Seconds(200));
  absl::StatusOr<v1::CreateSessionResponse> young =
      Create(CallerAt("192.0.2.7"));
  ASSERT_TRUE(young.ok());
  EXPECT_EQ(service_->SweepUnclaimed(), 0);  // nothing is 300 s old yet

  clock_.Advance(absl::Seconds(100));
  EXPECT_EQ(service_->SweepUnclaimed(), 1);
  EXPECT_EQ(Get(old->session().id()).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(Get(joined->session().id()).ok());
  EXPECT_TRUE(Get(young->session().id()).ok());
  // Its watcher is told, as for a deletion.
  absl::StatusOr<std::optional<v1::Event>> deleted =
      (*watcher)->Next(absl::Seconds(5));
  KHET_ASSERT_OK(deleted);
  ASSERT_TRUE(deleted->has_value());
  EXPECT_TRUE((*deleted)->has_session_deleted());
  // Its place is free again.
  EXPECT_TRUE(Create(CallerAt("192.0.2.7")).ok());
  EXPECT_TRUE(Create(CallerAt("192.0.2.7")).ok());
  EXPECT_FALSE(Create(CallerAt("192.0.2.7")).ok());

  clock_.Advance(absl::Seconds(200));
  EXPECT_EQ(service_->SweepUnclaimed(), 1);  // the young one
  EXPECT_EQ(service_->SweepUnclaimed(), 0);
  clock_.Advance(absl::Hours(1));
  EXPECT_EQ(service_->SweepUnclaimed(), 2);
  EXPECT_TRUE(Get(joined->session().id()).ok());
}

TEST_F(UnclaimedSessionsTest, SessionsFromARecordCountToo) {
  v1::CreateSessionRequest create;
  create.set_name("replay");
  create.set_record("[Setup \"classic-2\"]\n\n1. e1-e2 *\n");
  for (int i = 0; i < 3; ++i) {
    KHET_ASSERT_OK(
        service_->CreateSession(create, CallerAt("192.0.2.7")).status());
  }
  EXPECT_EQ(
      RefusedBy(service_->CreateSession(create, CallerAt("192.0.2.7")).status())
          ->budget,
      Budget::kUnclaimedSessions);
  clock_.Advance(absl::Minutes(6));
  EXPECT_EQ(service_->SweepUnclaimed(), 3);
}

TEST_F(UnclaimedSessionsTest, ARestartCountsTheStoredOnes) {
  absl::Status refused;
  ASSERT_EQ(CreateUntilRefused(CallerAt("192.0.2.7"), &refused), 3);
  Start();
  EXPECT_EQ(RefusedBy(Create(CallerAt("192.0.2.7")).status())->budget,
            Budget::kUnclaimedSessions);
  clock_.Advance(absl::Minutes(6));
  EXPECT_EQ(service_->SweepUnclaimed(), 3);
  EXPECT_TRUE(Create(CallerAt("192.0.2.7")).ok());
}

// A session stored before sessions were marked unclaimed reads as claimed:
// an upgrade removes nobody's board.
TEST_F(UnclaimedSessionsTest, SessionsStoredBeforeTheBudgetAreNeverRemoved) {
  absl::StatusOr<v1::CreateSessionResponse> created =
      Create(CallerAt("192.0.2.7"));
  ASSERT_TRUE(created.ok());
  const std::string id = created->session().id();
  absl::StatusOr<SessionRecord> record = store_.Get(id);
  KHET_ASSERT_OK(record);
  store::SessionState state;
  ASSERT_TRUE(state.ParseFromString(record->state));
  state.clear_unclaimed();
  state.clear_creator_address();
  record->state = state.SerializeAsString();
  KHET_ASSERT_OK(store_.Update(*record, record->version, {}));
  Start();
  clock_.Advance(absl::Hours(24));
  EXPECT_EQ(service_->SweepUnclaimed(), 0);
  EXPECT_TRUE(Get(id).ok());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Create(CallerAt("192.0.2.7")).ok());
}

}  // namespace
}  // namespace khet
