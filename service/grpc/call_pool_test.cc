// CallPool: every task runs, on as many threads at once as it has, and the
// destructor runs what is still queued.
#include "service/grpc/call_pool.h"

#include <atomic>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "service/mutex.h"

namespace khet {
namespace {

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

TEST(CallPoolTest, RunsAsManyTasksAtOnceAsItHasThreads) {
  constexpr int kThreads = 4;
  Mutex mu;
  CondVar changed;
  int running = 0;       // guarded by mu
  bool release = false;  // guarded by mu
  int most = 0;          // guarded by mu
  CallPool pool(kThreads);
  for (int i = 0; i < 2 * kThreads; ++i) {
    pool.Schedule([&] {
      MutexLock lock(&mu);
      ++running;
      most = std::max(most, running);
      changed.SignalAll();
      while (!release) changed.WaitWithTimeout(&mu, absl::Seconds(1));
      --running;
    });
  }
  MutexLock lock(&mu);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (running < kThreads && absl::Now() < deadline) {
    changed.WaitWithTimeout(&mu, absl::Milliseconds(10));
  }
  // Every thread holds a task; given time (without the lock), no other
  // task starts.
  const absl::Time settle = absl::Now() + absl::Milliseconds(20);
  while (absl::Now() < settle) changed.WaitWithDeadline(&mu, settle);
  EXPECT_EQ(running, kThreads);
  EXPECT_EQ(most, kThreads);
  release = true;
  changed.SignalAll();
}

}  // namespace
}  // namespace khet
