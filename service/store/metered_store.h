// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The store's figures for /metrics. StoreMetrics holds them:
//   khet_store_write_duration_seconds{op}  each Create/Update/Delete as its
//       caller waited for it (SQLite: queueing for its group included)
//   khet_store_write_errors_total{op,code} the writes that failed
//   khet_store_group_commit_writes         writes per SQLite transaction
//   khet_store_group_commit_duration_seconds  each SQLite transaction
//   khet_sessions{status}                  sessions by game status
// MeteredStore, a SessionStore over another, feeds them: it times the
// writes and keeps each session's status as last written or read (the
// status field of the stored state, found without parsing the rest), so
// the counts follow every change this process makes or reads, computer
// moves and timeouts included. With a shared store they are this process's
// view: sessions other replicas change count as this process last read
// them.
#ifndef KHET_SERVICE_STORE_METERED_STORE_H_
#define KHET_SERVICE_STORE_METERED_STORE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/metrics/metrics.h"
#include "service/store/session_store.h"

namespace khet {

// The game status (khet.v1.GameStatus's number) in a serialized
// khet.store.SessionState; 0 if it has none or cannot be read.
int StoredStatus(std::string_view state);

class StoreMetrics {
 public:
  // Adds the families to `registry`, which must outlive this; the sessions
  // gauge reads this object, so it must outlive every scrape.
  explicit StoreMetrics(metrics::Registry* registry);

  // For SqliteStoreOptions::on_commit.
  std::function<void(int writes, absl::Duration took)> CommitHook();

  // Counts `id` under `status` (moving it if it was counted elsewhere).
  void SetStatus(std::string_view id, int status);
  // Stops counting `id`.
  void Forget(std::string_view id);
  // Sessions counted under `status` (0-3).
  int64_t sessions(int status) const;

  void RecordWrite(std::string_view op, const absl::Status& status,
                   absl::Duration took);

 private:
  static constexpr int kStatuses = 4;  // GameStatus 0..3
  static constexpr size_t kShards = 16;
  struct Shard {
    Mutex mu;
    absl::flat_hash_map<std::string, int> status ABSL_GUARDED_BY(mu);
  };
  Shard& ShardOf(std::string_view id);

  metrics::HistogramFamily& write_latency_;
  metrics::CounterFamily& write_errors_;
  metrics::Histogram& batch_writes_;
  metrics::Histogram& batch_latency_;
  std::array<Shard, kShards> shards_;
  std::array<std::atomic<int64_t>, kStatuses> counts_{};
};

class MeteredStore final : public SessionStore {
 public:
  // `metrics` must outlive the store.
  MeteredStore(std::unique_ptr<SessionStore> inner, StoreMetrics* metrics);
  ~MeteredStore() override;

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override;
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override;
  void UpdateLater(LaterUpdate update,
                   absl::AnyInvocable<void(absl::Status) &&> done) override;
  bool updates_later() const override { return inner_->updates_later(); }
  absl::Status Delete(std::string_view id) override;
  absl::Status DeleteAt(std::string_view id, int64_t expected_version) override;
  absl::StatusOr<SessionRecord> Get(std::string_view id) override;
  absl::StatusOr<std::vector<SessionRecord>> GetMany(
      absl::Span<const std::string> ids) override;
  absl::StatusOr<int64_t> GetVersion(std::string_view id) override;
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override;
  absl::StatusOr<std::vector<SessionVersion>> ListVersions() override;
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override;
  absl::StatusOr<ArchivedGame> GetGame(std::string_view game_id) override;
  absl::Status SetGameAnalysis(std::string_view game_id,
                               std::string_view analysis) override;
  absl::StatusOr<std::vector<ArchivedGame>> ListGames(
      const GameQuery& query) override;
  absl::StatusOr<bool> TryLease(std::string_view id, std::string_view holder,
                                absl::Time now, absl::Duration ttl) override;
  absl::StatusOr<PlayerRecord> GetPlayer(std::string_view player_id) override;
  absl::StatusOr<std::vector<PlayerRecord>> ListPlayers(int64_t offset,
                                                        int limit) override;
  absl::StatusOr<std::vector<ArchivedGame>> PendingRatedGames(
      int limit) override;
  absl::Status ApplyRating(std::string_view game_id, const PlayerRecord& silver,
                           const PlayerRecord& red) override;
  absl::Status SavePushTarget(const PushTargetRecord& target) override;
  absl::Status DeletePushTarget(std::string_view session_id,
                                std::string_view owner) override;
  absl::StatusOr<PushTargetRecord> GetPushTarget(
      std::string_view session_id) override;
  absl::StatusOr<std::vector<std::string>> PushTargetsOf(
      std::string_view owner) override;
  absl::StatusOr<int64_t> CountPushTargets(std::string_view owner) override;
  absl::StatusOr<std::vector<PushTargetRecord>> ClaimPushTargets(
      std::string_view owner, absl::Time now, absl::Time expires,
      int limit) override;
  bool shared() const override;
  void SetChangeListener(ChangeListener listener) override;

 private:
  const std::unique_ptr<SessionStore> inner_;
  StoreMetrics* const metrics_;
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_METERED_STORE_H_
