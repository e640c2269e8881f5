// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/grpc/call_pool.h"

#include <utility>

#include "absl/time/clock.h"

namespace khet {

CallPool::CallPool(int max_threads, absl::Duration idle_timeout)
    : max_threads_(max_threads), idle_timeout_(idle_timeout) {}

CallPool::~CallPool() {
  std::vector<std::thread> left;
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    queued_.SignalAll();
    while (!running_.empty()) left_.WaitWithTimeout(&mu_, absl::Seconds(1));
    left.swap(left_threads_);
  }
  Join(std::move(left));
}

void CallPool::Schedule(absl::AnyInvocable<void() &&> task) {
  std::vector<std::thread> left;
  {
    MutexLock lock(&mu_);
    tasks_.push_back(std::move(task));
    // Each queued task has an idle thread to take it, or gets a new one.
    if (static_cast<int>(tasks_.size()) > idle_ &&
        static_cast<int>(running_.size()) < max_threads_) {
      StartThreadLocked();
    } else {
      queued_.Signal();
    }
    left.swap(left_threads_);
  }
  Join(std::move(left));
}

int CallPool::threads() {
  MutexLock lock(&mu_);
  return static_cast<int>(running_.size());
}

void CallPool::StartThreadLocked() {
  std::thread thread([this] { Work(); });
  const std::thread::id id = thread.get_id();
  running_.emplace(id, std::move(thread));
}

void CallPool::Join(std::vector<std::thread> threads) {
  for (std::thread& thread : threads) thread.join();
}

void CallPool::Work() {
  mu_.Lock();
  while (true) {
    if (tasks_.empty()) {
      if (stopping_) break;
      ++idle_;
      const absl::Time deadline = absl::Now() + idle_timeout_;
      bool timed_out = false;
      while (tasks_.empty() && !stopping_ && !timed_out) {
        timed_out = queued_.WaitWithDeadline(&mu_, deadline);
      }
      --idle_;
      if (tasks_.empty()) {
        if (stopping_ || running_.size() > 1) break;
        continue;  // the last thread stays
      }
    }
    absl::AnyInvocable<void()&&> task = std::move(tasks_.front());
    tasks_.pop_front();
    mu_.Unlock();
    std::move(task)();
    task = nullptr;  // whatever it holds goes before the lock is taken
    mu_.Lock();
  }
  // Leaves: the thread's handle goes to be joined by the next Schedule or
  // the destructor.
  const auto self = running_.find(std::this_thread::get_id());
  left_threads_.push_back(std::move(self->second));
  running_.erase(self);
  left_.SignalAll();
  mu_.Unlock();
}

}  // namespace khet
