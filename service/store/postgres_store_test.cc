// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// PostgresStore beyond the conformance suite: migrations (once, under the
// lock, newer refused, from schema 1), the change listener across stores on
// one database, writers racing through two stores, the one-statement
// writes' checks and atomicity, a failing write in a batch, lost
// connections and an unreachable server.
#include "service/store/postgres_store.h"

#include <algorithm>
#include <atomic>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/mutex.h"
#include "service/store/postgres_testing.h"
#include "service/store/store_testing.h"

namespace khet {
namespace {

using ::testing::HasSubstr;

class PostgresStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string skip_reason;
    absl::StatusOr<std::unique_ptr<TestDatabase>> db =
        TestDatabase::Create(&skip_reason);
    KHET_ASSERT_OK(db);
    if (*db == nullptr) GTEST_SKIP() << skip_reason;
    db_ = *std::move(db);
  }

  std::unique_ptr<PostgresStore> OpenStore(
      const PostgresStoreOptions& options = {}) {
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(db_->conninfo(), options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Runs `sql` on the test database through a connection of its own.
  absl::Status RunSql(const std::string& sql) {
    return RunOnTestServer(db_->conninfo(), sql);
  }

  std::unique_ptr<TestDatabase> db_;
};

// Collects the changes a store's listener hears.
class Changes {
 public:
  ChangeListener Listener() {
    return [this](const StoreChange& change) {
      MutexLock lock(&mu_);
      heard_.push_back(change);
      changed_.SignalAll();
    };
  }
  // Waits until a change satisfying `match` was heard; false after
  // `limit`.
  template <typename Match>
  bool WaitFor(Match match, absl::Duration limit = absl::Seconds(10)) {
    const absl::Time deadline = absl::Now() + limit;
    MutexLock lock(&mu_);
    while (true) {
      for (const StoreChange& c : heard_) {
        if (match(c)) return true;
      }
      if (absl::Now() >= deadline) return false;
      changed_.WaitWithTimeout(&mu_, absl::Milliseconds(50));
    }
  }

 private:
  Mutex mu_;
  CondVar changed_;
  std::vector<StoreChange> heard_ ABSL_GUARDED_BY(mu_);
};

TEST_F(PostgresStoreTest, MigratesOnceEvenWhenOpenedConcurrently) {
  constexpr int kOpeners = 4;
  std::latch start(kOpeners);
  std::atomic<int> opened = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < kOpeners; ++i) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      absl::StatusOr<std::unique_ptr<PostgresStore>> store =
          PostgresStore::Open(db_->conninfo());
      if (store.ok()) {
        ++opened;
      } else {
        ADD_FAILURE() << store.status();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(opened, kOpeners);
  // Exactly one row per migration: a second one would violate the key.
  KHET_EXPECT_OK(RunSql(
      absl::StrCat("DO $$ BEGIN IF (SELECT count(*) FROM schema_migrations) "
                   "<> ",
                   PostgresStore::kSchemaVersion,
                   " THEN RAISE EXCEPTION 'migrations recorded more than "
                   "once'; END IF; END $$")));
  std::unique_ptr<PostgresStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  KHET_EXPECT_OK(store->Create({"a", 0, "s"}, {}));
}

TEST_F(PostgresStoreTest, RefusesADatabaseWithANewerSchema) {
  ASSERT_NE(OpenStore(), nullptr);
  KHET_ASSERT_OK(RunSql("INSERT INTO schema_migrations (version) VALUES (99)"));
  EXPECT_THAT(PostgresStore::Open(db_->conninfo()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("schema migration 99, newer than this "
                                    "build's ",
                                    PostgresStore::kSchemaVersion)));
}

TEST_F(PostgresStoreTest, UnreachableServerIsUnavailable) {
  PostgresStoreOptions options;
  options.connect_timeout = absl::Seconds(2);
  // Port 1 on loopback: nothing listens there.
  EXPECT_THAT(PostgresStore::Open("host=127.0.0.1 port=1 dbname=x", options),
              StatusIs(absl::StatusCode::kUnavailable, "cannot connect"));
  EXPECT_THAT(PostgresStore::Open("this is not a conninfo"),
              StatusIs(absl::StatusCode::kUnavailable, "cannot connect"));
  // What a client is told, on one line (libpq's message has three).
  const absl::Status refused =
      PostgresStore::Open("host=127.0.0.1 port=1 dbname=x", options).status();
  EXPECT_TRUE(absl::StartsWith(refused.message(), PostgresStore::kUnreachable))
      << refused;
  EXPECT_FALSE(absl::StrContains(refused.message(), "\n")) << refused;
  EXPECT_FALSE(absl::StrContains(refused.message(), "\t")) << refused;
}

TEST_F(PostgresStoreTest, EveryStoreOnTheDatabaseHearsEveryChange) {
  std::unique_ptr<PostgresStore> writer = OpenStore();
  std::unique_ptr<PostgresStore> reader = OpenStore();
  ASSERT_NE(writer, nullptr);
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(writer->shared());
  Changes heard_by_reader;
  Changes heard_by_writer;
  reader->SetChangeListener(heard_by_reader.Listener());
  writer->SetChangeListener(heard_by_writer.Listener());
  KHET_ASSERT_OK(writer->Create({"s 1", 0, "zero"}, {}));
  KHET_ASSERT_OK(writer->Update({"s 1", 2, "two"}, 0, {{1, "e1"}, {2, "e2"}}));
  KHET_ASSERT_OK(writer->Delete("s 1"));
  for (Changes* changes : {&heard_by_reader, &heard_by_writer}) {
    EXPECT_TRUE(changes->WaitFor([](const StoreChange& c) {
      return c.id == "s 1" && c.version == 0 && !c.deleted;
    }));
    EXPECT_TRUE(changes->WaitFor([](const StoreChange& c) {
      return c.id == "s 1" && c.version == 2 && !c.deleted;
    }));
    EXPECT_TRUE(changes->WaitFor(
        [](const StoreChange& c) { return c.id == "s 1" && c.deleted; }));
  }
  // A failed write tells nobody anything.
  EXPECT_THAT(writer->Update({"s 1", 3, "x"}, 2, {}),
              StatusIs(absl::StatusCode::kNotFound, "s 1"));
  reader->SetChangeListener(nullptr);
  writer->SetChangeListener(nullptr);
}

PushTargetRecord Target(std::string session_id, std::string owner) {
  return PushTargetRecord{.session_id = std::move(session_id),
                          .url = "http://127.0.0.1:9/lslhttp/x/",
                          .address = "127.0.0.1",
                          .caller = "127.0.0.1",
                          .secret = std::string(64, 'a'),
                          .owner = std::move(owner)};
}

std::vector<std::string> SessionsOf(
    const absl::StatusOr<std::vector<PushTargetRecord>>& claimed) {
  std::vector<std::string> ids;
  if (!claimed.ok()) return {"error: " + claimed.status().ToString()};
  for (const PushTargetRecord& t : *claimed) ids.push_back(t.session_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Push targets pass from a replica whose heartbeat ended to one that
// claims them, each to one claimant, whole; a live replica's stay.
TEST_F(PostgresStoreTest, PushTargetsPassFromADeadReplicaToALiveOne) {
  std::unique_ptr<PostgresStore> a = OpenStore();
  std::unique_ptr<PostgresStore> b = OpenStore();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  const absl::Duration ttl = absl::Seconds(3);
  for (const char* id : {"s1", "s2", "s3"}) {
    KHET_ASSERT_OK(a->Create({id, 0, "zero"}, {}));
  }
  // Both beat; A keeps two boards, B one.
  EXPECT_THAT(SessionsOf(a->ClaimPushTargets("A", t0, t0 + ttl, 10)),
              testing::IsEmpty());
  EXPECT_THAT(SessionsOf(b->ClaimPushTargets("B", t0, t0 + ttl, 10)),
              testing::IsEmpty());
  KHET_ASSERT_OK(a->SavePushTarget(Target("s1", "A")));
  KHET_ASSERT_OK(a->SavePushTarget(Target("s2", "A")));
  KHET_ASSERT_OK(b->SavePushTarget(Target("s3", "B")));
  EXPECT_THAT(a->SavePushTarget(Target("nope", "A")),
              StatusIs(absl::StatusCode::kNotFound, "nope"));
  // While A's heartbeat runs, B claims nothing.
  EXPECT_THAT(SessionsOf(b->ClaimPushTargets("B", t0 + absl::Seconds(2),
                                             t0 + absl::Seconds(5), 10)),
              testing::IsEmpty());
  // A stops beating (it died at t0): from t0 + ttl its boards are B's,
  // whole (url, address, caller, secret).
  const absl::StatusOr<std::vector<PushTargetRecord>> claimed =
      b->ClaimPushTargets("B", t0 + ttl, t0 + ttl + ttl, 10);
  EXPECT_THAT(SessionsOf(claimed), testing::ElementsAre("s1", "s2"));
  ASSERT_TRUE(claimed.ok());
  EXPECT_EQ((*claimed)[0].url, "http://127.0.0.1:9/lslhttp/x/");
  EXPECT_EQ((*claimed)[0].address, "127.0.0.1");
  EXPECT_EQ((*claimed)[0].caller, "127.0.0.1");
  EXPECT_EQ((*claimed)[0].secret, std::string(64, 'a'));
  EXPECT_EQ((*claimed)[0].owner, "B");
  // Claimed once: neither B again nor a third replica gets them.
  EXPECT_THAT(
      SessionsOf(b->ClaimPushTargets("B", t0 + ttl, t0 + ttl + ttl, 10)),
      testing::IsEmpty());
  EXPECT_THAT(
      SessionsOf(a->ClaimPushTargets("C", t0 + ttl, t0 + ttl + ttl, 10)),
      testing::IsEmpty());
  // A deletes only its own: s1 is B's now.
  KHET_ASSERT_OK(a->DeletePushTarget("s1", "A"));
  // B ends its heartbeat (a shutdown): C takes all three, in rounds of 2.
  EXPECT_THAT(SessionsOf(b->ClaimPushTargets("B", t0 + ttl, t0 + ttl, 0)),
              testing::IsEmpty());
  EXPECT_EQ(
      SessionsOf(a->ClaimPushTargets("C", t0 + ttl, t0 + ttl + ttl, 2)).size(),
      2u);
  EXPECT_EQ(
      SessionsOf(a->ClaimPushTargets("C", t0 + ttl, t0 + ttl + ttl, 2)).size(),
      1u);
  const std::vector<std::string> error = {"error"};
  EXPECT_THAT(a->PushTargetsOf("C").value_or(error),
              testing::UnorderedElementsAre("s1", "s2", "s3"));
  EXPECT_EQ(b->CountPushTargets("C").value_or(-1), 3);
  EXPECT_EQ(b->CountPushTargets("B").value_or(-1), 0);
  EXPECT_THAT(b->PushTargetsOf("B").value_or(error), testing::IsEmpty());
  const absl::StatusOr<PushTargetRecord> s3 = b->GetPushTarget("s3");
  ASSERT_TRUE(s3.ok()) << s3.status();
  EXPECT_EQ(s3->owner, "C");
  EXPECT_EQ(s3->url, Target("s3", "B").url);
  EXPECT_EQ(s3->secret, Target("s3", "B").secret);
  EXPECT_EQ(s3->address, Target("s3", "B").address);
  EXPECT_EQ(s3->caller, Target("s3", "B").caller);
  // Deleted by its owner, or with its session, a target is gone.
  KHET_ASSERT_OK(a->DeletePushTarget("s1", "C"));
  KHET_ASSERT_OK(a->Delete("s2"));
  EXPECT_THAT(b->GetPushTarget("s1"),
              StatusIs(absl::StatusCode::kNotFound, "s1"));
  EXPECT_THAT(b->GetPushTarget("nope"),
              StatusIs(absl::StatusCode::kNotFound, "nope"));
  EXPECT_EQ(b->CountPushTargets("C").value_or(-1), 1);
  EXPECT_THAT(SessionsOf(b->ClaimPushTargets("D", t0 + absl::Hours(2),
                                             t0 + absl::Hours(2) + ttl, 10)),
              testing::ElementsAre("s3"));
}

// A target saved by a replica that never beat (it died before its first
// heartbeat reached the database) is claimed at once.
TEST_F(PostgresStoreTest, APushTargetOfAReplicaWithNoHeartbeatIsClaimed) {
  std::unique_ptr<PostgresStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  KHET_ASSERT_OK(store->Create({"s1", 0, "zero"}, {}));
  KHET_ASSERT_OK(store->SavePushTarget(Target("s1", "never beat")));
  const absl::Time now = absl::Now();
  EXPECT_THAT(
      SessionsOf(store->ClaimPushTargets("B", now, now + absl::Seconds(3), 10)),
      testing::ElementsAre("s1"));
}

TEST_F(PostgresStoreTest, WritersOnTwoStoresRacingOneVersionHaveOneWinner) {
  std::unique_ptr<PostgresStore> a = OpenStore();
  std::unique_ptr<PostgresStore> b = OpenStore();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  KHET_ASSERT_OK(a->Create({"race", 0, "start"}, {}));
  for (int round = 0; round < 20; ++round) {
    std::latch start(2);
    absl::Status results[2];
    std::thread ta([&] {
      start.arrive_and_wait();
      results[0] =
          a->Update({"race", round + 1, "by a"}, round, {{round + 1, "a"}});
    });
    std::thread tb([&] {
      start.arrive_and_wait();
      results[1] =
          b->Update({"race", round + 1, "by b"}, round, {{round + 1, "b"}});
    });
    ta.join();
    tb.join();
    EXPECT_NE(results[0].ok(), results[1].ok())
        << "round " << round << ": " << results[0] << " / " << results[1];
    for (const absl::Status& s : results) {
      if (!s.ok()) {
        EXPECT_THAT(s, StatusIs(absl::StatusCode::kAborted, "race"));
      }
    }
  }
  absl::StatusOr<std::vector<EventRecord>> events =
      b->EventsAfter("race", 0, 100);
  KHET_ASSERT_OK(events);
  EXPECT_EQ(events->size(), 20u);
}

TEST_F(PostgresStoreTest, LostConnectionsAreOpenedAgain) {
  PostgresStoreOptions options;
  options.connections = 1;
  options.listen_retry_delay = absl::Milliseconds(50);
  std::unique_ptr<PostgresStore> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  Changes changes;
  store->SetChangeListener(changes.Listener());
  KHET_ASSERT_OK(store->Create({"a", 0, "s"}, {}));
  // Each ended connection's server process has exited when this returns
  // (pg_terminate_backend waits up to 10 s for it).
  auto end_other_connections = [&] {
    return RunSql(absl::StrCat(
        "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
        "WHERE datname = '",
        db_->name(), "' AND pid <> pg_backend_pid()"));
  };
  // The pool's idle connection and the listener's are ended: a read runs
  // again on a new connection, and so does a write that finds it ended
  // before sending anything.
  KHET_ASSERT_OK(end_other_connections());
  absl::StatusOr<SessionRecord> got = store->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->state, "s");
  KHET_ASSERT_OK(end_other_connections());
  KHET_ASSERT_OK(store->Update({"a", 1, "t"}, 0, {{1, "e"}}));
  KHET_ASSERT_OK(end_other_connections());
  absl::StatusOr<std::vector<EventRecord>> events =
      store->EventsAfter("a", 0, 10);
  KHET_ASSERT_OK(events);
  EXPECT_EQ(events->size(), 1u);
  // The listener opens its connection again, says it may have missed
  // changes, and hears the next ones.
  EXPECT_TRUE(
      changes.WaitFor([](const StoreChange& c) { return c.id.empty(); }));
  // The last termination may have caught the listener's new connection
  // too, losing the next notice to a reconnection (which says so, as
  // above): of a few more changes, it hears one.
  bool heard = false;
  for (int64_t version = 2; version <= 6 && !heard; ++version) {
    KHET_ASSERT_OK(
        store->Update({"a", version, "u"}, version - 1, {{version, "f"}}));
    heard = changes.WaitFor(
        [version](const StoreChange& c) {
          return c.id == "a" && c.version == version;
        },
        absl::Seconds(3));
  }
  EXPECT_TRUE(heard);
  store->SetChangeListener(nullptr);
}

TEST_F(PostgresStoreTest, MigratesADatabaseLeftAtSchemaOne) {
  // What a build knowing only migration 1 left: its tables and a session.
  KHET_ASSERT_OK(RunSql(
      "CREATE TABLE schema_migrations (version integer PRIMARY KEY, "
      "applied_at timestamptz NOT NULL DEFAULT now());"
      "INSERT INTO schema_migrations (version) VALUES (1);"
      "CREATE TABLE khet_sessions (id text PRIMARY KEY, version bigint NOT "
      "NULL, state bytea NOT NULL, updated_at timestamptz NOT NULL);"
      "CREATE TABLE khet_events (session_id text NOT NULL, version bigint NOT "
      "NULL, event bytea NOT NULL, PRIMARY KEY (session_id, version));"
      "INSERT INTO khet_sessions VALUES ('old', 1, 'one'::bytea, now());"
      "INSERT INTO khet_events VALUES ('old', 1, 'e1'::bytea);"));
  std::unique_ptr<PostgresStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  KHET_EXPECT_OK(
      RunSql("DO $$ BEGIN IF (SELECT array_agg(version ORDER BY version) "
             "FROM schema_migrations) <> ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10] "
             "THEN RAISE EXCEPTION 'not migrated to 10'; END IF; END $$"));
  absl::StatusOr<SessionRecord> old = store->Get("old");
  KHET_ASSERT_OK(old);
  EXPECT_EQ(old->version, 1);
  EXPECT_EQ(old->state, "one");
  // The old session goes on through the new statements, which know its
  // log's last version (migration 8).
  EXPECT_THAT(store->Update({"old", 2, "x"}, 1, {{1, "dup"}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "event version 1 does not follow version 1"));
  KHET_EXPECT_OK(store->Update({"old", 2, "two"}, 1, {{2, "e2"}}));
  EXPECT_THAT(store->Update({"old", 2, "again"}, 1, {{2, "e2"}}),
              StatusIs(absl::StatusCode::kAborted, "at version 2, not 1"));
  absl::StatusOr<std::vector<EventRecord>> events =
      store->EventsAfter("old", 0, 10);
  KHET_ASSERT_OK(events);
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event, "e1");
  EXPECT_EQ((*events)[1].event, "e2");
  // Leases (migration 3) hold for old sessions too.
  EXPECT_TRUE(*store->TryLease("old", "holder", absl::Now(), absl::Seconds(5)));
  // So does the archive of games (migration 4).
  ArchivedGame game;
  game.id = "old-g1";
  game.session_id = "old";
  game.result = "*";
  KHET_EXPECT_OK(store->Update({"old", 3, "three"}, 2, {{3, "e3"}}, &game));
  EXPECT_EQ(store->GetGame("old-g1")->session_id, "old");
  // And its analyses (migration 5).
  KHET_EXPECT_OK(store->SetGameAnalysis("old-g1", "scored"));
  EXPECT_EQ(store->GetGame("old-g1")->analysis, "scored");
  // An old game is unrated (migration 6), and a rated one can follow.
  EXPECT_EQ(store->GetGame("old-g1")->silver_id, "");
  ArchivedGame rated = game;
  rated.id = "old-g2";
  rated.result = "1-0";
  rated.silver_id = "ann";
  rated.red_id = "bob";
  KHET_EXPECT_OK(store->Update({"old", 4, "four"}, 3, {{4, "e4"}}, &rated));
  EXPECT_EQ(store->GetGame("old-g2")->red_id, "bob");
  KHET_EXPECT_OK(store->Delete("old"));
  EXPECT_THAT(store->GetGame("old-g1"),
              StatusIs(absl::StatusCode::kNotFound, "old-g1"));
  // Opening it again migrates nothing more.
  ASSERT_NE(OpenStore(), nullptr);
}

TEST_F(PostgresStoreTest, OneStatementWritesReportEachCheck) {
  std::unique_ptr<PostgresStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  KHET_ASSERT_OK(store->Create({"s", 1, "one"}, {{1, "e1"}}));
  EXPECT_THAT(store->Create({"s", 0, "again"}, {}),
              StatusIs(absl::StatusCode::kAlreadyExists, "\"s\""));
  EXPECT_THAT(store->Update({"s", 5, "stale"}, 4, {{5, "e5"}}),
              StatusIs(absl::StatusCode::kAborted,
                       "session \"s\" is at version 1, not 4"));
  EXPECT_THAT(store->Update({"nobody", 1, "x"}, 0, {{1, "e"}}),
              StatusIs(absl::StatusCode::kNotFound, "nobody"));
  EXPECT_THAT(store->Delete("nobody"),
              StatusIs(absl::StatusCode::kNotFound, "nobody"));
  // The log's last version is checked by the statement.
  EXPECT_THAT(store->Update({"s", 2, "x"}, 1, {{1, "dup"}, {2, "e2"}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "event version 1 does not follow version 1"));
  absl::StatusOr<SessionRecord> got = store->Get("s");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, 1);
  EXPECT_EQ(got->state, "one");
  absl::StatusOr<std::vector<EventRecord>> events =
      store->EventsAfter("s", 0, 10);
  KHET_ASSERT_OK(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event, "e1");
}

// A trigger that fails the insert of an event whose bytes are "boom", after
// the statement has already changed the session's row.
constexpr char kFailBoomEvents[] =
    "CREATE FUNCTION fail_boom() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN IF NEW.event = 'boom'::bytea THEN RAISE EXCEPTION 'boom event'; "
    "END IF; RETURN NEW; END $$;"
    "CREATE TRIGGER fail_boom BEFORE INSERT ON khet_events FOR EACH ROW "
    "EXECUTE FUNCTION fail_boom();";

TEST_F(PostgresStoreTest, StateAndEventsCommitTogetherOrNotAtAll) {
  std::unique_ptr<PostgresStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  KHET_ASSERT_OK(RunSql(kFailBoomEvents));
  KHET_ASSERT_OK(store->Create({"s", 1, "one"}, {{1, "e1"}}));
  EXPECT_THAT(store->Update({"s", 3, "three"}, 1, {{2, "e2"}, {3, "boom"}}),
              StatusIs(absl::StatusCode::kInternal, "boom event"));
  absl::StatusOr<SessionRecord> got = store->Get("s");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, 1);
  EXPECT_EQ(got->state, "one");
  absl::StatusOr<std::vector<EventRecord>> events =
      store->EventsAfter("s", 0, 10);
  KHET_ASSERT_OK(events);
  EXPECT_EQ(events->size(), 1u);
  KHET_EXPECT_OK(store->Update({"s", 2, "two"}, 1, {{2, "e2"}}));
}

// Writes queued behind one that waits for a row lock go out together as
// one batch; a failing write in it fails alone, a stale one is ABORTED,
// and every other one commits.
TEST_F(PostgresStoreTest, OneWriteFailingInABatchFailsAlone) {
  PostgresStoreOptions options;
  options.connections = 1;
  std::unique_ptr<PostgresStore> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  KHET_ASSERT_OK(RunSql(kFailBoomEvents));
  constexpr int kRacingWriters = 12;
  KHET_ASSERT_OK(store->Create({"blocker", 0, "b"}, {}));
  for (int i = 0; i < kRacingWriters; ++i) {
    KHET_ASSERT_OK(store->Create({absl::StrCat("w", i), 0, "zero"}, {}));
  }
  // Another connection holds the blocker's row, so that the store's only
  // connection waits on it with the first write while the others queue.
  PGconn* holder = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(holder), CONNECTION_OK) << PQerrorMessage(holder);
  auto exec = [&](const char* sql) {
    PGresult* result = PQexec(holder, sql);
    const ExecStatusType status = PQresultStatus(result);
    PQclear(result);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
  };
  ASSERT_TRUE(exec("BEGIN"));
  ASSERT_TRUE(
      exec("SELECT * FROM khet_sessions WHERE id = 'blocker' "
           "FOR UPDATE"));
  std::thread first([&] {
    KHET_EXPECT_OK(store->Update({"blocker", 1, "b1"}, 0, {}));
  });
  absl::SleepFor(absl::Milliseconds(200));
  std::vector<absl::Status> results(kRacingWriters);
  std::vector<std::thread> writers;
  for (int i = 0; i < kRacingWriters; ++i) {
    writers.emplace_back([&, i] {
      const std::string id = absl::StrCat("w", i);
      // w3 sends an event the trigger fails; w7 a stale version.
      results[i] = store->Update({id, 1, "one"}, i == 7 ? 5 : 0,
                                 {{1, i == 3 ? "boom" : "e1"}});
    });
  }
  absl::SleepFor(absl::Milliseconds(200));
  ASSERT_TRUE(exec("COMMIT"));
  first.join();
  for (std::thread& t : writers) t.join();
  PQfinish(holder);
  for (int i = 0; i < kRacingWriters; ++i) {
    const std::string id = absl::StrCat("w", i);
    absl::StatusOr<SessionRecord> got = store->Get(id);
    KHET_ASSERT_OK(got);
    absl::StatusOr<std::vector<EventRecord>> events =
        store->EventsAfter(id, 0, 10);
    KHET_ASSERT_OK(events);
    if (i == 3) {
      EXPECT_THAT(results[i], StatusIs(absl::StatusCode::kInternal, "boom"));
    } else if (i == 7) {
      EXPECT_THAT(results[i], StatusIs(absl::StatusCode::kAborted,
                                       "\"w7\" is at version 0, not 5"));
    } else {
      EXPECT_TRUE(results[i].ok()) << id << ": " << results[i];
      EXPECT_EQ(got->version, 1) << id;
      EXPECT_EQ(events->size(), 1u) << id;
      continue;
    }
    EXPECT_EQ(got->version, 0) << id;
    EXPECT_TRUE(events->empty()) << id;
  }
}

TEST_F(PostgresStoreTest, TheCommitHookSeesEachTransactionsWrites) {
  Mutex mu;
  std::vector<int> batches;
  PostgresStoreOptions options;
  options.connections = 1;
  options.on_commit = [&](int writes, absl::Duration took) {
    EXPECT_GE(took, absl::ZeroDuration());
    MutexLock lock(&mu);
    batches.push_back(writes);
  };
  std::unique_ptr<PostgresStore> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  constexpr int kRacingWriters = 8;
  KHET_ASSERT_OK(store->Create({"blocker", 0, "b"}, {}));
  for (int i = 0; i < kRacingWriters; ++i) {
    KHET_ASSERT_OK(store->Create({absl::StrCat("w", i), 0, "zero"}, {}));
  }
  {
    MutexLock lock(&mu);
    EXPECT_EQ(batches,
              std::vector<int>(kRacingWriters + 1, 1));  // one at a time
    batches.clear();
  }
  // The blocker's row held elsewhere keeps the only connection busy with
  // the first write while the others queue behind it: they go together.
  PGconn* holder = PQconnectdb(db_->conninfo().c_str());
  ASSERT_EQ(PQstatus(holder), CONNECTION_OK) << PQerrorMessage(holder);
  PQclear(PQexec(holder, "BEGIN"));
  PQclear(PQexec(
      holder, "SELECT * FROM khet_sessions WHERE id = 'blocker' FOR UPDATE"));
  std::thread first([&] {
    KHET_EXPECT_OK(store->Update({"blocker", 1, "b1"}, 0, {}));
  });
  absl::SleepFor(absl::Milliseconds(200));
  std::vector<std::thread> writers;
  for (int i = 0; i < kRacingWriters; ++i) {
    writers.emplace_back([&, i] {
      KHET_EXPECT_OK(
          store->Update({absl::StrCat("w", i), 1, "one"}, 0, {{1, "e1"}}));
    });
  }
  absl::SleepFor(absl::Milliseconds(200));
  PQclear(PQexec(holder, "COMMIT"));
  first.join();
  for (std::thread& t : writers) t.join();
  PQfinish(holder);
  MutexLock lock(&mu);
  int writes = 0;
  for (int n : batches) writes += n;
  EXPECT_EQ(writes, kRacingWriters + 1);
  EXPECT_LT(batches.size(), static_cast<size_t>(kRacingWriters + 1));
}

// Writes handed over by UpdateLater are led by the store's committers (no
// caller waits), go in batches, and are all done before the store is gone.
TEST_F(PostgresStoreTest, LaterWritesAreCommittedInBatchesAndBeforeTheEnd) {
  Mutex mu;
  std::vector<int> batches;
  PostgresStoreOptions options;
  options.connections = 1;
  options.on_commit = [&](int writes, absl::Duration) {
    MutexLock lock(&mu);
    batches.push_back(writes);
  };
  std::unique_ptr<PostgresStore> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  constexpr int kSessions = 40;
  for (int i = 0; i < kSessions; ++i) {
    KHET_ASSERT_OK(store->Create({absl::StrCat("s", i), 0, "zero"}, {}));
  }
  std::atomic<int> ok = 0;
  std::atomic<int> answered = 0;
  // One thread hands every write over at once, then the store goes: its
  // destructor waits for the committers to finish them.
  for (int round = 1; round <= 2; ++round) {
    for (int i = 0; i < kSessions; ++i) {
      SessionStore::LaterUpdate update;
      update.record = {absl::StrCat("s", i), round, absl::StrCat("r", round)};
      update.expected_version = round - 1;
      update.events = {{round, absl::StrCat("e", round)}};
      store->UpdateLater(std::move(update), [&](absl::Status status) {
        ok += status.ok();
        ++answered;
      });
    }
  }
  store.reset();
  EXPECT_EQ(answered, 2 * kSessions);
  EXPECT_EQ(ok, 2 * kSessions);
  {
    MutexLock lock(&mu);
    EXPECT_LT(batches.size(), static_cast<size_t>(3 * kSessions));
  }
  store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < kSessions; ++i) {
    absl::StatusOr<SessionRecord> got = store->Get(absl::StrCat("s", i));
    KHET_ASSERT_OK(got);
    EXPECT_EQ(got->version, 2);
    EXPECT_EQ(got->state, "r2");
  }
}

TEST_F(PostgresStoreTest, AnIdThatIsNotUtf8IsInvalidArgument) {
  std::unique_ptr<PostgresStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(store->Create({"bad \xff id", 0, "s"}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "UTF8"));
  EXPECT_THAT(
      store->LoadAll(),
      testing::Property(&absl::StatusOr<std::vector<SessionRecord>>::ok, true));
}

}  // namespace
}  // namespace khet
