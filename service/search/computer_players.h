// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The computer's seats: a few background threads that search for the moves
// of the sessions whose side to move is the computer's, and hand each move
// back to the service, which plays it through its normal move path with the
// version the search started from. At most one search per session: a new
// position for a session stops the search of the old one.
#ifndef KHET_SERVICE_SEARCH_COMPUTER_PLAYERS_H_
#define KHET_SERVICE_SEARCH_COMPUTER_PLAYERS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "engine/position.h"
#include "engine/search.h"
#include "service/base/mutex.h"

namespace khet {

// A search as khet::Search does it: the best move for the side to move in
// `pos`, returning early once *stop is true. Tests inject their own.
using SearchFunction = std::function<SearchResult(
    const Position& pos, const SearchLimits& limits, const SearchStyle& style,
    const std::atomic<bool>* stop)>;

// One move to find for one session.
struct ComputerTurn {
  std::string session_id;
  int64_t version = 0;  // the session's version the move is for
  Position position;    // the computer is the side to move
  int level = 0;        // 1-5
  SearchLimits limits;  // REQUIRES: some limit set
  SearchStyle style;
};

class ComputerPlayers {
 public:
  struct Options {
    int threads = 2;        // searches at once, over all sessions; >= 1
    SearchFunction search;  // empty: khet::Search with a table per thread
  };

  // Called on a worker thread, with no lock of this class held, when a
  // search ends. `stopped`: Cancel, a newer Schedule for the session or
  // Shutdown stopped it, and the result is only worth a log line. Else
  // `turn.version` is the latest version Schedule gave for this position.
  using DoneFunction = std::function<void(
      const ComputerTurn& turn, const SearchResult& result, bool stopped)>;

  // Asked on a worker thread, with no lock of this class held, before a
  // turn is searched: `may_search` false leaves the turn queued for
  // `recheck` (another process searches for it). Empty: every turn is
  // searched.
  struct Gate {
    std::function<bool(const ComputerTurn& turn)> may_search;
    absl::Duration recheck = absl::Seconds(1);
  };

  ComputerPlayers(Options options, DoneFunction done, Gate gate);
  ComputerPlayers(Options options, DoneFunction done);  // no gate
  ~ComputerPlayers();                                   // Shutdown()
  ComputerPlayers(const ComputerPlayers&) = delete;
  ComputerPlayers& operator=(const ComputerPlayers&) = delete;

  // Searches `turn` once a thread is free and `delay` has passed. If the
  // session's turn queued or being searched is for the same position and
  // level, that search goes on and only its version becomes turn.version;
  // otherwise it is stopped and replaced. Does nothing after Shutdown.
  void Schedule(ComputerTurn turn, absl::Duration delay = absl::ZeroDuration());

  // Stops the session's search and drops its turn, if it has one.
  void Cancel(const std::string& session_id);

  // Stops every search, drops every turn and joins the threads, waiting for
  // a DoneFunction call in progress to return. Idempotent. REQUIRES: not
  // called from a DoneFunction.
  void Shutdown();

  // Sessions with a turn queued or being searched (for tests and logs).
  int pending();

 private:
  struct Job {
    uint64_t id = 0;  // unique: tells a replaced job from its successor
    ComputerTurn turn;
    absl::Time not_before;
    bool running = false;
    std::shared_ptr<std::atomic<bool>> stop;
  };

  void Work();
  // The runnable job queued first, if any; else how long to wait.
  Job* NextJob(absl::Time now, absl::Time* wake)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const SearchFunction search_;
  const Gate gate_;
  const DoneFunction done_;
  Mutex mu_;
  CondVar changed_;  // a job queued or the service stopping
  std::map<std::string, Job> jobs_ ABSL_GUARDED_BY(mu_);  // by session
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;  // set in the constructor only
  Mutex join_mu_;                     // one Shutdown joins
};

}  // namespace khet

#endif  // KHET_SERVICE_SEARCH_COMPUTER_PLAYERS_H_
