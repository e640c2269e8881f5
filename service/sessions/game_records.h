// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A session's current game as a game record (engine/game_record.h) and as
// the store's archive keeps it.
#ifndef KHET_SERVICE_SESSIONS_GAME_RECORDS_H_
#define KHET_SERVICE_SESSIONS_GAME_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/game.h"
#include "engine/game_record.h"
#include "service/sessions/session.h"
#include "service/store/session_store.h"

namespace khet {

// The record's headers for the current game, the first of a name winning:
// Silver and Red (the players now seated, when seated), TimeControl (the
// session's clocks, if any), the headers of the record the game was
// imported from (ImportedRecord), Date (the game's start, "YYYY.MM.DD" in
// UTC), then Board (the session's name), Session and Game (the ids).
// Event is only ever an imported record's: a session is not an event.
GameHeaders RecordHeaders(const Session& s);

// The comments of the record the current game was imported from, placed as
// GameRecord::comments, as far as the game still follows its moves; none
// for a game not imported.
GameComments RecordComments(const Session& s);

// What `state` (a session's, whose current game was just replayed from
// `record` up to `plies` moves) keeps of the record for its exports (see
// SessionState.record_headers): its headers but the game's own and Board,
// Session and Game, its first `plies` moves and the comments up to them.
void KeepImportedRecord(const GameRecord& record, int plies,
                        int64_t game_number, store::SessionState* state);

// The name of a session created without one: "<setup's name> game"
// ("Classic 2 game"; "Custom position game" for a position given as text).
std::string DefaultSessionName(std::string_view setup_id);

// The same for a session created from `record`: its Board header (the
// session name khetd exports), else its Event header, when either is a
// valid display name of at most `max_characters`; else
// "<setup's name> game from a record".
std::string DefaultSessionName(const GameRecord& record,
                               std::string_view setup_id, int max_characters);

// The current game as the archive keeps it, ended now (`ended_at`): result
// "*" and ending "abandoned" unless it is over.
ArchivedGame ArchiveOf(const Session& s, absl::Time ended_at);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_GAME_RECORDS_H_
