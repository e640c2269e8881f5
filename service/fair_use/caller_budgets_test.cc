// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The calls' budgets by a fake clock: each bucket's burst and rate, the
// in-world split (objects within their address's ceiling), other callers
// unaffected, bounded memory, the refusals counted; and who the caller is.
#include "service/fair_use/caller_budgets.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/fair_use/budget_refusal.h"
#include "service/metrics/metrics.h"

namespace khet {
namespace {

using ::testing::HasSubstr;

constexpr absl::string_view kBoardA = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
constexpr absl::string_view kBoardB = "11111111-2222-3333-4444-555555555555";

ClientIdentity At(absl::string_view address, absl::string_view object = "") {
  return ClientIdentity{std::string(address), std::string(object)};
}

CallerBudgetOptions Small() {
  CallerBudgetOptions options;
  options.calls_per_second = 2;
  options.calls_burst = 3;
  options.inworld_address_calls_per_second = 4;
  options.inworld_address_calls_burst = 5;
  options.inworld_object_calls_per_second = 1;
  options.inworld_object_calls_burst = 2;
  return options;
}

// Admits calls of `client` until one is refused (at most `limit`); how many
// were admitted.
int AdmittedBeforeRefusal(CallerBudgets& budgets, const ClientIdentity& client,
                          int limit = 1000) {
  for (int i = 0; i < limit; ++i) {
    if (!budgets.AdmitCall(client).ok()) return i;
  }
  return limit;
}

TEST(CallerBudgetsTest, AnAddressSpendsItsBurstThenItsRate) {
  FakeClock clock;
  CallerBudgets budgets(Small(), &clock);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7")), 3);
  const absl::Status refused = budgets.AdmitCall(At("192.0.2.7"));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "too many calls from 192.0.2.7: at most 2 a second, try again in "
            "1 s");
  const std::optional<RefusedBudget> budget = RefusedBy(refused);
  ASSERT_TRUE(budget.has_value());
  EXPECT_EQ(budget->budget, Budget::kCalls);
  EXPECT_EQ(budget->retry_after_seconds, 1);
  // Another address is unaffected.
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.8")), 3);
  // Half a second earns one call; a second, two.
  clock.Advance(absl::Milliseconds(500));
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7")), 1);
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7")), 2);
  // Idle long enough, the burst is back, and no more.
  clock.Advance(absl::Hours(1));
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7")), 3);
}

TEST(CallerBudgetsTest, RetryAfterSaysWhenATokenIsBack) {
  FakeClock clock;
  CallerBudgetOptions options;
  options.calls_per_second = 1;
  options.calls_burst = 1;
  CallerBudgets budgets(options, &clock);
  ASSERT_TRUE(budgets.AdmitCall(At("192.0.2.7")).ok());
  clock.Advance(absl::Milliseconds(100));
  const absl::Status refused = budgets.AdmitCall(At("192.0.2.7"));
  EXPECT_EQ(RefusedBy(refused)->retry_after_seconds, 1);  // 0.9 s, up
  EXPECT_THAT(refused.message(), HasSubstr("try again in 1 s"));
}

TEST(CallerBudgetsTest, ZeroTurnsTheBudgetOff) {
  FakeClock clock;
  CallerBudgetOptions options;
  options.calls_per_second = 0;
  options.inworld_address_calls_per_second = 0;
  CallerBudgets budgets(options, &clock);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7")), 1000);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardA)), 1000);
  EXPECT_EQ(budgets.buckets(), 0);
}

TEST(CallerBudgetsTest, EachObjectHasItsOwnBucketWithinItsAddressCeiling) {
  FakeClock clock;
  CallerBudgets budgets(Small(), &clock);
  // A noisy board spends its own burst...
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardA)), 2);
  EXPECT_EQ(budgets.AdmitCall(At("192.0.2.7", kBoardA)).message(),
            absl::StrCat("too many calls from in-world object ", kBoardA,
                         " at 192.0.2.7: at most 1 a second per object, try "
                         "again in 1 s"));
  // ...and the next board of its region is served.
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardB)), 2);
  // New keys (forged ones too) do not raise the address's ceiling of 5.
  int admitted = 0;
  for (int i = 0; i < 10; ++i) {
    const std::string forged =
        absl::StrFormat("%08d-0000-0000-0000-000000000000", i + 1);
    admitted += AdmittedBeforeRefusal(budgets, At("192.0.2.7", forged));
  }
  EXPECT_EQ(admitted, 1);  // 5 - 2 - 2
  const absl::Status refused = budgets.AdmitCall(
      At("192.0.2.7", "22222222-2222-3333-4444-555555555555"));
  EXPECT_EQ(refused.message(),
            "too many calls from the in-world objects at 192.0.2.7: at most 4 "
            "a second, try again in 1 s");
  // The address's calls without a key, and other addresses, are apart.
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7")), 3);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.9", kBoardA)), 2);
}

TEST(CallerBudgetsTest, ARefusedObjectSpendsNothingOfItsAddress) {
  FakeClock clock;
  CallerBudgets budgets(Small(), &clock);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardA)), 2);
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(budgets.AdmitCall(At("192.0.2.7", kBoardA)).ok());
  }
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardB)), 2);
}

TEST(CallerBudgetsTest, WithoutTheInworldCeilingKeysAreIgnored) {
  FakeClock clock;
  CallerBudgetOptions options = Small();
  options.inworld_address_calls_per_second = 0;
  CallerBudgets budgets(options, &clock);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardA)), 3);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardB)), 0);
}

TEST(CallerBudgetsTest, WithoutObjectBucketsTheCeilingAloneCounts) {
  FakeClock clock;
  CallerBudgetOptions options = Small();
  options.inworld_object_calls_per_second = 0;
  CallerBudgets budgets(options, &clock);
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7", kBoardA)), 5);
}

TEST(CallerBudgetsTest, IdleBucketsAreDropped) {
  FakeClock clock;
  CallerBudgets budgets(Small(), &clock);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(
        budgets.AdmitCall(At(absl::StrCat("10.0.", i / 256, ".", i % 256)))
            .ok());
  }
  EXPECT_EQ(budgets.buckets(), 200);
  // Two seconds refill every bucket; a minute later each shard, on its next
  // call, drops its full ones: once calls from new addresses have reached
  // every shard, the new ones' buckets are all that is left.
  clock.Advance(absl::Minutes(2));
  int added = 0;
  while (added < 2000 && budgets.buckets() != added) {
    ASSERT_TRUE(
        budgets
            .AdmitCall(At(absl::StrCat("10.1.", added / 256, ".", added % 256)))
            .ok());
    ++added;
  }
  EXPECT_EQ(budgets.buckets(), added);
  EXPECT_LT(added, 2000);
}

TEST(CallerBudgetsTest, AFloodOfAddressesCannotGrowTheBuckets) {
  FakeClock clock;
  CallerBudgetOptions options = Small();
  options.max_buckets = 256;
  CallerBudgets budgets(options, &clock);
  for (int i = 0; i < 20000; ++i) {
    budgets
        .AdmitCall(At(
            absl::StrCat("10.", i / 65536, ".", i / 256 % 256, ".", i % 256)))
        .IgnoreError();
    // Each shard is at most its share and one more.
    if (i % 1000 == 0) {
      ASSERT_LE(budgets.buckets(), 256 + 16) << i;
    }
  }
  EXPECT_LE(budgets.buckets(), 256 + 16);
  // A caller after the flood keeps its bucket (the least recently used go
  // first), and is refused once it has spent it.
  clock.Advance(absl::Milliseconds(1));
  EXPECT_EQ(AdmittedBeforeRefusal(budgets, At("192.0.2.7")), 3);
  EXPECT_FALSE(budgets.AdmitCall(At("192.0.2.7")).ok());
}

// Callers on many threads: one address's burst is spent exactly once.
TEST(CallerBudgetsTest, ConcurrentCallsSpendTheBurstExactly) {
  FakeClock clock;  // standing still: no token comes back
  CallerBudgetOptions options;
  options.calls_per_second = 1;
  options.calls_burst = 100;
  CallerBudgets budgets(options, &clock);
  std::atomic<int> admitted = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        if (budgets.AdmitCall(At("192.0.2.7")).ok()) ++admitted;
        budgets.AdmitCall(At(absl::StrCat("10.0.", t, ".", i))).IgnoreError();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(admitted, 100);
}

TEST(CallerBudgetsTest, CountsEachBudgetsRefusalsByDoor) {
  FakeClock clock;
  metrics::Registry registry;
  CallerBudgets budgets(Small(), &clock, &registry);
  const auto count = [&](absl::string_view budget, absl::string_view door) {
    for (const metrics::FamilySnapshot& family : registry.Collect()) {
      if (family.name != "khet_budget_refusals_total") continue;
      for (const metrics::Sample& sample : family.samples) {
        if (sample.label_values ==
            std::vector<std::string>{std::string(budget), std::string(door)}) {
          return sample.value;
        }
      }
    }
    return -1.0;
  };
  EXPECT_EQ(count("unclaimed_sessions", "grpc"), 0);  // there from zero
  AdmittedBeforeRefusal(budgets, At("192.0.2.7"));
  budgets.CountRefusal(budgets.AdmitCall(At("192.0.2.7")), Door::kHttp);
  budgets.CountRefusal(
      BudgetRefusal(Budget::kUnclaimedSessions, "x", absl::Seconds(3)),
      Door::kGrpc);
  // Not a budget's: other RESOURCE_EXHAUSTED errors and OK.
  budgets.CountRefusal(absl::ResourceExhaustedError("max_sessions"),
                       Door::kGrpc);
  budgets.CountRefusal(absl::OkStatus(), Door::kGrpc);
  EXPECT_EQ(count("calls", "http"), 1);
  EXPECT_EQ(count("calls", "grpc"), 0);
  EXPECT_EQ(count("unclaimed_sessions", "grpc"), 1);
  EXPECT_EQ(count("analyses", "http"), 0);
}

TEST(BudgetRefusalTest, CarriesTheBudgetAndTheWait) {
  const absl::Status status =
      BudgetRefusal(Budget::kArchivedGames, "enough", absl::Seconds(61.2));
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "enough");
  const std::optional<RefusedBudget> refused = RefusedBy(status);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->budget, Budget::kArchivedGames);
  EXPECT_EQ(refused->retry_after_seconds, 62);
  EXPECT_FALSE(RefusedBy(absl::ResourceExhaustedError("enough")).has_value());
  EXPECT_EQ(RetryAfterSeconds(absl::ZeroDuration()), 1);
  EXPECT_EQ(RetryAfterSeconds(absl::Seconds(1)), 1);
  EXPECT_EQ(RetryAfterSeconds(absl::Milliseconds(1001)), 2);
  EXPECT_EQ(RetryAfterSeconds(absl::Hours(100)), 86400);
  EXPECT_EQ(TryAgainIn(absl::Milliseconds(300)), "try again in 1 s");
}

TEST(ClientIdentityTest, ReadsObjectKeys) {
  EXPECT_EQ(ObjectKey("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"), kBoardA);
  EXPECT_EQ(ObjectKey(" 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "), kBoardA);
  for (absl::string_view bad : std::vector<absl::string_view>{
           "", "00000000-0000-0000-0000-000000000000",
           "0f1e2d3c4b5a697887 96a5b4c3d2e1f0",
           "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f",
           "g f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
           "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-"}) {
    EXPECT_EQ(ObjectKey(bad), "") << bad;
  }
}

TEST(ClientIdentityTest, NamesTheClientBehindTrustedProxies) {
  CallerBudgetOptions options;
  options.trusted_proxies = *TrustedProxies::Parse("127.0.0.0/8");
  CallerBudgets budgets(options);
  const std::optional<IpAddress> loopback = IpAddress::Parse("127.0.0.1");
  const std::vector<absl::string_view> forwarded = {"198.51.100.7"};
  ClientIdentity client = budgets.Identify(loopback, forwarded, kBoardA);
  EXPECT_EQ(client.address, "198.51.100.7");
  EXPECT_EQ(client.object_key, kBoardA);
  client = budgets.Identify(IpAddress::Parse("192.0.2.1"), forwarded, "bad");
  EXPECT_EQ(client.address, "192.0.2.1");
  EXPECT_EQ(client.object_key, "");
  client = budgets.Identify(IpAddress::Parse("2001:db8::1"), {}, "");
  EXPECT_EQ(client.address, "2001:db8::/64");
  EXPECT_EQ(budgets.Identify(std::nullopt, {}, "").address, "unknown");
}

}  // namespace
}  // namespace khet
