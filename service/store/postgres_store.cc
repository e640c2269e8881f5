#include "service/store/postgres_store.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "service/status_macros.h"

namespace khet {
namespace {

// kMigrations[i] is migration i + 1, run inside the migrating transaction.
// Append only: never edit a migration that has shipped.
constexpr const char* kMigrations[] = {
    // 1: sessions and their event logs.
    R"sql(
CREATE TABLE khet_sessions (
  id text PRIMARY KEY,
  version bigint NOT NULL,
  state bytea NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE TABLE khet_events (
  session_id text NOT NULL,
  version bigint NOT NULL,
  event bytea NOT NULL,
  PRIMARY KEY (session_id, version)
);
)sql",
};
static_assert(std::size(kMigrations) == PostgresStore::kSchemaVersion);

// The advisory lock key that serialises migrations ("KHET").
constexpr int64_t kMigrationLock = 0x4b484554;

// Prepared on every pooled connection, by name.
struct StatementText {
  const char* name;
  const char* sql;
  int params;
};
constexpr StatementText kStatements[] = {
    {"get", "SELECT version, state FROM khet_sessions WHERE id = $1", 1},
    {"lock",
     "SELECT s.version, (SELECT coalesce(max(e.version), 0) FROM khet_events e "
     "WHERE e.session_id = s.id) FROM khet_sessions s WHERE s.id = $1 "
     "FOR UPDATE OF s",
     1},
    {"update",
     "UPDATE khet_sessions SET version = $2, state = $3, updated_at = now() "
     "WHERE id = $1",
     3},
    {"insert_session",
     "INSERT INTO khet_sessions (id, version, state, updated_at) "
     "VALUES ($1, $2, $3, now()) ON CONFLICT (id) DO NOTHING",
     3},
    {"insert_event",
     "INSERT INTO khet_events (session_id, version, event) VALUES ($1, $2, $3)",
     3},
    {"delete_session", "DELETE FROM khet_sessions WHERE id = $1", 1},
    {"delete_events", "DELETE FROM khet_events WHERE session_id = $1", 1},
    {"notify", "SELECT pg_notify($1, $2)", 2},
    {"load_all", "SELECT id, version, state FROM khet_sessions ORDER BY id", 0},
    {"versions", "SELECT id, version FROM khet_sessions", 0},
    {"events_after",
     "SELECT version, event FROM khet_events WHERE session_id = $1 AND "
     "version > $2 ORDER BY version LIMIT $3",
     3},
};

absl::Status NotFound(std::string_view id) {
  return absl::NotFoundError(
      absl::StrCat("no session \"", std::string(id), "\""));
}

// The status for a SQLSTATE; see the header's list of errors.
absl::StatusCode CodeFor(const std::string& sqlstate) {
  if (absl::StartsWith(sqlstate, "08") || absl::StartsWith(sqlstate, "53") ||
      absl::StartsWith(sqlstate, "57P") || sqlstate == "40001" ||
      sqlstate == "40P01") {
    return absl::StatusCode::kUnavailable;
  }
  if (absl::StartsWith(sqlstate, "22")) {
    return absl::StatusCode::kInvalidArgument;
  }
  return absl::StatusCode::kInternal;
}

// A parameter: text (ids, numbers as decimal) or binary (bytea).
struct Param {
  std::string_view bytes;
  bool binary = false;
};
Param Text(std::string_view text) { return Param{text, false}; }
Param Binary(std::string_view bytes) { return Param{bytes, true}; }

}  // namespace

// Owns a PGresult.
class PostgresStore::Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}
  Result(Result&& other) : result_(std::exchange(other.result_, nullptr)) {}
  Result& operator=(Result&&) = delete;
  ~Result() { PQclear(result_); }
  PGresult* get() const { return result_; }
  int rows() const { return PQntuples(result_); }
  std::string Bytes(int row, int column) const {
    return std::string(PQgetvalue(result_, row, column),
                       PQgetlength(result_, row, column));
  }
  // A bigint column in binary format: 8 bytes, most significant first.
  int64_t Int(int row, int column) const {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(
        PQgetvalue(result_, row, column));
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value = value << 8 | p[i];
    return static_cast<int64_t>(value);
  }

 private:
  PGresult* result_;
};

// One libpq connection and the statements prepared on it. Used by one
// thread at a time.
class PostgresStore::Connection {
 public:
  // Opens a connection; UNAVAILABLE naming the reason if it fails.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(
      const std::string& conninfo, absl::Duration timeout) {
    const std::string seconds =
        absl::StrCat(std::max<int64_t>(1, absl::ToInt64Seconds(timeout)));
    const char* keys[] = {"dbname", "connect_timeout", nullptr};
    const char* values[] = {conninfo.c_str(), seconds.c_str(), nullptr};
    PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
    auto connection = std::unique_ptr<Connection>(new Connection(conn));
    if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
      return absl::UnavailableError(absl::StrCat(
          "postgres: cannot connect: ",
          conn != nullptr ? Trimmed(PQerrorMessage(conn)) : "out of memory"));
    }
    // Notices (e.g. "relation already exists, skipping") are not errors.
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
    return connection;
  }

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { PQfinish(conn_); }

  PGconn* conn() const { return conn_; }
  // False once the server connection was lost; the pool then drops it.
  bool usable() const { return PQstatus(conn_) == CONNECTION_OK; }

  // Runs SQL without parameters (BEGIN, COMMIT, DDL, LISTEN).
  absl::StatusOr<Result> Exec(const char* sql, std::string_view doing) {
    Result result(PQexec(conn_, sql));
    KHET_RETURN_IF_ERROR(Check(result, doing));
    return result;
  }

  // Runs the prepared statement `name` (preparing every statement on first
  // use) with text or binary parameters; results come in binary.
  absl::StatusOr<Result> Run(const char* name,
                             std::initializer_list<Param> params,
                             std::string_view doing) {
    if (!prepared_) {
      for (const StatementText& s : kStatements) {
        Result result(PQprepare(conn_, s.name, s.sql, s.params, nullptr));
        if (absl::Status status =
                Check(result, absl::StrCat("prepare ", s.name));
            !status.ok()) {
          return status;
        }
      }
      prepared_ = true;
    }
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (const Param& p : params) {
      values.push_back(p.bytes.empty() ? "" : p.bytes.data());
      lengths.push_back(static_cast<int>(p.bytes.size()));
      formats.push_back(p.binary ? 1 : 0);
    }
    // Text parameters need a terminating NUL: copy them.
    std::vector<std::string> texts;
    texts.reserve(values.size());
    size_t i = 0;
    for (const Param& p : params) {
      if (!p.binary) {
        texts.emplace_back(p.bytes);
        values[i] = texts.back().c_str();
      }
      ++i;
    }
    Result result(PQexecPrepared(conn_, name, static_cast<int>(values.size()),
                                 values.data(), lengths.data(), formats.data(),
                                 /*resultFormat=*/1));
    KHET_RETURN_IF_ERROR(Check(result, doing));
    return result;
  }

  // OK for a successful command or query; otherwise the error, as the
  // header describes, naming what was being done.
  absl::Status Check(const Result& result, std::string_view doing) {
    const ExecStatusType status = result.get() != nullptr
                                      ? PQresultStatus(result.get())
                                      : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      return absl::OkStatus();
    }
    if (!usable()) {
      return absl::UnavailableError(absl::StrCat(
          "postgres: connection lost while trying to ", std::string(doing),
          ": ", Trimmed(PQerrorMessage(conn_))));
    }
    const char* sqlstate =
        result.get() != nullptr
            ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE)
            : nullptr;
    const std::string state = sqlstate != nullptr ? sqlstate : "";
    const std::string message =
        Trimmed(result.get() != nullptr ? PQresultErrorMessage(result.get())
                                        : PQerrorMessage(conn_));
    return absl::Status(
        state.empty() ? absl::StatusCode::kInternal : CodeFor(state),
        absl::StrCat("postgres: ", std::string(doing), ": ", message,
                     " [SQLSTATE ", state, "]"));
  }

  static std::string Trimmed(const char* message) {
    std::string out = message != nullptr ? message : "";
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) {
      out.pop_back();
    }
    return out;
  }

 private:
  explicit Connection(PGconn* conn) : conn_(conn) {}

  PGconn* const conn_;
  bool prepared_ = false;
};

// A pooled connection, handed back to the pool when destroyed.
class PostgresStore::Lease {
 public:
  Lease(PostgresStore* store, std::unique_ptr<Connection> connection)
      : store_(store), connection_(std::move(connection)) {}
  Lease(Lease&& other)
      : store_(other.store_), connection_(std::move(other.connection_)) {}
  Lease& operator=(Lease&&) = delete;
  ~Lease() {
    if (connection_ != nullptr) store_->Release(std::move(connection_));
  }
  Connection& operator*() const { return *connection_; }
  Connection* operator->() const { return connection_.get(); }

 private:
  PostgresStore* store_;
  std::unique_ptr<Connection> connection_;
};

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(
    const std::string& conninfo, const PostgresStoreOptions& options) {
  if (options.connections < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("PostgresStore needs at least 1 connection, not ",
                     options.connections));
  }
  std::unique_ptr<PostgresStore> store(new PostgresStore(conninfo, options));
  absl::StatusOr<Lease> lease = store->Acquire();
  if (!lease.ok()) return lease.status();
  Connection& c = **lease;
  // Migrations: one transaction, serialised across processes by the lock.
  auto migrate = [&]() -> absl::Status {
    KHET_RETURN_IF_ERROR(c.Exec(absl::StrCat("SELECT pg_advisory_xact_lock(",
                                             kMigrationLock, ")")
                                    .c_str(),
                                "take the migration lock")
                             .status());
    KHET_RETURN_IF_ERROR(
        c.Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
               "version integer PRIMARY KEY, "
               "applied_at timestamptz NOT NULL DEFAULT now())",
               "create schema_migrations")
            .status());
    absl::StatusOr<Result> applied =
        c.Exec("SELECT coalesce(max(version), 0)::text FROM schema_migrations",
               "read schema_migrations");
    if (!applied.ok()) return applied.status();
    int64_t version = 0;
    if (!absl::SimpleAtoi(applied->Bytes(0, 0), &version)) {
      return absl::InternalError("postgres: unreadable schema_migrations");
    }
    if (version > kSchemaVersion) {
      return absl::FailedPreconditionError(
          absl::StrCat("postgres: the database has schema migration ", version,
                       ", newer than this build's ", kSchemaVersion));
    }
    for (int64_t v = version; v < kSchemaVersion; ++v) {
      KHET_RETURN_IF_ERROR(
          c.Exec(kMigrations[v], absl::StrCat("apply migration ", v + 1))
              .status());
      KHET_RETURN_IF_ERROR(
          c.Exec(absl::StrCat("INSERT INTO schema_migrations (version) "
                              "VALUES (",
                              v + 1, ")")
                     .c_str(),
                 "record the migration")
              .status());
    }
    return absl::OkStatus();
  };
  KHET_RETURN_IF_ERROR(c.Exec("BEGIN", "begin").status());
  absl::Status migrated = migrate();
  if (migrated.ok()) migrated = c.Exec("COMMIT", "commit migrations").status();
  if (!migrated.ok()) {
    if (c.usable()) c.Exec("ROLLBACK", "roll back").IgnoreError();
    return migrated;
  }
  return store;
}

PostgresStore::PostgresStore(std::string conninfo,
                             const PostgresStoreOptions& options)
    : conninfo_(std::move(conninfo)), options_(options) {
  MutexLock lock(&pool_mu_);
  open_slots_ = options.connections;
}

PostgresStore::~PostgresStore() {
  stop_ = true;
  if (listen_thread_.joinable()) listen_thread_.join();
}

absl::StatusOr<PostgresStore::Lease> PostgresStore::Acquire() {
  {
    MutexLock lock(&pool_mu_);
    while (idle_.empty() && open_slots_ == 0) {
      pool_changed_.WaitWithTimeout(&pool_mu_, absl::Seconds(1));
    }
    if (!idle_.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
    --open_slots_;
  }
  absl::StatusOr<std::unique_ptr<Connection>> opened =
      Connection::Open(conninfo_, options_.connect_timeout);
  if (!opened.ok()) {
    MutexLock lock(&pool_mu_);
    ++open_slots_;
    pool_changed_.Signal();
    return opened.status();
  }
  return Lease(this, *std::move(opened));
}

void PostgresStore::Release(std::unique_ptr<Connection> connection) {
  // A connection left inside a transaction (a failed ROLLBACK) or lost is
  // closed; its slot is opened again when needed.
  const bool keep = connection->usable() &&
                    PQtransactionStatus(connection->conn()) == PQTRANS_IDLE;
  if (!keep) connection.reset();
  MutexLock lock(&pool_mu_);
  if (keep) {
    idle_.push_back(std::move(connection));
  } else {
    ++open_slots_;
  }
  pool_changed_.Signal();
}

absl::Status PostgresStore::InTransaction(
    const std::function<absl::Status(Connection&)>& body) {
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<Lease> lease = Acquire();
    if (!lease.ok()) return lease.status();
    absl::Status begun = (*lease)->Exec("BEGIN", "begin").status();
    // Lost while idle, before anything was sent: once more on a new one.
    if (!begun.ok() && !(*lease)->usable() && attempt == 0) continue;
    KHET_RETURN_IF_ERROR(begun);
    return Transact(**lease, body);
  }
}

absl::Status PostgresStore::Transact(
    Connection& c, const std::function<absl::Status(Connection&)>& body) {
  absl::Status status = body(c);
  if (status.ok()) {
    status = c.Exec("COMMIT", "commit").status();
    if (absl::IsUnavailable(status) && !c.usable()) {
      return absl::UnavailableError(
          absl::StrCat(status.message(),
                       " (the change may or may not have been committed)"));
    }
    return status;
  }
  if (c.usable()) c.Exec("ROLLBACK", "roll back").IgnoreError();
  return status;
}

absl::Status PostgresStore::AppendEventsAndNotify(
    Connection& c, const SessionRecord& record,
    absl::Span<const EventRecord> events) {
  for (const EventRecord& event : events) {
    KHET_RETURN_IF_ERROR(
        c.Run("insert_event",
              {Text(record.id), Text(absl::StrCat(event.version)),
               Binary(event.event)},
              "insert an event")
            .status());
  }
  return c
      .Run("notify",
           {Text(kChannel), Text(absl::StrCat(record.version, " ", record.id))},
           "notify")
      .status();
}

absl::Status PostgresStore::Create(const SessionRecord& record,
                                   absl::Span<const EventRecord> events) {
  KHET_RETURN_IF_ERROR(CheckNewEvents(record.id, 0, events));
  const std::string version = absl::StrCat(record.version);
  return InTransaction([&](Connection& c) -> absl::Status {
    absl::StatusOr<Result> inserted =
        c.Run("insert_session",
              {Text(record.id), Text(version), Binary(record.state)},
              "insert the session");
    if (!inserted.ok()) return inserted.status();
    if (std::strcmp(PQcmdTuples(inserted->get()), "0") == 0) {
      return absl::AlreadyExistsError(
          absl::StrCat("session \"", record.id, "\" already exists"));
    }
    // A deleted session's events went with it, so the log is empty.
    return AppendEventsAndNotify(c, record, events);
  });
}

absl::Status PostgresStore::Update(const SessionRecord& record,
                                   int64_t expected_version,
                                   absl::Span<const EventRecord> events) {
  const std::string version = absl::StrCat(record.version);
  return InTransaction([&](Connection& c) -> absl::Status {
    absl::StatusOr<Result> locked =
        c.Run("lock", {Text(record.id)}, "lock the session");
    if (!locked.ok()) return locked.status();
    if (locked->rows() == 0) return NotFound(record.id);
    const int64_t stored = locked->Int(0, 0);
    if (stored != expected_version) {
      return absl::AbortedError(absl::StrCat("session \"", record.id,
                                             "\" is at version ", stored,
                                             ", not ", expected_version));
    }
    KHET_RETURN_IF_ERROR(CheckNewEvents(record.id, locked->Int(0, 1), events));
    KHET_RETURN_IF_ERROR(
        c.Run("update", {Text(record.id), Text(version), Binary(record.state)},
              "update the session")
            .status());
    return AppendEventsAndNotify(c, record, events);
  });
}

absl::Status PostgresStore::Delete(std::string_view id) {
  return InTransaction([&](Connection& c) -> absl::Status {
    absl::StatusOr<Result> removed =
        c.Run("delete_session", {Text(id)}, "delete the session");
    if (!removed.ok()) return removed.status();
    if (std::strcmp(PQcmdTuples(removed->get()), "0") == 0) {
      return NotFound(id);
    }
    KHET_RETURN_IF_ERROR(
        c.Run("delete_events", {Text(id)}, "delete the events").status());
    return c
        .Run("notify",
             {Text(kChannel), Text(absl::StrCat("deleted ", std::string(id)))},
             "notify")
        .status();
  });
}

template <typename T>
absl::StatusOr<T> PostgresStore::Read(
    const std::function<absl::StatusOr<T>(Connection&)>& read) {
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<Lease> lease = Acquire();
    if (!lease.ok()) return lease.status();
    absl::StatusOr<T> result = read(**lease);
    if (result.ok() || (*lease)->usable() || attempt > 0) return result;
  }
}

absl::StatusOr<SessionRecord> PostgresStore::Get(std::string_view id) {
  absl::StatusOr<Result> row = Read<Result>([&](Connection& c) {
    return c.Run("get", {Text(id)}, "read a session");
  });
  if (!row.ok()) return row.status();
  if (row->rows() == 0) return NotFound(id);
  return SessionRecord{std::string(id), row->Int(0, 0), row->Bytes(0, 1)};
}

absl::StatusOr<std::vector<SessionRecord>> PostgresStore::LoadAll() {
  absl::StatusOr<Result> rows = Read<Result>(
      [](Connection& c) { return c.Run("load_all", {}, "read sessions"); });
  if (!rows.ok()) return rows.status();
  std::vector<SessionRecord> all;
  all.reserve(rows->rows());
  for (int r = 0; r < rows->rows(); ++r) {
    all.push_back(
        SessionRecord{rows->Bytes(r, 0), rows->Int(r, 1), rows->Bytes(r, 2)});
  }
  return all;
}

absl::StatusOr<std::vector<SessionVersion>> PostgresStore::ListVersions() {
  absl::StatusOr<Result> rows = Read<Result>([](Connection& c) {
    return c.Run("versions", {}, "read session versions");
  });
  if (!rows.ok()) return rows.status();
  std::vector<SessionVersion> all;
  all.reserve(rows->rows());
  for (int r = 0; r < rows->rows(); ++r) {
    all.push_back(SessionVersion{rows->Bytes(r, 0), rows->Int(r, 1)});
  }
  return all;
}

absl::StatusOr<std::vector<EventRecord>> PostgresStore::EventsAfter(
    std::string_view id, int64_t after_version, int limit) {
  std::vector<EventRecord> events;
  if (limit <= 0) return events;
  const std::string after = absl::StrCat(after_version);
  const std::string most = absl::StrCat(limit);
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("events_after", {Text(id), Text(after), Text(most)},
                 "read events");
  });
  if (!rows.ok()) return rows.status();
  events.reserve(rows->rows());
  for (int r = 0; r < rows->rows(); ++r) {
    events.push_back(EventRecord{rows->Int(r, 0), rows->Bytes(r, 1)});
  }
  return events;
}

void PostgresStore::SetChangeListener(ChangeListener listener) {
  const bool start = listener != nullptr && !listen_thread_.joinable();
  {
    MutexLock lock(&listener_mu_);
    listener_ = std::move(listener);
  }
  if (!start) return;
  // LISTEN before returning, so that no change committed after this call
  // goes unheard; if it fails, the thread retries and reports a gap.
  std::unique_ptr<Connection> first = OpenListening();
  listen_thread_ = std::thread([this, first = std::move(first)]() mutable {
    ListenLoop(std::move(first));
  });
}

std::unique_ptr<PostgresStore::Connection> PostgresStore::OpenListening() {
  absl::StatusOr<std::unique_ptr<Connection>> opened =
      Connection::Open(conninfo_, options_.connect_timeout);
  if (!opened.ok()) return nullptr;
  const std::string listen = absl::StrCat("LISTEN ", std::string(kChannel));
  if (!(*opened)->Exec(listen.c_str(), "listen").ok()) return nullptr;
  return *std::move(opened);
}

void PostgresStore::CallListener(const StoreChange& change) {
  MutexLock lock(&listener_mu_);
  if (listener_) listener_(change);
}

absl::Status PostgresStore::DeliverNotifications(Connection& connection) {
  if (PQconsumeInput(connection.conn()) == 0) {
    return absl::UnavailableError(
        absl::StrCat("postgres: the listening connection was lost: ",
                     Connection::Trimmed(PQerrorMessage(connection.conn()))));
  }
  while (PGnotify* notify = PQnotifies(connection.conn())) {
    const std::string_view payload = notify->extra;
    const size_t space = payload.find(' ');
    StoreChange change;
    if (space != std::string_view::npos) {
      change.id = std::string(payload.substr(space + 1));
      const std::string_view head = payload.substr(0, space);
      change.deleted = head == "deleted";
      if (!change.deleted &&
          !absl::SimpleAtoi(absl::string_view(head.data(), head.size()),
                            &change.version)) {
        change.id.clear();  // unreadable: treat as "something changed"
      }
    }
    PQfreemem(notify);
    CallListener(change);
  }
  return absl::OkStatus();
}

void PostgresStore::ListenLoop(std::unique_ptr<Connection> connection) {
  // Without a connection, changes may have been missed.
  bool missed = connection == nullptr;
  while (!stop_) {
    if (connection == nullptr) {
      connection = OpenListening();
      if (connection != nullptr && missed) CallListener(StoreChange{});
      if (connection != nullptr) missed = false;
      if (connection == nullptr) {
        missed = true;
        const absl::Time until = absl::Now() + options_.listen_retry_delay;
        while (!stop_ && absl::Now() < until)
          absl::SleepFor(absl::Milliseconds(20));
        continue;
      }
    }
    pollfd fd{PQsocket(connection->conn()), POLLIN, 0};
    const int ready = poll(&fd, 1, /*timeout_ms=*/100);
    if (ready < 0 && errno != EINTR) {
      connection.reset();
      missed = true;
      continue;
    }
    if (ready > 0 && !DeliverNotifications(*connection).ok()) {
      connection.reset();
      missed = true;
    }
  }
}

}  // namespace khet
