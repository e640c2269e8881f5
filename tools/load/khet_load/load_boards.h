// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-load's boards mode: khetd as in-world boards use it. Each board is a
// session with both seats taken, always holding a long poll (or an event
// stream) on a kept-alive HTTP connection of its own, or having khetd push
// its events to a URL of its own (push), and plays a random legal move once
// per period (with jitter) through connections it shares with the other
// boards of its client thread and source address, as a simulator host's
// HTTP client does. Measures how long a move's event takes
// to reach its board once the move is acknowledged, what khetd refused, and
// khetd's memory, threads and CPU. The boards may be spread over several
// servers (replicas on one database, or a proxy in front of them), and a
// fault (a replica killed, the database stopped) may come while they play:
// its failures are retried and each board's recovery timed. The boards are
// in load_board.h; push mode's parts in load_board_push.cc (a board's side),
// load_push_routing.h (the receiving servers), load_push_receiver.h (one
// server) and load_push_figures.h (its figures).
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_BOARDS_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_BOARDS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/load/khet_load/load_sessions.h"

namespace khet::load {

struct BoardsOptions {
  int boards = 1000;
  // Event-driven client threads, each with its share of the boards.
  int threads = 2;
  // An event stream per board instead of long polls.
  bool stream = false;
  // Neither: each board registers a URL on its client address's receiving
  // server (one per address, as a simulator host serves its objects' URLs)
  // and khetd pushes the session's events to it (docs/http-api.md, "Pushed
  // events").
  bool push = false;
  // The long poll's waitSeconds (the in-world board's: 25).
  int wait_seconds = 25;
  // Each board moves once per period, the period varied by +-jitter (a
  // share of it); the first move comes at a random time within a period.
  double move_period_seconds = 10;
  double move_jitter = 0.2;
  // Source addresses 127.0.0.2 onwards: simulator hosts (1) or many.
  int client_addresses = 1;
  // Connections each client thread keeps per source address for the
  // boards' other calls (moves, setting up).
  int shared_connections = 64;
  // Each board's calls carry an in-world object key and owner key, as a
  // Second Life or OpenSimulator simulator sends them.
  bool inworld_headers = true;
  // With several khetd (replicas on one database): each board's calls but
  // its wait go to the replica after the one it waits on, so that its
  // events reach it through the store's notices.
  bool calls_elsewhere = false;
  // After every board is set up: this long before measuring, then this
  // long measured.
  double warmup_seconds = 5;
  double seconds = 60;
  GameOptions game;
  uint64_t seed = 1;
  // A fault while the boards play (none while at_seconds < 0): at
  // `at_seconds` into the measured time, SIGKILL to `kill_pid` (if not 0)
  // and `command` run by /bin/sh (if not empty); `end_command` (if not
  // empty) run `seconds` later. The calls it fails (connection failed, 502,
  // 503, 504) are retried, a move with its request id, rather than
  // refused; each board must be answered again within
  // `recovery_limit_seconds` of the fault's end or of its first failure.
  struct Fault {
    double at_seconds = -1;
    pid_t kill_pid = 0;
    std::string command;
    double seconds = 0;
    std::string end_command;
    double recovery_limit_seconds = 5;
  } fault;
};

// A khetd process whose figures are printed: its HTTP port on 127.0.0.1
// (for /metrics) and its process id (0: unknown, no process figures).
struct WatchedKhetd {
  int http_port = 0;
  pid_t pid = 0;
};

// Runs the boards against the HTTP ports `ports` on 127.0.0.1 (one khetd,
// replicas on one database, or a proxy in front of them; board i waits on
// ports[i % size]) and prints the figures, each of `khetds`' own. False if
// any board could not be set up, any call was refused or failed (but for
// the outage of options.kill_at_seconds), or an acknowledged move's event
// did not reach its board; with push, also if a delivery's signature was
// wrong or its versions out of order.
bool RunBoards(const BoardsOptions& options, const std::vector<int>& ports,
               const std::vector<WatchedKhetd>& khetds);

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_BOARDS_H_
