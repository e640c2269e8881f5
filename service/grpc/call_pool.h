// CallPool: a fixed set of threads for calls that may wait a long time (for
// a store's disk sync or database round trip), so that gRPC's few callback
// threads never wait for them.
#ifndef KHET_SERVICE_GRPC_CALL_POOL_H_
#define KHET_SERVICE_GRPC_CALL_POOL_H_

#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "service/mutex.h"

namespace khet {

class CallPool {
 public:
  // Starts `threads` threads. REQUIRES: threads >= 1.
  explicit CallPool(int threads);
  // Runs every task scheduled before, then joins the threads.
  ~CallPool();
  CallPool(const CallPool&) = delete;
  CallPool& operator=(const CallPool&) = delete;

  // Queues `task`; the first free thread runs it. Tasks start in the order
  // they were scheduled. Thread-safe.
  void Schedule(absl::AnyInvocable<void() &&> task);

 private:
  void Work();

  Mutex mu_;
  CondVar queued_;
  std::deque<absl::AnyInvocable<void() &&>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_CALL_POOL_H_
