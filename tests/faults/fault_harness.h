// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the store-fault tests share: players that play games against a real
// khetd through gRPC the way a careful client does (quiet moves for both
// sides, each move's request id kept for its retries), the ledger of every
// move khetd acknowledged, the check that each of them is still stored,
// khetd restarted on the same ports with the time it took to serve, and the
// tests' own PostgreSQL cluster, which they may stop and start.
#ifndef KHET_TESTS_FAULTS_FAULT_HARNESS_H_
#define KHET_TESTS_FAULTS_FAULT_HARNESS_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "service/grpc/status_conversion.h"
#include "tests/support/khetd_child.h"

namespace khet::faults {

// `flags` and those that turn khetd's per-caller budgets off: the fault
// tests' players make hundreds of calls a second from 127.0.0.1, and a
// kill or an outage leaves sessions made by calls whose answer was lost.
// Every fault test's khetd takes them.
std::vector<std::string> WithoutBudgets(std::vector<std::string> flags);

// A channel that reconnects within 100 ms of a server coming back (gRPC's
// default backoff starts at a second and grows to two minutes).
std::shared_ptr<grpc::Channel> QuickChannel(const std::string& address);

// A loopback port free right now.
int FreePort();

// A move for the side to move in `position_text` that hits no Pharaoh, so
// the game goes on (any move if there is none).
std::string QuietMove(const std::string& position_text);

// A move khetd acknowledged (MakeMove answered OK): the ply it was played
// at, the session's version after it, the move as khetd wrote it.
struct AckedMove {
  int ply = 0;
  int64_t version = 0;
  std::string notation;
};
// What khetd acknowledged of one session: its moves, and the game's end
// when a player's resignation was acknowledged (the game then archived).
struct SessionAcks {
  std::vector<AckedMove> moves;
  std::string archived_game;  // the resigned game's id; "" if none
};
using AckedMoves = std::map<std::string, SessionAcks>;

// Every acknowledged move, by session. Thread-safe.
class Ledger {
 public:
  // A session whose game began (both seats taken), with no move yet.
  void AddSession(const std::string& id);
  void Ack(const std::string& id, AckedMove move);
  void AckResignation(const std::string& id, const std::string& game_id);
  AckedMoves Snapshot() const;
  // The sessions (with all their moves) that had a move acknowledged, or
  // were added, after acked() was `since`.
  AckedMoves SnapshotSince(int64_t since) const;
  int64_t acked() const;

 private:
  mutable std::mutex mu_;
  AckedMoves moves_;  // guarded by mu_
  // acked_ when each session last changed; guarded by mu_
  std::map<std::string, int64_t> changed_;
  int64_t acked_ = 0;  // guarded by mu_
};

// What one call of a player came to.
struct CallOutcome {
  std::string player;  // the player's name
  std::string call;    // "MakeMove", "GetSession", "CreateSession", "JoinSeat"
  grpc::StatusCode code = grpc::StatusCode::OK;
  std::string message;
  absl::Time start;
  absl::Duration latency;
};

// One client playing games through `address`, one call per Step: it
// creates a session and takes both seats, then plays a quiet move for the
// side to move each step, up to `max_plies`, then (with `resign`) the side
// to move resigns, which archives the game, and it starts a new session.
// A move whose answer did not come (UNAVAILABLE, DEADLINE_EXCEEDED,
// CANCELLED, UNKNOWN: khetd gone, or the store) is sent again as it was,
// with its request id, so that it is played once; any other refusal reads
// the session again. Not thread-safe: one thread steps a player.
class Player {
 public:
  struct Options {
    int max_plies = 40;
    bool resign = false;
    absl::Duration deadline = absl::Seconds(10);
    std::string name = "player";
  };
  Player(const std::string& address, Ledger* ledger, Options options);

  CallOutcome Step();

  // The session being played ("" before the first game).
  const std::string& session_id() const { return id_; }
  // Whether the player is between games or in one, waiting for a move's
  // answer.
  bool move_pending() const { return pending_.has_value(); }

 private:
  enum class Stage { kCreate, kJoinSilver, kJoinRed, kRead, kPlay, kResign };
  struct PendingMove {
    std::string notation;
    std::string request_id;
    int64_t expected_version = 0;
    int ply = 0;
  };

  CallOutcome Create();
  CallOutcome Join(v1::Color color);
  CallOutcome Read();
  CallOutcome Move();
  CallOutcome Resign();
  // After the game's last move: kResign or kCreate.
  Stage AtTheEnd() const;
  // Takes the session's state from `session`.
  void Follow(const v1::Session& session);
  void Prepare(grpc::ClientContext* context, const std::string& token) const;

  const std::string address_;
  Ledger* const ledger_;
  const Options options_;
  std::unique_ptr<v1::KhetService::Stub> stub_;
  Stage stage_ = Stage::kCreate;
  std::string id_;
  std::string silver_;
  std::string red_;
  int64_t version_ = 0;
  std::string position_;
  v1::Color to_move_ = v1::SILVER;
  int plies_ = 0;
  bool over_ = false;
  std::optional<PendingMove> pending_;
  int64_t games_ = 0;
};

// A game against the computer through `address`: the test plays Silver
// (quiet moves), the computer Red at `level`. Blocking calls, each with a
// 10 s deadline; errors as statuses.
class ComputerGame {
 public:
  static absl::StatusOr<std::unique_ptr<ComputerGame>> Start(
      const std::string& address, int level);
  const std::string& id() const { return id_; }
  // Silver's move; the version the computer is to answer.
  absl::StatusOr<int64_t> Move();
  // Waits until the computer has answered (Silver to move at a version
  // above `after`), reading the session every 50 ms, at most `timeout`.
  absl::Status WaitForReply(int64_t after, absl::Duration timeout);

 private:
  ComputerGame(const std::string& address)
      : stub_(v1::KhetService::NewStub(QuickChannel(address))) {}
  absl::StatusOr<v1::Session> Get();

  std::unique_ptr<v1::KhetService::Stub> stub_;
  std::string id_;
  std::string silver_;
};

// Players stepping in threads of their own until Stop, each pausing
// `pause` after a failed call. Every outcome is kept.
class Load {
 public:
  Load(const std::string& address, Ledger* ledger, int players,
       Player::Options options, absl::Duration pause = absl::Milliseconds(10));
  ~Load();
  void Stop();
  // The outcomes so far, in each thread's order.
  std::vector<CallOutcome> Outcomes() const;

 private:
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<CallOutcome> outcomes_;  // guarded by mu_
  std::vector<std::thread> threads_;
};

// Outcomes counted by call and code ("MakeMove UNAVAILABLE: 12, ..."), for
// messages.
std::string Summary(const std::vector<CallOutcome>& outcomes);

// Reads every session of `acked` through `address` and returns what differs
// from the ledger (empty: every acknowledged move is stored, at its ply, and
// every acknowledged resignation ended its game, which is archived). With
// `exact`, a session must hold its acknowledged moves and no others.
std::vector<std::string> CheckAcknowledged(const std::string& address,
                                           const AckedMoves& acked, bool exact);

// Calls GetSession for `session_id` (ListSetups when empty) on a new
// connection every 5 ms until one succeeds; how long that took from
// `since`, or DEADLINE_EXCEEDED after `timeout`.
absl::StatusOr<absl::Duration> WaitServing(const std::string& address,
                                           const std::string& session_id,
                                           absl::Time since,
                                           absl::Duration timeout);

// The median and the highest of `values` (zero for none).
absl::Duration Median(std::vector<absl::Duration> values);
absl::Duration Max(const std::vector<absl::Duration>& values);

// The tests' own PostgreSQL cluster (tests/pg/pg_cluster.sh), for tests
// that stop the server: the shared cluster of ctest's `postgres` fixture
// serves other tests at the same time.
class OwnPostgres {
 public:
  // The cluster started in `state_dir`; an error with the script's output
  // if it did not start.
  static absl::StatusOr<std::unique_ptr<OwnPostgres>> Start(
      const std::string& state_dir);
  ~OwnPostgres();  // stops the cluster and removes its files

  // A conninfo of the cluster's database `postgres`.
  const std::string& conninfo() const { return conninfo_; }
  // pg_ctl stop -m fast, keeping the files; and start on the same port.
  absl::Status StopServer();
  absl::Status StartServer();

 private:
  OwnPostgres(std::string state_dir, std::string conninfo)
      : state_dir_(std::move(state_dir)), conninfo_(std::move(conninfo)) {}
  absl::Status Script(const std::string& command);

  const std::string state_dir_;
  const std::string conninfo_;
};

// nginx in front of `upstreams` as the deployment's template configures it
// (deploy/nginx/khet-grpc.conf), on a free port, its files in `dir`;
// ready once a call went through it.
class Nginx {
 public:
  static absl::StatusOr<std::unique_ptr<Nginx>> Start(
      const std::string& dir, const std::vector<std::string>& upstreams);
  const std::string& address() const { return address_; }

 private:
  explicit Nginx(std::unique_ptr<ChildProcess> process, std::string address)
      : process_(std::move(process)), address_(std::move(address)) {}
  std::unique_ptr<ChildProcess> process_;
  std::string address_;
};

// A fresh directory under the test's temporary directory.
std::string MakeTempDir(const std::string& prefix);

}  // namespace khet::faults

#endif  // KHET_TESTS_FAULTS_FAULT_HARNESS_H_
