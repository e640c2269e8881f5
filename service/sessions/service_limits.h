// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The service's limits, one struct that every part reads (SessionService's
// options carry it).
#ifndef KHET_SERVICE_SESSIONS_SERVICE_LIMITS_H_
#define KHET_SERVICE_SESSIONS_SERVICE_LIMITS_H_

#include <cstdint>

#include "absl/time/time.h"

namespace khet {

// Limits; exceeding one is RESOURCE_EXHAUSTED naming the limit.
struct ServiceLimits {
  int max_sessions = 10000;
  int max_watchers_per_session = 64;
  // Live watchers over all sessions (every EventStream from Watch, gRPC
  // streams and HTTP long polls and event streams alike).
  int max_watchers = 20000;
  int max_name_length = 64;  // session and player names
  int max_request_id_length = 64;
  int max_position_length = 512;    // custom start positions
  int max_record_length = 1 << 20;  // game records (CreateSession)
  int max_page_size = 100;          // ListSessions, ListGames
  // The shortest inactivity timeout a session may set (a week the longest).
  int64_t min_timeout_seconds = 60;
  int watcher_buffer = 256;   // events queued for one watcher before it
                              // is cut off with RESOURCE_EXHAUSTED
  int max_replies_kept = 32;  // MakeMove answers kept for retries
  // SuggestMove searches running at once; beyond: RESOURCE_EXHAUSTED.
  int max_concurrent_suggestions = 4;
  // Games analysed at once (AnalyzeGame); beyond: RESOURCE_EXHAUSTED.
  int max_concurrent_analyses = 2;
  // Sessions on which no seat was ever taken (unclaimed), per creator
  // (Caller::address): CreateSession beyond is refused by the budget
  // Budget::kUnclaimedSessions (budget_refusal.h). A creation that carries
  // an in-world object key counts for that object, within its address's
  // in-world ceiling: every board of a region shares the simulator's
  // address. 0: no budget. Callers without an address are not counted.
  int max_unclaimed_sessions_per_address = 20;
  int inworld_max_unclaimed_sessions_per_address = 2000;
  // An unclaimed session is removed (SweepUnclaimed) once this old.
  absl::Duration unclaimed_session_timeout = absl::Minutes(5);
  // Unrated games a session archives in an hour: once it has archived
  // this many in the hour's window, a new game cannot follow a begun one
  // (ResetGame, Rematch, ChooseSetup, a seat taken that would start the
  // next game) until the window ends: the budget Budget::kArchivedGames.
  // The game in progress is still played and archived when it ends; rated
  // games are not counted; the inactivity timeout still resets. 0: no
  // budget.
  int max_unrated_games_per_hour = 60;
  // SuggestMove searches and game analyses running at once for one client
  // address (Caller::address), within the limits above: the budgets
  // Budget::kSuggestions and Budget::kAnalyses. 0: no budget.
  int max_suggestions_per_address = 2;
  int max_analyses_per_address = 1;
  // A SuggestMove search stops after this long whatever its limits.
  absl::Duration max_suggestion_time = absl::Seconds(10);
  // Threads searching for computer seats, over all sessions.
  int computer_threads = 2;
  // A computer seat's search for one move takes at most this long (its
  // level's time limit, if any, is capped by it).
  absl::Duration computer_move_budget = absl::Seconds(2);
  // After a computer move fails to be written, the computer tries again
  // this much later.
  absl::Duration computer_retry_delay = absl::Seconds(1);
  // On a shared store, one replica at a time searches for a session's
  // computer seat: the holder of its lease (SessionStore::TryLease), which
  // it renews at every search. Longer than computer_move_budget, so that a
  // search ends within its lease; a dead holder's lease passes on after it.
  absl::Duration computer_lease_ttl = absl::Seconds(7);
  // How often a replica without the lease looks whether it ran out.
  absl::Duration computer_lease_recheck = absl::Seconds(1);
  // Transposition tables (32 MiB each) kept for the searches to reuse
  // (service/search/search_tables.h): one per search at once is enough,
  // computer_threads + max_concurrent_suggestions.
  int kept_search_tables = 6;
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_SERVICE_LIMITS_H_
