// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-hostile's well-behaved clients, measured alone and under the attack:
// HTTP GETs of a session on kept-alive connections and games played over
// gRPC; and the quiet sessions the attackers wait on and watch.
#ifndef KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_CLIENTS_H_
#define KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_CLIENTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/common/khetd_process.h"
#include "tools/load/khet_hostile/hostile_latencies.h"

namespace khet::hostile {

class GameClient;

// The well-behaved clients: HTTP GETs of one session, and games over gRPC,
// each on its own thread.
class NormalClients {
 public:
  struct Options {
    // HTTP clients, each GETting the session on its own kept-alive
    // connection from 127.0.0.1.
    int http_clients = 4;
    // gRPC clients, each playing a game of random legal moves.
    int games = 4;
    // Each client starts a call at most this often.
    absl::Duration interval = absl::Milliseconds(5);
  };

  // Clients of `khetd` (its gRPC address and HTTP port); the HTTP clients
  // GET session `get_session`.
  NormalClients(const Options& options, const KhetdProcess& khetd,
                std::string get_session);
  NormalClients(const NormalClients&) = delete;
  NormalClients& operator=(const NormalClients&) = delete;
  ~NormalClients();

  // Creates the games' sessions and takes both seats of each.
  // REQUIRES: called once, before Run.
  absl::Status CreateGames();

  // Runs them all for `seconds`: the GETs' and the moves' latencies.
  std::pair<Latencies, Latencies> Run(double seconds);

 private:
  const Options options_;
  const int http_port_;
  const std::string get_session_;
  std::unique_ptr<v1::KhetService::Stub> stub_;
  std::vector<std::unique_ptr<GameClient>> games_;
};

// Creates `count` sessions over gRPC, each with a seat taken (so that its
// history has an event); their ids and versions.
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> QuietSessions(
    v1::KhetService::Stub& stub, int count);

}  // namespace khet::hostile

#endif  // KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_CLIENTS_H_
