// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/khetd/store_flags.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "service/store/memory_store.h"
#include "service/store/postgres_store.h"
#include "service/store/sqlite_store.h"

ABSL_FLAG(std::string, data_dir, "./khet-data",
          "Directory of the SQLite session store (khet.db); created if "
          "needed");
ABSL_FLAG(std::string, store, "sqlite",
          "Where sessions live: sqlite (durable, in --data_dir), postgres "
          "(shared by replicas, at --postgres_url) or memory (lost on exit)");
ABSL_FLAG(std::string, postgres_url, "",
          "With --store=postgres: the database, as a libpq URL "
          "(postgresql://user@host:port/db) or conninfo (\"host=... "
          "dbname=...\")");
ABSL_FLAG(int, postgres_connections, 4,
          "With --store=postgres: pooled connections for reads and writes");
ABSL_FLAG(int64_t, max_session_events, 1000,
          "Events kept per session for Watch's history, about (older ones "
          "are dropped in steps of 100); 0 keeps them all");
ABSL_FLAG(int, store_threads, 256,
          "With a durable store (sqlite, postgres): threads at most that "
          "serve the calls touching a session, which wait for the disk or "
          "the database (SQLite's concurrent writes share one sync); started "
          "as calls wait, they leave after idling 5 s. The memory store "
          "never waits and serves calls on gRPC's threads");

namespace khet {
namespace {

absl::StatusOr<std::unique_ptr<SessionStore>> OpenUnmeteredStore(
    const StoreFlags& flags, StoreMetrics* metrics) {
  if (flags.kind == "memory") {
    return std::make_unique<MemoryStore>(flags.events_kept);
  }
  if (flags.kind == "postgres") {
    PostgresStoreOptions options;
    options.events_kept = flags.events_kept;
    options.connections = flags.postgres_connections;
    options.on_commit = metrics->CommitHook();
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(flags.postgres_url, options);
    if (!store.ok()) return store.status();
    return std::unique_ptr<SessionStore>(std::move(*store));
  }
  std::error_code error;
  std::filesystem::create_directories(flags.data_dir, error);
  if (error) {
    return absl::UnavailableError(absl::StrCat("cannot create --data_dir \"",
                                               flags.data_dir,
                                               "\": ", error.message()));
  }
  const std::string path =
      (std::filesystem::path(flags.data_dir) / "khet.db").string();
  SqliteStoreOptions options;
  options.events_kept = flags.events_kept;
  options.on_commit = metrics->CommitHook();
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(path, options);
  if (!store.ok()) return store.status();
  return std::unique_ptr<SessionStore>(std::move(*store));
}

}  // namespace

absl::StatusOr<StoreFlags> ReadStoreFlags() {
  StoreFlags flags;
  flags.kind = absl::GetFlag(FLAGS_store);
  flags.data_dir = absl::GetFlag(FLAGS_data_dir);
  flags.postgres_url = absl::GetFlag(FLAGS_postgres_url);
  flags.postgres_connections = absl::GetFlag(FLAGS_postgres_connections);
  flags.events_kept = absl::GetFlag(FLAGS_max_session_events);
  flags.store_threads = absl::GetFlag(FLAGS_store_threads);
  if (flags.kind != "sqlite" && flags.kind != "memory" &&
      flags.kind != "postgres") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--store=", flags.kind, ": must be sqlite, postgres or memory"));
  }
  if ((flags.kind == "postgres") != !flags.postgres_url.empty()) {
    return absl::InvalidArgumentError(
        flags.kind == "postgres" ? "--store=postgres needs --postgres_url"
                                 : "--postgres_url needs --store=postgres");
  }
  if (flags.postgres_connections < 1 || flags.postgres_connections > 64) {
    return absl::InvalidArgumentError("--postgres_connections must be 1 to 64");
  }
  if (flags.events_kept != 0 && flags.events_kept < kEventDropStep) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_session_events must be 0 (keep all) or at least ",
                     kEventDropStep));
  }
  if (flags.store_threads < 1 || flags.store_threads > 1024) {
    return absl::InvalidArgumentError("--store_threads must be 1 to 1024");
  }
  return flags;
}

absl::StatusOr<std::unique_ptr<SessionStore>> OpenStore(const StoreFlags& flags,
                                                        StoreMetrics* metrics) {
  absl::StatusOr<std::unique_ptr<SessionStore>> store =
      OpenUnmeteredStore(flags, metrics);
  if (!store.ok()) return store.status();
  return std::make_unique<MeteredStore>(*std::move(store), metrics);
}

}  // namespace khet
