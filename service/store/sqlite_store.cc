// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "service/store/sqlite_statements.h"

namespace khet {

using sqlite_statements::BindAll;
using sqlite_statements::ColumnBytes;
using sqlite_statements::ForEachRow;
using sqlite_statements::StatementScope;

namespace {

// PRAGMA application_id of a session store file ("KHET"), so that Open
// refuses some other program's database.
constexpr int64_t kApplicationId = 0x4b484554;

// kSqliteMigrations[i] takes a file from schema version i to i + 1, inside one
// transaction. Append only: never edit a migration that has shipped.
constexpr const char* kSqliteMigrations[] = {
    // 0 -> 1: sessions and their event logs.
    R"sql(
CREATE TABLE sessions (
  id TEXT NOT NULL PRIMARY KEY,
  version INTEGER NOT NULL,
  state BLOB NOT NULL,
  updated_unix_micros INTEGER NOT NULL
);
CREATE TABLE events (
  session_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  event BLOB NOT NULL,
  PRIMARY KEY (session_id, version)
);
)sql",
    // 1 -> 2: the archive of finished and abandoned games.
    R"sql(
CREATE TABLE games (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL,
  record TEXT NOT NULL,
  silver TEXT NOT NULL,
  red TEXT NOT NULL,
  setup_id TEXT NOT NULL,
  result TEXT NOT NULL,
  ending TEXT NOT NULL,
  started_unix_micros INTEGER NOT NULL,
  ended_unix_micros INTEGER NOT NULL,
  plies INTEGER NOT NULL
);
CREATE INDEX games_by_session ON games (session_id, sequence);
)sql",
    // 2 -> 3: the computer's analysis of an archived game.
    R"sql(
ALTER TABLE games ADD COLUMN analysis BLOB NOT NULL DEFAULT x'';
)sql",
    // 3 -> 4: rated games and the players' ratings.
    R"sql(
ALTER TABLE games ADD COLUMN silver_id TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN red_id TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN rating_applied INTEGER NOT NULL DEFAULT 0;
CREATE INDEX games_rating_pending ON games (sequence)
  WHERE silver_id <> '' AND rating_applied = 0;
CREATE TABLE players (
  id TEXT NOT NULL PRIMARY KEY,
  name TEXT NOT NULL,
  rating REAL NOT NULL,
  deviation REAL NOT NULL,
  volatility REAL NOT NULL,
  games INTEGER NOT NULL,
  wins INTEGER NOT NULL,
  draws INTEGER NOT NULL,
  losses INTEGER NOT NULL,
  updated_unix_micros INTEGER NOT NULL
);
CREATE INDEX players_by_rating ON players (rating DESC, id);
)sql",
};
static_assert(std::size(kSqliteMigrations) == SqliteStore::kSchemaVersion);

absl::StatusCode CodeFor(int sqlite_code) {
  switch (sqlite_code & 0xff) {  // the primary code of an extended one
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PROTOCOL:
    case SQLITE_NOLFS:
    case SQLITE_PERM:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kInternal;
  }
}

// Whether a failed system call's errno says the file system had no room:
// ENOSPC, EDQUOT (a quota) or EFBIG (a file size limit, RLIMIT_FSIZE).
bool IsNoRoom(int system_errno) {
  return system_errno == ENOSPC || system_errno == EDQUOT ||
         system_errno == EFBIG;
}

// The errno of the last failed system call on `file` (0 if none).
int LastErrno(sqlite3_file* file) {
  int last = 0;
  if (file != nullptr && file->pMethods != nullptr) {
    file->pMethods->xFileControl(file, SQLITE_FCNTL_LAST_ERRNO, &last);
  }
  return last;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(
    const std::string& path, const SqliteStoreOptions& options) {
  if (path.empty() || path == ":memory:") {
    return absl::InvalidArgumentError(absl::StrCat(
        "SqliteStore needs a file, not \"", path, "\" (WAL needs one)"));
  }
  sqlite3* db = nullptr;
  const int code =
      sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                          SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE,
                      nullptr);
  if (code != SQLITE_OK) {
    absl::Status status(
        CodeFor(code),
        absl::StrCat("sqlite: open ", path, ": ",
                     db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code),
                     " [", code, "]"));
    sqlite3_close(db);
    return status;
  }
  if (options.max_batch < 1) {
    sqlite3_close(db);
    return absl::InvalidArgumentError(absl::StrCat(
        "SqliteStore max_batch must be >= 1, not ", options.max_batch));
  }
  std::unique_ptr<SqliteStore> store(new SqliteStore(db, path, options));
  {
    MutexLock lock(&store->mu_);
    if (absl::Status s = store->Configure(options); !s.ok()) return s;
    if (absl::Status s = store->Migrate(); !s.ok()) return s;
  }
  return store;
}

SqliteStore::SqliteStore(sqlite3* db, std::string path,
                         const SqliteStoreOptions& options)
    : path_(std::move(path)),
      clock_(options.clock),
      max_batch_(options.max_batch),
      events_kept_(options.events_kept),
      on_commit_(options.on_commit),
      db_(db) {}

SqliteStore::~SqliteStore() {
  MutexLock lock(&mu_);
  for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
  // Every statement is finalized, so this closes the file (and checkpoints
  // the write-ahead log into it when this is the last connection).
  sqlite3_close(db_);
}

absl::Status SqliteStore::Configure(const SqliteStoreOptions& options) {
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(
      db_, static_cast<int>(absl::ToInt64Milliseconds(options.busy_timeout)));
  absl::StatusOr<sqlite3_stmt*> journal = Statement("PRAGMA journal_mode=WAL");
  if (!journal.ok()) return journal.status();
  StatementScope scope(*journal);
  const int code = sqlite3_step(*journal);
  if (code != SQLITE_ROW) return Error(code, "set journal_mode=WAL");
  const std::string mode = ColumnBytes(*journal, 0);
  if (mode != "wal") {
    return absl::FailedPreconditionError(absl::StrCat(
        "sqlite: ", path_, ": journal_mode is \"", mode, "\", not \"wal\""));
  }
  // FULL syncs the log at every commit: an OK write survives power loss.
  return Run("PRAGMA synchronous=FULL");
}

absl::Status SqliteStore::Migrate() {
  if (absl::Status s = Run("BEGIN IMMEDIATE"); !s.ok()) return s;
  auto read_pragma = [this](const char* sql) -> absl::StatusOr<int64_t> {
    mu_.AssertHeld();
    absl::StatusOr<sqlite3_stmt*> statement = Statement(sql);
    if (!statement.ok()) return statement.status();
    StatementScope scope(*statement);
    const int code = sqlite3_step(*statement);
    if (code != SQLITE_ROW) return Error(code, sql);
    return sqlite3_column_int64(*statement, 0);
  };
  auto migrate = [&]() -> absl::Status {
    mu_.AssertHeld();
    absl::StatusOr<int64_t> application_id =
        read_pragma("PRAGMA application_id");
    if (!application_id.ok()) return application_id.status();
    absl::StatusOr<int64_t> version = read_pragma("PRAGMA user_version");
    if (!version.ok()) return version.status();
    const bool fresh = *application_id == 0 && *version == 0;
    if (!fresh && *application_id != kApplicationId) {
      return absl::FailedPreconditionError(absl::StrCat(
          "sqlite: ", path_, " is not a session store (application_id ",
          *application_id, ", user_version ", *version, ")"));
    }
    if (*version > kSchemaVersion) {
      return absl::FailedPreconditionError(
          absl::StrCat("sqlite: ", path_, " has schema version ", *version,
                       ", newer than this build's ", kSchemaVersion));
    }
    if (*version == kSchemaVersion) return absl::OkStatus();
    for (int64_t v = *version; v < kSchemaVersion; ++v) {
      const int code =
          sqlite3_exec(db_, kSqliteMigrations[v], nullptr, nullptr, nullptr);
      if (code != SQLITE_OK) {
        return Error(code, absl::StrCat("migrate schema ", v, " -> ", v + 1));
      }
    }
    const std::string stamp =
        absl::StrCat("PRAGMA application_id=", kApplicationId,
                     "; PRAGMA user_version=", kSchemaVersion);
    const int code =
        sqlite3_exec(db_, stamp.c_str(), nullptr, nullptr, nullptr);
    return code == SQLITE_OK ? absl::OkStatus()
                             : Error(code, "stamp schema version");
  };
  return Finish(migrate());
}

absl::StatusOr<sqlite3_stmt*> SqliteStore::Statement(const char* sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) return it->second;
  sqlite3_stmt* statement = nullptr;
  const int code = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                      &statement, nullptr);
  if (code != SQLITE_OK) {
    sqlite3_finalize(statement);
    return Error(code, absl::StrCat("prepare \"", sql, "\""));
  }
  statements_.emplace(sql, statement);
  return statement;
}

absl::Status SqliteStore::Run(const char* sql) {
  absl::StatusOr<sqlite3_stmt*> statement = Statement(sql);
  if (!statement.ok()) return statement.status();
  StatementScope scope(*statement);
  int code;
  do {
    code = sqlite3_step(*statement);
  } while (code == SQLITE_ROW);
  return code == SQLITE_DONE ? absl::OkStatus() : Error(code, sql);
}

absl::Status SqliteStore::Finish(absl::Status status) {
  if (status.ok()) status = Run("COMMIT");
  // A failed COMMIT may leave the transaction open (or SQLite may already
  // have rolled it back, after an I/O error).
  if (!status.ok() && sqlite3_get_autocommit(db_) == 0) {
    Run("ROLLBACK").IgnoreError();  // the first error is the one to report
  }
  return status;
}

int SqliteStore::NoRoomErrno(int code) {
  if ((code & 0xff) == SQLITE_FULL) return ENOSPC;
  if ((code & 0xff) != SQLITE_IOERR) return 0;
  // SQLite reports EFBIG, EDQUOT (and ENOSPC after a short write) as a
  // failed write, and its own errno (sqlite3_system_errno) is not set on
  // a COMMIT's path: the files' last errors tell. Most writes that fail
  // go to the write-ahead log, the rest (checkpoints) to the main file.
  sqlite3_file* file = nullptr;
  for (const int op :
       {SQLITE_FCNTL_JOURNAL_POINTER, SQLITE_FCNTL_FILE_POINTER}) {
    if (sqlite3_file_control(db_, "main", op, &file) != SQLITE_OK) continue;
    if (const int last = LastErrno(file); IsNoRoom(last)) {
      return last;
    }
  }
  return 0;
}

absl::Status SqliteStore::Error(int code, std::string_view doing) {
  if (const int system_errno = NoRoomErrno(code); system_errno != 0) {
    return absl::UnavailableError(absl::StrCat(
        kDiskFull, " (sqlite: ", std::string(doing), ": ", sqlite3_errmsg(db_),
        " [", code, "], ", std::strerror(system_errno), ", in ", path_, ")"));
  }
  return absl::Status(
      CodeFor(code),
      absl::StrCat("sqlite: ", std::string(doing), ": ", sqlite3_errmsg(db_),
                   " [", code, "] in ", path_));
}

absl::StatusOr<SessionRecord> SqliteStore::Get(std::string_view id) {
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select =
      Statement("SELECT version, state FROM sessions WHERE id = ?");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code == SQLITE_DONE) return SessionNotStored(id);
  if (code != SQLITE_ROW) return Error(code, "read session");
  SessionRecord record;
  record.id = std::string(id);
  record.version = sqlite3_column_int64(*select, 0);
  record.state = ColumnBytes(*select, 1);
  return record;
}

namespace {

constexpr char kGameColumns[] =
    "sequence, id, session_id, record, silver, red, setup_id, result, "
    "ending, started_unix_micros, ended_unix_micros, plies, analysis, "
    "silver_id, red_id, rating_applied";

ArchivedGame GameFromRow(sqlite3_stmt* row) {
  ArchivedGame game;
  game.sequence = sqlite3_column_int64(row, 0);
  game.id = ColumnBytes(row, 1);
  game.session_id = ColumnBytes(row, 2);
  game.record = ColumnBytes(row, 3);
  game.silver = ColumnBytes(row, 4);
  game.red = ColumnBytes(row, 5);
  game.setup_id = ColumnBytes(row, 6);
  game.result = ColumnBytes(row, 7);
  game.ending = ColumnBytes(row, 8);
  game.started_at = absl::FromUnixMicros(sqlite3_column_int64(row, 9));
  game.ended_at = absl::FromUnixMicros(sqlite3_column_int64(row, 10));
  game.plies = sqlite3_column_int64(row, 11);
  game.analysis = ColumnBytes(row, 12);
  game.silver_id = ColumnBytes(row, 13);
  game.red_id = ColumnBytes(row, 14);
  game.rating_applied = sqlite3_column_int64(row, 15) != 0;
  return game;
}

constexpr char kPlayerColumns[] =
    "id, name, rating, deviation, volatility, games, wins, draws, losses, "
    "updated_unix_micros";

PlayerRecord PlayerFromRow(sqlite3_stmt* row) {
  PlayerRecord player;
  player.id = ColumnBytes(row, 0);
  player.name = ColumnBytes(row, 1);
  player.rating = sqlite3_column_double(row, 2);
  player.deviation = sqlite3_column_double(row, 3);
  player.volatility = sqlite3_column_double(row, 4);
  player.games = sqlite3_column_int64(row, 5);
  player.wins = sqlite3_column_int64(row, 6);
  player.draws = sqlite3_column_int64(row, 7);
  player.losses = sqlite3_column_int64(row, 8);
  player.updated_at = absl::FromUnixMicros(sqlite3_column_int64(row, 9));
  return player;
}

}  // namespace

absl::StatusOr<ArchivedGame> SqliteStore::GetGame(std::string_view game_id) {
  static const std::string sql =
      absl::StrCat("SELECT ", kGameColumns, " FROM games WHERE id = ?");
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select = Statement(sql.c_str());
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, game_id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code == SQLITE_DONE) {
    return GameNotArchived(game_id);
  }
  if (code != SQLITE_ROW) return Error(code, "read game");
  return GameFromRow(*select);
}

absl::StatusOr<std::vector<ArchivedGame>> SqliteStore::ListGames(
    const GameQuery& query) {
  static const std::string sql = absl::StrCat(
      "SELECT ", kGameColumns,
      " FROM games WHERE (?1 = '' OR session_id = ?1) AND "
      "(?2 = '' OR silver = ?2 OR red = ?2) AND (?3 = '' OR setup_id = ?3) "
      "AND (?4 = '' OR result = ?4) AND (?5 <= 0 OR sequence < ?5) "
      "ORDER BY sequence DESC LIMIT ?6");
  std::vector<ArchivedGame> games;
  if (query.limit <= 0) return games;
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select = Statement(sql.c_str());
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code =
      BindAll(*select, std::string_view(query.session_id),
              std::string_view(query.player), std::string_view(query.setup_id),
              std::string_view(query.result), query.before_sequence,
              int64_t{query.limit});
  code = ForEachRow(*select, code, [&](sqlite3_stmt* row) {
    games.push_back(GameFromRow(row));
  });
  if (code != SQLITE_DONE) return Error(code, "list games");
  return games;
}

absl::StatusOr<std::vector<SessionRecord>> SqliteStore::LoadAll() {
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select =
      Statement("SELECT id, version, state FROM sessions ORDER BY id");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  std::vector<SessionRecord> all;
  int code;
  while ((code = sqlite3_step(*select)) == SQLITE_ROW) {
    SessionRecord& record = all.emplace_back();
    record.id = ColumnBytes(*select, 0);
    record.version = sqlite3_column_int64(*select, 1);
    record.state = ColumnBytes(*select, 2);
  }
  if (code != SQLITE_DONE) return Error(code, "read sessions");
  return all;
}

absl::StatusOr<std::vector<EventRecord>> SqliteStore::EventsAfter(
    std::string_view id, int64_t after_version, int limit) {
  std::vector<EventRecord> events;
  if (limit <= 0) return events;  // SQLite reads a negative LIMIT as none
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select = Statement(
      "SELECT version, event FROM events WHERE session_id = ? AND version > ? "
      "ORDER BY version LIMIT ?");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, id, after_version, int64_t{limit});
  code = ForEachRow(*select, code, [&](sqlite3_stmt* row) {
    events.push_back({sqlite3_column_int64(row, 0), ColumnBytes(row, 1)});
  });
  if (code != SQLITE_DONE) return Error(code, "read events");
  return events;
}

absl::StatusOr<PlayerRecord> SqliteStore::GetPlayer(
    std::string_view player_id) {
  static const std::string sql =
      absl::StrCat("SELECT ", kPlayerColumns, " FROM players WHERE id = ?");
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select = Statement(sql.c_str());
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, player_id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code == SQLITE_DONE) return NoPlayer(player_id);
  if (code != SQLITE_ROW) return Error(code, "read player");
  return PlayerFromRow(*select);
}

absl::StatusOr<std::vector<PlayerRecord>> SqliteStore::ListPlayers(
    int64_t offset, int limit) {
  static const std::string sql =
      absl::StrCat("SELECT ", kPlayerColumns,
                   " FROM players ORDER BY rating DESC, id LIMIT ? OFFSET ?");
  std::vector<PlayerRecord> players;
  if (limit <= 0) return players;
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select = Statement(sql.c_str());
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, int64_t{limit}, std::max<int64_t>(offset, 0));
  code = ForEachRow(*select, code, [&](sqlite3_stmt* row) {
    players.push_back(PlayerFromRow(row));
  });
  if (code != SQLITE_DONE) return Error(code, "list players");
  return players;
}

absl::StatusOr<std::vector<ArchivedGame>> SqliteStore::PendingRatedGames(
    int limit) {
  static const std::string sql =
      absl::StrCat("SELECT ", kGameColumns,
                   " FROM games WHERE silver_id <> '' AND rating_applied = 0 "
                   "ORDER BY sequence LIMIT ?");
  std::vector<ArchivedGame> games;
  if (limit <= 0) return games;
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select = Statement(sql.c_str());
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, int64_t{limit});
  code = ForEachRow(*select, code, [&](sqlite3_stmt* row) {
    games.push_back(GameFromRow(row));
  });
  if (code != SQLITE_DONE) return Error(code, "list pending rated games");
  return games;
}

}  // namespace khet
