// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The archive of games and game records: GetGameRecord, ListGames,
// GetPosition, and CreateSession from a record. Games reach the archive
// through SessionRegistry's writes (see Session::TakeAbandoned and
// Session::NeedsArchiving); these handlers read it.
#ifndef KHET_SERVICE_ARCHIVE_GAME_ARCHIVE_H_
#define KHET_SERVICE_ARCHIVE_GAME_ARCHIVE_H_

#include <string>

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/sessions/service_core.h"

namespace khet {

// A game as the calls below find it: its summary and record.
struct FoundGame {
  v1::GameSummary summary;
  std::string text;  // the game record
  // Its analysis (a serialized v1::GameAnalysis) when asked for and made;
  // else empty.
  std::string analysis;
};

// The current game (game_id empty or "current", or the current game's id)
// or an archived game of the session. NOT_FOUND for an unknown session or
// a game the session does not have. `with_analysis` reads the analysis of
// an archived game (the current one too, once archived).
absl::StatusOr<FoundGame> FindGame(const ServiceCore& core,
                                   const std::string& session_id,
                                   const std::string& game_id,
                                   bool with_analysis = false);

// The game FindGame finds, with its record and, once made, its analysis
// (and the analysis's comments in the record's text).
absl::StatusOr<v1::GetGameRecordResponse> GetGameRecord(
    const ServiceCore& core, const v1::GetGameRecordRequest& request);

// Archived games, newest first. NOT_FOUND for an unknown session_id;
// INVALID_ARGUMENT for a result other than the four tokens, a negative
// page_size, a bad page_token or a player name that is too long.
absl::StatusOr<v1::ListGamesResponse> ListGames(
    const ServiceCore& core, const v1::ListGamesRequest& request);

// A ply of a game, as GetGameRecord finds the game; INVALID_ARGUMENT for a
// ply outside 0 to the game's plies.
absl::StatusOr<v1::GetPositionResponse> GetPosition(
    const ServiceCore& core, const v1::GetPositionRequest& request);

// CreateSession with a record (or a ply): the record replayed, see
// CreateSessionRequest.record. INVALID_ARGUMENT for a record beside
// setup_id, position or rules, a ply without a record or below 0 or beyond
// the record's moves, a record longer than max_record_length, or one that
// does not parse (the parser's message: its line and move).
// The session's creator is `caller`'s address (Session::set_creator).
absl::StatusOr<v1::CreateSessionResponse> CreateSessionFromRecord(
    const ServiceCore& core, const v1::CreateSessionRequest& request,
    const Caller& caller);

}  // namespace khet

#endif  // KHET_SERVICE_ARCHIVE_GAME_ARCHIVE_H_
