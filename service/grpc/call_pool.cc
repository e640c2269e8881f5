#include "service/grpc/call_pool.h"

#include <utility>

#include "absl/time/time.h"

namespace khet {

CallPool::CallPool(int threads) {
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

CallPool::~CallPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  queued_.SignalAll();
  for (std::thread& thread : threads_) thread.join();
}

void CallPool::Schedule(absl::AnyInvocable<void() &&> task) {
  {
    MutexLock lock(&mu_);
    tasks_.push_back(std::move(task));
  }
  queued_.Signal();
}

void CallPool::Work() {
  while (true) {
    absl::AnyInvocable<void() &&> task;
    {
      MutexLock lock(&mu_);
      while (tasks_.empty() && !stopping_) {
        // A long timeout: waking up now and then costs nothing.
        queued_.WaitWithTimeout(&mu_, absl::Seconds(10));
      }
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    std::move(task)();
  }
}

}  // namespace khet
