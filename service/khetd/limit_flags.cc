// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/khetd/limit_flags.h"

#include <cstdint>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/time/time.h"

ABSL_FLAG(int, max_sessions, khet::ServiceLimits().max_sessions,
          "Sessions the server holds at most");
ABSL_FLAG(int, max_watchers_per_session,
          khet::ServiceLimits().max_watchers_per_session,
          "Concurrent Watch streams per session at most");
ABSL_FLAG(int, max_watchers, khet::ServiceLimits().max_watchers,
          "Watchers over all sessions at most: gRPC Watch streams, HTTP long "
          "polls and event streams together");
ABSL_FLAG(int, computer_threads, khet::ServiceLimits().computer_threads,
          "Threads searching for the computer's seats, over all sessions");
ABSL_FLAG(int, computer_move_budget_ms,
          static_cast<int>(absl::ToInt64Milliseconds(
              khet::ServiceLimits().computer_move_budget)),
          "The longest a computer seat searches for one move, in ms");
ABSL_FLAG(int, max_concurrent_suggestions,
          khet::ServiceLimits().max_concurrent_suggestions,
          "SuggestMove searches running at once at most");
ABSL_FLAG(int, max_concurrent_analyses,
          khet::ServiceLimits().max_concurrent_analyses,
          "Games analysed by the computer at once at most (AnalyzeGame)");
ABSL_FLAG(int, computer_lease_ttl_ms,
          static_cast<int>(absl::ToInt64Milliseconds(
              khet::ServiceLimits().computer_lease_ttl)),
          "On a shared store, how long a replica's lease on a computer seat "
          "lasts unrenewed before another replica takes it over, in ms");
ABSL_FLAG(int, min_timeout_seconds,
          static_cast<int>(khet::ServiceLimits().min_timeout_seconds),
          "The shortest inactivity timeout a session may set");
ABSL_FLAG(int, max_suggestion_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::ServiceLimits().max_suggestion_time)),
          "The longest a SuggestMove search runs, whatever its deadline");
ABSL_FLAG(int, max_unclaimed_sessions_per_address,
          khet::ServiceLimits().max_unclaimed_sessions_per_address,
          "Sessions nobody has joined (no seat ever taken) that one client "
          "address may hold; CreateSession beyond: RESOURCE_EXHAUSTED; an "
          "in-world object counts as a caller of its own; 0: no budget");
ABSL_FLAG(int, inworld_max_unclaimed_sessions_per_address,
          khet::ServiceLimits().inworld_max_unclaimed_sessions_per_address,
          "Sessions nobody has joined that one address's in-world objects "
          "may hold together; 0: object keys are ignored for this budget");
ABSL_FLAG(int, unclaimed_session_timeout_seconds,
          static_cast<int>(absl::ToInt64Seconds(
              khet::ServiceLimits().unclaimed_session_timeout)),
          "A session on which no seat was ever taken is removed this long "
          "after its creation (at the next sweep, --timeout_sweep_seconds)");
ABSL_FLAG(int, max_unrated_games_per_hour,
          khet::ServiceLimits().max_unrated_games_per_hour,
          "Unrated games one session may archive in an hour; beyond, no new "
          "game follows a finished or abandoned one (reset, rematch, setup, "
          "a seat that starts the next game: RESOURCE_EXHAUSTED) until the "
          "hour is over; the game in progress is still played; 0: no budget");
ABSL_FLAG(int, max_suggestions_per_address,
          khet::ServiceLimits().max_suggestions_per_address,
          "SuggestMove searches at once for one client address, within "
          "--max_concurrent_suggestions; 0: no budget");
ABSL_FLAG(int, max_analyses_per_address,
          khet::ServiceLimits().max_analyses_per_address,
          "Game analyses at once for one client address, within "
          "--max_concurrent_analyses; 0: no budget");

namespace khet {

absl::StatusOr<ServiceLimits> ReadLimitFlags() {
  ServiceLimits limits;
  limits.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  limits.max_watchers_per_session =
      absl::GetFlag(FLAGS_max_watchers_per_session);
  limits.max_watchers = absl::GetFlag(FLAGS_max_watchers);
  limits.computer_threads = absl::GetFlag(FLAGS_computer_threads);
  limits.computer_move_budget =
      absl::Milliseconds(absl::GetFlag(FLAGS_computer_move_budget_ms));
  limits.max_concurrent_suggestions =
      absl::GetFlag(FLAGS_max_concurrent_suggestions);
  limits.max_concurrent_analyses = absl::GetFlag(FLAGS_max_concurrent_analyses);
  limits.max_suggestion_time =
      absl::Seconds(absl::GetFlag(FLAGS_max_suggestion_seconds));
  limits.computer_lease_ttl =
      absl::Milliseconds(absl::GetFlag(FLAGS_computer_lease_ttl_ms));
  limits.min_timeout_seconds = absl::GetFlag(FLAGS_min_timeout_seconds);
  limits.max_unclaimed_sessions_per_address =
      absl::GetFlag(FLAGS_max_unclaimed_sessions_per_address);
  limits.inworld_max_unclaimed_sessions_per_address =
      absl::GetFlag(FLAGS_inworld_max_unclaimed_sessions_per_address);
  limits.unclaimed_session_timeout =
      absl::Seconds(absl::GetFlag(FLAGS_unclaimed_session_timeout_seconds));
  limits.max_unrated_games_per_hour =
      absl::GetFlag(FLAGS_max_unrated_games_per_hour);
  limits.max_suggestions_per_address =
      absl::GetFlag(FLAGS_max_suggestions_per_address);
  limits.max_analyses_per_address =
      absl::GetFlag(FLAGS_max_analyses_per_address);
  auto bad = [](const char* message) {
    return absl::InvalidArgumentError(message);
  };
  if (limits.max_sessions < 1) return bad("--max_sessions must be >= 1");
  if (limits.max_watchers_per_session < 1) {
    return bad("--max_watchers_per_session must be >= 1");
  }
  if (limits.max_watchers < 1) return bad("--max_watchers must be >= 1");
  if (limits.computer_threads < 1 || limits.computer_threads > 64) {
    return bad("--computer_threads must be 1 to 64");
  }
  if (limits.computer_move_budget < absl::Milliseconds(1)) {
    return bad("--computer_move_budget_ms must be >= 1");
  }
  if (limits.computer_lease_ttl <= limits.computer_move_budget) {
    return bad("--computer_lease_ttl_ms must exceed --computer_move_budget_ms");
  }
  if (limits.min_timeout_seconds < 1 || limits.min_timeout_seconds > 604800) {
    return bad("--min_timeout_seconds must be 1 to 604800");
  }
  if (limits.max_unclaimed_sessions_per_address < 0 ||
      limits.inworld_max_unclaimed_sessions_per_address < 0) {
    return bad(
        "--max_unclaimed_sessions_per_address and "
        "--inworld_max_unclaimed_sessions_per_address must be >= 0");
  }
  if (limits.max_unrated_games_per_hour < 0 ||
      limits.max_suggestions_per_address < 0 ||
      limits.max_analyses_per_address < 0) {
    return bad(
        "--max_unrated_games_per_hour, --max_suggestions_per_address and "
        "--max_analyses_per_address must be >= 0");
  }
  if (limits.unclaimed_session_timeout < absl::Seconds(1)) {
    return bad("--unclaimed_session_timeout_seconds must be >= 1");
  }
  if (limits.max_concurrent_suggestions < 1) {
    return bad("--max_concurrent_suggestions must be >= 1");
  }
  if (limits.max_concurrent_analyses < 1) {
    return bad("--max_concurrent_analyses must be >= 1");
  }
  if (limits.max_suggestion_time < absl::Seconds(1)) {
    return bad("--max_suggestion_seconds must be >= 1");
  }
  return limits;
}

}  // namespace khet
