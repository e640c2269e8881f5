#include "service/store/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"

namespace khet {
namespace {

// PRAGMA application_id of a session store file ("KHET"), so that Open
// refuses some other program's database.
constexpr int64_t kApplicationId = 0x4b484554;

// kMigrations[i] takes a file from schema version i to i + 1, inside one
// transaction. Append only: never edit a migration that has shipped.
constexpr const char* kMigrations[] = {
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
static_assert(std::size(kMigrations) == SqliteStore::kSchemaVersion);

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

absl::Status NotFound(std::string_view id) {
  return absl::NotFoundError(
      absl::StrCat("no session \"", std::string(id), "\""));
}

// Resets a statement and clears its bindings when it goes out of scope, so
// that no cached statement holds a read transaction open between calls.
class StatementScope {
 public:
  explicit StatementScope(sqlite3_stmt* statement) : statement_(statement) {}
  StatementScope(const StatementScope&) = delete;
  StatementScope& operator=(const StatementScope&) = delete;
  ~StatementScope() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }

 private:
  sqlite3_stmt* statement_;
};

// A value bound as a BLOB; text binds as TEXT, integers as INTEGER.
struct Blob {
  std::string_view bytes;
};

int Bind(sqlite3_stmt* statement, int index, int64_t value) {
  return sqlite3_bind_int64(statement, index, value);
}
int Bind(sqlite3_stmt* statement, int index, double value) {
  return sqlite3_bind_double(statement, index, value);
}
int Bind(sqlite3_stmt* statement, int index, std::string_view text) {
  // A null pointer would bind SQL NULL; an empty view may have one.
  return sqlite3_bind_text64(statement, index, text.empty() ? "" : text.data(),
                             text.size(), SQLITE_STATIC, SQLITE_UTF8);
}
int Bind(sqlite3_stmt* statement, int index, Blob blob) {
  return sqlite3_bind_blob64(statement, index,
                             blob.bytes.empty() ? "" : blob.bytes.data(),
                             blob.bytes.size(), SQLITE_STATIC);
}

// Binds `values` to parameters 1, 2, ... and returns the first failure.
template <typename... Values>
int BindAll(sqlite3_stmt* statement, const Values&... values) {
  int index = 0;
  int code = SQLITE_OK;
  ((code = code == SQLITE_OK ? Bind(statement, ++index, values) : code), ...);
  return code;
}

// Steps a bound statement (`code`: the binding's result) through its rows,
// calling `row` with the statement on each; SQLITE_DONE when every row was
// read, else SQLite's error code.
template <typename RowFn>
int ForEachRow(sqlite3_stmt* statement, int code, RowFn row) {
  while (code == SQLITE_OK || code == SQLITE_ROW) {
    code = sqlite3_step(statement);
    if (code != SQLITE_ROW) break;
    row(statement);
  }
  return code;
}

std::string ColumnBytes(sqlite3_stmt* statement, int column) {
  const void* data = sqlite3_column_blob(statement, column);
  const int size = sqlite3_column_bytes(statement, column);
  if (data == nullptr) return std::string();  // an empty BLOB
  return std::string(static_cast<const char*>(data), size);
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
          sqlite3_exec(db_, kMigrations[v], nullptr, nullptr, nullptr);
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

absl::Status SqliteStore::Error(int code, std::string_view doing) {
  return absl::Status(
      CodeFor(code),
      absl::StrCat("sqlite: ", std::string(doing), ": ", sqlite3_errmsg(db_),
                   " [", code, "] in ", path_));
}

int64_t SqliteStore::NowMicros() {
  return absl::ToUnixMicros(clock_ != nullptr ? clock_->Now() : absl::Now());
}

struct SqliteStore::Write {
  enum class Kind { kCreate, kUpdate, kDelete, kAnalysis, kRating };
  Write(Kind k, std::string_view session_id,
        const SessionRecord* session = nullptr, int64_t expected = 0,
        absl::Span<const EventRecord> new_events = {},
        const ArchivedGame* game = nullptr)
      : kind(k),
        id(session_id),
        record(session),
        expected_version(expected),
        events(new_events),
        archive(game) {}

  const Kind kind;
  const std::string_view id;
  const SessionRecord* const record;           // Create and Update
  const int64_t expected_version;              // Update
  const absl::Span<const EventRecord> events;  // Create and Update
  const ArchivedGame* const archive;           // Update; may be null
  std::string_view analysis;                   // kAnalysis (id: the game's)
  const PlayerRecord* silver = nullptr;        // kRating (id: the game's)
  const PlayerRecord* red = nullptr;           // kRating

  // Set by the batch's leader, under queue_mu_.
  bool done = false;
  absl::Status status;
  CondVar cv;  // signalled when done, or when this write leads the queue
};

absl::Status SqliteStore::Create(const SessionRecord& record,
                                 absl::Span<const EventRecord> events) {
  Write write(Write::Kind::kCreate, record.id, &record, 0, events);
  return Submit(write);
}

absl::Status SqliteStore::Update(const SessionRecord& record,
                                 int64_t expected_version,
                                 absl::Span<const EventRecord> events,
                                 const ArchivedGame* archive) {
  Write write(Write::Kind::kUpdate, record.id, &record, expected_version,
              events, archive);
  return Submit(write);
}

absl::Status SqliteStore::Delete(std::string_view id) {
  Write write(Write::Kind::kDelete, id);
  absl::Status deleted = Submit(write);
  if (deleted.ok()) leases_.Drop(id);
  return deleted;
}

absl::Status SqliteStore::SetGameAnalysis(std::string_view game_id,
                                          std::string_view analysis) {
  Write write(Write::Kind::kAnalysis, game_id);
  write.analysis = analysis;
  return Submit(write);
}

absl::Status SqliteStore::ApplyRating(std::string_view game_id,
                                      const PlayerRecord& silver,
                                      const PlayerRecord& red) {
  Write write(Write::Kind::kRating, game_id);
  write.silver = &silver;
  write.red = &red;
  return Submit(write);
}

absl::StatusOr<bool> SqliteStore::TryLease(std::string_view id,
                                           std::string_view holder,
                                           absl::Time now, absl::Duration ttl) {
  absl::StatusOr<SessionRecord> session = Get(id);
  if (absl::IsNotFound(session.status())) return false;
  if (!session.ok()) return session.status();
  return leases_.TryLease(id, holder, now, ttl);
}

absl::Status SqliteStore::Submit(Write& write) {
  std::vector<Write*> batch;
  {
    MutexLock lock(&queue_mu_);
    queue_.push_back(&write);
    while (!write.done && queue_.front() != &write) {
      write.cv.WaitWithTimeout(&queue_mu_, absl::Seconds(1));
    }
    if (write.done) return write.status;
    // First in the queue: lead a batch of the oldest writes.
    const size_t size =
        std::min(queue_.size(), static_cast<size_t>(max_batch_));
    batch.assign(queue_.begin(), queue_.begin() + size);
  }
  {
    const absl::Time begun = absl::Now();
    {
      MutexLock lock(&mu_);
      CommitBatch(batch);
    }
    if (on_commit_) {
      on_commit_(static_cast<int>(batch.size()), absl::Now() - begun);
    }
  }
  MutexLock lock(&queue_mu_);
  // The batch is still the queue's front: only leaders remove writes.
  queue_.erase(queue_.begin(), queue_.begin() + batch.size());
  writes_done_ += static_cast<int64_t>(batch.size());
  ++transactions_;
  for (Write* member : batch) {
    member->done = true;
    if (member != &write) member->cv.Signal();
  }
  if (!queue_.empty()) queue_.front()->cv.Signal();  // the next leader
  return write.status;
}

void SqliteStore::CommitBatch(const std::vector<Write*>& batch) {
  absl::Status begun = Run("BEGIN IMMEDIATE");
  if (!begun.ok()) {
    for (Write* write : batch) write->status = begun;
    return;
  }
  // The members that were applied, for a failed COMMIT.
  std::vector<Write*> applied;
  for (size_t i = 0; i < batch.size(); ++i) {
    Write& write = *batch[i];
    absl::Status status = Run("SAVEPOINT member");
    if (status.ok()) status = Apply(write);
    if (status.ok()) status = Run("RELEASE member");
    if (status.ok()) {
      applied.push_back(&write);
      continue;
    }
    write.status = status;
    if (sqlite3_get_autocommit(db_) != 0) {
      // SQLite rolled the whole transaction back (an I/O error, a full
      // disk): the earlier members are undone and the rest are not tried.
      for (Write* undone : applied) undone->status = status;
      for (size_t j = i + 1; j < batch.size(); ++j) {
        batch[j]->status = status;
      }
      return;
    }
    // Undo this member alone; the transaction goes on.
    absl::Status undone = Run("ROLLBACK TO member");
    if (undone.ok()) undone = Run("RELEASE member");
    if (!undone.ok()) {
      for (Write* member : applied) member->status = undone;
      for (size_t j = i + 1; j < batch.size(); ++j) {
        batch[j]->status = undone;
      }
      Finish(undone).IgnoreError();  // rolls back
      return;
    }
  }
  const absl::Status committed = Finish(absl::OkStatus());
  if (!committed.ok()) {
    for (Write* write : applied) write->status = committed;
  }
}

absl::Status SqliteStore::Apply(const Write& write) {
  switch (write.kind) {
    case Write::Kind::kCreate:
      return CreateLocked(*write.record, write.events);
    case Write::Kind::kUpdate:
      return UpdateLocked(*write.record, write.expected_version, write.events,
                          write.archive);
    case Write::Kind::kDelete:
      return DeleteLocked(write.id);
    case Write::Kind::kAnalysis:
      return SetGameAnalysisLocked(write.id, write.analysis);
    case Write::Kind::kRating:
      return ApplyRatingLocked(write.id, *write.silver, *write.red);
  }
  return absl::InternalError("unknown kind of write");
}

SqliteWriteStats SqliteStore::write_stats() {
  MutexLock lock(&queue_mu_);
  return SqliteWriteStats{writes_done_, transactions_,
                          static_cast<int64_t>(queue_.size())};
}

absl::Status SqliteStore::CreateLocked(const SessionRecord& record,
                                       absl::Span<const EventRecord> events) {
  absl::StatusOr<int64_t> stored = StoredVersion(record.id);
  if (stored.ok()) {
    return absl::AlreadyExistsError(
        absl::StrCat("session \"", record.id, "\" already exists"));
  }
  if (!absl::IsNotFound(stored.status())) return stored.status();
  if (absl::Status s = CheckNewEvents(record.id, 0, events); !s.ok()) {
    return s;
  }
  absl::StatusOr<sqlite3_stmt*> insert = Statement(
      "INSERT INTO sessions (id, version, state, updated_unix_micros) "
      "VALUES (?, ?, ?, ?)");
  if (!insert.ok()) return insert.status();
  StatementScope scope(*insert);
  int code = BindAll(*insert, std::string_view(record.id), record.version,
                     Blob{record.state}, NowMicros());
  if (code == SQLITE_OK) code = sqlite3_step(*insert);
  if (code != SQLITE_DONE) return Error(code, "insert session");
  return InsertEvents(record.id, events);
}

absl::Status SqliteStore::UpdateLocked(const SessionRecord& record,
                                       int64_t expected_version,
                                       absl::Span<const EventRecord> events,
                                       const ArchivedGame* archive) {
  absl::StatusOr<int64_t> stored = StoredVersion(record.id);
  if (!stored.ok()) return stored.status();
  if (*stored != expected_version) {
    return absl::AbortedError(absl::StrCat("session \"", record.id,
                                           "\" is at version ", *stored,
                                           ", not ", expected_version));
  }
  absl::StatusOr<int64_t> last_event = LastEventVersion(record.id);
  if (!last_event.ok()) return last_event.status();
  if (absl::Status s = CheckNewEvents(record.id, *last_event, events);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<sqlite3_stmt*> update = Statement(
      "UPDATE sessions SET version = ?2, state = ?3, updated_unix_micros = ?4 "
      "WHERE id = ?1");
  if (!update.ok()) return update.status();
  StatementScope scope(*update);
  int code = BindAll(*update, std::string_view(record.id), record.version,
                     Blob{record.state}, NowMicros());
  if (code == SQLITE_OK) code = sqlite3_step(*update);
  if (code != SQLITE_DONE) return Error(code, "update session");
  if (archive != nullptr) {
    if (absl::Status s = InsertGame(*archive); !s.ok()) return s;
  }
  return InsertEvents(record.id, events);
}

absl::Status SqliteStore::InsertGame(const ArchivedGame& game) {
  absl::StatusOr<sqlite3_stmt*> insert = Statement(
      "INSERT INTO games (id, session_id, record, silver, red, setup_id, "
      "result, ending, started_unix_micros, ended_unix_micros, plies, "
      "silver_id, red_id) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (id) DO NOTHING");
  if (!insert.ok()) return insert.status();
  StatementScope scope(*insert);
  int code = BindAll(
      *insert, std::string_view(game.id), std::string_view(game.session_id),
      std::string_view(game.record), std::string_view(game.silver),
      std::string_view(game.red), std::string_view(game.setup_id),
      std::string_view(game.result), std::string_view(game.ending),
      absl::ToUnixMicros(game.started_at), absl::ToUnixMicros(game.ended_at),
      game.plies, std::string_view(game.silver_id),
      std::string_view(game.red_id));
  if (code == SQLITE_OK) code = sqlite3_step(*insert);
  if (code != SQLITE_DONE) return Error(code, "archive game");
  if (sqlite3_changes(db_) == 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("game \"", game.id, "\" is already archived"));
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::DeleteLocked(std::string_view id) {
  {
    absl::StatusOr<sqlite3_stmt*> remove =
        Statement("DELETE FROM sessions WHERE id = ?");
    if (!remove.ok()) return remove.status();
    StatementScope scope(*remove);
    int code = BindAll(*remove, id);
    if (code == SQLITE_OK) code = sqlite3_step(*remove);
    if (code != SQLITE_DONE) return Error(code, "delete session");
    if (sqlite3_changes(db_) == 0) return NotFound(id);
  }
  {
    absl::StatusOr<sqlite3_stmt*> remove_games =
        Statement("DELETE FROM games WHERE session_id = ?");
    if (!remove_games.ok()) return remove_games.status();
    StatementScope scope(*remove_games);
    int code = BindAll(*remove_games, id);
    if (code == SQLITE_OK) code = sqlite3_step(*remove_games);
    if (code != SQLITE_DONE) return Error(code, "delete games");
  }
  absl::StatusOr<sqlite3_stmt*> remove_events =
      Statement("DELETE FROM events WHERE session_id = ?");
  if (!remove_events.ok()) return remove_events.status();
  StatementScope scope(*remove_events);
  int code = BindAll(*remove_events, id);
  if (code == SQLITE_OK) code = sqlite3_step(*remove_events);
  return code == SQLITE_DONE ? absl::OkStatus() : Error(code, "delete events");
}

absl::Status SqliteStore::SetGameAnalysisLocked(std::string_view game_id,
                                                std::string_view analysis) {
  absl::StatusOr<sqlite3_stmt*> update =
      Statement("UPDATE games SET analysis = ?2 WHERE id = ?1");
  if (!update.ok()) return update.status();
  StatementScope scope(*update);
  int code = BindAll(*update, game_id, Blob{analysis});
  if (code == SQLITE_OK) code = sqlite3_step(*update);
  if (code != SQLITE_DONE) return Error(code, "set game analysis");
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(
        absl::StrCat("no archived game \"", std::string(game_id), "\""));
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::ApplyRatingLocked(std::string_view game_id,
                                            const PlayerRecord& silver,
                                            const PlayerRecord& red) {
  {
    absl::StatusOr<sqlite3_stmt*> select = Statement(
        "SELECT silver_id, red_id, rating_applied FROM games WHERE id = ?");
    if (!select.ok()) return select.status();
    StatementScope scope(*select);
    int code = BindAll(*select, game_id);
    if (code == SQLITE_OK) code = sqlite3_step(*select);
    if (code == SQLITE_DONE) {
      return absl::NotFoundError(
          absl::StrCat("no archived game \"", std::string(game_id), "\""));
    }
    if (code != SQLITE_ROW) return Error(code, "read rated game");
    const std::string silver_id = ColumnBytes(*select, 0);
    const std::string red_id = ColumnBytes(*select, 1);
    const bool applied = sqlite3_column_int64(*select, 2) != 0;
    if (silver_id.empty() || applied) {
      return RatingNotPending(game_id, applied);
    }
    if (silver_id != silver.id || red_id != red.id) {
      return absl::InvalidArgumentError(absl::StrCat(
          "game \"", std::string(game_id), "\" was rated between \"", silver_id,
          "\" and \"", red_id, "\", not \"", silver.id, "\" and \"", red.id,
          "\""));
    }
  }
  for (const PlayerRecord* player : {&silver, &red}) {
    absl::StatusOr<sqlite3_stmt*> select =
        Statement("SELECT games FROM players WHERE id = ?");
    if (!select.ok()) return select.status();
    StatementScope scope(*select);
    int code = BindAll(*select, std::string_view(player->id));
    if (code == SQLITE_OK) code = sqlite3_step(*select);
    if (code != SQLITE_ROW && code != SQLITE_DONE) {
      return Error(code, "read player");
    }
    const int64_t stored =
        code == SQLITE_ROW ? sqlite3_column_int64(*select, 0) : 0;
    if (stored != player->games - 1) {
      return PlayerMoved(player->id, stored, player->games);
    }
  }
  for (const PlayerRecord* player : {&silver, &red}) {
    absl::StatusOr<sqlite3_stmt*> upsert = Statement(
        "INSERT OR REPLACE INTO players (id, name, rating, deviation, "
        "volatility, games, wins, draws, losses, updated_unix_micros) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!upsert.ok()) return upsert.status();
    StatementScope scope(*upsert);
    int code = BindAll(*upsert, std::string_view(player->id),
                       std::string_view(player->name), player->rating,
                       player->deviation, player->volatility, player->games,
                       player->wins, player->draws, player->losses,
                       absl::ToUnixMicros(player->updated_at));
    if (code == SQLITE_OK) code = sqlite3_step(*upsert);
    if (code != SQLITE_DONE) return Error(code, "write player");
  }
  absl::StatusOr<sqlite3_stmt*> mark =
      Statement("UPDATE games SET rating_applied = 1 WHERE id = ?");
  if (!mark.ok()) return mark.status();
  StatementScope scope(*mark);
  int code = BindAll(*mark, game_id);
  if (code == SQLITE_OK) code = sqlite3_step(*mark);
  return code == SQLITE_DONE ? absl::OkStatus()
                             : Error(code, "mark game rated");
}

absl::StatusOr<int64_t> SqliteStore::StoredVersion(std::string_view id) {
  absl::StatusOr<sqlite3_stmt*> select =
      Statement("SELECT version FROM sessions WHERE id = ?");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code == SQLITE_DONE) return NotFound(id);
  if (code != SQLITE_ROW) return Error(code, "read session version");
  return sqlite3_column_int64(*select, 0);
}

absl::StatusOr<int64_t> SqliteStore::LastEventVersion(std::string_view id) {
  absl::StatusOr<sqlite3_stmt*> select = Statement(
      "SELECT coalesce(max(version), 0) FROM events WHERE session_id = ?");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code != SQLITE_ROW) return Error(code, "read last event version");
  return sqlite3_column_int64(*select, 0);
}

absl::Status SqliteStore::InsertEvents(std::string_view id,
                                       absl::Span<const EventRecord> events) {
  if (events.empty()) return absl::OkStatus();
  absl::StatusOr<sqlite3_stmt*> insert = Statement(
      "INSERT INTO events (session_id, version, event) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.status();
  for (const EventRecord& event : events) {
    StatementScope scope(*insert);
    int code = BindAll(*insert, id, event.version, Blob{event.event});
    if (code == SQLITE_OK) code = sqlite3_step(*insert);
    if (code != SQLITE_DONE) return Error(code, "insert event");
  }
  return absl::OkStatus();
}

absl::StatusOr<SessionRecord> SqliteStore::Get(std::string_view id) {
  MutexLock lock(&mu_);
  absl::StatusOr<sqlite3_stmt*> select =
      Statement("SELECT version, state FROM sessions WHERE id = ?");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code == SQLITE_DONE) return NotFound(id);
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
    return absl::NotFoundError(
        absl::StrCat("no archived game \"", std::string(game_id), "\""));
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
