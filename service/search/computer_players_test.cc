// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/search/computer_players.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/setups.h"
#include "gtest/gtest.h"
#include "service/base/mutex.h"
#include "service/search/test_fakes.h"

namespace khet {
namespace {

constexpr absl::Duration kWait = absl::Seconds(20);

struct Done {
  ComputerTurn turn;
  SearchResult result;
  bool stopped = false;
};

// Collects the DoneFunction calls.
class DoneLog {
 public:
  ComputerPlayers::DoneFunction Function() {
    return [this](const ComputerTurn& turn, const SearchResult& result,
                  bool stopped) {
      MutexLock lock(&mu_);
      done_.push_back({turn, result, stopped});
      changed_.SignalAll();
    };
  }

  // The calls so far, once there are at least `n`; empty on timeout.
  std::vector<Done> WaitFor(size_t n) {
    const absl::Time deadline = absl::Now() + kWait;
    MutexLock lock(&mu_);
    while (done_.size() < n) {
      if (changed_.WaitWithDeadline(&mu_, deadline) && done_.size() < n) {
        return {};
      }
    }
    return done_;
  }

  size_t size() {
    MutexLock lock(&mu_);
    return done_.size();
  }

 private:
  Mutex mu_;
  CondVar changed_;
  std::vector<Done> done_ ABSL_GUARDED_BY(mu_);
};

ComputerTurn Turn(const std::string& session, int64_t version,
                  const std::string& setup = "classic-2") {
  ComputerTurn turn;
  turn.session_id = session;
  turn.version = version;
  turn.position = *SetupPosition(setup);
  turn.level = 1;
  turn.limits.max_depth = 1;
  return turn;
}

TEST(ComputerPlayersTest, SearchesAndHandsBackTheResult) {
  DoneLog log;
  ComputerPlayers players({.threads = 2, .search = {}}, log.Function());
  players.Schedule(Turn("a", 7));
  const std::vector<Done> done = log.WaitFor(1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_FALSE(done[0].stopped);
  EXPECT_EQ(done[0].turn.session_id, "a");
  EXPECT_EQ(done[0].turn.version, 7);
  EXPECT_FALSE(done[0].result.best_move.is_null());
  EXPECT_EQ(players.pending(), 0);
}

TEST(ComputerPlayersTest, ANewPositionStopsTheOldSearch) {
  ControlledSearch search;
  DoneLog log;
  ComputerPlayers players({.threads = 1, .search = search.Function()},
                          log.Function());
  players.Schedule(Turn("a", 1, "classic-2"));
  ASSERT_TRUE(search.WaitForStarts(1));
  players.Schedule(Turn("a", 2, "osiris"));
  ASSERT_TRUE(search.WaitForStarts(2));
  search.Release();
  const std::vector<Done> done = log.WaitFor(2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_TRUE(done[0].stopped);
  EXPECT_EQ(done[0].turn.version, 1);
  EXPECT_FALSE(done[1].stopped);
  EXPECT_EQ(done[1].turn.version, 2);
  EXPECT_TRUE(done[1].turn.position == *SetupPosition("osiris"));
}

TEST(ComputerPlayersTest, TheSamePositionKeepsTheSearchWithTheNewVersion) {
  ControlledSearch search;
  DoneLog log;
  ComputerPlayers players({.threads = 2, .search = search.Function()},
                          log.Function());
  players.Schedule(Turn("a", 1));
  ASSERT_TRUE(search.WaitForStarts(1));
  players.Schedule(Turn("a", 2));  // e.g. a setting changed
  search.Release();
  const std::vector<Done> done = log.WaitFor(1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_FALSE(done[0].stopped);
  EXPECT_EQ(done[0].turn.version, 2);
  EXPECT_EQ(search.starts(), 1);
}

TEST(ComputerPlayersTest, CancelStopsTheSearch) {
  ControlledSearch search;
  DoneLog log;
  ComputerPlayers players({.threads = 2, .search = search.Function()},
                          log.Function());
  players.Schedule(Turn("a", 1));
  players.Schedule(Turn("b", 1));
  ASSERT_TRUE(search.WaitForStarts(2));
  players.Cancel("a");
  const std::vector<Done> done = log.WaitFor(1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].stopped);
  EXPECT_EQ(done[0].turn.session_id, "a");
  EXPECT_EQ(players.pending(), 1);  // b searches on
  players.Cancel("no such session");
  search.Release();
  ASSERT_EQ(log.WaitFor(2).size(), 2u);
}

TEST(ComputerPlayersTest, BoundedThreadsQueueTheRest) {
  ControlledSearch search;
  DoneLog log;
  ComputerPlayers players({.threads = 1, .search = search.Function()},
                          log.Function());
  players.Schedule(Turn("a", 1));
  players.Schedule(Turn("b", 1));
  ASSERT_TRUE(search.WaitForStarts(1));
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(search.starts(), 1);  // one thread: b waits
  EXPECT_EQ(players.pending(), 2);
  search.Release();
  const std::vector<Done> done = log.WaitFor(2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].turn.session_id, "a");  // first come, first served
  EXPECT_EQ(done[1].turn.session_id, "b");
}

TEST(ComputerPlayersTest, ADelayedTurnWaits) {
  DoneLog log;
  ComputerPlayers players({.threads = 1, .search = {}}, log.Function());
  const absl::Time start = absl::Now();
  players.Schedule(Turn("a", 1), absl::Milliseconds(100));
  ASSERT_EQ(log.WaitFor(1).size(), 1u);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(100));
}

TEST(ComputerPlayersTest, ShutdownStopsEverySearchAndIgnoresLaterTurns) {
  ControlledSearch search;
  DoneLog log;
  ComputerPlayers players({.threads = 2, .search = search.Function()},
                          log.Function());
  players.Schedule(Turn("a", 1));
  players.Schedule(Turn("b", 1));
  players.Schedule(Turn("c", 1));  // queued, never searched
  ASSERT_TRUE(search.WaitForStarts(2));
  const absl::Time start = absl::Now();
  players.Shutdown();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  const std::vector<Done> done = log.WaitFor(2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_TRUE(done[0].stopped);
  EXPECT_TRUE(done[1].stopped);
  players.Schedule(Turn("d", 1));
  EXPECT_EQ(players.pending(), 0);
  players.Shutdown();  // again: nothing happens
  EXPECT_EQ(search.starts(), 2);
}

}  // namespace
}  // namespace khet
