// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A SessionStore in memory, for tests and throwaway servers. Thread-safe.
#ifndef KHET_SERVICE_STORE_MEMORY_STORE_H_
#define KHET_SERVICE_STORE_MEMORY_STORE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "service/base/mutex.h"
#include "service/store/local_leases.h"
#include "service/store/session_store.h"

namespace khet {

class MemoryStore final : public SessionStore {
 public:
  // Keeps at most about `events_kept` events per session (0: all); see
  // kEventDropStep.
  explicit MemoryStore(int64_t events_kept = 0) : events_kept_(events_kept) {}

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override;
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override;
  absl::Status Delete(std::string_view id) override;
  absl::StatusOr<SessionRecord> Get(std::string_view id) override;
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override;
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

 private:
  // The archived game with id `id`, or null.
  ArchivedGame* FindGame(std::string_view id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  struct Entry {
    SessionRecord record;
    std::vector<EventRecord> events;
  };
  const int64_t events_kept_;
  LocalLeases leases_;
  Mutex mu_;
  std::map<std::string, Entry, std::less<>> sessions_ ABSL_GUARDED_BY(mu_);
  // Archived games by sequence, oldest first, and their sequences by id.
  std::map<int64_t, ArchivedGame> games_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t, std::less<>> game_sequences_
      ABSL_GUARDED_BY(mu_);
  int64_t last_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, PlayerRecord, std::less<>> players_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_MEMORY_STORE_H_
