// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// CallPool: every task runs, in the order scheduled, on threads started as
// tasks need them up to the maximum; idle threads leave but the last; the
// destructor runs what is still queued.
#include "service/grpc/call_pool.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "service/base/mutex.h"

namespace khet {
namespace {

// Tasks that wait until released, counting how many run at once.
class Blocker {
 public:
  absl::AnyInvocable<void() &&> Task() {
    return [this] {
      MutexLock lock(&mu_);
      ++running_;
      most_ = std::max(most_, running_);
      changed_.SignalAll();
      while (!released_) changed_.WaitWithTimeout(&mu_, absl::Seconds(1));
      --running_;
    };
  }
  // Waits (at most 10 s) until `n` tasks run at once; false if they did not.
  bool WaitForRunning(int n) {
    MutexLock lock(&mu_);
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (running_ < n && absl::Now() < deadline) {
      changed_.WaitWithTimeout(&mu_, absl::Milliseconds(10));
    }
    return running_ >= n;
  }
  // Gives the pool time (without the lock) to start more tasks.
  void Settle() {
    MutexLock lock(&mu_);
    const absl::Time settle = absl::Now() + absl::Milliseconds(20);
    while (absl::Now() < settle) changed_.WaitWithDeadline(&mu_, settle);
  }
  void Release() {
    MutexLock lock(&mu_);
    released_ = true;
    changed_.SignalAll();
  }
  int running() {
    MutexLock lock(&mu_);
    return running_;
  }
  int most() {
    MutexLock lock(&mu_);
    return most_;
  }

 private:
  Mutex mu_;
  CondVar changed_;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int most_ ABSL_GUARDED_BY(mu_) = 0;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
};

// Waits (at most 10 s) until the pool holds `n` threads.
bool WaitForThreads(CallPool& pool, int n) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (pool.threads() != n && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  return pool.threads() == n;
}

TEST(CallPoolTest, RunsEveryTaskBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    CallPool pool(2);
    for (int i = 0; i < 100; ++i) {
      pool.Schedule([&ran] {
        absl::SleepFor(absl::Microseconds(100));
        ++ran;
      });
    }
  }
  EXPECT_EQ(ran, 100);
}

TEST(CallPoolTest, StartsNoThreadUntilATaskComes) {
  Blocker blocker;  // outlives the pool, whose threads run its tasks
  CallPool pool(256);
  EXPECT_EQ(pool.threads(), 0);
  pool.Schedule(blocker.Task());
  ASSERT_TRUE(blocker.WaitForRunning(1));
  EXPECT_EQ(pool.threads(), 1);
  blocker.Release();
}

TEST(CallPoolTest, BlockedTasksGetAThreadEachUpToTheMaximum) {
  constexpr int kMax = 8;
  Blocker blocker;
  CallPool pool(kMax);
  for (int i = 0; i < kMax - 2; ++i) pool.Schedule(blocker.Task());
  ASSERT_TRUE(blocker.WaitForRunning(kMax - 2));
  EXPECT_EQ(pool.threads(), kMax - 2);
  // Twice the maximum in all: every thread holds one and the rest wait.
  for (int i = kMax - 2; i < 2 * kMax; ++i) pool.Schedule(blocker.Task());
  ASSERT_TRUE(blocker.WaitForRunning(kMax));
  blocker.Settle();
  EXPECT_EQ(blocker.running(), kMax);
  EXPECT_EQ(blocker.most(), kMax);
  EXPECT_EQ(pool.threads(), kMax);
  blocker.Release();
}

TEST(CallPoolTest, IdleThreadsLeaveButTheLast) {
  Blocker blocker;
  Blocker again;
  CallPool pool(16, /*idle_timeout=*/absl::Milliseconds(20));
  for (int i = 0; i < 16; ++i) pool.Schedule(blocker.Task());
  ASSERT_TRUE(blocker.WaitForRunning(16));
  EXPECT_EQ(pool.threads(), 16);
  blocker.Release();
  EXPECT_TRUE(WaitForThreads(pool, 1));
  // The one left still serves, and more start again when needed.
  for (int i = 0; i < 4; ++i) pool.Schedule(again.Task());
  ASSERT_TRUE(again.WaitForRunning(4));
  EXPECT_EQ(pool.threads(), 4);
  again.Release();
}

TEST(CallPoolTest, TasksStartInTheOrderScheduled) {
  Mutex mu;
  std::vector<int> order;  // guarded by mu
  {
    Blocker blocker;
    CallPool pool(1);
    pool.Schedule(blocker.Task());  // the rest queue behind it
    ASSERT_TRUE(blocker.WaitForRunning(1));
    for (int i = 0; i < 50; ++i) {
      pool.Schedule([&mu, &order, i] {
        MutexLock lock(&mu);
        order.push_back(i);
      });
    }
    blocker.Release();
  }
  MutexLock lock(&mu);
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
}

}  // namespace
}  // namespace khet
