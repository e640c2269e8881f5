// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A SessionStore in one SQLite file: the default, durable store. Every
// Create, Update and Delete is written to the write-ahead log and synced
// (synchronous=FULL) before the call returns, so a process killed right
// after an OK loses nothing. Thread-safe: one connection behind a mutex.
// Other processes may open the same file; they wait up to busy_timeout for
// its lock.
//
// Group commit: concurrent writes share transactions. Writers queue in
// arrival order; the first in the queue takes up to max_batch writes from
// its front and applies them in order in one IMMEDIATE transaction, each
// under its own SAVEPOINT, and commits once (one sync). Each write's checks
// (version, existence, event versions) are exact, as if the writes ran one
// after another; a write that fails is rolled back to its savepoint and gets
// its own error without touching the others. Every writer returns only when
// the transaction holding its write has committed (or with the commit's
// error). Writes arriving while a batch commits form the next batch.
//
// Errors besides the SessionStore ones: UNAVAILABLE for I/O, locking and
// open failures (disk full, file busy past the timeout, unreadable path),
// INTERNAL for anything else SQLite reports (a corrupt file), each with
// SQLite's message; FAILED_PRECONDITION from Open for a file that is not a
// session store or has a newer schema than this build knows. A write that
// finds no room (a full file system, a quota, a file size limit) is
// UNAVAILABLE beginning with kDiskFull: the write was rolled back, reads
// go on, and writes succeed again once there is room, with no reopening.
#ifndef KHET_SERVICE_STORE_SQLITE_STORE_H_
#define KHET_SERVICE_STORE_SQLITE_STORE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "service/base/clock.h"
#include "service/base/mutex.h"
#include "service/store/local_leases.h"
#include "service/store/session_store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace khet {

struct SqliteStoreOptions {
  // How long a statement waits for another connection's lock before it
  // fails with UNAVAILABLE.
  absl::Duration busy_timeout = absl::Seconds(5);
  // Stamps each session's updated time. nullptr (the default): the system
  // clock. Not owned; must outlive the store.
  Clock* clock = nullptr;
  // The most writes one transaction carries (group commit); >= 1.
  int max_batch = 256;
  // Events kept per session, about (kEventDropStep); 0: all.
  int64_t events_kept = 0;
  // Called after each transaction of writes, by the thread that led it,
  // with how many writes it carried and how long it took, from waiting for
  // the connection to the end of COMMIT (or ROLLBACK). Must be quick.
  // Empty: not called.
  std::function<void(int writes, absl::Duration took)> on_commit = nullptr;
};

// Counters of the writes (Create, Update, Delete) since Open.
struct SqliteWriteStats {
  int64_t writes = 0;        // writes done (committed or failed)
  int64_t transactions = 0;  // transactions that carried them
  int64_t waiting = 0;       // writes queued or in a batch right now
};

class SqliteStore final : public SessionStore {
 public:
  // How the UNAVAILABLE error of a write that found no room begins.
  static constexpr char kDiskFull[] =
      "the server's disk is full: the change was not saved (reads still "
      "work; try again later)";

  // The schema version this build writes (PRAGMA user_version). Older files
  // are migrated at Open; newer ones are refused.
  static constexpr int kSchemaVersion = 4;

  // Opens the store in the file at `path`, creating the file and its schema
  // if needed and migrating an older schema. REQUIRES: path names a file on
  // a local file system (WAL needs shared memory), not ":memory:".
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(
      const std::string& path, const SqliteStoreOptions& options = {});

  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;
  ~SqliteStore() override;

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override;
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override;
  absl::Status Delete(std::string_view id) override;
  absl::StatusOr<SessionRecord> Get(std::string_view id) override;
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override;
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override;
  absl::StatusOr<ArchivedGame> GetGame(std::string_view game_id) override;
  absl::Status SetGameAnalysis(std::string_view game_id,
                               std::string_view analysis) override;
  absl::StatusOr<std::vector<ArchivedGame>> ListGames(
      const GameQuery& query) override;
  absl::StatusOr<bool> TryLease(std::string_view id, std::string_view holder,
                                absl::Time now, absl::Duration ttl) override;
  absl::StatusOr<PlayerRecord> GetPlayer(std::string_view player_id) override;
  absl::StatusOr<std::vector<PlayerRecord>> ListPlayers(int64_t offset,
                                                        int limit) override;
  absl::StatusOr<std::vector<ArchivedGame>> PendingRatedGames(
      int limit) override;
  absl::Status ApplyRating(std::string_view game_id, const PlayerRecord& silver,
                           const PlayerRecord& red) override;

  SqliteWriteStats write_stats();

 private:
  // One queued write: what to do, and, once done, its outcome.
  struct Write;

  SqliteStore(sqlite3* db, std::string path, const SqliteStoreOptions& options);

  // Queues `write`, waits until it is done (leading a batch when it is
  // first in the queue) and returns its status.
  absl::Status Submit(Write& write);
  // Applies `batch` in one transaction; sets each write's status.
  void CommitBatch(const std::vector<Write*>& batch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One write's body, inside the batch's transaction.
  absl::Status Apply(const Write& write) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Connection set-up at Open: pragmas, then migrations.
  absl::Status Configure(const SqliteStoreOptions& options)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Migrate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The cached prepared statement for `sql`, prepared on first use.
  absl::StatusOr<sqlite3_stmt*> Statement(const char* sql)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs a statement that returns no rows, such as BEGIN or COMMIT.
  absl::Status Run(const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Commits when `status` is OK, else rolls back; the first error wins.
  absl::Status Finish(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // SQLite's result `code` as a Status carrying the connection's message.
  absl::Status Error(int code, std::string_view doing)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // When `code` failed for want of room (the file system full, a quota, a
  // file size limit): the errno that says so; else 0.
  int NoRoomErrno(int code) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The bodies of the writes, inside a transaction.
  absl::Status CreateLocked(const SessionRecord& record,
                            absl::Span<const EventRecord> events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status UpdateLocked(const SessionRecord& record,
                            int64_t expected_version,
                            absl::Span<const EventRecord> events,
                            const ArchivedGame* archive)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DeleteLocked(std::string_view id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ApplyRatingLocked(std::string_view game_id,
                                 const PlayerRecord& silver,
                                 const PlayerRecord& red)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status SetGameAnalysisLocked(std::string_view game_id,
                                     std::string_view analysis)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The stored version of session `id`; NOT_FOUND if there is none.
  absl::StatusOr<int64_t> StoredVersion(std::string_view id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The highest stored event version of session `id`, 0 if it has none.
  absl::StatusOr<int64_t> LastEventVersion(std::string_view id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status InsertEvents(std::string_view id,
                            absl::Span<const EventRecord> events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status InsertGame(const ArchivedGame& game)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int64_t NowMicros();

  const std::string path_;
  Clock* const clock_;  // nullptr: absl::Now()
  const int max_batch_;
  const int64_t events_kept_;
  const std::function<void(int writes, absl::Duration took)> on_commit_;

  // The write queue, in arrival order; its front leads the next batch.
  // Lock order: queue_mu_ is never taken while holding mu_.
  Mutex queue_mu_;
  std::deque<Write*> queue_ ABSL_GUARDED_BY(queue_mu_);
  int64_t writes_done_ ABSL_GUARDED_BY(queue_mu_) = 0;
  int64_t transactions_ ABSL_GUARDED_BY(queue_mu_) = 0;

  LocalLeases leases_;  // one process uses the file: leases stay in memory
  Mutex mu_;            // the connection
  sqlite3* const db_ ABSL_PT_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, sqlite3_stmt*> statements_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_SQLITE_STORE_H_
