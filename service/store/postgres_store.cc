// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/postgres_store.h"

#include <libpq-fe.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/store/postgres_connection.h"
#include "service/store/postgres_games.h"
#include "service/store/postgres_leases.h"
#include "service/store/postgres_push_targets.h"
#include "service/store/postgres_ratings.h"
#include "service/store/postgres_sessions.h"

namespace khet {
namespace {

// kPostgresMigrations[i] is migration i + 1, run inside the migrating
// transaction. Append only: never edit a migration that has shipped.
constexpr const char* kPostgresMigrations[] = {
    // 1: sessions and their event logs.
    postgres_sessions::kMigrationTables,
    // 2: each write is one statement, a call of a function.
    postgres_sessions::kMigrationFunctions,
    // 3: computer-seat leases.
    postgres_leases::kMigration,
    // 4: the archive of games.
    postgres_games::kMigration,
    // 5: the computer's analysis of archived games.
    postgres_games::kMigrationAnalysis,
    // 6: rated games and the players' ratings.
    postgres_ratings::kMigration,
    // 7: an update that archives checks the session's version first.
    postgres_games::kMigrationVersionFirst,
    // 8: the log's last version kept in the session's row.
    postgres_sessions::kMigrationLastEvent,
    // 9: a session deleted only at an expected version.
    postgres_sessions::kMigrationDeleteAt,
    // 10
    postgres_push_targets::kMigration,
};
static_assert(std::size(kPostgresMigrations) == PostgresStore::kSchemaVersion);

// At most this many batches commit at once. PostgreSQL commits
// transactions that NOTIFY one at a time (a lock held through the commit's
// log flush), so more batches at once would only be smaller; with two, one
// batch's statements run while the other's commit flushes.
constexpr int kBatchesInFlight = 2;

// The advisory lock key that serialises migrations ("KHET").
constexpr int64_t kMigrationLock = 0x4b484554;

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(
    const std::string& conninfo, const PostgresStoreOptions& options) {
  if (options.connections < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("PostgresStore needs at least 1 connection, not ",
                     options.connections));
  }
  if (options.max_batch < 1) {
    return absl::InvalidArgumentError(
        "PostgresStore needs a max_batch of at least 1");
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
      KHET_RETURN_IF_ERROR(c.Exec(kPostgresMigrations[v],
                                  absl::StrCat("apply migration ", v + 1))
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
  // UpdateLater's writes have no waiting writer to lead their batches: one
  // committer per batch in flight, and at least two, so that with a single
  // batch in flight one leads the next while the other answers the writes
  // of the batch it has just committed (measured: 1 connection).
  for (int i = 0; i < std::max(2, store->batches_in_flight_); ++i) {
    store->committers_.emplace_back([s = store.get()] { s->CommitterLoop(); });
  }
  return store;
}

PostgresStore::PostgresStore(std::string conninfo,
                             const PostgresStoreOptions& options)
    : conninfo_(std::move(conninfo)),
      options_(options),
      batches_in_flight_(std::min(options.connections, kBatchesInFlight)) {
  MutexLock lock(&pool_mu_);
  open_slots_ = options.connections;
}

PostgresStore::~PostgresStore() {
  // The committers end once every queued write is done.
  {
    MutexLock lock(&write_mu_);
    stopping_ = true;
  }
  committers_woken_->SignalAll();
  for (std::thread& committer : committers_) committer.join();
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

template <typename T>
absl::StatusOr<T> PostgresStore::OnHeartbeatConnection(
    const std::function<absl::StatusOr<T>(Connection&)>& run) {
  MutexLock lock(&heartbeat_mu_);
  for (int attempt = 0;; ++attempt) {
    if (heartbeat_connection_ == nullptr || !heartbeat_connection_->usable()) {
      heartbeat_connection_.reset();
      absl::StatusOr<std::unique_ptr<Connection>> opened =
          Connection::Open(conninfo_, options_.connect_timeout);
      if (!opened.ok()) return opened.status();
      heartbeat_connection_ = *std::move(opened);
    }
    absl::StatusOr<T> result = run(*heartbeat_connection_);
    // Lost while idle (the server restarted): once more on a new one.
    if (result.ok() || heartbeat_connection_->usable() || attempt > 0) {
      return result;
    }
  }
}

absl::StatusOr<SessionRecord> PostgresStore::Get(std::string_view id) {
  absl::StatusOr<Result> row = Read<Result>(
      [&](Connection& c) { return c.Run("get", {id}, "read a session"); });
  if (!row.ok()) return row.status();
  if (row->rows() == 0) return SessionNotStored(id);
  return SessionRecord{std::string(id), row->Int(0, 0), row->Bytes(0, 1)};
}

absl::StatusOr<std::vector<SessionRecord>> PostgresStore::GetMany(
    absl::Span<const std::string> ids) {
  std::vector<SessionRecord> records;
  if (ids.empty()) return records;
  const std::string id_array = postgres::TextArray(ids);
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("get_many", {id_array}, "read sessions back");
  });
  if (!rows.ok()) return rows.status();
  records.reserve(rows->rows());
  for (int r = 0; r < rows->rows(); ++r) {
    records.push_back(
        SessionRecord{rows->Bytes(r, 0), rows->Int(r, 1), rows->Bytes(r, 2)});
  }
  return records;
}

absl::StatusOr<int64_t> PostgresStore::GetVersion(std::string_view id) {
  absl::StatusOr<Result> row = Read<Result>([&](Connection& c) {
    return c.Run("get_version", {id}, "read a session's version");
  });
  if (!row.ok()) return row.status();
  if (row->rows() == 0) return SessionNotStored(id);
  return row->Int(0, 0);
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
    return c.Run("events_after", {id, after, most}, "read events");
  });
  if (!rows.ok()) return rows.status();
  events.reserve(rows->rows());
  for (int r = 0; r < rows->rows(); ++r) {
    events.push_back(EventRecord{rows->Int(r, 0), rows->Bytes(r, 1)});
  }
  return events;
}

ArchivedGame PostgresStore::GameFromRow(const Result& rows, int r) {
  ArchivedGame game;
  game.sequence = rows.Int(r, 0);
  game.id = rows.Bytes(r, 1);
  game.session_id = rows.Bytes(r, 2);
  game.record = rows.Bytes(r, 3);
  game.silver = rows.Bytes(r, 4);
  game.red = rows.Bytes(r, 5);
  game.setup_id = rows.Bytes(r, 6);
  game.result = rows.Bytes(r, 7);
  game.ending = rows.Bytes(r, 8);
  game.started_at = absl::FromUnixMicros(rows.Int(r, 9));
  game.ended_at = absl::FromUnixMicros(rows.Int(r, 10));
  game.plies = rows.Int(r, 11);
  game.analysis = rows.Bytes(r, 12);
  game.silver_id = rows.Bytes(r, 13);
  game.red_id = rows.Bytes(r, 14);
  game.rating_applied = rows.Bytes(r, 15) != std::string(1, '\0');
  return game;
}

absl::StatusOr<PlayerRecord> PostgresStore::PlayerFromRow(const Result& rows,
                                                          int r) {
  PlayerRecord player;
  player.id = rows.Bytes(r, 0);
  player.name = rows.Bytes(r, 1);
  double* values[] = {&player.rating, &player.deviation, &player.volatility};
  for (int i = 0; i < 3; ++i) {
    if (!absl::SimpleAtod(rows.Bytes(r, 2 + i), values[i])) {
      return absl::InternalError(absl::StrCat("postgres: player \"", player.id,
                                              "\" has an unreadable rating"));
    }
  }
  player.games = rows.Int(r, 5);
  player.wins = rows.Int(r, 6);
  player.draws = rows.Int(r, 7);
  player.losses = rows.Int(r, 8);
  player.updated_at = absl::FromUnixMicros(rows.Int(r, 9));
  return player;
}

absl::StatusOr<PlayerRecord> PostgresStore::GetPlayer(
    std::string_view player_id) {
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("get_player", {player_id}, "read a player");
  });
  if (!rows.ok()) return rows.status();
  if (rows->rows() == 0) return NoPlayer(player_id);
  return PlayerFromRow(*rows, 0);
}

absl::StatusOr<std::vector<PlayerRecord>> PostgresStore::ListPlayers(
    int64_t offset, int limit) {
  std::vector<PlayerRecord> players;
  if (limit <= 0) return players;
  const std::string most = absl::StrCat(limit);
  const std::string skip = absl::StrCat(std::max<int64_t>(offset, 0));
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("list_players", {most, skip}, "list players");
  });
  if (!rows.ok()) return rows.status();
  for (int r = 0; r < rows->rows(); ++r) {
    absl::StatusOr<PlayerRecord> player = PlayerFromRow(*rows, r);
    if (!player.ok()) return player.status();
    players.push_back(*std::move(player));
  }
  return players;
}

absl::StatusOr<std::vector<ArchivedGame>> PostgresStore::PendingRatedGames(
    int limit) {
  std::vector<ArchivedGame> games;
  if (limit <= 0) return games;
  const std::string most = absl::StrCat(limit);
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("pending_rated_games", {most}, "list pending rated games");
  });
  if (!rows.ok()) return rows.status();
  for (int r = 0; r < rows->rows(); ++r) games.push_back(GameFromRow(*rows, r));
  return games;
}

absl::StatusOr<ArchivedGame> PostgresStore::GetGame(std::string_view game_id) {
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("get_game", {game_id}, "read a game");
  });
  if (!rows.ok()) return rows.status();
  if (rows->rows() == 0) {
    return GameNotArchived(game_id);
  }
  return GameFromRow(*rows, 0);
}

absl::StatusOr<std::vector<ArchivedGame>> PostgresStore::ListGames(
    const GameQuery& query) {
  std::vector<ArchivedGame> games;
  if (query.limit <= 0) return games;
  const std::string before = absl::StrCat(query.before_sequence);
  const std::string limit = absl::StrCat(query.limit);
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("list_games",
                 {query.session_id, query.player, query.setup_id, query.result,
                  before, limit},
                 "list games");
  });
  if (!rows.ok()) return rows.status();
  games.reserve(rows->rows());
  for (int r = 0; r < rows->rows(); ++r) games.push_back(GameFromRow(*rows, r));
  return games;
}

absl::StatusOr<bool> PostgresStore::TryLease(std::string_view id,
                                             std::string_view holder,
                                             absl::Time now,
                                             absl::Duration ttl) {
  const std::string from = absl::StrCat(absl::ToUnixMicros(now));
  const std::string until = absl::StrCat(absl::ToUnixMicros(now + ttl));
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("try_lease", {id, holder, from, until}, "take a lease");
  });
  if (!rows.ok()) return rows.status();
  return rows->rows() == 1;
}

absl::Status PostgresStore::SavePushTarget(const PushTargetRecord& target) {
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("save_push_target",
                 {target.session_id, target.url, target.address, target.caller,
                  target.secret, target.owner},
                 "save a push target");
  });
  if (!rows.ok()) return rows.status();
  if (rows->rows() == 0) {
    return absl::NotFoundError(
        absl::StrCat("no session \"", target.session_id, "\""));
  }
  return absl::OkStatus();
}

absl::Status PostgresStore::DeletePushTarget(std::string_view session_id,
                                             std::string_view owner) {
  return Read<Result>([&](Connection& c) {
           return c.Run("delete_push_target", {session_id, owner},
                        "delete a push target");
         })
      .status();
}

absl::StatusOr<PushTargetRecord> PostgresStore::GetPushTarget(
    std::string_view session_id) {
  absl::StatusOr<Result> rows = Read<Result>([&](Connection& c) {
    return c.Run("get_push_target", {session_id}, "read a push target");
  });
  if (!rows.ok()) return rows.status();
  if (rows->rows() == 0) {
    return absl::NotFoundError(absl::StrCat(
        "session \"", std::string(session_id), "\" has no stored push target"));
  }
  return PushTargetRecord{.session_id = std::string(session_id),
                          .url = rows->Bytes(0, 0),
                          .address = rows->Bytes(0, 1),
                          .caller = rows->Bytes(0, 2),
                          .secret = rows->Bytes(0, 3),
                          .owner = rows->Bytes(0, 4)};
}

absl::StatusOr<std::vector<std::string>> PostgresStore::PushTargetsOf(
    std::string_view owner) {
  absl::StatusOr<Result> rows =
      OnHeartbeatConnection<Result>([&](Connection& c) {
        return c.Run("push_targets_of", {owner},
                     "list a replica's push targets");
      });
  if (!rows.ok()) return rows.status();
  std::vector<std::string> sessions;
  sessions.reserve(rows->rows());
  for (int r = 0; r < rows->rows(); ++r) sessions.push_back(rows->Bytes(r, 0));
  return sessions;
}

absl::StatusOr<int64_t> PostgresStore::CountPushTargets(
    std::string_view owner) {
  absl::StatusOr<Result> rows =
      OnHeartbeatConnection<Result>([&](Connection& c) {
        return c.Run("count_push_targets", {owner},
                     "count a replica's push targets");
      });
  if (!rows.ok()) return rows.status();
  if (rows->rows() != 1) {
    return absl::DataLossError("counting push targets gave no number");
  }
  return rows->Int(0, 0);
}

absl::StatusOr<std::vector<PushTargetRecord>> PostgresStore::ClaimPushTargets(
    std::string_view owner, absl::Time now, absl::Time expires, int limit) {
  const std::string from = absl::StrCat(absl::ToUnixMicros(now));
  const std::string until = absl::StrCat(absl::ToUnixMicros(expires));
  const std::string most = absl::StrCat(limit);
  absl::StatusOr<Result> rows =
      OnHeartbeatConnection<Result>([&](Connection& c) {
        return c.Run("claim_push_targets", {owner, from, until, most},
                     "claim push targets");
      });
  if (!rows.ok()) return rows.status();
  std::vector<PushTargetRecord> claimed;
  for (int r = 0; r < rows->rows(); ++r) {
    claimed.push_back(PushTargetRecord{
        .session_id = rows->Bytes(r, 0),
        .url = rows->Bytes(r, 1),
        .address = rows->Bytes(r, 2),
        .caller = rows->Bytes(r, 3),
        .secret = rows->Bytes(r, 4),
        .owner = std::string(owner),
    });
  }
  return claimed;
}

}  // namespace khet
