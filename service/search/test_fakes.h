// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Test doubles for the service core: predictable ids and tokens, a store
// whose writes can be made to fail, and a search under the test's control.
#ifndef KHET_SERVICE_SEARCH_TEST_FAKES_H_
#define KHET_SERVICE_SEARCH_TEST_FAKES_H_

#include <atomic>
#include <deque>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/movegen.h"
#include "engine/search.h"
#include "service/base/mutex.h"
#include "service/base/random_source.h"
#include "service/search/computer_players.h"
#include "service/store/memory_store.h"

namespace khet {

// Ids "s0001", "s0002"...; tokens "token-0001-" padded to 43 characters.
class FakeRandom final : public RandomSource {
 public:
  std::string NewSessionId() override {
    return absl::StrFormat("s%04d", ++sessions_);
  }
  std::string NewToken() override {
    std::string t = absl::StrFormat("token-%04d-", ++tokens_);
    t.resize(43, 'x');
    return t;
  }

 private:
  std::atomic<int> sessions_{0};
  std::atomic<int> tokens_{0};
};

// A MemoryStore whose Create, Update and Delete fail with UNAVAILABLE while
// fail_writes is set.
class FlakyStore final : public SessionStore {
 public:
  std::atomic<bool> fail_writes{false};
  std::atomic<bool> fail_reads{false};    // Get only
  std::atomic<bool> fail_ratings{false};  // ApplyRating only
  MemoryStore inner;

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override {
    if (fail_writes) return absl::UnavailableError("disk on fire");
    return inner.Create(record, events);
  }
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override {
    if (fail_writes) return absl::UnavailableError("disk on fire");
    return inner.Update(record, expected_version, events, archive);
  }
  absl::Status Delete(std::string_view id) override {
    if (fail_writes) return absl::UnavailableError("disk on fire");
    return inner.Delete(id);
  }
  absl::StatusOr<SessionRecord> Get(std::string_view id) override {
    if (fail_reads) return absl::UnavailableError("disk unreadable");
    return inner.Get(id);
  }
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override {
    return inner.LoadAll();
  }
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override {
    return inner.EventsAfter(id, after_version, limit);
  }
  absl::StatusOr<bool> TryLease(std::string_view id, std::string_view holder,
                                absl::Time now, absl::Duration ttl) override {
    return inner.TryLease(id, holder, now, ttl);
  }
  absl::StatusOr<ArchivedGame> GetGame(std::string_view game_id) override {
    return inner.GetGame(game_id);
  }
  absl::Status SetGameAnalysis(std::string_view game_id,
                               std::string_view analysis) override {
    return inner.SetGameAnalysis(game_id, analysis);
  }
  absl::StatusOr<std::vector<ArchivedGame>> ListGames(
      const GameQuery& query) override {
    return inner.ListGames(query);
  }
  absl::StatusOr<PlayerRecord> GetPlayer(std::string_view player_id) override {
    return inner.GetPlayer(player_id);
  }
  absl::StatusOr<std::vector<PlayerRecord>> ListPlayers(int64_t offset,
                                                        int limit) override {
    return inner.ListPlayers(offset, limit);
  }
  absl::StatusOr<std::vector<ArchivedGame>> PendingRatedGames(
      int limit) override {
    return inner.PendingRatedGames(limit);
  }
  absl::Status ApplyRating(std::string_view game_id, const PlayerRecord& silver,
                           const PlayerRecord& red) override {
    if (fail_writes || fail_ratings) {
      return absl::UnavailableError("disk on fire");
    }
    return inner.ApplyRating(game_id, silver, red);
  }

  // While held: the store updates_later(), and each UpdateLater waits in a
  // queue (its `done` uncalled) until ReleaseLater writes it, as Update
  // would then, and answers it.
  void HoldLaterUpdates() {
    MutexLock lock(&later_mu_);
    hold_later_ = true;
  }
  // Writes and answers the held updates, oldest first; how many.
  int ReleaseLater() {
    std::deque<
        std::pair<LaterUpdate, absl::AnyInvocable<void(absl::Status) &&>>>
        held;
    {
      MutexLock lock(&later_mu_);
      held.swap(later_);
    }
    for (auto& [update, done] : held) {
      std::move(done)(
          Update(update.record, update.expected_version, update.events,
                 update.archive.has_value() ? &*update.archive : nullptr));
    }
    return static_cast<int>(held.size());
  }
  bool updates_later() const override {
    MutexLock lock(&later_mu_);
    return hold_later_;
  }
  void UpdateLater(LaterUpdate update,
                   absl::AnyInvocable<void(absl::Status) &&> done) override {
    {
      MutexLock lock(&later_mu_);
      if (hold_later_) {
        later_.emplace_back(std::move(update), std::move(done));
        return;
      }
    }
    SessionStore::UpdateLater(std::move(update), std::move(done));
  }

 private:
  mutable Mutex later_mu_;
  bool hold_later_ ABSL_GUARDED_BY(later_mu_) = false;
  std::deque<std::pair<LaterUpdate, absl::AnyInvocable<void(absl::Status) &&>>>
      later_ ABSL_GUARDED_BY(later_mu_);
};

// A search under the test's control: it counts its starts, then runs until
// stopped or released, and answers with `choose`'s move (default: the
// first legal one) and score 0.
class ControlledSearch {
 public:
  explicit ControlledSearch(
      std::function<Move(const Position&)> choose = nullptr)
      : choose_(std::move(choose)) {}

  SearchFunction Function() {
    return [this](const Position& pos, const SearchLimits&, const SearchStyle&,
                  const std::atomic<bool>* stop) {
      {
        MutexLock lock(&mu_);
        ++starts_;
        changed_.SignalAll();
        while (!released_ && !(stop != nullptr && stop->load())) {
          changed_.WaitWithTimeout(&mu_, absl::Milliseconds(1));
        }
      }
      SearchResult result;
      if (choose_) {
        result.best_move = choose_(pos);
      } else {
        MoveList moves;
        GenerateMoves(pos, &moves);
        result.best_move = moves.moves[0];
      }
      result.principal_variation = {result.best_move};
      result.nodes = 1;
      result.depth = 1;
      return result;
    };
  }

  // Waits up to 20 s for `n` searches to have started.
  bool WaitForStarts(int n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    MutexLock lock(&mu_);
    while (starts_ < n) {
      if (changed_.WaitWithDeadline(&mu_, deadline) && starts_ < n) {
        return false;
      }
    }
    return true;
  }

  // Every search, running or later, answers at once.
  void Release() {
    MutexLock lock(&mu_);
    released_ = true;
    changed_.SignalAll();
  }

  int starts() {
    MutexLock lock(&mu_);
    return starts_;
  }

 private:
  const std::function<Move(const Position&)> choose_;
  Mutex mu_;
  CondVar changed_;
  int starts_ ABSL_GUARDED_BY(mu_) = 0;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace khet

#endif  // KHET_SERVICE_SEARCH_TEST_FAKES_H_
