// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// CallPool: threads for calls that may wait a long time (for a store's disk
// sync or database round trip), so that gRPC's few callback threads never
// wait for them. Threads start as tasks need them, up to a maximum, and
// leave after idling for a while: an idle pool holds one thread.
#ifndef KHET_SERVICE_GRPC_CALL_POOL_H_
#define KHET_SERVICE_GRPC_CALL_POOL_H_

#include <deque>
#include <map>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"

namespace khet {

class CallPool {
 public:
  // Starts no thread yet. A thread idle for `idle_timeout` exits unless it
  // is the last. REQUIRES: max_threads >= 1; idle_timeout > 0.
  explicit CallPool(int max_threads,
                    absl::Duration idle_timeout = absl::Seconds(5));
  // Runs every task scheduled before, then joins the threads.
  ~CallPool();
  CallPool(const CallPool&) = delete;
  CallPool& operator=(const CallPool&) = delete;

  // Queues `task`. An idle thread takes it; if none is idle and fewer than
  // max_threads run, a new thread starts for it. Tasks start in the order
  // they were scheduled. Thread-safe; tasks may schedule tasks.
  void Schedule(absl::AnyInvocable<void() &&> task);

  // Threads running now, busy or idle.
  int threads();

 private:
  void Work();
  // Starts one more thread. REQUIRES: mu_ held.
  void StartThreadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Joins the threads that have left (quick: they have returned or are
  // returning). REQUIRES: mu_ not held.
  static void Join(std::vector<std::thread> threads);

  const int max_threads_;
  const absl::Duration idle_timeout_;
  Mutex mu_;
  CondVar queued_;  // a task was queued, or the pool is stopping
  CondVar left_;    // a thread left
  std::deque<absl::AnyInvocable<void() &&>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int idle_ ABSL_GUARDED_BY(mu_) = 0;  // threads waiting for a task
  std::map<std::thread::id, std::thread> running_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> left_threads_ ABSL_GUARDED_BY(mu_);  // to join
};

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_CALL_POOL_H_
