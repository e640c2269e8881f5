// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The computer in a seat: whenever a session changes (the registry's
// change hook), a game in progress with the computer to move gets a search
// on the computer threads with the level's limits, capped by
// computer_move_budget; anything else stops the session's search. The
// search's move is played through the move path only if the session is
// still at the version the search was for; else it is dropped and the
// search runs again if it is still the computer's turn. The computer
// claims a repetition draw when it may and its search does not rate its
// position above even; a failed write is tried again after
// computer_retry_delay. On a shared store only the replica holding the
// session's lease searches (computer_lease_ttl); the others keep the turn
// and look again every computer_lease_recheck, taking the lease over once
// its holder stopped renewing it, and meanwhile hear of the move through
// the store's change notices.
#ifndef KHET_SERVICE_COMPUTER_COMPUTER_SEATS_H_
#define KHET_SERVICE_COMPUTER_COMPUTER_SEATS_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "service/search/computer_players.h"
#include "service/sessions/service_core.h"
#include "service/sessions/session_registry.h"

namespace khet {

class ComputerSeats {
 public:
  // What a search that ended tells, from a computer thread: `log` one line
  // (never a token), `done` its outcome's first word (played,
  // claimed-draw, stale, gone, retrying, failed, cancelled) and how long it
  // searched. Either may be empty.
  using DoneHook =
      std::function<void(std::string_view outcome, absl::Duration searched)>;
  ComputerSeats(const ServiceCore& core, SearchFunction search,
                std::function<void(const std::string& line)> log,
                DoneHook done);

  // Schedules the session's search (after `delay`) if the computer is to
  // move in a game in progress; otherwise stops any search for it.
  void Schedule(SessionEntry& entry,
                absl::Duration delay = absl::ZeroDuration())
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // Stops every search and joins the threads; nothing runs afterwards.
  void Shutdown();

 private:
  // Whether this replica may search for the turn: always on a store of its
  // own; on a shared store, if it holds (or now takes) the session's lease.
  bool MaySearch(const ComputerTurn& turn);
  // A search ended (on a computer thread).
  void SearchDone(const ComputerTurn& turn, const SearchResult& result,
                  bool stopped);
  // Plays the move (or claims a repetition draw) if the session is still
  // at the version its search began from; says what came of it.
  std::string Play(const ComputerTurn& turn, const SearchResult& result,
                   std::string* move);

  const ServiceCore core_;
  const std::function<void(const std::string& line)> log_;
  const DoneHook done_;
  const std::string holder_;  // this replica's lease holder id, random
  // Last, so that it is destroyed (its threads joined) first.
  std::unique_ptr<ComputerPlayers> players_;
};

}  // namespace khet

#endif  // KHET_SERVICE_COMPUTER_COMPUTER_SEATS_H_
