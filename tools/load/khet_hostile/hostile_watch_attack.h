// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The gRPC half of khet-hostile's attack: idle Watch streams spread over a
// few connections, and which of them khetd refused.
#ifndef KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_WATCH_ATTACK_H_
#define KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_WATCH_ATTACK_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/support/async_stream.h"
#include "grpcpp/support/status.h"
#include "khet/v1/khet_service.grpc.pb.h"

namespace khet::hostile {

// Idle Watch streams over a few connections, driven by one thread through a
// completion queue. A watch is open once its first event (the session's
// history) has come; one that ends before is refused, counted by its code.
class WatchAttack {
 public:
  // Watches on khetd at gRPC `address`, over `channels` connections.
  // REQUIRES: channels >= 1.
  WatchAttack(const std::string& address, int channels);
  WatchAttack(const WatchAttack&) = delete;
  WatchAttack& operator=(const WatchAttack&) = delete;

  // Starts `count` watches spread over `sessions`. REQUIRES: called once;
  // `sessions` is not empty if count > 0.
  void Start(int count, const std::vector<std::string>& sessions);

  // Cancels every watch and waits for them to end. REQUIRES: Start was
  // called.
  void Stop();

  // Watches open now, and the most open at once.
  int64_t open() const { return open_; }
  int64_t peak_open() const { return peak_open_; }
  // Watches refused (ended before their first event), by status code name.
  std::map<std::string, int64_t> Refused() const;

 private:
  // A watch's steps: started, reading its first event, open, finishing,
  // done.
  enum class State { kStarting, kReading, kOpen, kFinishing, kDone };
  struct Call {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientAsyncReader<v1::Event>> reader;
    v1::Event event;
    grpc::Status status;
    State state = State::kStarting;
    bool opened = false;
  };

  // Asks for `call`'s final status, which the queue returns once the call
  // has ended. REQUIRES: mu_ is held.
  void Finish(Call* call);

  // Takes `call` to its next state after the queue returned it with `ok`.
  // Runs on the queue's thread.
  void Handle(Call* call, bool ok);

  // "RESOURCE_EXHAUSTED" and the like, "code N" for the rest.
  static std::string StatusName(grpc::StatusCode code);

  std::vector<std::unique_ptr<v1::KhetService::Stub>> stubs_;
  grpc::CompletionQueue queue_;
  std::vector<std::unique_ptr<Call>> calls_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> open_{0};
  std::atomic<int64_t> peak_open_{0};
  std::atomic<int64_t> done_{0};
  std::map<std::string, int64_t> refused_;  // under mu_
};

}  // namespace khet::hostile

#endif  // KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_WATCH_ATTACK_H_
