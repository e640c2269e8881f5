// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A SessionStore in a PostgreSQL database, through libpq, shared by any
// number of khetd replicas.
//
// Reads: one statement on a pooled connection, retried once on a new
// connection if the pooled one had been lost while idle.
//
// Writes: every Create, Update and Delete is one statement, a call of a
// server-side function (migration 2) that checks the version, changes the
// session and its event log and sends a notification (NOTIFY, delivered at
// commit), which feeds the change listener of every store on the same
// database (see SetChangeListener). Update locks the session's row, so of
// two replicas writing from one version exactly one commits and the other
// gets ABORTED naming both versions.
//
// Group commit: concurrent writes queue in arrival order; a writer that
// finds a connection free takes the queue's oldest writes (up to
// max_batch) and sends them in one libpq pipeline ending with one Sync:
// one round trip, one implicit transaction, one commit and log flush for
// all of them. Writes arriving meanwhile form the next batch, on another
// connection if one is free; at most two batches commit at once (fewer
// with fewer connections): PostgreSQL commits transactions that NOTIFY one
// at a time, so more would only be smaller. A write that fails (an error of the
// server, not a version or existence check, which change nothing) undoes its
// batch; each of the batch's writes then runs again on its own, so that
// only it fails. The call returns only after the commit did, so an OK
// change is durable (with the server's fsync and synchronous_commit on,
// its defaults). UpdateLater's writes join the same queue with no writer
// waiting for them: the store's committer threads (one per batch that may
// be in flight, at least two) lead their batches and, after the commit,
// call each write's `done`.
//
// Connections: a pool of `connections` libpq connections, thread-safe;
// calls wait for a free one. Statements are prepared once
// per connection. A connection lost in the middle of a write fails it with
// UNAVAILABLE ("postgres: connection lost ..."; the outcome of writes
// whose commit's answer was lost is unknown, which the message says); lost
// connections are opened again by the next call that needs one.
//
// Schema: numbered migrations, recorded in schema_migrations, applied by
// Open under a transaction-level advisory lock, so replicas starting
// together migrate once. A database with a migration newer than this build
// knows is refused with FAILED_PRECONDITION.
//
// Errors besides the SessionStore ones: UNAVAILABLE for connection failures
// and for the server refusing work for a while (serialization failure,
// deadlock, too many connections, shutting down), INVALID_ARGUMENT for
// values PostgreSQL rejects (an id that is not UTF-8), INTERNAL for the
// rest, each with PostgreSQL's message (on one line) and SQLSTATE. A call
// that finds the server gone fails at once, UNAVAILABLE beginning with
// kUnreachable when no connection can be opened; the store needs no
// reopening once the server is back (the next call connects again).
//
// Files: the SQL is in postgres_sessions.h, postgres_leases.h,
// postgres_games.h and postgres_ratings.h; a connection, its statements
// and the pipeline a batch is sent in are in postgres_connection.h.
#ifndef KHET_SERVICE_STORE_POSTGRES_STORE_H_
#define KHET_SERVICE_STORE_POSTGRES_STORE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/store/session_store.h"

typedef struct pg_conn PGconn;

namespace khet {

struct PostgresStoreOptions {
  // Pooled connections for the store's calls (the change listener has one
  // more of its own, and the push targets' heartbeat one when used). At
  // least 1.
  int connections = 4;
  // How long a connection attempt may take before UNAVAILABLE.
  absl::Duration connect_timeout = absl::Seconds(10);
  // After the listener's connection is lost, how long it waits before each
  // attempt to open it again.
  absl::Duration listen_retry_delay = absl::Milliseconds(500);
  // The most writes one transaction carries (group commit); >= 1.
  size_t max_batch = 256;
  // Events kept per session, about (kEventDropStep); 0: all. Old events
  // are dropped by a write of their own after the update that made them
  // old.
  int64_t events_kept = 0;
  // Called after each transaction of writes with how many it carried and
  // how long it took, from taking a connection to the end of its commit
  // (StoreMetrics::CommitHook). May be empty.
  std::function<void(int writes, absl::Duration took)> on_commit = nullptr;
};

class PostgresStore final : public SessionStore {
 public:
  // The highest migration this build knows.
  static constexpr int kSchemaVersion = 10;
  // The NOTIFY channel of session changes.
  static constexpr std::string_view kChannel = "khet_session_changes";
  // How the UNAVAILABLE error of a call that could not connect begins.
  static constexpr char kUnreachable[] =
      "the server's database cannot be reached; try again later";

  // Connects to the database named by `conninfo` (a libpq connection string,
  // "host=... dbname=..." or "postgresql://..."), applies the migrations it
  // lacks, and opens the pool. UNAVAILABLE if the server cannot be reached.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(
      const std::string& conninfo, const PostgresStoreOptions& options = {});

  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;
  // Stops the listener and closes every connection. REQUIRES: no call in
  // progress.
  ~PostgresStore() override;

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override;
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override;
  // Queued as Update's writes are; `done` runs on the thread that led the
  // write's batch (a committer of the store's, or a waiting writer).
  void UpdateLater(LaterUpdate update,
                   absl::AnyInvocable<void(absl::Status) &&> done) override;
  bool updates_later() const override { return true; }
  absl::Status Delete(std::string_view id) override;
  // At once: a function (migration 9) checks the version under the row's
  // lock and deletes.
  absl::Status DeleteAt(std::string_view id, int64_t expected_version) override;
  absl::StatusOr<SessionRecord> Get(std::string_view id) override;
  // One statement for all of them.
  absl::StatusOr<std::vector<SessionRecord>> GetMany(
      absl::Span<const std::string> ids) override;
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override;
  absl::StatusOr<int64_t> GetVersion(std::string_view id) override;
  absl::StatusOr<std::vector<SessionVersion>> ListVersions() override;
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override;
  // The lease's statements are in postgres_leases.h.
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

  absl::Status SavePushTarget(const PushTargetRecord& target) override;
  absl::Status DeletePushTarget(std::string_view session_id,
                                std::string_view owner) override;
  absl::StatusOr<PushTargetRecord> GetPushTarget(
      std::string_view session_id) override;
  absl::StatusOr<std::vector<std::string>> PushTargetsOf(
      std::string_view owner) override;
  absl::StatusOr<int64_t> CountPushTargets(std::string_view owner) override;
  absl::StatusOr<std::vector<PushTargetRecord>> ClaimPushTargets(
      std::string_view owner, absl::Time now, absl::Time expires,
      int limit) override;

  bool shared() const override { return true; }
  // The listener runs on a thread of the store with its own connection that
  // LISTENs on kChannel. It hears every committed change, this process's
  // own included, in commit order per session. When that connection is lost
  // it opens it again and then calls the listener with an empty id: changes
  // may have been missed meanwhile.
  void SetChangeListener(ChangeListener listener) override;

 private:
  class Connection;
  class Lease;
  class Result;
  // Row r of a read of khet_games (postgres_games.h's columns).
  static ArchivedGame GameFromRow(const Result& rows, int r);
  static absl::StatusOr<PlayerRecord> PlayerFromRow(const Result& rows, int r);

  PostgresStore(std::string conninfo, const PostgresStoreOptions& options);

  // A pooled connection, opened (again) if needed; waits for a free one.
  absl::StatusOr<Lease> Acquire();
  void Release(std::unique_ptr<Connection> connection);

  // Runs `read` on a pooled connection. Reads change nothing, so when the
  // connection turns out to have been lost while idle (the server restarted
  // or ended it), `read` runs once more on a new one.
  template <typename T>
  absl::StatusOr<T> Read(
      const std::function<absl::StatusOr<T>(Connection&)>& read);

  // Runs `run` on the connection of the push targets' heartbeats and claims
  // (opened, or opened again, when needed), one call at a time: a pool busy
  // with requests never makes a live replica's heartbeat late.
  template <typename T>
  absl::StatusOr<T> OnHeartbeatConnection(
      const std::function<absl::StatusOr<T>(Connection&)>& run)
      ABSL_LOCKS_EXCLUDED(heartbeat_mu_);

  struct PendingWrite;

  // Queues `write` and returns its status once a batch committed it (or
  // failed), leading batches while it waits if a connection is free.
  absl::Status Commit(PendingWrite& write) ABSL_LOCKS_EXCLUDED(write_mu_);
  // Sets up an Update's statement and parameters, which point into
  // `record`, `events` and `archive`: they must outlive the write.
  static void PrepareUpdate(PendingWrite& write, const SessionRecord& record,
                            int64_t expected_version,
                            absl::Span<const EventRecord> events,
                            const ArchivedGame* archive);
  // Queues `write`, which has an on_done, for the committer threads; no
  // one waits for it.
  void QueueDetached(std::unique_ptr<PendingWrite> write)
      ABSL_LOCKS_EXCLUDED(write_mu_);
  // After an update took the session `id`'s last event version from
  // `old_last` to `new_last`: queues the dropping of the events no longer
  // kept, if any (EventsDroppedThrough). Its failure leaves them for the
  // next drop.
  void DropOldEvents(std::string_view id, int64_t old_last, int64_t new_last);
  // Takes the queue's oldest writes (up to max_batch) as a batch, commits
  // it and ends each of its writes: a waiting writer is woken, an
  // UpdateLater's `done` called (after write_mu_ is let go). Wakes whoever
  // may lead the next batch. REQUIRES: write_mu_ held, the queue not empty
  // and fewer than batches_in_flight_ batches committing; held again on
  // return.
  void LeadBatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // A committer thread: leads batches while UpdateLater's writes are
  // queued (no writer waits for those), until stopping_ and none is left.
  void CommitterLoop();
  // Commits `batch` together, or each write alone if one fails; sets each
  // write's status.
  void CommitBatch(std::vector<PendingWrite*>& batch);
  // One pipeline on a pooled connection, replaced once if found ended while
  // idle. OK: every write's status is set from its function's result.
  absl::Status CommitTogether(absl::Span<PendingWrite* const> writes);

  // A new connection LISTENing on kChannel; nullptr if that failed.
  std::unique_ptr<Connection> OpenListening();
  // Delivers changes until stop_, opening the connection again when lost.
  void ListenLoop(std::unique_ptr<Connection> connection);
  // Hands every notification pending on `connection` to the listener.
  absl::Status DeliverNotifications(Connection& connection);
  void CallListener(const StoreChange& change);

  const std::string conninfo_;
  const PostgresStoreOptions options_;
  const int batches_in_flight_;  // at most, at once

  Mutex pool_mu_;
  CondVar pool_changed_;
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(pool_mu_);
  int open_slots_ ABSL_GUARDED_BY(pool_mu_) = 0;  // not yet handed out

  Mutex heartbeat_mu_;
  std::unique_ptr<Connection> heartbeat_connection_
      ABSL_GUARDED_BY(heartbeat_mu_);

  Mutex write_mu_;
  std::deque<PendingWrite*> queue_ ABSL_GUARDED_BY(write_mu_);
  int committing_ ABSL_GUARDED_BY(write_mu_) = 0;  // batches in flight
  // Woken when an UpdateLater's write may lead a batch: every such write's
  // `woken`.
  const std::shared_ptr<CondVar> committers_woken_ =
      std::make_shared<CondVar>();
  bool stopping_ ABSL_GUARDED_BY(write_mu_) = false;
  std::vector<std::thread> committers_;  // started by Open

  Mutex listener_mu_;  // held while the listener runs
  ChangeListener listener_ ABSL_GUARDED_BY(listener_mu_);
  std::atomic<bool> stop_{false};
  std::thread listen_thread_;
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_POSTGRES_STORE_H_
