// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The SessionStore contract, run against every store: each method, each
// error code, concurrency and large values.
#include "service/store/session_store.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <latch>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/base/mutex.h"
#include "service/store/memory_store.h"
#include "service/store/postgres_store.h"
#include "service/store/postgres_testing.h"
#include "service/store/sqlite_store.h"
#include "service/store/store_testing.h"

namespace khet {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::SizeIs;

struct StoreKind {
  std::string name;
  // Opens the store kept in `where`: a scratch directory, or the conninfo
  // of a fresh database when `postgres` (ignored by stores that keep
  // nothing); keeping about `events_kept` events per session (0: all).
  std::function<absl::StatusOr<std::unique_ptr<SessionStore>>(
      const std::string& where, int64_t events_kept)>
      open;
  bool postgres = false;
};

// Names the parameter in test listings (and so in ctest's names).
void PrintTo(const StoreKind& kind, std::ostream* os) { *os << kind.name; }

std::vector<StoreKind> AllStores() {
  return {
      {"Memory",
       [](const std::string&, int64_t events_kept)
           -> absl::StatusOr<std::unique_ptr<SessionStore>> {
         return std::make_unique<MemoryStore>(events_kept);
       }},
      {"Sqlite",
       [](const std::string& dir, int64_t events_kept)
           -> absl::StatusOr<std::unique_ptr<SessionStore>> {
         SqliteStoreOptions options;
         options.events_kept = events_kept;
         return SqliteStore::Open(dir + "/sessions.db", options);
       }},
      {"Postgres",
       [](const std::string& conninfo, int64_t events_kept)
           -> absl::StatusOr<std::unique_ptr<SessionStore>> {
         PostgresStoreOptions options;
         options.events_kept = events_kept;
         return PostgresStore::Open(conninfo, options);
       },
       /*postgres=*/true},
  };
}

SessionRecord Record(std::string id, int64_t version, std::string state) {
  return SessionRecord{std::move(id), version, std::move(state)};
}

// Matches an OK StatusOr holding `value`.
MATCHER_P(IsOkAnd, value, absl::StrCat("is OK and holds ", value)) {
  if (!arg.ok()) {
    *result_listener << "which is " << arg.status();
    return false;
  }
  *result_listener << "which holds " << *arg;
  return *arg == value;
}

std::vector<int64_t> Versions(const std::vector<EventRecord>& events) {
  std::vector<int64_t> versions;
  for (const EventRecord& e : events) versions.push_back(e.version);
  return versions;
}

class SessionStoreTest : public testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    std::string where = dir_.path();
    if (GetParam().postgres) {
      std::string skip_reason;
      absl::StatusOr<std::unique_ptr<TestDatabase>> db =
          TestDatabase::Create(&skip_reason);
      KHET_ASSERT_OK(db);
      if (*db == nullptr) GTEST_SKIP() << skip_reason;
      db_ = *std::move(db);
      where = db_->conninfo();
    }
    where_ = where;
    absl::StatusOr<std::unique_ptr<SessionStore>> store =
        GetParam().open(where, 0);
    KHET_ASSERT_OK(store);
    store_ = *std::move(store);
  }

  // The archived games matching `query`'s ids, in the order listed.
  std::vector<std::string> GameIds(const GameQuery& query) {
    absl::StatusOr<std::vector<ArchivedGame>> games = store_->ListGames(query);
    EXPECT_TRUE(games.ok()) << games.status();
    std::vector<std::string> ids;
    if (games.ok()) {
      for (const ArchivedGame& g : *games) ids.push_back(g.id);
    }
    return ids;
  }

  // The analysis kept with archived game `id`; "(error)" if it cannot be
  // read.
  std::string AnalysisOf(const std::string& id) {
    absl::StatusOr<ArchivedGame> game = store_->GetGame(id);
    EXPECT_TRUE(game.ok()) << game.status();
    return game.ok() ? game->analysis : "(error)";
  }

  // Every event of `id`.
  std::vector<EventRecord> AllEvents(const std::string& id) {
    absl::StatusOr<std::vector<EventRecord>> events =
        store_->EventsAfter(id, 0, 1'000'000);
    EXPECT_TRUE(events.ok()) << events.status();
    return events.ok() ? *events : std::vector<EventRecord>{};
  }

  ScratchDir dir_;
  std::string where_;                 // what GetParam().open was given
  std::unique_ptr<TestDatabase> db_;  // outlives the store
  std::unique_ptr<SessionStore> store_;
};

TEST_P(SessionStoreTest, CreateThenGet) {
  KHET_ASSERT_OK(
      store_->Create(Record("a", 2, "state two"), {Event(1), Event(2)}));
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->id, "a");
  EXPECT_EQ(got->version, 2);
  EXPECT_EQ(got->state, "state two");
  std::vector<EventRecord> events = AllEvents("a");
  ASSERT_THAT(events, SizeIs(2));
  EXPECT_EQ(events[0].version, 1);
  EXPECT_EQ(events[0].event, "event 1");
  EXPECT_EQ(events[1].version, 2);
  EXPECT_EQ(events[1].event, "event 2");
}

TEST_P(SessionStoreTest, CreateWithoutEvents) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  EXPECT_THAT(AllEvents("a"), IsEmpty());
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "t"), 0, {Event(1)}));
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1));
}

TEST_P(SessionStoreTest, CreateTakenIdIsAlreadyExistsAndChangesNothing) {
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "first"), {Event(1)}));
  EXPECT_THAT(
      store_->Create(Record("a", 3, "second"), {Event(1), Event(2), Event(3)}),
      StatusIs(absl::StatusCode::kAlreadyExists, "\"a\""));
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, 1);
  EXPECT_EQ(got->state, "first");
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1));
}

TEST_P(SessionStoreTest, UnknownIdIsNotFoundNamingIt) {
  EXPECT_THAT(store_->Get("nobody"),
              StatusIs(absl::StatusCode::kNotFound, "\"nobody\""));
  EXPECT_THAT(store_->Update(Record("nobody", 1, "s"), 0, {Event(1)}),
              StatusIs(absl::StatusCode::kNotFound, "\"nobody\""));
  EXPECT_THAT(store_->Delete("nobody"),
              StatusIs(absl::StatusCode::kNotFound, "\"nobody\""));
  absl::StatusOr<std::vector<EventRecord>> events =
      store_->EventsAfter("nobody", 0, 10);
  KHET_ASSERT_OK(events);
  EXPECT_THAT(*events, IsEmpty());
  // A failed Update created nothing.
  EXPECT_THAT(store_->Get("nobody"),
              StatusIs(absl::StatusCode::kNotFound, "nobody"));
}

TEST_P(SessionStoreTest, UpdateReplacesStateAndAppendsEvents) {
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "one"), {Event(1)}));
  KHET_ASSERT_OK(
      store_->Update(Record("a", 3, "three"), 1, {Event(2), Event(3)}));
  KHET_ASSERT_OK(store_->Update(Record("a", 4, "four"), 3, {Event(4)}));
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, 4);
  EXPECT_EQ(got->state, "four");
  std::vector<EventRecord> events = AllEvents("a");
  EXPECT_THAT(Versions(events), ElementsAre(1, 2, 3, 4));
  for (const EventRecord& e : events) {
    EXPECT_EQ(e.event, absl::StrCat("event ", e.version));
  }
}

TEST_P(SessionStoreTest, UpdateWithoutEventsReplacesState) {
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "one"), {Event(1)}));
  KHET_ASSERT_OK(store_->Update(Record("a", 2, "two"), 1, {}));
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, 2);
  EXPECT_EQ(got->state, "two");
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1));
}

TEST_P(SessionStoreTest, StaleVersionIsAbortedNamingBothAndChangesNothing) {
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "one"), {Event(1)}));
  KHET_ASSERT_OK(store_->Update(Record("a", 2, "two"), 1, {Event(2)}));
  for (int64_t stale : {0, 1, 3, 17}) {
    absl::Status status =
        store_->Update(Record("a", stale + 1, "lost"), stale, {Event(3)});
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kAborted, "\"a\""));
    EXPECT_THAT(status.message(),
                testing::AllOf(testing::HasSubstr("version 2"),
                               testing::HasSubstr(absl::StrCat(stale))));
  }
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, 2);
  EXPECT_EQ(got->state, "two");
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1, 2));
}

// UpdateLater answers what Update would, exactly once, whether the store
// writes at once or later on a thread of its own.
TEST_P(SessionStoreTest, UpdateLaterAnswersAsUpdateDoes) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s0"), {}));
  // Each answer under its record's state; answers may come in any order.
  struct Answers {
    Mutex mu;
    CondVar changed;
    std::map<std::string, std::vector<absl::Status>> got ABSL_GUARDED_BY(mu);
  } answers;
  auto later = [&](SessionRecord record, int64_t expected,
                   std::vector<EventRecord> events) {
    SessionStore::LaterUpdate update;
    const std::string key = record.state;
    update.record = std::move(record);
    update.expected_version = expected;
    update.events = std::move(events);
    store_->UpdateLater(std::move(update),
                        [&answers, key](absl::Status status) {
                          MutexLock lock(&answers.mu);
                          answers.got[key].push_back(std::move(status));
                          answers.changed.SignalAll();
                        });
  };
  auto wait_for = [&](size_t n) {
    MutexLock lock(&answers.mu);
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (answers.got.size() < n && absl::Now() < deadline) {
      answers.changed.WaitWithTimeout(&answers.mu, absl::Milliseconds(100));
    }
    return answers.got;
  };
  later(Record("a", 1, "s1"), 0, {Event(1)});
  std::map<std::string, std::vector<absl::Status>> got = wait_for(1);
  ASSERT_EQ(got["s1"].size(), 1u);
  KHET_EXPECT_OK(got["s1"][0]);
  EXPECT_EQ(store_->Get("a")->state, "s1");
  // A stale version, events that do not follow and an unknown session,
  // each refused as Update refuses them, with nothing changed.
  later(Record("a", 2, "stale"), 0, {Event(2)});
  later(Record("a", 3, "gap"), 1, {Event(3), Event(2)});
  later(Record("nobody", 1, "x"), 0, {Event(1)});
  got = wait_for(4);
  ASSERT_EQ(got.size(), 4u);
  for (const auto& [key, statuses] : got) EXPECT_EQ(statuses.size(), 1u) << key;
  EXPECT_EQ(got["stale"][0],
            store_->Update(Record("a", 2, "stale"), 0, {Event(2)}));
  EXPECT_EQ(got["gap"][0],
            store_->Update(Record("a", 3, "gap"), 1, {Event(3), Event(2)}));
  EXPECT_EQ(got["x"][0],
            store_->Update(Record("nobody", 1, "x"), 0, {Event(1)}));
  EXPECT_TRUE(absl::IsAborted(got["stale"][0])) << got["stale"][0];
  EXPECT_EQ(store_->Get("a")->state, "s1");
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1));
}

TEST_P(SessionStoreTest, EventVersionsThatDoNotIncreaseAreRejected) {
  EXPECT_THAT(store_->Create(Record("a", 2, "s"), {Event(2), Event(2)}),
              StatusIs(absl::StatusCode::kInvalidArgument, "\"a\""));
  EXPECT_THAT(store_->Create(Record("a", 0, "s"), {Event(0)}),
              StatusIs(absl::StatusCode::kInvalidArgument, "event version 0"));
  EXPECT_THAT(store_->Get("a"), StatusIs(absl::StatusCode::kNotFound, "a"));

  KHET_ASSERT_OK(store_->Create(Record("a", 2, "two"), {Event(1), Event(2)}));
  EXPECT_THAT(store_->Update(Record("a", 3, "x"), 2, {Event(2)}),
              StatusIs(absl::StatusCode::kInvalidArgument, "event version 2"));
  EXPECT_THAT(store_->Update(Record("a", 4, "x"), 2, {Event(4), Event(3)}),
              StatusIs(absl::StatusCode::kInvalidArgument, "event version 3"));
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, 2);
  EXPECT_EQ(got->state, "two");
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1, 2));
  // Gaps are allowed; only the order is checked.
  KHET_ASSERT_OK(store_->Update(Record("a", 5, "five"), 2, {Event(5)}));
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1, 2, 5));
}

TEST_P(SessionStoreTest, DeleteAtDeletesOnlyAtTheExpectedVersion) {
  KHET_ASSERT_OK(store_->Create(Record("a", 2, "a2"), {Event(1), Event(2)}));
  EXPECT_THAT(store_->DeleteAt("a", 1),
              StatusIs(absl::StatusCode::kAborted, "version 2, not 1"));
  KHET_EXPECT_OK(store_->Get("a"));
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1, 2));
  KHET_ASSERT_OK(store_->DeleteAt("a", 2));
  EXPECT_THAT(store_->Get("a"), StatusIs(absl::StatusCode::kNotFound, "a"));
  EXPECT_THAT(AllEvents("a"), IsEmpty());
  EXPECT_THAT(store_->DeleteAt("a", 2),
              StatusIs(absl::StatusCode::kNotFound, "\"a\""));
}

TEST_P(SessionStoreTest, DeleteRemovesSessionAndEvents) {
  KHET_ASSERT_OK(store_->Create(Record("a", 2, "a2"), {Event(1), Event(2)}));
  KHET_ASSERT_OK(store_->Create(Record("b", 1, "b1"), {Event(1)}));
  KHET_ASSERT_OK(store_->Delete("a"));
  EXPECT_THAT(store_->Get("a"), StatusIs(absl::StatusCode::kNotFound, "a"));
  EXPECT_THAT(AllEvents("a"), IsEmpty());
  EXPECT_THAT(store_->Delete("a"),
              StatusIs(absl::StatusCode::kNotFound, "\"a\""));
  // The other session is untouched.
  KHET_EXPECT_OK(store_->Get("b"));
  EXPECT_THAT(Versions(AllEvents("b")), ElementsAre(1));
  // The id can be used again, with a fresh log.
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "again"), {Event(1)}));
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->state, "again");
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1));
}

TEST_P(SessionStoreTest, EventsAfterIsOldestFirstAndLimited) {
  std::vector<EventRecord> events;
  for (int v = 1; v <= 10; ++v) events.push_back(Event(v));
  KHET_ASSERT_OK(store_->Create(Record("a", 5, "s"),
                                absl::MakeConstSpan(events).subspan(0, 5)));
  KHET_ASSERT_OK(store_->Update(Record("a", 10, "s"), 5,
                                absl::MakeConstSpan(events).subspan(5)));
  KHET_ASSERT_OK(store_->Create(Record("b", 3, "s"),
                                absl::MakeConstSpan(events).subspan(0, 3)));
  auto after = [&](const std::string& id, int64_t version, int limit) {
    absl::StatusOr<std::vector<EventRecord>> got =
        store_->EventsAfter(id, version, limit);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? Versions(*got) : std::vector<int64_t>{};
  };
  EXPECT_THAT(after("a", 0, 3), ElementsAre(1, 2, 3));
  EXPECT_THAT(after("a", 3, 3), ElementsAre(4, 5, 6));
  EXPECT_THAT(after("a", 8, 100), ElementsAre(9, 10));
  EXPECT_THAT(after("a", 10, 100), IsEmpty());
  EXPECT_THAT(after("a", 99, 100), IsEmpty());
  EXPECT_THAT(after("a", -5, 1), ElementsAre(1));
  EXPECT_THAT(after("a", 0, 0), IsEmpty());
  EXPECT_THAT(after("a", 0, -1), IsEmpty());
  EXPECT_THAT(after("b", 1, 100), ElementsAre(2, 3));
  absl::StatusOr<std::vector<EventRecord>> got = store_->EventsAfter("a", 6, 1);
  KHET_ASSERT_OK(got);
  EXPECT_THAT(*got, ElementsAre(Field(&EventRecord::event, "event 7")));
}

TEST_P(SessionStoreTest, LoadAllReturnsEverySession) {
  absl::StatusOr<std::vector<SessionRecord>> none = store_->LoadAll();
  KHET_ASSERT_OK(none);
  EXPECT_THAT(*none, IsEmpty());
  KHET_ASSERT_OK(store_->Create(Record("c", 1, "c1"), {Event(1)}));
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "a1"), {Event(1)}));
  KHET_ASSERT_OK(store_->Create(Record("b", 1, "b1"), {Event(1)}));
  KHET_ASSERT_OK(store_->Update(Record("a", 2, "a2"), 1, {Event(2)}));
  KHET_ASSERT_OK(store_->Delete("c"));
  absl::StatusOr<std::vector<SessionRecord>> all = store_->LoadAll();
  KHET_ASSERT_OK(all);
  std::sort(all->begin(), all->end(),
            [](const SessionRecord& x, const SessionRecord& y) {
              return x.id < y.id;
            });
  ASSERT_THAT(*all, SizeIs(2));
  EXPECT_EQ((*all)[0].id, "a");
  EXPECT_EQ((*all)[0].version, 2);
  EXPECT_EQ((*all)[0].state, "a2");
  EXPECT_EQ((*all)[1].id, "b");
  EXPECT_EQ((*all)[1].version, 1);
  EXPECT_EQ((*all)[1].state, "b1");
}

TEST_P(SessionStoreTest, ListVersionsMatchesLoadAll) {
  KHET_ASSERT_OK(store_->Create(Record("b", 0, "b0"), {}));
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "a1"), {Event(1)}));
  KHET_ASSERT_OK(store_->Update(Record("a", 3, "a3"), 1, {Event(2), Event(3)}));
  KHET_ASSERT_OK(store_->Create(Record("c", 0, "c0"), {}));
  KHET_ASSERT_OK(store_->Delete("c"));
  absl::StatusOr<std::vector<SessionVersion>> versions = store_->ListVersions();
  KHET_ASSERT_OK(versions);
  std::sort(versions->begin(), versions->end(),
            [](const SessionVersion& x, const SessionVersion& y) {
              return x.id < y.id;
            });
  ASSERT_THAT(*versions, SizeIs(2));
  EXPECT_EQ((*versions)[0].id, "a");
  EXPECT_EQ((*versions)[0].version, 3);
  EXPECT_EQ((*versions)[1].id, "b");
  EXPECT_EQ((*versions)[1].version, 0);
}

// Ids are quoted in PostgreSQL's statement: ones with quotes, backslashes,
// commas and braces are read back as they are, and no other.
TEST_P(SessionStoreTest, GetManyReadsTheStoredOnesAmongTheIds) {
  const std::vector<std::string> odd = {"a\"b", "c\\d", "e,f", "{g}", "h i"};
  for (const std::string& id : odd) {
    KHET_ASSERT_OK(store_->Create(Record(id, 0, id + "0"), {}));
  }
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "a1"), {Event(1)}));
  KHET_ASSERT_OK(store_->Update(Record("a", 2, "a2"), 1, {Event(2)}));
  KHET_ASSERT_OK(store_->Create(Record("gone", 0, "g0"), {}));
  KHET_ASSERT_OK(store_->Delete("gone"));
  KHET_ASSERT_OK(store_->Create(Record("unasked", 0, "u0"), {}));

  std::vector<std::string> ids = odd;
  ids.insert(ids.end(), {"a", "gone", "never", "\"a\""});
  absl::StatusOr<std::vector<SessionRecord>> records = store_->GetMany(ids);
  KHET_ASSERT_OK(records);
  std::sort(records->begin(), records->end(),
            [](const SessionRecord& x, const SessionRecord& y) {
              return x.id < y.id;
            });
  std::vector<std::string> expected = odd;
  expected.push_back("a");
  std::sort(expected.begin(), expected.end());
  ASSERT_THAT(*records, SizeIs(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*records)[i].id, expected[i]);
    EXPECT_EQ((*records)[i].state,
              expected[i] == "a" ? "a2" : expected[i] + "0");
  }
  EXPECT_EQ(std::find_if(records->begin(), records->end(),
                         [](const SessionRecord& r) { return r.id == "a"; })
                ->version,
            2);
  absl::StatusOr<std::vector<SessionRecord>> none = store_->GetMany({});
  KHET_ASSERT_OK(none);
  EXPECT_THAT(*none, SizeIs(0));
}

TEST_P(SessionStoreTest, GetVersionReadsTheStoredVersion) {
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "a1"), {Event(1)}));
  absl::StatusOr<int64_t> version = store_->GetVersion("a");
  KHET_ASSERT_OK(version);
  EXPECT_EQ(*version, 1);
  KHET_ASSERT_OK(store_->Update(Record("a", 3, "a3"), 1, {Event(2), Event(3)}));
  EXPECT_EQ(*store_->GetVersion("a"), 3);
  EXPECT_EQ(store_->GetVersion("nope").status().code(),
            absl::StatusCode::kNotFound);
  KHET_ASSERT_OK(store_->Delete("a"));
  EXPECT_EQ(store_->GetVersion("a").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_P(SessionStoreTest, BytesRoundTripExactly) {
  const std::string binary("\0\x01\xff\"'\n\0end", 11);
  const std::string id = "id with 'quotes', \"more\" and \xc3\xa9";
  KHET_ASSERT_OK(store_->Create(Record(id, 1, binary), {{1, binary}}));
  KHET_ASSERT_OK(store_->Create(Record("empty", 1, ""), {{1, ""}}));
  absl::StatusOr<SessionRecord> got = store_->Get(id);
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->id, id);
  EXPECT_EQ(got->state, binary);
  ASSERT_THAT(AllEvents(id), SizeIs(1));
  EXPECT_EQ(AllEvents(id)[0].event, binary);
  absl::StatusOr<SessionRecord> empty = store_->Get("empty");
  KHET_ASSERT_OK(empty);
  EXPECT_EQ(empty->state, "");
  ASSERT_THAT(AllEvents("empty"), SizeIs(1));
  EXPECT_EQ(AllEvents("empty")[0].event, "");
  // Ids are compared exactly: no prefix or case folding.
  EXPECT_THAT(store_->Get("EMPTY"), StatusIs(absl::StatusCode::kNotFound, ""));
  EXPECT_THAT(store_->Get("empt"), StatusIs(absl::StatusCode::kNotFound, ""));
}

TEST_P(SessionStoreTest, LargeBlobs) {
  std::string big_state(1 << 20, '\0');
  std::string big_event(1 << 20, '\0');
  for (size_t i = 0; i < big_state.size(); ++i) {
    big_state[i] = static_cast<char>(i * 7 + 3);
    big_event[i] = static_cast<char>(i * 13 + 5);
  }
  KHET_ASSERT_OK(store_->Create(Record("big", 1, "small"), {Event(1)}));
  KHET_ASSERT_OK(
      store_->Update(Record("big", 2, big_state), 1, {{2, big_event}}));
  absl::StatusOr<SessionRecord> got = store_->Get("big");
  KHET_ASSERT_OK(got);
  EXPECT_TRUE(got->state == big_state) << "state differs";
  absl::StatusOr<std::vector<EventRecord>> events =
      store_->EventsAfter("big", 1, 10);
  KHET_ASSERT_OK(events);
  ASSERT_THAT(*events, SizeIs(1));
  EXPECT_TRUE((*events)[0].event == big_event) << "event differs";
  absl::StatusOr<std::vector<SessionRecord>> all = store_->LoadAll();
  KHET_ASSERT_OK(all);
  ASSERT_THAT(*all, SizeIs(1));
  EXPECT_TRUE((*all)[0].state == big_state) << "state differs";
}

// Threads that all update from the same version: exactly one wins each
// round and the rest are ABORTED, so the log has one event per round.
TEST_P(SessionStoreTest, ConcurrentUpdatesFromOneVersionHaveOneWinner) {
  constexpr int kThreads = 6;
  constexpr int kRounds = 15;
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "start"), {}));
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> won = 0;
    std::atomic<int> aborted = 0;
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        absl::Status status = store_->Update(
            Record("a", round + 1, absl::StrCat("round ", round, " by ", t)),
            round, {Event(round + 1)});
        if (status.ok()) {
          ++won;
        } else if (absl::IsAborted(status)) {
          ++aborted;
        } else {
          ADD_FAILURE() << status;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(won, 1) << "round " << round;
    EXPECT_EQ(aborted, kThreads - 1) << "round " << round;
  }
  absl::StatusOr<SessionRecord> got = store_->Get("a");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->version, kRounds);
  EXPECT_THAT(got->state,
              testing::StartsWith(absl::StrCat("round ", kRounds - 1, " by")));
  EXPECT_THAT(AllEvents("a"), SizeIs(kRounds));
}

// Writers on their own sessions while readers read everything: every
// reader sees whole records and logs that match their versions.
TEST_P(SessionStoreTest, ConcurrentReadersAndWriters) {
  constexpr int kWriters = 3;
  constexpr int kUpdates = 10;
  for (int w = 0; w < kWriters; ++w) {
    KHET_ASSERT_OK(store_->Create(Record(absl::StrCat("s", w), 0, "0"), {}));
  }
  std::atomic<bool> done = false;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      const std::string id = absl::StrCat("s", w);
      for (int v = 1; v <= kUpdates; ++v) {
        absl::Status status =
            store_->Update(Record(id, v, absl::StrCat(v)), v - 1, {Event(v)});
        if (!status.ok()) ADD_FAILURE() << status;
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      while (!done) {
        absl::StatusOr<std::vector<SessionRecord>> all = store_->LoadAll();
        if (!all.ok()) {
          ADD_FAILURE() << all.status();
          return;
        }
        for (const SessionRecord& record : *all) {
          EXPECT_EQ(record.state, absl::StrCat(record.version));
          absl::StatusOr<std::vector<EventRecord>> events =
              store_->EventsAfter(record.id, 0, 1000);
          if (!events.ok()) {
            ADD_FAILURE() << events.status();
            return;
          }
          // Writes may land between the two reads, never vanish.
          EXPECT_GE(static_cast<int64_t>(events->size()), record.version);
        }
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  done = true;
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
  for (int w = 0; w < kWriters; ++w) {
    const std::string id = absl::StrCat("s", w);
    absl::StatusOr<SessionRecord> got = store_->Get(id);
    KHET_ASSERT_OK(got);
    EXPECT_EQ(got->version, kUpdates);
    EXPECT_THAT(AllEvents(id), SizeIs(kUpdates));
  }
}

TEST_P(SessionStoreTest, ALeaseHasOneHolderUntilItRunsOut) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  const absl::Duration ttl = absl::Seconds(10);
  EXPECT_THAT(store_->TryLease("a", "one", t0, ttl), IsOkAnd(true));
  EXPECT_THAT(store_->TryLease("a", "two", t0 + absl::Seconds(9), ttl),
              IsOkAnd(false));
  // Its holder renews it: it now runs until t0 + 15 s.
  EXPECT_THAT(store_->TryLease("a", "one", t0 + absl::Seconds(5), ttl),
              IsOkAnd(true));
  EXPECT_THAT(store_->TryLease("a", "two", t0 + absl::Seconds(14), ttl),
              IsOkAnd(false));
  // Run out: another holder takes it over, and the first one has lost it.
  EXPECT_THAT(store_->TryLease("a", "two", t0 + absl::Seconds(15), ttl),
              IsOkAnd(true));
  EXPECT_THAT(store_->TryLease("a", "one", t0 + absl::Seconds(16), ttl),
              IsOkAnd(false));
}

TEST_P(SessionStoreTest, LeasesAreOfOneSessionAndGoWithIt) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  KHET_ASSERT_OK(store_->Create(Record("b", 0, "s"), {}));
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  const absl::Duration ttl = absl::Seconds(10);
  EXPECT_THAT(store_->TryLease("a", "one", t0, ttl), IsOkAnd(true));
  EXPECT_THAT(store_->TryLease("b", "two", t0, ttl), IsOkAnd(true));
  EXPECT_THAT(store_->TryLease("unknown", "one", t0, ttl), IsOkAnd(false));
  // A session made again under a deleted one's id has no lease.
  KHET_ASSERT_OK(store_->Delete("a"));
  EXPECT_THAT(store_->TryLease("a", "two", t0, ttl), IsOkAnd(false));
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  EXPECT_THAT(store_->TryLease("a", "two", t0, ttl), IsOkAnd(true));
}

TEST_P(SessionStoreTest, RacingHoldersGetOneLease) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  constexpr int kHolders = 8;
  std::latch start(kHolders);
  std::atomic<int> granted = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < kHolders; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      absl::StatusOr<bool> got = store_->TryLease(
          "a", absl::StrCat("holder ", i), t0, absl::Seconds(10));
      EXPECT_TRUE(got.ok()) << got.status();
      if (got.ok() && *got) ++granted;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(granted, 1);
}

ArchivedGame Game(std::string id, std::string session_id, std::string silver,
                  std::string red, std::string setup_id, std::string result) {
  ArchivedGame g;
  g.id = std::move(id);
  g.session_id = std::move(session_id);
  g.record = "[Setup \"classic-2\"]\n\n1. e4-e5 *\n";
  g.silver = std::move(silver);
  g.red = std::move(red);
  g.setup_id = std::move(setup_id);
  g.result = std::move(result);
  g.ending = result == "*" ? "abandoned" : "pharaoh hit";
  g.started_at = absl::FromUnixSeconds(1'700'000'000);
  g.ended_at = absl::FromUnixSeconds(1'700'000'600);
  g.plies = 1;
  return g;
}

GameQuery Query(std::string session_id, std::string player = "",
                std::string setup_id = "", std::string result = "",
                int64_t before_sequence = 0, int limit = 20) {
  GameQuery q;
  q.session_id = std::move(session_id);
  q.player = std::move(player);
  q.setup_id = std::move(setup_id);
  q.result = std::move(result);
  q.before_sequence = before_sequence;
  q.limit = limit;
  return q;
}

TEST_P(SessionStoreTest, AnUpdateArchivesAGame) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s0"), {}));
  const ArchivedGame game = Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0");
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "s1"), 0, {Event(1)}, &game));
  EXPECT_THAT(store_->GetVersion("a"), IsOkAnd(int64_t{1}));
  absl::StatusOr<ArchivedGame> got = store_->GetGame("a-g1");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->id, "a-g1");
  EXPECT_EQ(got->session_id, "a");
  EXPECT_EQ(got->record, game.record);
  EXPECT_EQ(got->silver, "Ann");
  EXPECT_EQ(got->red, "Bob");
  EXPECT_EQ(got->setup_id, "classic-2");
  EXPECT_EQ(got->result, "1-0");
  EXPECT_EQ(got->ending, "pharaoh hit");
  EXPECT_EQ(got->started_at, game.started_at);
  EXPECT_EQ(got->ended_at, game.ended_at);
  EXPECT_EQ(got->plies, 1);
  EXPECT_GT(got->sequence, 0);
  EXPECT_THAT(GameIds({}), ElementsAre("a-g1"));
}

TEST_P(SessionStoreTest, UnknownGameIsNotFound) {
  EXPECT_THAT(store_->GetGame("nope-g1"),
              StatusIs(absl::StatusCode::kNotFound, "nope-g1"));
  EXPECT_THAT(GameIds({}), IsEmpty());
}

TEST_P(SessionStoreTest, AFailedUpdateArchivesNothing) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s0"), {}));
  const ArchivedGame game = Game("a-g1", "a", "Ann", "Bob", "classic-2", "*");
  EXPECT_THAT(store_->Update(Record("a", 2, "s2"), 1, {Event(2)}, &game),
              StatusIs(absl::StatusCode::kAborted, "version 0"));
  const ArchivedGame elsewhere =
      Game("b-g1", "b", "Ann", "Bob", "classic-2", "*");
  EXPECT_THAT(store_->Update(Record("b", 1, "s1"), 0, {Event(1)}, &elsewhere),
              StatusIs(absl::StatusCode::kNotFound, "\"b\""));
  EXPECT_THAT(store_->GetGame("a-g1"),
              StatusIs(absl::StatusCode::kNotFound, "a-g1"));
  EXPECT_THAT(GameIds({}), IsEmpty());
}

TEST_P(SessionStoreTest, AGameIdIsArchivedOnce) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s0"), {}));
  const ArchivedGame game = Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0");
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "s1"), 0, {Event(1)}, &game));
  EXPECT_THAT(store_->Update(Record("a", 2, "s2"), 1, {Event(2)}, &game),
              StatusIs(absl::StatusCode::kAlreadyExists, "a-g1"));
  // Nothing of the refused write stays.
  EXPECT_THAT(store_->GetVersion("a"), IsOkAnd(int64_t{1}));
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1));
  EXPECT_THAT(GameIds({}), ElementsAre("a-g1"));
}

// A writer whose copy is behind, archiving the game that the writer ahead
// of it archived, hears that it is behind (and so reads and tries again),
// not that the game is taken.
TEST_P(SessionStoreTest, AStaleWriterArchivingATakenGameHearsItIsBehind) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s0"), {}));
  const ArchivedGame game = Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0");
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "s1"), 0, {Event(1)}, &game));
  EXPECT_THAT(store_->Update(Record("a", 1, "behind"), 0, {Event(1)}, &game),
              StatusIs(absl::StatusCode::kAborted, "at version 1, not 0"));
  EXPECT_EQ(store_->Get("a")->state, "s1");
  EXPECT_THAT(Versions(AllEvents("a")), ElementsAre(1));
  EXPECT_THAT(GameIds({}), ElementsAre("a-g1"));
}

TEST_P(SessionStoreTest, ListGamesFiltersAndPagesNewestFirst) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  KHET_ASSERT_OK(store_->Create(Record("b", 0, "s"), {}));
  const ArchivedGame games[] = {
      Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0"),
      Game("b-g1", "b", "Cy", "Ann", "dynasty", "0-1"),
      Game("a-g2", "a", "Bob", "Cy", "classic-2", "1/2-1/2"),
      Game("b-g2", "b", "Dee", "Eve", "classic-2", "*"),
      Game("a-g3", "a", "Ann", "", "imhotep", "1-0"),
  };
  int64_t versions[2] = {0, 0};
  for (const ArchivedGame& g : games) {
    int64_t& v = versions[g.session_id == "a" ? 0 : 1];
    KHET_ASSERT_OK(store_->Update(Record(g.session_id, v + 1, "s"), v,
                                  {Event(v + 1)}, &g));
    ++v;
  }
  EXPECT_THAT(GameIds({}), ElementsAre("a-g3", "b-g2", "a-g2", "b-g1", "a-g1"));
  EXPECT_THAT(GameIds(Query("a")), ElementsAre("a-g3", "a-g2", "a-g1"));
  EXPECT_THAT(GameIds(Query("", "Ann")), ElementsAre("a-g3", "b-g1", "a-g1"));
  EXPECT_THAT(GameIds(Query("b", "Ann")), ElementsAre("b-g1"));
  EXPECT_THAT(GameIds(Query("", "", "classic-2")),
              ElementsAre("b-g2", "a-g2", "a-g1"));
  EXPECT_THAT(GameIds(Query("", "", "", "1-0")), ElementsAre("a-g3", "a-g1"));
  EXPECT_THAT(GameIds(Query("", "Nobody")), IsEmpty());

  // Pages of two, each after the last sequence of the one before.
  std::vector<std::string> paged;
  int64_t before = 0;
  for (int page = 0; page < 4; ++page) {
    absl::StatusOr<std::vector<ArchivedGame>> got =
        store_->ListGames(Query("", "", "", "", before, 2));
    KHET_ASSERT_OK(got);
    ASSERT_LE(got->size(), 2u);
    if (got->empty()) break;
    for (const ArchivedGame& g : *got) paged.push_back(g.id);
    before = got->back().sequence;
  }
  EXPECT_THAT(paged, ElementsAre("a-g3", "b-g2", "a-g2", "b-g1", "a-g1"));
  EXPECT_THAT(GameIds(Query("", "", "", "", 0, 0)), IsEmpty());
}

TEST_P(SessionStoreTest, DeletingASessionDeletesItsGames) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  KHET_ASSERT_OK(store_->Create(Record("b", 0, "s"), {}));
  const ArchivedGame a = Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0");
  const ArchivedGame b = Game("b-g1", "b", "Ann", "Bob", "classic-2", "0-1");
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "s"), 0, {Event(1)}, &a));
  KHET_ASSERT_OK(store_->Update(Record("b", 1, "s"), 0, {Event(1)}, &b));
  KHET_ASSERT_OK(store_->Delete("a"));
  EXPECT_THAT(store_->GetGame("a-g1"),
              StatusIs(absl::StatusCode::kNotFound, "a-g1"));
  EXPECT_THAT(GameIds({}), ElementsAre("b-g1"));
}

TEST_P(SessionStoreTest, ArchivedGamesOutliveTheStoreObject) {
  if (GetParam().name == "Memory") GTEST_SKIP() << "keeps nothing";
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  const ArchivedGame a = Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0");
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "s"), 0, {Event(1)}, &a));
  store_.reset();
  absl::StatusOr<std::unique_ptr<SessionStore>> reopened =
      GetParam().open(where_, 0);
  KHET_ASSERT_OK(reopened);
  store_ = *std::move(reopened);
  absl::StatusOr<ArchivedGame> got = store_->GetGame("a-g1");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->record, a.record);
  // A game archived after the reopening lists as the newer one.
  const ArchivedGame a2 = Game("a-g2", "a", "Ann", "Bob", "classic-2", "*");
  KHET_ASSERT_OK(store_->Update(Record("a", 2, "s"), 1, {Event(2)}, &a2));
  EXPECT_THAT(GameIds({}), ElementsAre("a-g2", "a-g1"));
}

TEST_P(SessionStoreTest, AnAnalysisIsKeptWithItsGame) {
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  ArchivedGame a = Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0");
  a.analysis = "ignored by Update";
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "s"), 0, {Event(1)}, &a));
  EXPECT_EQ(AnalysisOf("a-g1"), "");
  // Bytes of every value, a NUL among them, as a serialized message has.
  const std::string bytes("\x0a\x04a-g1\x00\xff\x10\x02", 10);
  KHET_ASSERT_OK(store_->SetGameAnalysis("a-g1", bytes));
  EXPECT_EQ(AnalysisOf("a-g1"), bytes);
  absl::StatusOr<std::vector<ArchivedGame>> listed =
      store_->ListGames(Query("a"));
  KHET_ASSERT_OK(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().analysis, bytes);
  // A second analysis replaces the first; the session is untouched.
  KHET_ASSERT_OK(store_->SetGameAnalysis("a-g1", "again"));
  EXPECT_EQ(AnalysisOf("a-g1"), "again");
  EXPECT_THAT(store_->GetVersion("a"), IsOkAnd(int64_t{1}));
  EXPECT_THAT(store_->SetGameAnalysis("a-g9", "x"),
              StatusIs(absl::StatusCode::kNotFound, "a-g9"));
}

TEST_P(SessionStoreTest, AnAnalysisOutlivesTheStoreObject) {
  if (GetParam().name == "Memory") GTEST_SKIP() << "keeps nothing";
  KHET_ASSERT_OK(store_->Create(Record("a", 0, "s"), {}));
  const ArchivedGame a = Game("a-g1", "a", "Ann", "Bob", "classic-2", "1-0");
  KHET_ASSERT_OK(store_->Update(Record("a", 1, "s"), 0, {Event(1)}, &a));
  KHET_ASSERT_OK(store_->SetGameAnalysis("a-g1", "scored"));
  store_.reset();
  absl::StatusOr<std::unique_ptr<SessionStore>> reopened =
      GetParam().open(where_, 0);
  KHET_ASSERT_OK(reopened);
  store_ = *std::move(reopened);
  EXPECT_EQ(AnalysisOf("a-g1"), "scored");
}

PlayerRecord Player(std::string id, double rating, int64_t games) {
  PlayerRecord p;
  p.id = std::move(id);
  p.name = absl::StrCat("name of ", p.id);
  p.rating = rating;
  p.deviation = 200.25;
  p.volatility = 0.0599999;
  p.games = games;
  p.wins = games;
  p.updated_at = absl::FromUnixMicros(1'700'000'600'123'456);
  return p;
}

// Archives a rated game "<session>-g1" of `silver_id` against `red_id`.
void ArchiveRated(SessionStore& store, const std::string& session,
                  const std::string& silver_id, const std::string& red_id) {
  KHET_ASSERT_OK(store.Create(Record(session, 0, "s"), {}));
  ArchivedGame g = Game(absl::StrCat(session, "-g1"), session, "Ann", "Bob",
                        "classic-2", "1-0");
  g.silver_id = silver_id;
  g.red_id = red_id;
  g.rating_applied = true;  // ignored by Update
  KHET_ASSERT_OK(store.Update(Record(session, 1, "s"), 0, {Event(1)}, &g));
}

TEST_P(SessionStoreTest, RatedGamesArePendingUntilTheirRatingsAreApplied) {
  ArchiveRated(*store_, "a", "irc:ann", "sl/bob-key");
  KHET_ASSERT_OK(store_->Create(Record("u", 0, "s"), {}));
  const ArchivedGame unrated =
      Game("u-g1", "u", "Cy", "Di", "classic-2", "1-0");
  KHET_ASSERT_OK(store_->Update(Record("u", 1, "s"), 0, {Event(1)}, &unrated));

  absl::StatusOr<std::vector<ArchivedGame>> pending =
      store_->PendingRatedGames(10);
  KHET_ASSERT_OK(pending);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ(pending->front().id, "a-g1");
  EXPECT_EQ(pending->front().silver_id, "irc:ann");
  EXPECT_EQ(pending->front().red_id, "sl/bob-key");
  EXPECT_FALSE(pending->front().rating_applied);
  EXPECT_THAT(store_->GetPlayer("irc:ann"),
              StatusIs(absl::StatusCode::kNotFound, "irc:ann"));

  const PlayerRecord ann = Player("irc:ann", 1662.3112345678901, 1);
  const PlayerRecord bob = Player("sl/bob-key", 1337.6887654321, 1);
  KHET_ASSERT_OK(store_->ApplyRating("a-g1", ann, bob));
  pending = store_->PendingRatedGames(10);
  KHET_ASSERT_OK(pending);
  EXPECT_THAT(*pending, IsEmpty());
  absl::StatusOr<ArchivedGame> game = store_->GetGame("a-g1");
  KHET_ASSERT_OK(game);
  EXPECT_TRUE(game->rating_applied);

  absl::StatusOr<PlayerRecord> got = store_->GetPlayer("irc:ann");
  KHET_ASSERT_OK(got);
  EXPECT_EQ(got->name, "name of irc:ann");
  EXPECT_EQ(got->rating, ann.rating);  // exactly: doubles round-trip
  EXPECT_EQ(got->deviation, ann.deviation);
  EXPECT_EQ(got->volatility, ann.volatility);
  EXPECT_EQ(got->games, 1);
  EXPECT_EQ(got->wins, 1);
  EXPECT_EQ(got->updated_at, ann.updated_at);

  // Applied once only; an unrated or unknown game has none to apply.
  EXPECT_THAT(store_->ApplyRating("a-g1", Player("irc:ann", 1, 2),
                                  Player("sl/bob-key", 1, 2)),
              StatusIs(absl::StatusCode::kFailedPrecondition, "already"));
  EXPECT_THAT(store_->ApplyRating("u-g1", Player("x", 1, 1), Player("y", 1, 1)),
              StatusIs(absl::StatusCode::kFailedPrecondition, "not a rated"));
  EXPECT_THAT(store_->ApplyRating("z-g1", Player("x", 1, 1), Player("y", 1, 1)),
              StatusIs(absl::StatusCode::kNotFound, "z-g1"));
  EXPECT_THAT(store_->GetPlayer("x"),
              StatusIs(absl::StatusCode::kNotFound, "x"));
}

TEST_P(SessionStoreTest, ARatingFromAStaleReadIsAbortedAndChangesNothing) {
  ArchiveRated(*store_, "a", "ann", "bob");
  ArchiveRated(*store_, "b", "ann", "cy");
  KHET_ASSERT_OK(store_->ApplyRating("a-g1", Player("ann", 1600, 1),
                                     Player("bob", 1400, 1)));
  // Computed from Ann before her first game: she has 1 game now, not 0.
  EXPECT_THAT(
      store_->ApplyRating("b-g1", Player("ann", 1590, 1),
                          Player("cy", 1410, 1)),
      StatusIs(absl::StatusCode::kAborted, "\"ann\" has 1 rated games, not 0"));
  EXPECT_THAT(store_->GetPlayer("cy"),
              StatusIs(absl::StatusCode::kNotFound, "cy"));
  absl::StatusOr<std::vector<ArchivedGame>> pending =
      store_->PendingRatedGames(10);
  KHET_ASSERT_OK(pending);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ(pending->front().id, "b-g1");
  // The wrong players for the game are refused too.
  EXPECT_THAT(store_->ApplyRating("b-g1", Player("cy", 1590, 1),
                                  Player("ann", 1410, 2)),
              StatusIs(absl::StatusCode::kInvalidArgument, "b-g1"));
  KHET_ASSERT_OK(store_->ApplyRating("b-g1", Player("ann", 1650, 2),
                                     Player("cy", 1410, 1)));
  absl::StatusOr<PlayerRecord> ann = store_->GetPlayer("ann");
  KHET_ASSERT_OK(ann);
  EXPECT_EQ(ann->games, 2);
  EXPECT_EQ(ann->rating, 1650);
}

TEST_P(SessionStoreTest, PlayersListBestFirstAndPage) {
  ArchiveRated(*store_, "a", "ann", "bob");
  ArchiveRated(*store_, "b", "cy", "di");
  KHET_ASSERT_OK(store_->ApplyRating("a-g1", Player("ann", 1500, 1),
                                     Player("bob", 1700, 1)));
  KHET_ASSERT_OK(store_->ApplyRating("b-g1", Player("cy", 1500, 1),
                                     Player("di", 1200, 1)));
  auto ids = [&](int64_t offset, int limit) {
    std::vector<std::string> out;
    absl::StatusOr<std::vector<PlayerRecord>> players =
        store_->ListPlayers(offset, limit);
    EXPECT_TRUE(players.ok()) << players.status();
    if (players.ok()) {
      for (const PlayerRecord& p : *players) out.push_back(p.id);
    }
    return out;
  };
  EXPECT_THAT(ids(0, 10), ElementsAre("bob", "ann", "cy", "di"));
  EXPECT_THAT(ids(1, 2), ElementsAre("ann", "cy"));
  EXPECT_THAT(ids(4, 2), IsEmpty());
  EXPECT_THAT(ids(0, 0), IsEmpty());
}

TEST_P(SessionStoreTest, RatingsOutliveTheStoreObject) {
  if (GetParam().name == "Memory") GTEST_SKIP() << "keeps nothing";
  ArchiveRated(*store_, "a", "ann", "bob");
  ArchiveRated(*store_, "b", "ann", "bob");
  KHET_ASSERT_OK(store_->ApplyRating("a-g1", Player("ann", 1600, 1),
                                     Player("bob", 1400, 1)));
  store_.reset();
  absl::StatusOr<std::unique_ptr<SessionStore>> reopened =
      GetParam().open(where_, 0);
  KHET_ASSERT_OK(reopened);
  store_ = *std::move(reopened);
  absl::StatusOr<PlayerRecord> bob = store_->GetPlayer("bob");
  KHET_ASSERT_OK(bob);
  EXPECT_EQ(bob->rating, 1400);
  absl::StatusOr<std::vector<ArchivedGame>> pending =
      store_->PendingRatedGames(10);
  KHET_ASSERT_OK(pending);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ(pending->front().id, "b-g1");
}

TEST_P(SessionStoreTest, OldEventsAreDroppedInStepsBeyondTheLimit) {
  constexpr int64_t kKept = 150;
  store_.reset();
  absl::StatusOr<std::unique_ptr<SessionStore>> limited =
      GetParam().open(where_, kKept);
  KHET_ASSERT_OK(limited);
  store_ = *std::move(limited);
  KHET_ASSERT_OK(store_->Create(Record("a", 1, "1"), {Event(1)}));
  KHET_ASSERT_OK(store_->Create(Record("b", 1, "1"), {Event(1)}));
  // The drops of a shared store may trail its writes: wait for them.
  auto oldest = [&](const std::string& id, int64_t expected) {
    absl::StatusOr<std::vector<EventRecord>> first;
    for (int tries = 0; tries < 500; ++tries) {
      first = store_->EventsAfter(id, 0, 1);
      if (!first.ok() || first->empty() || first->front().version == expected) {
        break;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return first.ok() && !first->empty() ? first->front().version : -1;
  };
  // Up to version 199 nothing is dropped: 199 events > kKept are kept.
  for (int64_t v = 2; v <= 199; ++v) {
    KHET_ASSERT_OK(
        store_->Update(Record("a", v, absl::StrCat(v)), v - 1, {Event(v)}));
  }
  EXPECT_EQ(AllEvents("a").size(), 199u);
  // The write reaching 200 drops 1..50; those up to 299 drop nothing more.
  for (int64_t v = 200; v <= 299; ++v) {
    KHET_ASSERT_OK(
        store_->Update(Record("a", v, absl::StrCat(v)), v - 1, {Event(v)}));
  }
  EXPECT_EQ(oldest("a", 51), 51);
  std::vector<EventRecord> kept = AllEvents("a");
  ASSERT_EQ(kept.size(), 249u);
  EXPECT_EQ(kept.front().version, 51);
  EXPECT_EQ(kept.back().version, 299);
  // A write of several events passing 300 drops through 302 - kKept, when
  // handed over by UpdateLater too.
  SessionStore::LaterUpdate update;
  update.record = Record("a", 302, "302");
  update.expected_version = 299;
  update.events = {Event(300), Event(301), Event(302)};
  Mutex mu;
  CondVar answered;
  std::optional<absl::Status> answer;
  store_->UpdateLater(std::move(update), [&](absl::Status status) {
    MutexLock lock(&mu);
    answer = std::move(status);
    answered.SignalAll();
  });
  {
    MutexLock lock(&mu);
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (!answer.has_value() && absl::Now() < deadline) {
      answered.WaitWithTimeout(&mu, absl::Milliseconds(100));
    }
    ASSERT_TRUE(answer.has_value());
    KHET_ASSERT_OK(*answer);
  }
  EXPECT_EQ(oldest("a", 153), 153);
  EXPECT_THAT(Versions(*store_->EventsAfter("a", 10, 2)),
              ElementsAre(153, 154));
  EXPECT_THAT(Versions(*store_->EventsAfter("a", 160, 2)),
              ElementsAre(161, 162));
  // The checks still see the newest event; the other session keeps all.
  EXPECT_THAT(store_->Update(Record("a", 303, "303"), 302, {Event(302)}),
              StatusIs(absl::StatusCode::kInvalidArgument, "does not follow"));
  KHET_EXPECT_OK(store_->Update(Record("a", 303, "303"), 302, {Event(303)}));
  EXPECT_THAT(Versions(AllEvents("b")), ElementsAre(1));
  absl::StatusOr<SessionRecord> a = store_->Get("a");
  KHET_ASSERT_OK(a);
  EXPECT_EQ(a->version, 303);
}

INSTANTIATE_TEST_SUITE_P(AllStores, SessionStoreTest,
                         testing::ValuesIn(AllStores()),
                         [](const testing::TestParamInfo<StoreKind>& kind) {
                           return kind.param.name;
                         });

}  // namespace
}  // namespace khet
