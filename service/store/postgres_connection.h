// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// PostgresStore's parts that talk to the server: a libpq connection with
// the store's statements prepared on it (Connection), one lent from the
// store's pool (Lease), a result (Result), a
// write waiting for its batch with its parameters (PendingWrite), and the
// binary arrays an event log is sent as. Internal to the store.
#ifndef KHET_SERVICE_STORE_POSTGRES_CONNECTION_H_
#define KHET_SERVICE_STORE_POSTGRES_CONNECTION_H_

#include <libpq-fe.h>

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "service/base/mutex.h"
#include "service/store/postgres_store.h"
#include "service/store/session_store.h"

namespace khet {

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

// A Create, Update or Delete waiting to be committed: the call of its
// function with its parameters, and then its outcome.
struct PostgresStore::PendingWrite {
  PendingWrite(const char* statement_name, std::string_view session_id,
               const char* what)
      : statement(statement_name), id(session_id), doing(what) {}

  void AddText(std::string text) {
    owned.push_back(std::move(text));
    values.push_back(owned.back().c_str());
    lengths.push_back(static_cast<int>(owned.back().size()));
    formats.push_back(0);
  }
  // `bytes` must outlive the write (the caller's record does).
  void AddBinary(std::string_view bytes) {
    values.push_back(bytes.empty() ? "" : bytes.data());
    lengths.push_back(static_cast<int>(bytes.size()));
    formats.push_back(1);
  }
  void AddOwnedBinary(std::string bytes) {
    owned.push_back(std::move(bytes));
    AddBinary(owned.back());
  }

  // The status for the function's result (see migration 2).
  absl::Status Outcome(int64_t code, int64_t stored) const;

  const char* const statement;  // a name in kStatements
  const std::string id;
  const char* const doing;               // for error messages
  int64_t expected_version = 0;          // Update's
  std::string game_id;                   // Update's archived game, if any
  std::string player_ids[2];             // ApplyRating's, Silver then Red
  int64_t player_games[2] = {0, 0};      // ApplyRating's
  absl::Span<const EventRecord> events;  // for code 3's message
  std::deque<std::string> owned;         // what `values` points at
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  // Set by the batch that carried the write, before `done`.
  absl::Status status;
  bool done = false;  // under write_mu_
  // Signalled when done, or when it may lead a batch. Shared so that a
  // leader can signal after letting write_mu_ go (a woken writer would
  // otherwise block at once on the lock the leader holds) while the
  // writer, done, may already have returned. An UpdateLater's is the
  // committers' (no one waits for the write itself).
  std::shared_ptr<CondVar> woken = std::make_shared<CondVar>();
  // An UpdateLater's: what `values` point into, and what is called with
  // `status` once the write is done (instead of `done` being set).
  SessionStore::LaterUpdate later;
  absl::AnyInvocable<void(absl::Status) &&> on_done;
};

// One libpq connection and the statements prepared on it. Used by one
// thread at a time.
class PostgresStore::Connection {
 public:
  // Opens a connection; UNAVAILABLE naming the reason if it fails.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(
      const std::string& conninfo, absl::Duration timeout);

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { PQfinish(conn_); }

  PGconn* conn() const { return conn_; }
  // False once the server connection was lost; the pool then drops it.
  bool usable() const { return !broken_ && PQstatus(conn_) == CONNECTION_OK; }

  // Runs SQL without parameters (BEGIN, COMMIT, DDL, LISTEN).
  absl::StatusOr<Result> Exec(const char* sql, std::string_view doing);

  // Runs the prepared statement `name` (preparing every statement on first
  // use) with text parameters (ids, numbers as decimal); results come in
  // binary.
  absl::StatusOr<Result> Run(const char* name,
                             std::initializer_list<std::string_view> params,
                             std::string_view doing);

  // Prepares every statement, once.
  absl::Status Prepare();

  // False if the server is found to have ended the connection while it was
  // idle (it then has sent an error and closed the socket).
  bool StillOpen();

  // Sends the writes' statements in one pipeline ending with one Sync, so
  // that they run as one implicit transaction, committed (and flushed) once,
  // in one round trip. On OK, outcomes[i] is write i's (code, stored). On an
  // error every write was rolled back, or if the connection was lost their
  // outcome is unknown, which the message says.
  absl::Status Pipeline(absl::Span<PendingWrite* const> writes,
                        std::vector<std::pair<int64_t, int64_t>>* outcomes);

  // OK for a successful command or query; otherwise the error, as the
  // header describes, naming what was being done.
  absl::Status Check(const Result& result, std::string_view doing);

  // libpq's message on one line: each run of spaces, tabs and newlines
  // one space, none at the ends (its messages run over several lines,
  // "...failed: Connection refused\n\tIs the server running...?").
  static std::string OneLine(const char* message);

 private:
  explicit Connection(PGconn* conn) : conn_(conn) {}

  PGconn* const conn_;
  bool prepared_ = false;
  bool broken_ = false;  // left in a state it cannot be reused from
};

namespace postgres {

// The events' versions as bigint[] and their bytes as bytea[], in
// PostgreSQL's binary format (array_recv), for a write's parameters.
std::string EventVersions(absl::Span<const EventRecord> events);
std::string EventBytes(absl::Span<const EventRecord> events);
// The strings as a text[] literal for a text parameter, each quoted.
std::string TextArray(absl::Span<const std::string> items);

}  // namespace postgres
}  // namespace khet

#endif  // KHET_SERVICE_STORE_POSTGRES_CONNECTION_H_
