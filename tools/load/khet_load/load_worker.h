// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-load's client threads: each plays its share of the sessions through
// its own gRPC connection and completion queue, one call outstanding per
// session, and records when each call of a phase started and ended.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_WORKER_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_WORKER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/move.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/async_unary_call.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/khet_load/load_sessions.h"

namespace khet::load {

// The steady clock's time in nanoseconds: the clock of Phase and Sample.
int64_t NowNanos();

// Which call a phase makes: the health check (the baseline) or MakeMove.
enum class Kind { kHealth, kMove };

// What one phase measures: which call, by how many sessions, and when.
struct Phase {
  Kind kind;
  int active;  // sessions 0..active-1 take part
  std::atomic<bool> stop{false};
  int64_t window_start_ns = 0;  // calls started before are warm-up
};

// One measured call: when it started and ended.
struct Sample {
  int64_t start_ns;
  int64_t end_ns;
};

// The calls one client thread makes: its own channel and completion queue,
// and the sessions with index % threads == its index.
class Worker {
 public:
  // Client thread number `index` of khetd at `address`; the games it
  // starts again after one ends are of `game_options`.
  Worker(const std::string& address, int index,
         const GameOptions& game_options);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  // Every call has ended when Run returns, so the queue holds no call.
  ~Worker();

  // The stub of this thread's connection, for blocking calls between runs.
  v1::KhetService::Stub& stub() { return *stub_; }
  // The sessions this thread plays; the caller fills it before Run.
  std::vector<Player*>& players() { return players_; }
  // The failed calls so far, by what failed.
  const std::map<std::string, int>& errors() const { return errors_; }

  // Plays `phase` until phase.stop and its calls have ended; the samples of
  // calls started after the window began go to *samples. indices[i] is the
  // index of players()[i] among all the sessions.
  void Run(Phase& phase, const std::vector<int>& indices,
           std::vector<Sample>* samples);

 private:
  // The calls a player makes: the phase's, and a new game's after one
  // ends.
  enum class Step { kHealth, kMove, kReset, kJoinSilver, kJoinRed };

  // One call in flight, the completion queue's tag for it.
  struct Call {
    Step step;
    Player* player;
    grpc::ClientContext context;
    grpc::Status status;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    Move move;
    grpc::ByteBuffer health_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<grpc::ByteBuffer>>
        health_reader;
    // Raw, like the health check's: only the result is read (OutcomeOf).
    grpc::ByteBuffer move_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<grpc::ByteBuffer>>
        move_reader;
    v1::Session reset_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<v1::Session>> reset_reader;
    v1::JoinSeatResponse join_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<v1::JoinSeatResponse>>
        join_reader;
  };

  // A channel of its own to `address` for thread `index`.
  static std::shared_ptr<grpc::Channel> NewChannel(const std::string& address,
                                                   int index);

  // Starts the phase's kind of call for `player`; returns 1 (one call
  // outstanding) or 0.
  int Issue(Kind kind, Player* player);

  // Starts call `step` for `player`; returns 1 (one call outstanding) or
  // 0 (the player failed).
  int Start(Step step, Player* player);

  // Leaves `player` alone from now on and counts the error `why`.
  void Fail(Player* player, const std::string& why);

  // Keeps `call`'s sample if it started inside the phase's window.
  void Record(const Call& call);

  // Handles a finished call and starts the player's next one; returns how
  // many calls that started (0 or 1).
  int Handle(Call& call);

  // The RPC's name of `step`, for the error counts.
  static const char* StepName(Step step);

  const int index_;
  const GameOptions game_options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::KhetService::Stub> stub_;
  grpc::GenericStub generic_;
  grpc::CompletionQueue queue_;
  std::vector<Player*> players_;
  Phase* phase_ = nullptr;
  std::vector<Sample>* samples_ = nullptr;
  std::map<std::string, int> errors_;
};

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_WORKER_H_
