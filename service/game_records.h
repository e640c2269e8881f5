// A session's current game as a game record (engine/game_record.h) and as
// the store's archive keeps it.
#ifndef KHET_SERVICE_GAME_RECORDS_H_
#define KHET_SERVICE_GAME_RECORDS_H_

#include <string>
#include <string_view>

#include "engine/game.h"
#include "engine/game_record.h"
#include "service/session.h"
#include "service/store/session_store.h"

namespace khet {

// The record's headers for the current game: Event (the session's name),
// Date (the game's start, "YYYY.MM.DD" in UTC), Silver and Red (the
// players now seated, when seated), then Session and Game (the ids).
GameHeaders RecordHeaders(const Session& s);

// The current game as the archive keeps it, ended now (`ended_at`): result
// "*" and ending "abandoned" unless it is over.
ArchivedGame ArchiveOf(const Session& s, absl::Time ended_at);

}  // namespace khet

#endif  // KHET_SERVICE_GAME_RECORDS_H_
