// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// SqliteStore beyond the shared contract: the file survives closing and a
// SIGKILL, the schema is versioned, and bad files are refused.
#include "service/store/sqlite_store.h"

#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <functional>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/store/store_testing.h"

namespace khet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// A raw connection for looking inside the file and for making odd files.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
  }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;
  ~RawDb() { sqlite3_close(db_); }

  void Exec(const std::string& sql) {
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error),
              SQLITE_OK)
        << sql << ": " << (error != nullptr ? error : "");
    sqlite3_free(error);
  }
  // The first column of the first row of `sql`, as text.
  std::string Text(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr),
              SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db_);
    std::string text;
    if (sqlite3_step(statement) == SQLITE_ROW) {
      const unsigned char* data = sqlite3_column_text(statement, 0);
      if (data != nullptr) text = reinterpret_cast<const char*>(data);
    }
    sqlite3_finalize(statement);
    return text;
  }

 private:
  sqlite3* db_ = nullptr;
};

TEST(SqliteStoreTest, DataSurvivesClosingAndReopening) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(path);
    KHET_ASSERT_OK(store);
    KHET_ASSERT_OK((*store)->Create({"a", 1, "a1"}, {Event(1)}));
    KHET_ASSERT_OK((*store)->Create({"b", 1, "b1"}, {Event(1)}));
    KHET_ASSERT_OK((*store)->Update({"a", 3, "a3"}, 1, {Event(2), Event(3)}));
    KHET_ASSERT_OK((*store)->Delete("b"));
  }
  for (int reopen = 0; reopen < 2; ++reopen) {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(path);
    KHET_ASSERT_OK(store);
    absl::StatusOr<std::vector<SessionRecord>> all = (*store)->LoadAll();
    KHET_ASSERT_OK(all);
    ASSERT_THAT(*all, SizeIs(1));
    EXPECT_EQ((*all)[0].id, "a");
    EXPECT_EQ((*all)[0].version, 3);
    EXPECT_EQ((*all)[0].state, "a3");
    absl::StatusOr<std::vector<EventRecord>> events =
        (*store)->EventsAfter("a", 0, 10);
    KHET_ASSERT_OK(events);
    ASSERT_THAT(*events, SizeIs(3));
    EXPECT_EQ((*events)[2].event, "event 3");
    EXPECT_THAT((*store)->Get("b"),
                StatusIs(absl::StatusCode::kNotFound, "\"b\""));
  }
}

TEST(SqliteStoreTest, NewFileHasSchemaVersionAndWal) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  KHET_ASSERT_OK(store);
  KHET_ASSERT_OK((*store)->Create({"a", 0, ""}, {}));
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA user_version"),
            absl::StrCat(SqliteStore::kSchemaVersion));
  EXPECT_EQ(raw.Text("PRAGMA application_id"), absl::StrCat(0x4b484554));
  EXPECT_EQ(raw.Text("PRAGMA journal_mode"), "wal");  // kept in the file
  EXPECT_EQ(raw.Text("SELECT group_concat(name, ',') FROM (SELECT name FROM "
                     "sqlite_schema WHERE type = 'table' ORDER BY name)"),
            "events,games,players,sessions,sqlite_sequence");
}

TEST(SqliteStoreTest, MigratesAFileLeftAtSchemaOne) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  {
    // What a build knowing only schema 1 left: its tables and a session.
    RawDb raw(path);
    raw.Exec(
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE sessions (id TEXT NOT NULL PRIMARY KEY, version INTEGER "
        "NOT NULL, state BLOB NOT NULL, updated_unix_micros INTEGER NOT NULL);"
        "CREATE TABLE events (session_id TEXT NOT NULL, version INTEGER NOT "
        "NULL, event BLOB NOT NULL, PRIMARY KEY (session_id, version));"
        "INSERT INTO sessions VALUES ('old', 1, 'one', 0);"
        "INSERT INTO events VALUES ('old', 1, 'e1');"
        "PRAGMA application_id = 1263027540; PRAGMA user_version = 1;");
  }
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  KHET_ASSERT_OK(store);
  ArchivedGame game;
  game.id = "old-g1";
  game.session_id = "old";
  game.record = "[Setup \"classic-2\"]\n\n*\n";
  game.result = "*";
  KHET_ASSERT_OK((*store)->Update({"old", 2, "two"}, 1, {{2, "e2"}}, &game));
  absl::StatusOr<ArchivedGame> got = (*store)->GetGame("old-g1");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->record, game.record);
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA user_version"),
            absl::StrCat(SqliteStore::kSchemaVersion));
}

TEST(SqliteStoreTest, MigratesAFileLeftAtSchemaTwo) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  {
    // What a build knowing schema 2 left: an archived game, no analysis.
    RawDb raw(path);
    raw.Exec(
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE sessions (id TEXT NOT NULL PRIMARY KEY, version INTEGER "
        "NOT NULL, state BLOB NOT NULL, updated_unix_micros INTEGER NOT NULL);"
        "CREATE TABLE events (session_id TEXT NOT NULL, version INTEGER NOT "
        "NULL, event BLOB NOT NULL, PRIMARY KEY (session_id, version));"
        "CREATE TABLE games (sequence INTEGER PRIMARY KEY AUTOINCREMENT, id "
        "TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL, record TEXT NOT NULL, "
        "silver TEXT NOT NULL, red TEXT NOT NULL, setup_id TEXT NOT NULL, "
        "result TEXT NOT NULL, ending TEXT NOT NULL, started_unix_micros "
        "INTEGER NOT NULL, ended_unix_micros INTEGER NOT NULL, plies INTEGER "
        "NOT NULL);"
        "INSERT INTO sessions VALUES ('old', 1, 'one', 0);"
        "INSERT INTO games (id, session_id, record, silver, red, setup_id, "
        "result, ending, started_unix_micros, ended_unix_micros, plies) VALUES "
        "('old-g1', 'old', 'r', 'Ann', 'Bob', 'classic-2', '1-0', "
        "'pharaoh hit', 0, 0, 3);"
        "PRAGMA application_id = 1263027540; PRAGMA user_version = 2;");
  }
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  KHET_ASSERT_OK(store);
  absl::StatusOr<ArchivedGame> got = (*store)->GetGame("old-g1");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->plies, 3);
  EXPECT_EQ(got->analysis, "");
  KHET_ASSERT_OK((*store)->SetGameAnalysis("old-g1", "scored"));
  got = (*store)->GetGame("old-g1");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->analysis, "scored");
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA user_version"),
            absl::StrCat(SqliteStore::kSchemaVersion));
}

TEST(SqliteStoreTest, MigratesAFileLeftAtSchemaThree) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  {
    // What a build knowing schema 3 left: a game with an analysis, no
    // ratings.
    RawDb raw(path);
    raw.Exec(
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE sessions (id TEXT NOT NULL PRIMARY KEY, version INTEGER "
        "NOT NULL, state BLOB NOT NULL, updated_unix_micros INTEGER NOT NULL);"
        "CREATE TABLE events (session_id TEXT NOT NULL, version INTEGER NOT "
        "NULL, event BLOB NOT NULL, PRIMARY KEY (session_id, version));"
        "CREATE TABLE games (sequence INTEGER PRIMARY KEY AUTOINCREMENT, id "
        "TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL, record TEXT NOT NULL, "
        "silver TEXT NOT NULL, red TEXT NOT NULL, setup_id TEXT NOT NULL, "
        "result TEXT NOT NULL, ending TEXT NOT NULL, started_unix_micros "
        "INTEGER NOT NULL, ended_unix_micros INTEGER NOT NULL, plies INTEGER "
        "NOT NULL, analysis BLOB NOT NULL DEFAULT x'');"
        "INSERT INTO sessions VALUES ('old', 1, 'one', 0);"
        "INSERT INTO games (id, session_id, record, silver, red, setup_id, "
        "result, ending, started_unix_micros, ended_unix_micros, plies, "
        "analysis) VALUES ('old-g1', 'old', 'r', 'Ann', 'Bob', 'classic-2', "
        "'1-0', 'pharaoh hit', 0, 0, 3, x'41');"
        "PRAGMA application_id = 1263027540; PRAGMA user_version = 3;");
  }
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  KHET_ASSERT_OK(store);
  absl::StatusOr<ArchivedGame> got = (*store)->GetGame("old-g1");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->analysis, "A");
  EXPECT_EQ(got->silver_id, "");  // an old game is unrated
  EXPECT_FALSE(got->rating_applied);
  absl::StatusOr<std::vector<ArchivedGame>> pending =
      (*store)->PendingRatedGames(10);
  KHET_ASSERT_OK(pending);
  EXPECT_THAT(*pending, SizeIs(0));
  EXPECT_THAT((*store)->GetPlayer("ann"),
              StatusIs(absl::StatusCode::kNotFound, "ann"));
  RawDb raw(path);
  EXPECT_EQ(raw.Text("PRAGMA user_version"),
            absl::StrCat(SqliteStore::kSchemaVersion));
}

TEST(SqliteStoreTest, UpdatedTimeComesFromTheClock) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  FakeClock clock(absl::FromUnixSeconds(1'700'000'000));
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(path, {.clock = &clock});
  KHET_ASSERT_OK(store);
  KHET_ASSERT_OK((*store)->Create({"a", 0, ""}, {}));
  RawDb raw(path);
  const std::string query =
      "SELECT updated_unix_micros FROM sessions WHERE id = 'a'";
  EXPECT_EQ(raw.Text(query), "1700000000000000");
  clock.Advance(absl::Milliseconds(1500));
  KHET_ASSERT_OK((*store)->Update({"a", 1, ""}, 0, {Event(1)}));
  EXPECT_EQ(raw.Text(query), "1700000001500000");
}

TEST(SqliteStoreTest, RefusesANewerSchema) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  {
    RawDb raw(path);
    raw.Exec(absl::StrCat("PRAGMA application_id = ", 0x4b484554,
                          "; PRAGMA user_version = 99"));
  }
  EXPECT_THAT(SqliteStore::Open(path),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "schema version 99, newer than this build's 4"));
}

TEST(SqliteStoreTest, RefusesAnotherProgramsDatabase) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  {
    RawDb raw(path);
    raw.Exec("CREATE TABLE t (x); PRAGMA user_version = 3");
  }
  EXPECT_THAT(SqliteStore::Open(path),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "is not a session store"));
  RawDb raw(path);  // and left it alone
  EXPECT_EQ(raw.Text("PRAGMA user_version"), "3");
  EXPECT_EQ(raw.Text("SELECT count(*) FROM sqlite_schema"), "1");
}

TEST(SqliteStoreTest, RefusesAFileThatIsNotADatabase) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  std::ofstream(path) << std::string(4096, 'x');
  EXPECT_THAT(SqliteStore::Open(path),
              StatusIs(absl::StatusCode::kInternal, "not a database"));
}

TEST(SqliteStoreTest, UnopenablePathIsUnavailable) {
  ScratchDir dir;
  EXPECT_THAT(SqliteStore::Open(dir.File("missing/dir/s.db")),
              StatusIs(absl::StatusCode::kUnavailable, "missing/dir/s.db"));
  EXPECT_THAT(SqliteStore::Open(dir.path()),
              StatusIs(absl::StatusCode::kUnavailable, dir.path()));
}

TEST(SqliteStoreTest, RefusesMemoryAndEmptyPaths) {
  EXPECT_THAT(SqliteStore::Open(":memory:"),
              StatusIs(absl::StatusCode::kInvalidArgument, ":memory:"));
  EXPECT_THAT(SqliteStore::Open(""),
              StatusIs(absl::StatusCode::kInvalidArgument, "needs a file"));
}

// Two stores (two connections, as from two processes) on one file: the
// version check is inside each write transaction, so exactly one of two
// racing updates wins.
TEST(SqliteStoreTest, TwoConnectionsRacingHaveOneWinner) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  absl::StatusOr<std::unique_ptr<SqliteStore>> first = SqliteStore::Open(path);
  KHET_ASSERT_OK(first);
  absl::StatusOr<std::unique_ptr<SqliteStore>> second = SqliteStore::Open(path);
  KHET_ASSERT_OK(second);
  KHET_ASSERT_OK((*first)->Create({"a", 0, ""}, {}));
  KHET_ASSERT_OK((*second)->Get("a"));
  constexpr int kRounds = 10;
  SqliteStore* stores[] = {first->get(), second->get()};
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> won = 0;
    std::latch start(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        absl::Status status = stores[t % 2]->Update(
            {"a", round + 1, absl::StrCat(t)}, round, {Event(round + 1)});
        if (status.ok()) {
          ++won;
        } else if (!absl::IsAborted(status)) {
          ADD_FAILURE() << status;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(won, 1) << "round " << round;
  }
  for (SqliteStore* store : stores) {
    absl::StatusOr<SessionRecord> got = store->Get("a");
    KHET_ASSERT_OK(got);
    EXPECT_EQ(got->version, kRounds);
    absl::StatusOr<std::vector<EventRecord>> events =
        store->EventsAfter("a", 0, 100);
    KHET_ASSERT_OK(events);
    EXPECT_THAT(*events, SizeIs(kRounds));
  }
}

// ---- Group commit ---------------------------------------------------------

// Waits until `n` writes are queued or in a batch; fails after 10 s.
void WaitForWaiting(SqliteStore& store, int64_t n) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (store.write_stats().waiting != n) {
    ASSERT_LT(absl::Now(), deadline)
        << "waiting writes: " << store.write_stats().waiting << ", not " << n;
    absl::SleepFor(absl::Milliseconds(1));
  }
}

// Makes `writes` queue up behind a batch that cannot commit yet: another
// connection holds the file's write lock while a first write (creating the
// session "leader") leads a batch of its own and waits for the lock; the
// writes queue behind it one at a time, in order, and form the next
// batch(es) once the lock is released. Returns each write's status.
std::vector<absl::Status> RunQueuedBehindALock(
    const std::string& path, SqliteStore& store,
    const std::vector<std::function<absl::Status()>>& writes) {
  RawDb blocker(path);
  blocker.Exec("BEGIN IMMEDIATE");
  const int64_t before = store.write_stats().waiting;
  std::thread leader([&] {
    EXPECT_TRUE(store.Create({"leader", 0, ""}, {}).ok());
  });
  WaitForWaiting(store, before + 1);
  std::vector<absl::Status> statuses(writes.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < writes.size(); ++i) {
    threads.emplace_back([&, i] { statuses[i] = writes[i](); });
    WaitForWaiting(store, before + 2 + static_cast<int64_t>(i));
  }
  blocker.Exec("COMMIT");
  leader.join();
  for (std::thread& thread : threads) thread.join();
  return statuses;
}

TEST(SqliteStoreBatchTest, ConcurrentWritesShareOneTransaction) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  absl::StatusOr<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path);
  KHET_ASSERT_OK(opened);
  SqliteStore& store = **opened;
  constexpr int kWriters = 20;
  for (int i = 0; i < kWriters; ++i) {
    KHET_ASSERT_OK(store.Create({absl::StrCat("s", i), 0, ""}, {}));
  }
  const SqliteWriteStats before = store.write_stats();
  std::vector<std::function<absl::Status()>> writes;
  for (int i = 0; i < kWriters; ++i) {
    writes.push_back([&store, i] {
      const EventRecord event = Event(1);
      return store.Update({absl::StrCat("s", i), 1, absl::StrCat("v1 ", i)}, 0,
                          {&event, 1});
    });
  }
  for (const absl::Status& status : RunQueuedBehindALock(path, store, writes)) {
    KHET_EXPECT_OK(status);
  }
  const SqliteWriteStats after = store.write_stats();
  EXPECT_EQ(after.writes - before.writes, kWriters + 1);
  EXPECT_EQ(after.transactions - before.transactions, 2)
      << "the leader's transaction and one for the writes queued behind it";
  EXPECT_EQ(after.waiting, 0);

  opened->reset();  // every write must be in the file for a new connection
  absl::StatusOr<std::unique_ptr<SqliteStore>> reopened =
      SqliteStore::Open(path);
  KHET_ASSERT_OK(reopened);
  for (int i = 0; i < kWriters; ++i) {
    const std::string id = absl::StrCat("s", i);
    absl::StatusOr<SessionRecord> got = (*reopened)->Get(id);
    KHET_ASSERT_OK(got);
    EXPECT_EQ(got->version, 1);
    EXPECT_EQ(got->state, absl::StrCat("v1 ", i));
    absl::StatusOr<std::vector<EventRecord>> events =
        (*reopened)->EventsAfter(id, 0, 10);
    KHET_ASSERT_OK(events);
    EXPECT_THAT(*events, SizeIs(1));
  }
}

TEST(SqliteStoreBatchTest, AFailingWriteLeavesTheRestOfItsBatchAlone) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  absl::StatusOr<std::unique_ptr<SqliteStore>> opened = SqliteStore::Open(path);
  KHET_ASSERT_OK(opened);
  SqliteStore& store = **opened;
  for (const char* id : {"good1", "stale", "bad-events", "good2", "gone"}) {
    KHET_ASSERT_OK(store.Create({id, 0, "start"}, {}));
  }
  const SqliteWriteStats before = store.write_stats();
  const EventRecord one = Event(1);
  const std::vector<EventRecord> backwards = {Event(2), Event(1)};
  const std::vector<std::function<absl::Status()>> writes = {
      [&] {
        return store.Update({"good1", 1, "next"}, 0, {&one, 1});
      },
      [&] {
        return store.Update({"stale", 8, "next"}, 7, {});
      },
      [&] {
        return store.Create({"good1", 0, "again"}, {});
      },
      [&] {
        return store.Update({"bad-events", 2, "next"}, 0, backwards);
      },
      [&] {
        return store.Update({"nobody", 1, "next"}, 0, {});
      },
      [&] { return store.Delete("gone"); },
      [&] { return store.Delete("gone"); },
      [&] {
        return store.Update({"good2", 1, "next"}, 0, {&one, 1});
      },
  };
  const std::vector<absl::Status> statuses =
      RunQueuedBehindALock(path, store, writes);
  KHET_EXPECT_OK(statuses[0]);
  EXPECT_THAT(statuses[1], StatusIs(absl::StatusCode::kAborted, "version 0"));
  EXPECT_THAT(statuses[2], StatusIs(absl::StatusCode::kAlreadyExists, "good1"));
  EXPECT_THAT(statuses[3],
              StatusIs(absl::StatusCode::kInvalidArgument, "bad-events"));
  EXPECT_THAT(statuses[4], StatusIs(absl::StatusCode::kNotFound, "nobody"));
  KHET_EXPECT_OK(statuses[5]);
  EXPECT_THAT(statuses[6], StatusIs(absl::StatusCode::kNotFound, "gone"));
  KHET_EXPECT_OK(statuses[7]);
  EXPECT_EQ(store.write_stats().transactions - before.transactions, 2);

  for (const char* id : {"good1", "good2"}) {
    absl::StatusOr<SessionRecord> got = store.Get(id);
    KHET_ASSERT_OK(got);
    EXPECT_EQ(got->version, 1) << id;
    EXPECT_EQ(got->state, "next") << id;
  }
  for (const char* id : {"stale", "bad-events"}) {
    absl::StatusOr<SessionRecord> got = store.Get(id);
    KHET_ASSERT_OK(got);
    EXPECT_EQ(got->version, 0) << id;
    EXPECT_EQ(got->state, "start") << id;
    absl::StatusOr<std::vector<EventRecord>> events =
        store.EventsAfter(id, 0, 10);
    KHET_ASSERT_OK(events);
    EXPECT_THAT(*events, SizeIs(0)) << id;
  }
  EXPECT_THAT(store.Get("gone"), StatusIs(absl::StatusCode::kNotFound, ""));
  EXPECT_THAT(store.Get("nobody"), StatusIs(absl::StatusCode::kNotFound, ""));
}

TEST(SqliteStoreBatchTest, BatchesAreBoundedAndKeepArrivalOrder) {
  ScratchDir dir;
  const std::string path = dir.File("s.db");
  SqliteStoreOptions options;
  options.max_batch = 4;
  Mutex mu;
  std::vector<int> batches;  // guarded by mu
  options.on_commit = [&](int writes, absl::Duration took) {
    EXPECT_GE(took, absl::ZeroDuration());
    MutexLock lock(&mu);
    batches.push_back(writes);
  };
  absl::StatusOr<std::unique_ptr<SqliteStore>> opened =
      SqliteStore::Open(path, options);
  KHET_ASSERT_OK(opened);
  SqliteStore& store = **opened;
  KHET_ASSERT_OK(store.Create({"chain", 0, ""}, {}));
  const SqliteWriteStats before = store.write_stats();
  // Write i takes the session from version i to i + 1: only arrival order
  // lets every one of them succeed.
  constexpr int kWrites = 10;
  std::vector<std::function<absl::Status()>> writes;
  for (int i = 0; i < kWrites; ++i) {
    writes.push_back([&store, i] {
      const EventRecord event = Event(i + 1);
      return store.Update({"chain", i + 1, absl::StrCat(i + 1)}, i,
                          {&event, 1});
    });
  }
  for (const absl::Status& status : RunQueuedBehindALock(path, store, writes)) {
    KHET_EXPECT_OK(status);
  }
  // The leader alone, then the 10 writes in batches of at most 4: 4, 4, 2.
  EXPECT_EQ(store.write_stats().transactions - before.transactions, 4);
  {
    MutexLock lock(&mu);  // the hook saw each transaction: Create first
    EXPECT_THAT(batches, ElementsAre(1, 1, 4, 4, 2));
  }
  absl::StatusOr<SessionRecord> got = store.Get("chain");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, kWrites);
}

TEST(SqliteStoreBatchTest, RefusesABatchLimitBelowOne) {
  ScratchDir dir;
  SqliteStoreOptions options;
  options.max_batch = 0;
  EXPECT_THAT(SqliteStore::Open(dir.File("s.db"), options),
              StatusIs(absl::StatusCode::kInvalidArgument, "max_batch"));
}

// The crash test's session: its state at each version, sized so that
// versions span different numbers of pages.
std::string CrashState(int64_t version) {
  return absl::StrCat("state ", version, ":",
                      std::string(version * 397 % 9000, 'a' + version % 26));
}

// How long a crash test waits for a child's first acknowledged update: a
// bound only a child that never writes reaches.
constexpr absl::Duration kFirstWriteWait = absl::Seconds(60);

// The child: updates the session from wherever it is, reporting each
// version on `report_fd` after its Update returned OK, until killed.
[[noreturn]] void RunCrashChild(const std::string& path, int report_fd) {
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  if (!store.ok()) _exit(10);
  absl::StatusOr<SessionRecord> record = (*store)->Get("game");
  if (!record.ok()) _exit(11);
  for (int64_t v = record->version + 1;; ++v) {
    EventRecord event = Event(v);
    if (!(*store)
             ->Update({"game", v, CrashState(v)}, v - 1, {&event, 1})
             .ok()) {
      _exit(12);
    }
    if (write(report_fd, &v, sizeof v) != sizeof v) _exit(13);
  }
}

// Reads the versions the child reports; returns the highest seen so far.
// Waits until `deadline` (or end of file if it is infinite).
int64_t ReadReports(int fd, absl::Time deadline, int64_t highest) {
  for (;;) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return highest;
    pollfd p{fd, POLLIN, 0};
    const int timeout_ms = left == absl::InfiniteDuration()
                               ? -1
                               : static_cast<int>(absl::ToInt64Milliseconds(
                                     left + absl::Milliseconds(1)));
    const int ready = poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return highest;
    int64_t version;
    // Each report is one 8-byte write, which a pipe keeps whole.
    const ssize_t n = read(fd, &version, sizeof version);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return highest;  // the child is gone
    if (n != sizeof version) {
      ADD_FAILURE() << "short report of " << n << " bytes";
      return highest;
    }
    EXPECT_GT(version, highest) << "reports out of order";
    highest = version;
  }
}

// A child process updates the store as fast as it can and is SIGKILLed at a
// random moment, several times over. Every version it reported (its Update
// had returned OK) must be in the file, with its state and whole event log;
// at most one more, whose OK it had not yet reported, may be there too.
TEST(SqliteStoreCrashTest, EveryAcknowledgedUpdateSurvivesSigkill) {
  ScratchDir dir;
  const std::string path = dir.File("crash.db");
  {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(path);
    KHET_ASSERT_OK(store);
    KHET_ASSERT_OK((*store)->Create({"game", 0, CrashState(0)}, {}));
  }  // closed: no connection may cross the fork
  const unsigned seed = std::random_device()();
  SCOPED_TRACE(absl::StrCat("seed ", seed));
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_ms(0, 150);
  int64_t stored = 0;
  int killed_mid_run = 0;
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      RunCrashChild(path, fds[1]);
    }
    close(fds[1]);
    // Round 0 kills the child at once; the others a random while after its
    // first acknowledged update, however long a loaded machine (or a
    // sanitizer's fork) takes to get there.
    int64_t reported = stored;
    if (round > 0) {
      const absl::Time give_up = absl::Now() + kFirstWriteWait;
      while (reported == stored && absl::Now() < give_up) {
        reported =
            ReadReports(fds[0], absl::Now() + absl::Milliseconds(10), reported);
      }
      reported = ReadReports(
          fds[0], absl::Now() + absl::Milliseconds(delay_ms(random)), reported);
    }
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int wait_status = 0;
    ASSERT_EQ(waitpid(child, &wait_status, 0), child);
    reported = ReadReports(fds[0], absl::InfiniteFuture(), reported);
    close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL)
        << "child exited with status " << wait_status;
    if (reported > stored) ++killed_mid_run;

    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(path);
    KHET_ASSERT_OK(store);
    absl::StatusOr<SessionRecord> record = (*store)->Get("game");
    KHET_ASSERT_OK(record);
    EXPECT_GE(record->version, reported) << "an acknowledged update was lost";
    EXPECT_LE(record->version, reported + 1);
    EXPECT_TRUE(record->state == CrashState(record->version))
        << "state of version " << record->version << " differs";
    absl::StatusOr<std::vector<EventRecord>> events =
        (*store)->EventsAfter("game", 0, 1'000'000);
    KHET_ASSERT_OK(events);
    ASSERT_EQ(static_cast<int64_t>(events->size()), record->version);
    for (int64_t v = 1; v <= record->version; ++v) {
      ASSERT_EQ((*events)[v - 1].version, v);
      ASSERT_EQ((*events)[v - 1].event, Event(v).event);
    }
    stored = record->version;
    store->reset();
    RawDb raw(path);
    EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  }
  EXPECT_GT(killed_mid_run, 0) << "the child never got to write";
  RecordProperty("versions_written", static_cast<int>(stored));
}

// The concurrent child: kWriters threads update sessions "game0"... each
// from wherever it is, so that their writes share transactions; each
// reports {writer, version} on `report_fd` after its Update returned OK.
constexpr int kWriters = 4;

[[noreturn]] void RunConcurrentCrashChild(const std::string& path,
                                          int report_fd) {
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  if (!store.ok()) _exit(10);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const std::string id = absl::StrCat("game", w);
      absl::StatusOr<SessionRecord> record = (*store)->Get(id);
      if (!record.ok()) _exit(11);
      for (int64_t v = record->version + 1;; ++v) {
        EventRecord event = Event(v);
        if (!(*store)
                 ->Update({id, v, CrashState(v)}, v - 1, {&event, 1})
                 .ok()) {
          _exit(12);
        }
        const int64_t report[2] = {w, v};
        if (write(report_fd, report, sizeof report) != sizeof report) _exit(13);
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  _exit(14);  // not reached: the writers run until the process is killed
}

// Reads {writer, version} reports until `deadline` (or the end of the
// pipe), raising (*highest)[writer].
void ReadConcurrentReports(int fd, absl::Time deadline,
                           std::vector<int64_t>* highest) {
  for (;;) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return;
    pollfd p{fd, POLLIN, 0};
    const int timeout_ms = left == absl::InfiniteDuration()
                               ? -1
                               : static_cast<int>(absl::ToInt64Milliseconds(
                                     left + absl::Milliseconds(1)));
    const int ready = poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return;
    int64_t report[2];
    // Each report is one 16-byte write, which a pipe keeps whole.
    const ssize_t n = read(fd, report, sizeof report);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return;
    if (n != sizeof report || report[0] < 0 || report[0] >= kWriters) {
      ADD_FAILURE() << "bad report of " << n << " bytes";
      return;
    }
    EXPECT_GT(report[1], (*highest)[report[0]]) << "reports out of order";
    (*highest)[report[0]] = report[1];
  }
}

// As above with several threads writing at once, so that group commit puts
// their updates into shared transactions: every update any thread had
// acknowledged survives, for each session.
TEST(SqliteStoreCrashTest, GroupCommittedUpdatesSurviveSigkill) {
  ScratchDir dir;
  const std::string path = dir.File("crash.db");
  {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(path);
    KHET_ASSERT_OK(store);
    for (int w = 0; w < kWriters; ++w) {
      KHET_ASSERT_OK(
          (*store)->Create({absl::StrCat("game", w), 0, CrashState(0)}, {}));
    }
  }
  const unsigned seed = std::random_device()();
  SCOPED_TRACE(absl::StrCat("seed ", seed));
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> delay_ms(0, 150);
  std::vector<int64_t> stored(kWriters, 0);
  int64_t written = 0;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      RunConcurrentCrashChild(path, fds[1]);
    }
    close(fds[1]);
    // Killed a random while after the children's first acknowledged
    // update, however long a loaded machine takes to get there.
    std::vector<int64_t> reported = stored;
    const absl::Time give_up = absl::Now() + kFirstWriteWait;
    while (reported == stored && absl::Now() < give_up) {
      ReadConcurrentReports(fds[0], absl::Now() + absl::Milliseconds(10),
                            &reported);
    }
    ReadConcurrentReports(
        fds[0], absl::Now() + absl::Milliseconds(delay_ms(random)), &reported);
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int wait_status = 0;
    ASSERT_EQ(waitpid(child, &wait_status, 0), child);
    ReadConcurrentReports(fds[0], absl::InfiniteFuture(), &reported);
    close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL)
        << "child exited with status " << wait_status;

    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(path);
    KHET_ASSERT_OK(store);
    for (int w = 0; w < kWriters; ++w) {
      const std::string id = absl::StrCat("game", w);
      absl::StatusOr<SessionRecord> record = (*store)->Get(id);
      KHET_ASSERT_OK(record);
      EXPECT_GE(record->version, reported[w])
          << id << ": an acknowledged update was lost";
      EXPECT_LE(record->version, reported[w] + 1) << id;
      EXPECT_TRUE(record->state == CrashState(record->version)) << id;
      absl::StatusOr<std::vector<EventRecord>> events =
          (*store)->EventsAfter(id, 0, 1'000'000);
      KHET_ASSERT_OK(events);
      ASSERT_EQ(static_cast<int64_t>(events->size()), record->version) << id;
      written += record->version - stored[w];
      stored[w] = record->version;
    }
    store->reset();
    RawDb raw(path);
    EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  }
  EXPECT_GT(written, 0) << "the children never got to write";
}

}  // namespace
}  // namespace khet
