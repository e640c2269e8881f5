// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Update latency of each store: the memory store is the in-run baseline,
// SQLite pays for a synced commit per call, PostgreSQL for a commit plus
// the round trips to its server. Prints figures; asserts none.
//
//   build/release/service/store/store_benchmark
//   KHET_BENCH_POSTGRES='host=127.0.0.1 port=5432 dbname=bench' (then the
//   same command measures PostgreSQL too)
//
// tests/pg/pg_cluster.sh start DIR starts a throwaway server and writes its
// conninfo to DIR/conninfo. The PostgreSQL cases use sessions named
// "bench*" in that database, which they delete and create again.
//
// The SQLite file goes in $TMPDIR (default /tmp); put that on the disk
// whose sync cost you want to measure, not on tmpfs.
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "service/store/memory_store.h"
#include "service/store/postgres_store.h"
#include "service/store/sqlite_store.h"

namespace khet {
namespace {

// A fresh SQLite file in a new directory, removed at the end of the run.
class TempSqlite {
 public:
  TempSqlite() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                     "/khet_store_bench_XXXXXX");
    if (mkdtemp(pattern.data()) != nullptr) dir_ = pattern;
  }
  ~TempSqlite() {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  std::string path() const { return dir_ + "/bench.db"; }
  bool ok() const { return !dir_.empty(); }

 private:
  std::string dir_;
};

// Updates one session over and over: state.range(0) bytes of state and one
// small event per call. Every kLogLength updates the session starts again
// (untimed), so that the memory store's log stays small however many
// iterations the library picks.
void RunUpdates(benchmark::State& state, SessionStore& store,
                const std::string& id = "bench") {
  constexpr int64_t kLogLength = 10'000;
  const std::string blob(static_cast<size_t>(state.range(0)), 's');
  if (absl::Status s = store.Delete(id); !s.ok() && !absl::IsNotFound(s)) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  if (absl::Status s = store.Create({id, 0, blob}, {}); !s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  int64_t version = 0;
  for (auto _ : state) {
    if (version == kLogLength) {
      state.PauseTiming();
      absl::Status s = store.Delete(id);
      if (s.ok()) s = store.Create({id, 0, blob}, {});
      state.ResumeTiming();
      if (!s.ok()) {
        state.SkipWithError(s.ToString().c_str());
        return;
      }
      version = 0;
    }
    const EventRecord event{version + 1, "event: a move and its laser shot"};
    absl::Status s =
        store.Update({id, version + 1, blob}, version, {&event, 1});
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    ++version;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_MemoryUpdate(benchmark::State& state) {
  MemoryStore store;
  RunUpdates(state, store);
}
BENCHMARK(BM_MemoryUpdate)->Arg(256)->Arg(4096);

void BM_SqliteUpdate(benchmark::State& state) {
  TempSqlite file;
  if (!file.ok()) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(file.path());
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return;
  }
  RunUpdates(state, **store);
}
// Each call waits for the disk, so wall-clock time is the figure.
BENCHMARK(BM_SqliteUpdate)->Arg(256)->Arg(4096)->UseRealTime();

void BM_SqliteGet(benchmark::State& state) {
  TempSqlite file;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(file.path());
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return;
  }
  const std::string blob(static_cast<size_t>(state.range(0)), 's');
  if (absl::Status s = (*store)->Create({"bench", 0, blob}, {}); !s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<SessionRecord> record = (*store)->Get("bench");
    benchmark::DoNotOptimize(record);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SqliteGet)->Arg(4096);

// Group commit: state.threads() writers, each updating its own session
// with a move-sized state (2 KB) and event (1.7 KB), all on one store.
// items/s is acknowledged updates per second over all threads; compare the
// thread counts (one thread: a sync per update).
SqliteStore* shared_store = nullptr;  // set up by thread 0
std::unique_ptr<TempSqlite> shared_file;

void BM_SqliteConcurrentUpdates(benchmark::State& state) {
  if (state.thread_index() == 0) {
    shared_file = std::make_unique<TempSqlite>();
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(shared_file->path());
    shared_store = store.ok() ? store->release() : nullptr;
  }
  // The threads' loops start together, after thread 0's set-up above.
  const std::string id = absl::StrCat("bench", state.thread_index());
  const std::string blob(2048, 's');
  const std::string event_bytes(1700, 'e');
  bool created = false;
  int64_t version = 0;
  for (auto _ : state) {
    if (shared_store == nullptr) {
      state.SkipWithError("cannot open the store");
      break;
    }
    if (!created) {
      created = shared_store->Create({id, 0, blob}, {}).ok();
      continue;
    }
    const EventRecord event{version + 1, event_bytes};
    if (!shared_store->Update({id, version + 1, blob}, version, {&event, 1})
             .ok()) {
      state.SkipWithError("update failed");
      break;
    }
    ++version;
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {  // the loops end together, too
    delete shared_store;
    shared_store = nullptr;
    shared_file.reset();
  }
}
BENCHMARK(BM_SqliteConcurrentUpdates)
    ->Threads(1)
    ->Threads(16)
    ->Threads(200)
    ->UseRealTime()
    ->MinTime(2);

// The store on the database named by KHET_BENCH_POSTGRES, opened once for
// every case and thread; nullptr (and *error set) without one.
PostgresStore* BenchPostgres(std::string* error) {
  static absl::StatusOr<std::unique_ptr<PostgresStore>>* const store = [] {
    const char* conninfo = getenv("KHET_BENCH_POSTGRES");
    if (conninfo == nullptr || *conninfo == '\0') {
      return new absl::StatusOr<std::unique_ptr<PostgresStore>>(
          absl::FailedPreconditionError(
              "set KHET_BENCH_POSTGRES to a conninfo to measure PostgreSQL"));
    }
    return new absl::StatusOr<std::unique_ptr<PostgresStore>>(
        PostgresStore::Open(conninfo));
  }();
  if (!store->ok()) {
    *error = store->status().ToString();
    return nullptr;
  }
  return store->value().get();
}

// Each thread updates a session of its own: with several threads the pool's
// connections commit in parallel and the server groups their log flushes.
void BM_PostgresUpdate(benchmark::State& state) {
  std::string error;
  PostgresStore* store = BenchPostgres(&error);
  if (store == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  RunUpdates(state, *store, absl::StrCat("bench", state.thread_index()));
}
BENCHMARK(BM_PostgresUpdate)
    ->Arg(256)
    ->Arg(4096)
    ->Threads(1)
    ->Threads(4)
    ->UseRealTime();

// 200 games on one store: state.threads() writers, each updating its own
// session with a move-sized state (2 KB) and event (1.7 KB), through a store
// of state.range(0) pooled connections. items/s is acknowledged updates per
// second over all threads.
PostgresStore* shared_postgres = nullptr;  // set up by thread 0

void BM_PostgresConcurrentUpdates(benchmark::State& state) {
  if (state.thread_index() == 0) {
    const char* conninfo = getenv("KHET_BENCH_POSTGRES");
    PostgresStoreOptions options;
    options.connections = static_cast<int>(state.range(0));
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        conninfo != nullptr && *conninfo != '\0'
            ? PostgresStore::Open(conninfo, options)
            : absl::FailedPreconditionError("no KHET_BENCH_POSTGRES");
    shared_postgres = store.ok() ? store->release() : nullptr;
  }
  // The threads' loops start together, after thread 0's set-up above.
  const std::string id = absl::StrCat("bench-game", state.thread_index());
  const std::string blob(2048, 's');
  const std::string event_bytes(1700, 'e');
  bool created = false;
  int64_t version = 0;
  for (auto _ : state) {
    if (shared_postgres == nullptr) {
      state.SkipWithError("cannot open the store (set KHET_BENCH_POSTGRES)");
      break;
    }
    if (!created) {
      absl::Status deleted = shared_postgres->Delete(id);
      created = (deleted.ok() || absl::IsNotFound(deleted)) &&
                shared_postgres->Create({id, 0, blob}, {}).ok();
      continue;
    }
    const EventRecord event{version + 1, event_bytes};
    if (!shared_postgres->Update({id, version + 1, blob}, version, {&event, 1})
             .ok()) {
      state.SkipWithError("update failed");
      break;
    }
    ++version;
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {  // the loops end together, too
    delete shared_postgres;
    shared_postgres = nullptr;
  }
}
BENCHMARK(BM_PostgresConcurrentUpdates)
    ->Arg(1)
    ->Arg(4)
    ->Arg(16)
    ->Threads(200)
    ->UseRealTime()
    ->MinTime(2);

void BM_PostgresGet(benchmark::State& state) {
  std::string error;
  PostgresStore* store = BenchPostgres(&error);
  if (store == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::string blob(static_cast<size_t>(state.range(0)), 's');
  store->Delete("bench-get").IgnoreError();
  if (absl::Status s = store->Create({"bench-get", 0, blob}, {}); !s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<SessionRecord> record = store->Get("bench-get");
    benchmark::DoNotOptimize(record);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PostgresGet)->Arg(4096)->UseRealTime();

}  // namespace
}  // namespace khet

BENCHMARK_MAIN();
