// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/metered_store.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "service/metrics/metrics.h"
#include "service/store/memory_store.h"
#include "session_state.pb.h"

namespace khet {
namespace {

std::string State(const std::string& id, v1::GameStatus status) {
  store::SessionState state;
  state.set_id(id);
  state.set_name("a board");
  state.set_version(7);
  state.add_seats()->set_player_name("silver");
  state.add_seats()->set_computer(true);
  state.set_status(status);
  for (int i = 0; i < 150; ++i) state.add_moves("j4-j3");
  state.add_recent_replies()->set_request_id("r1");
  state.mutable_created_at()->set_seconds(1795000000);
  return state.SerializeAsString();
}

TEST(StoredStatusTest, FindsTheStatusField) {
  for (const v1::GameStatus status :
       {v1::WAITING_FOR_PLAYERS, v1::IN_PROGRESS, v1::FINISHED}) {
    EXPECT_EQ(StoredStatus(State("s1", status)), status);
  }
  EXPECT_EQ(StoredStatus(State("s1", v1::GAME_STATUS_UNSPECIFIED)), 0);
  EXPECT_EQ(StoredStatus(""), 0);
  std::string cut = State("s1", v1::FINISHED);
  cut.resize(cut.size() - 3);
  EXPECT_EQ(StoredStatus(cut), 0);
  EXPECT_EQ(StoredStatus("\xff\xff\xff"), 0);
}

class MeteredStoreTest : public testing::Test {
 protected:
  double Count(const std::string& family, const std::string& label) {
    for (const metrics::FamilySnapshot& f : registry_.Collect()) {
      if (f.name != family) continue;
      for (const metrics::Sample& s : f.samples) {
        if (!s.label_values.empty() && s.label_values[0] != label) continue;
        return f.type == metrics::Type::kHistogram
                   ? static_cast<double>(s.histogram.count)
                   : s.value;
      }
    }
    return 0;
  }

  metrics::Registry registry_;
  StoreMetrics metrics_{&registry_};
  MeteredStore store_{std::make_unique<MemoryStore>(), &metrics_};
};

TEST_F(MeteredStoreTest, CountsSessionsByStatusAndTimesWrites) {
  ASSERT_TRUE(
      store_.Create({"a", 0, State("a", v1::WAITING_FOR_PLAYERS)}, {}).ok());
  ASSERT_TRUE(
      store_.Create({"b", 0, State("b", v1::WAITING_FOR_PLAYERS)}, {}).ok());
  EXPECT_EQ(Count("khet_sessions", "WAITING_FOR_PLAYERS"), 2);
  ASSERT_TRUE(
      store_.Update({"a", 1, State("a", v1::IN_PROGRESS)}, 0, {{1, "e"}}).ok());
  EXPECT_EQ(Count("khet_sessions", "WAITING_FOR_PLAYERS"), 1);
  EXPECT_EQ(Count("khet_sessions", "IN_PROGRESS"), 1);
  // A stale write changes nothing but the error count.
  EXPECT_TRUE(absl::IsAborted(
      store_.Update({"a", 2, State("a", v1::FINISHED)}, 0, {{2, "e"}})));
  EXPECT_EQ(Count("khet_sessions", "FINISHED"), 0);
  EXPECT_EQ(Count("khet_store_write_errors_total", "update"), 1);
  ASSERT_TRUE(store_.Delete("b").ok());
  EXPECT_EQ(Count("khet_sessions", "WAITING_FOR_PLAYERS"), 0);
  EXPECT_EQ(Count("khet_store_write_duration_seconds", "create"), 2);
  EXPECT_EQ(Count("khet_store_write_duration_seconds", "update"), 2);
  EXPECT_EQ(Count("khet_store_write_duration_seconds", "delete"), 1);
}

// A memory store that counts its reads of one session.
class ReadCountingStore : public SessionStore {
 public:
  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override {
    return memory_.Create(record, events);
  }
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override {
    return memory_.Update(record, expected_version, events, archive);
  }
  absl::Status Delete(std::string_view id) override {
    return memory_.Delete(id);
  }
  absl::StatusOr<SessionRecord> Get(std::string_view id) override {
    ++gets;
    return memory_.Get(id);
  }
  absl::StatusOr<int64_t> GetVersion(std::string_view id) override {
    ++version_reads;
    absl::StatusOr<SessionRecord> record = memory_.Get(id);
    if (!record.ok()) return record.status();
    return record->version;
  }
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override {
    return memory_.LoadAll();
  }
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override {
    return memory_.EventsAfter(id, after_version, limit);
  }
  absl::StatusOr<bool> TryLease(std::string_view id, std::string_view holder,
                                absl::Time now, absl::Duration ttl) override {
    return memory_.TryLease(id, holder, now, ttl);
  }
  absl::StatusOr<ArchivedGame> GetGame(std::string_view game_id) override {
    return memory_.GetGame(game_id);
  }
  absl::Status SetGameAnalysis(std::string_view game_id,
                               std::string_view analysis) override {
    return memory_.SetGameAnalysis(game_id, analysis);
  }
  absl::StatusOr<std::vector<ArchivedGame>> ListGames(
      const GameQuery& query) override {
    return memory_.ListGames(query);
  }
  int gets = 0;
  int version_reads = 0;

 private:
  MemoryStore memory_;
};

// A shared store answers GetVersion without reading the state (one column
// on PostgreSQL); the metered store must ask it that, not Get.
TEST_F(MeteredStoreTest, GetVersionReachesTheInnerStoresOwn) {
  auto inner = std::make_unique<ReadCountingStore>();
  ReadCountingStore* counting = inner.get();
  MeteredStore store(std::move(inner), &metrics_);
  ASSERT_TRUE(store.Create({"s1", 7, State("s1", v1::IN_PROGRESS)}, {}).ok());
  const absl::StatusOr<int64_t> version = store.GetVersion("s1");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 7);
  EXPECT_EQ(counting->version_reads, 1);
  EXPECT_EQ(counting->gets, 0);
  EXPECT_TRUE(absl::IsNotFound(store.GetVersion("nobody").status()));
}

TEST_F(MeteredStoreTest, LoadingCountsEverySession) {
  auto inner = std::make_unique<MemoryStore>();
  ASSERT_TRUE(inner->Create({"x", 0, State("x", v1::FINISHED)}, {}).ok());
  ASSERT_TRUE(inner->Create({"y", 0, State("y", v1::FINISHED)}, {}).ok());
  metrics::Registry registry;
  StoreMetrics metrics(&registry);
  MeteredStore store(std::move(inner), &metrics);
  ASSERT_TRUE(store.LoadAll().ok());
  EXPECT_EQ(metrics.sessions(v1::FINISHED), 2);
  ASSERT_TRUE(store.LoadAll().ok());  // counted once each
  EXPECT_EQ(metrics.sessions(v1::FINISHED), 2);
}

TEST_F(MeteredStoreTest, CommitHookFillsTheBatchHistograms) {
  const std::function<void(int, absl::Duration)> hook = metrics_.CommitHook();
  hook(3, absl::Milliseconds(2));
  hook(200, absl::Milliseconds(4));
  for (const metrics::FamilySnapshot& f : registry_.Collect()) {
    if (f.name != "khet_store_group_commit_writes") continue;
    ASSERT_EQ(f.samples.size(), 1u);
    EXPECT_EQ(f.samples[0].histogram.count, 2u);
    EXPECT_EQ(f.samples[0].histogram.sum, 203);
  }
  EXPECT_EQ(Count("khet_store_group_commit_duration_seconds", ""), 2);
}

}  // namespace
}  // namespace khet
