// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Two SessionServices on one PostgreSQL database, as two khetd replicas
// would be: a session made on one appears on the other, moves alternate
// between them, watchers on either see every event (also when change
// notices are lost), racing writes have one winner, deletion reaches both,
// a timeout resets a game once, a computer seat's move is played once and
// searched for by the lease's holder alone, which a dead holder hands on,
// listings read the store, and adopted sessions count toward the limits.
#include <atomic>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/base/mutex.h"
#include "service/core/session_service.h"
#include "service/search/test_fakes.h"
#include "service/store/postgres_store.h"
#include "service/store/postgres_testing.h"

namespace khet {
namespace {

// A move for the side to move that hits no Pharaoh, so the game goes on.
std::string QuietMove(const std::string& position_text) {
  absl::StatusOr<Position> pos = ParsePosition(position_text);
  EXPECT_TRUE(pos.ok()) << pos.status();
  if (!pos.ok()) return "";
  MoveList moves;
  GenerateMoves(*pos, &moves);
  for (const Move m : moves) {
    Position child = *pos;
    if (MakeMove(&child, m) == 0) return FormatMove(*pos, m);
  }
  return FormatMove(*pos, moves.moves[0]);
}

// A shared store that forwards everything to `inner` but loses change
// notices on demand, as when a notification is dropped.
class LossyStore final : public SessionStore {
 public:
  explicit LossyStore(std::unique_ptr<SessionStore> inner)
      : inner_(std::move(inner)) {}
  // The next `n` notices are lost.
  void LoseNotices(int n) { to_lose_ = n; }
  // While true, every Update fails as when the database cannot be reached.
  void FailWrites(bool fail) { fail_writes_ = fail; }
  // While true, so does every read of sessions.
  void FailReads(bool fail) { fail_reads_ = fail; }

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override {
    return inner_->Create(record, events);
  }
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override {
    if (fail_writes_) return absl::UnavailableError("the database is down");
    return inner_->Update(record, expected_version, events, archive);
  }
  absl::Status Delete(std::string_view id) override {
    return inner_->Delete(id);
  }
  absl::Status DeleteAt(std::string_view id,
                        int64_t expected_version) override {
    return inner_->DeleteAt(id, expected_version);
  }
  absl::StatusOr<SessionRecord> Get(std::string_view id) override {
    ++reads_;
    if (fail_reads_) return absl::UnavailableError("the database is down");
    return inner_->Get(id);
  }
  absl::StatusOr<std::vector<SessionRecord>> GetMany(
      absl::Span<const std::string> ids) override {
    ++batch_reads_;
    if (fail_reads_) return absl::UnavailableError("the database is down");
    return inner_->GetMany(ids);
  }
  absl::StatusOr<int64_t> GetVersion(std::string_view id) override {
    ++reads_;
    if (fail_reads_) return absl::UnavailableError("the database is down");
    return inner_->GetVersion(id);
  }
  // Reads of one session (Get and GetVersion) so far.
  int reads() const { return reads_; }
  // Reads of several sessions (GetMany) so far.
  int batch_reads() const { return batch_reads_; }
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override {
    if (fail_reads_) return absl::UnavailableError("the database is down");
    return inner_->LoadAll();
  }
  absl::StatusOr<std::vector<SessionVersion>> ListVersions() override {
    if (fail_reads_) return absl::UnavailableError("the database is down");
    return inner_->ListVersions();
  }
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override {
    return inner_->EventsAfter(id, after_version, limit);
  }
  absl::StatusOr<bool> TryLease(std::string_view id, std::string_view holder,
                                absl::Time now, absl::Duration ttl) override {
    return inner_->TryLease(id, holder, now, ttl);
  }
  absl::StatusOr<ArchivedGame> GetGame(std::string_view game_id) override {
    return inner_->GetGame(game_id);
  }
  absl::Status SetGameAnalysis(std::string_view game_id,
                               std::string_view analysis) override {
    return inner_->SetGameAnalysis(game_id, analysis);
  }
  absl::StatusOr<std::vector<ArchivedGame>> ListGames(
      const GameQuery& query) override {
    return inner_->ListGames(query);
  }
  bool shared() const override { return true; }
  void SetChangeListener(ChangeListener listener) override {
    if (listener == nullptr) {
      inner_->SetChangeListener(nullptr);
      return;
    }
    inner_->SetChangeListener(
        [this, listener = std::move(listener)](const StoreChange& change) {
          if (to_lose_ > 0) {
            --to_lose_;
            return;
          }
          listener(change);
        });
  }

 private:
  std::unique_ptr<SessionStore> inner_;
  std::atomic<int> to_lose_{0};
  std::atomic<bool> fail_writes_{false};
  std::atomic<bool> fail_reads_{false};
  std::atomic<int> reads_{0};
  std::atomic<int> batch_reads_{0};
};

class SharedStoreServiceTest : public testing::Test {
 protected:
  // One replica: its own store connections, clock and search.
  struct Replica {
    std::unique_ptr<LossyStore> store;
    std::unique_ptr<SessionService> service;
  };

  void SetUp() override {
    std::string skip_reason;
    absl::StatusOr<std::unique_ptr<TestDatabase>> db =
        TestDatabase::Create(&skip_reason);
    ASSERT_TRUE(db.ok()) << db.status();
    if (*db == nullptr) GTEST_SKIP() << skip_reason;
    db_ = *std::move(db);
    a_ = NewReplica();
    b_ = NewReplica();
    ASSERT_NE(a_.service, nullptr);
    ASSERT_NE(b_.service, nullptr);
  }

  void TearDown() override {
    for (Replica* r : {&a_, &b_}) {
      r->service.reset();
      r->store.reset();
    }
  }

  // A replica searching with `search` (empty: the fixture's search_).
  Replica NewReplica(SearchFunction search = nullptr) {
    Replica r;
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(db_->conninfo());
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return r;
    r.store = std::make_unique<LossyStore>(*std::move(store));
    ServiceOptions options;
    options.store = r.store.get();
    options.clock = &clock_;
    options.random = SystemRandom();
    options.limits = limits_;
    options.limits.computer_retry_delay = absl::Milliseconds(20);
    options.limits.computer_lease_recheck = absl::Milliseconds(20);
    options.search = search ? search : search_;
    absl::StatusOr<std::unique_ptr<SessionService>> service =
        SessionService::Create(options);
    EXPECT_TRUE(service.ok()) << service.status();
    if (service.ok()) r.service = *std::move(service);
    return r;
  }

  struct Board {
    std::string id;
    std::string owner;
    std::string silver;
    std::string red;
  };

  // A board made on `on`, with alice (Silver) and bob (Red) seated.
  Board NewBoard(SessionService& on, bool seat = true) {
    v1::CreateSessionRequest create;
    create.set_name("shared board");
    absl::StatusOr<v1::CreateSessionResponse> created =
        on.CreateSession(create);
    EXPECT_TRUE(created.ok()) << created.status();
    Board b;
    if (!created.ok()) return b;
    b.id = created->session().id();
    b.owner = created->owner_token();
    if (seat) {
      b.silver = Join(on, b.id, v1::SILVER, "alice");
      b.red = Join(on, b.id, v1::RED, "bob");
    }
    return b;
  }

  std::string Join(SessionService& on, const std::string& id, v1::Color color,
                   const std::string& name) {
    v1::JoinSeatRequest join;
    join.set_session_id(id);
    join.set_color(color);
    join.set_player_name(name);
    absl::StatusOr<v1::JoinSeatResponse> joined = on.JoinSeat(join);
    EXPECT_TRUE(joined.ok()) << joined.status();
    return joined.ok() ? joined->player_token() : "";
  }

  absl::StatusOr<v1::Session> Get(SessionService& on, const std::string& id) {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    return on.GetSession(get);
  }

  // B's watch of the session after `after`; *reads the reads of B's store
  // it cost.
  absl::StatusOr<std::unique_ptr<EventStream>> WatchOnB(const std::string& id,
                                                        int64_t after,
                                                        int* reads) {
    v1::WatchRequest watch;
    watch.set_session_id(id);
    watch.set_after_version(after);
    const int before = b_.store->reads();
    absl::StatusOr<std::unique_ptr<EventStream>> stream =
        b_.service->Watch(watch);
    *reads = b_.store->reads() - before;
    return stream;
  }

  // Plays a move on A; ok if `stream` (on B) gets its event.
  testing::AssertionResult AMoveOnAReaches(EventStream& stream,
                                           const Board& board) {
    absl::StatusOr<v1::MakeMoveResponse> moved = PlayOn(*a_.service, board);
    if (!moved.ok()) {
      return testing::AssertionFailure() << "A's move: " << moved.status();
    }
    absl::StatusOr<std::optional<v1::Event>> e = stream.Next(absl::Seconds(30));
    if (!e.ok() || !e->has_value()) {
      return testing::AssertionFailure()
             << "the move made on A never reached B's watch: " << e.status();
    }
    if ((*e)->version() != moved->version() || !(*e)->has_move_made()) {
      return testing::AssertionFailure()
             << "B's watch got " << (*e)->DebugString() << ", not the move of "
             << moved->version();
    }
    return testing::AssertionSuccess();
  }

  // Plays a quiet move for the side to move through `on`, as that side.
  absl::StatusOr<v1::MakeMoveResponse> PlayOn(
      SessionService& on, const Board& b,
      std::optional<int64_t> expected = std::nullopt) {
    return PlayReadOn(on, on, b, expected);
  }

  // PlayOn, the session's position read through `read_on`.
  absl::StatusOr<v1::MakeMoveResponse> PlayReadOn(
      SessionService& read_on, SessionService& on, const Board& b,
      std::optional<int64_t> expected = std::nullopt) {
    absl::StatusOr<v1::Session> s = Get(read_on, b.id);
    if (!s.ok()) return s.status();
    v1::MakeMoveRequest move;
    move.set_session_id(b.id);
    move.mutable_move()->set_notation(QuietMove(s->board().position()));
    if (expected.has_value()) move.set_expected_version(*expected);
    return on.MakeMove(
        move,
        Caller{s->board().side_to_move() == v1::SILVER ? b.silver : b.red});
  }

  // PlayOn B, the position read on A (so with none of B's reads).
  absl::StatusOr<v1::MakeMoveResponse> PlayOnBAsReadOnA(const Board& b) {
    return PlayReadOn(*a_.service, *b_.service, b);
  }

  // Every stored event of the session.
  std::vector<v1::Event> StoredEvents(const std::string& id) {
    std::vector<v1::Event> out;
    absl::StatusOr<std::vector<EventRecord>> records =
        a_.store->EventsAfter(id, 0, 1 << 20);
    EXPECT_TRUE(records.ok()) << records.status();
    if (!records.ok()) return out;
    for (const EventRecord& r : *records) {
      v1::Event& e = out.emplace_back();
      EXPECT_TRUE(e.ParseFromString(r.event));
    }
    return out;
  }

  // Waits up to 30 s for `done`.
  static bool WaitFor(const std::function<bool()>& done) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (!done()) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return true;
  }

  std::unique_ptr<TestDatabase> db_;
  FakeClock clock_;
  ServiceLimits limits_;
  SearchFunction search_;  // empty: the engine's
  Replica a_;
  Replica b_;
};

TEST_F(SharedStoreServiceTest, SessionsMadeOnOneReplicaAppearOnTheOther) {
  const Board board = NewBoard(*a_.service, /*seat=*/false);
  // Asked for by id, straight away.
  absl::StatusOr<v1::Session> seen = Get(*b_.service, board.id);
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(seen->name(), "shared board");
  // And listed once the notice arrives.
  const Board other = NewBoard(*a_.service, /*seat=*/false);
  EXPECT_TRUE(WaitFor([&] {
    absl::StatusOr<v1::ListSessionsResponse> list =
        b_.service->ListSessions(v1::ListSessionsRequest());
    if (!list.ok()) return false;
    for (const v1::Session& s : list->sessions()) {
      if (s.id() == other.id) return true;
    }
    return false;
  }));
  EXPECT_EQ(Get(*b_.service, "no-such-board").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(SharedStoreServiceTest, MovesAlternateBetweenReplicas) {
  const Board board = NewBoard(*a_.service);
  int64_t version = Get(*a_.service, board.id)->version();
  for (int ply = 0; ply < 10; ++ply) {
    // Straight after the other replica's move: no waiting for its notice.
    SessionService& on = ply % 2 == 0 ? *b_.service : *a_.service;
    absl::StatusOr<v1::MakeMoveResponse> reply = PlayOn(on, board, version);
    ASSERT_TRUE(reply.ok()) << "ply " << ply << ": " << reply.status();
    EXPECT_EQ(reply->version(), version + 1);
    version = reply->version();
  }
  for (SessionService* on : {a_.service.get(), b_.service.get()}) {
    absl::StatusOr<v1::Session> s = Get(*on, board.id);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->version(), version);
    EXPECT_EQ(s->moves_size(), 10);
  }
}

TEST_F(SharedStoreServiceTest, WatchersOnEitherReplicaSeeEveryEvent) {
  const Board board = NewBoard(*a_.service);
  const int64_t start = Get(*a_.service, board.id)->version();
  v1::WatchRequest watch;
  watch.set_session_id(board.id);
  watch.set_after_version(start);
  absl::StatusOr<std::unique_ptr<EventStream>> on_a = a_.service->Watch(watch);
  absl::StatusOr<std::unique_ptr<EventStream>> on_b = b_.service->Watch(watch);
  ASSERT_TRUE(on_a.ok()) << on_a.status();
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  constexpr int kPlies = 6;
  for (int ply = 0; ply < kPlies; ++ply) {
    SessionService& on = ply % 2 == 0 ? *a_.service : *b_.service;
    ASSERT_TRUE(PlayOn(on, board).ok());
  }
  for (EventStream* stream : {on_a->get(), on_b->get()}) {
    for (int ply = 0; ply < kPlies; ++ply) {
      absl::StatusOr<std::optional<v1::Event>> e =
          stream->Next(absl::Seconds(30));
      ASSERT_TRUE(e.ok()) << e.status();
      ASSERT_TRUE(e->has_value()) << "no event " << start + ply + 1;
      EXPECT_EQ((*e)->version(), start + ply + 1);
      EXPECT_TRUE((*e)->has_move_made());
    }
  }
  // Deleted on A: B's watcher hears it and B forgets the session.
  v1::DeleteSessionRequest remove;
  remove.set_session_id(board.id);
  ASSERT_TRUE(a_.service->DeleteSession(remove, Caller{board.owner}).ok());
  absl::StatusOr<std::optional<v1::Event>> deleted =
      (*on_b)->Next(absl::Seconds(30));
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  ASSERT_TRUE(deleted->has_value());
  EXPECT_TRUE((*deleted)->has_session_deleted());
  EXPECT_EQ((*on_b)->Next(absl::Seconds(30)).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Get(*b_.service, board.id).status().code(),
            absl::StatusCode::kNotFound);
}

// A watch from a version the replica's copy holds reads nothing from the
// store (a board's poll costs the database nothing); the other replica's
// move reaches it by the store's notice. A watch from a version the copy
// has not heard of yet reads the stored session first.
TEST_F(SharedStoreServiceTest, AWatchOnAHeldCopyReadsNothingFirst) {
  const Board board = NewBoard(*a_.service);
  const int64_t start = Get(*b_.service, board.id)->version();
  int reads = -1;
  absl::StatusOr<std::unique_ptr<EventStream>> on_b =
      WatchOnB(board.id, start, &reads);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  EXPECT_EQ(reads, 0);
  EXPECT_TRUE(AMoveOnAReaches(**on_b, board));

  b_.store->LoseNotices(1000);
  absl::StatusOr<v1::MakeMoveResponse> unheard = PlayOn(*a_.service, board);
  ASSERT_TRUE(unheard.ok()) << unheard.status();
  absl::StatusOr<std::unique_ptr<EventStream>> from_unheard =
      WatchOnB(board.id, unheard->version(), &reads);
  ASSERT_TRUE(from_unheard.ok()) << from_unheard.status();
  EXPECT_GT(reads, 0);
}

// A copy whose last write failed (the database was down) is watched as
// held too: its version is the stored one, and a poll waits instead of
// failing while the store cannot read it back.
TEST_F(SharedStoreServiceTest, AWatchOnACopyWhoseWriteFailedWaitsOn) {
  const Board board = NewBoard(*a_.service);
  const int64_t start = Get(*b_.service, board.id)->version();
  b_.store->FailWrites(true);
  absl::StatusOr<v1::MakeMoveResponse> failed = PlayOn(*b_.service, board);
  ASSERT_EQ(failed.status().code(), absl::StatusCode::kUnavailable)
      << failed.status();
  b_.store->FailWrites(false);
  int reads = -1;
  absl::StatusOr<std::unique_ptr<EventStream>> on_b =
      WatchOnB(board.id, start, &reads);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  EXPECT_EQ(reads, 0);
  EXPECT_TRUE(AMoveOnAReaches(**on_b, board));
}

// Sessions whose writes failed while the database was down are read back
// together by the next sweep (as when the store's listener reconnects), so
// that their next moves act on the copy held, without a read each.
TEST_F(SharedStoreServiceTest, SessionsWhoseWritesFailedAreReadBackTogether) {
  std::vector<Board> boards;
  for (int i = 0; i < 3; ++i) boards.push_back(NewBoard(*a_.service));
  const int64_t start = Get(*b_.service, boards[0].id)->version();
  for (const Board& board : boards)
    ASSERT_TRUE(Get(*b_.service, board.id).ok());
  b_.store->FailWrites(true);
  b_.store->FailReads(true);
  for (const Board& board : boards) {
    absl::StatusOr<v1::MakeMoveResponse> failed = PlayOnBAsReadOnA(board);
    ASSERT_EQ(failed.status().code(), absl::StatusCode::kUnavailable)
        << failed.status();
  }
  // A sweep while the store is still down reads nothing back and leaves
  // the sessions to the next.
  b_.service->SweepTimeouts();
  b_.store->FailWrites(false);
  b_.store->FailReads(false);
  int reads = -1;
  absl::StatusOr<std::unique_ptr<EventStream>> on_b =
      WatchOnB(boards[0].id, start, &reads);
  ASSERT_TRUE(on_b.ok()) << on_b.status();

  const int batches = b_.store->batch_reads();
  reads = b_.store->reads();
  b_.service->SweepTimeouts();
  EXPECT_EQ(b_.store->batch_reads(), batches + 1);
  EXPECT_EQ(b_.store->reads(), reads) << "the sweep read sessions one by one";
  for (const Board& board : boards) {
    absl::StatusOr<v1::MakeMoveResponse> moved = PlayOnBAsReadOnA(board);
    ASSERT_TRUE(moved.ok()) << moved.status();
    EXPECT_EQ(moved->version(), start + 1);
  }
  EXPECT_EQ(b_.store->reads(), reads) << "a move read its session back";
  absl::StatusOr<std::optional<v1::Event>> e = (*on_b)->Next(absl::Seconds(30));
  ASSERT_TRUE(e.ok() && e->has_value()) << "B's own move never reached it";
  EXPECT_EQ((*e)->version(), start + 1);
}

// A copy whose write failed is made current by the notice of a move made
// on another replica, and is then held as current: B's next move needs no
// read back.
TEST_F(SharedStoreServiceTest, ANoticeMakesACopyWhoseWriteFailedCurrent) {
  const Board board = NewBoard(*a_.service);
  const int64_t start = Get(*b_.service, board.id)->version();
  b_.store->FailWrites(true);
  b_.store->FailReads(true);
  absl::StatusOr<v1::MakeMoveResponse> failed = PlayOnBAsReadOnA(board);
  ASSERT_EQ(failed.status().code(), absl::StatusCode::kUnavailable)
      << failed.status();
  b_.store->FailWrites(false);
  b_.store->FailReads(false);
  int reads = -1;
  absl::StatusOr<std::unique_ptr<EventStream>> on_b =
      WatchOnB(board.id, start, &reads);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  // The notice catches B's copy up (its watch sees A's move) ...
  EXPECT_TRUE(AMoveOnAReaches(**on_b, board));
  // ... and B's next move acts on it as held.
  reads = b_.store->reads();
  absl::StatusOr<v1::MakeMoveResponse> moved = PlayOnBAsReadOnA(board);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->version(), start + 2);
  EXPECT_EQ(b_.store->reads(), reads) << "B's move read its session back";
}

TEST_F(SharedStoreServiceTest, WatchersGetEventsWhoseNoticesWereLost) {
  const Board board = NewBoard(*a_.service);
  const int64_t start = Get(*b_.service, board.id)->version();
  v1::WatchRequest watch;
  watch.set_session_id(board.id);
  watch.set_after_version(start);
  absl::StatusOr<std::unique_ptr<EventStream>> on_b = b_.service->Watch(watch);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  auto expect_events = [&](int64_t from, int64_t to) {
    for (int64_t v = from; v <= to; ++v) {
      absl::StatusOr<std::optional<v1::Event>> e =
          (*on_b)->Next(absl::Seconds(30));
      ASSERT_TRUE(e.ok()) << e.status();
      ASSERT_TRUE(e->has_value()) << "no event " << v;
      EXPECT_EQ((*e)->version(), v);
    }
  };
  auto expect_nothing = [&] {
    absl::StatusOr<std::optional<v1::Event>> none =
        (*on_b)->Next(absl::Milliseconds(300));
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_FALSE(none->has_value()) << "a lost notice got through";
  };
  // B loses the notice of a move made on A: the next notice brings both.
  b_.store->LoseNotices(1000);
  ASSERT_TRUE(PlayOn(*a_.service, board).ok());
  expect_nothing();
  b_.store->LoseNotices(0);
  ASSERT_TRUE(PlayOn(*a_.service, board).ok());
  expect_events(start + 1, start + 2);
  // B loses every notice of two moves: its periodic catch-up (the sweep)
  // finds them by version.
  b_.store->LoseNotices(1000);
  ASSERT_TRUE(PlayOn(*a_.service, board).ok());
  ASSERT_TRUE(PlayOn(*a_.service, board).ok());
  expect_nothing();
  b_.service->SweepTimeouts();
  expect_events(start + 3, start + 4);
  b_.store->LoseNotices(0);
}

TEST_F(SharedStoreServiceTest, RacingOneVersionThroughTwoReplicasHasOneWinner) {
  const Board board = NewBoard(*a_.service);
  for (int round = 0; round < 8; ++round) {
    const absl::StatusOr<v1::Session> s = Get(*a_.service, board.id);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(Get(*b_.service, board.id).ok());
    std::latch start(2);
    absl::Status results[2];
    std::thread ta([&] {
      start.arrive_and_wait();
      results[0] = PlayOn(*a_.service, board, s->version()).status();
    });
    std::thread tb([&] {
      start.arrive_and_wait();
      results[1] = PlayOn(*b_.service, board, s->version()).status();
    });
    ta.join();
    tb.join();
    ASSERT_NE(results[0].ok(), results[1].ok())
        << "round " << round << ": " << results[0] << " / " << results[1];
    const absl::Status& lost = results[0].ok() ? results[1] : results[0];
    EXPECT_EQ(lost.code(), absl::StatusCode::kAborted) << lost;
    EXPECT_EQ(Get(*a_.service, board.id)->version(), s->version() + 1);
    EXPECT_EQ(Get(*b_.service, board.id)->version(), s->version() + 1);
  }
}

TEST_F(SharedStoreServiceTest, ATimeoutResetsTheGameOnce) {
  const Board board = NewBoard(*a_.service);
  ASSERT_TRUE(PlayOn(*a_.service, board).ok());
  ASSERT_TRUE(Get(*b_.service, board.id).ok());  // B knows it too
  clock_.Advance(absl::Hours(2));                // the default is an hour
  std::latch start(2);
  std::atomic<int> resets = 0;
  std::thread ta([&] {
    start.arrive_and_wait();
    resets += a_.service->SweepTimeouts();
  });
  std::thread tb([&] {
    start.arrive_and_wait();
    resets += b_.service->SweepTimeouts();
  });
  ta.join();
  tb.join();
  EXPECT_EQ(resets, 1);
  int stored_resets = 0;
  for (const v1::Event& e : StoredEvents(board.id)) {
    stored_resets += e.has_game_reset();
  }
  EXPECT_EQ(stored_resets, 1);
  // Later sweeps find nothing more to do, on either replica.
  EXPECT_EQ(a_.service->SweepTimeouts() + b_.service->SweepTimeouts(), 0);
  EXPECT_EQ(Get(*b_.service, board.id)->status(), v1::WAITING_FOR_PLAYERS);
}

// A session nobody claimed is removed once, whichever replica sweeps
// first; the other's sweep finds it gone.
TEST_F(SharedStoreServiceTest, AnUnclaimedSessionIsRemovedOnce) {
  const Board board = NewBoard(*a_.service, /*seat=*/false);
  ASSERT_TRUE(Get(*b_.service, board.id).ok());  // B knows it too
  clock_.Advance(limits_.unclaimed_session_timeout + absl::Seconds(1));
  std::latch start(2);
  std::atomic<int> removed = 0;
  std::thread ta([&] {
    start.arrive_and_wait();
    removed += a_.service->SweepUnclaimed();
  });
  std::thread tb([&] {
    start.arrive_and_wait();
    removed += b_.service->SweepUnclaimed();
  });
  ta.join();
  tb.join();
  EXPECT_EQ(removed, 1);
  for (Replica* r : {&a_, &b_}) {
    EXPECT_TRUE(WaitFor(
        [&] { return absl::IsNotFound(Get(*r->service, board.id).status()); }));
  }
  EXPECT_EQ(a_.service->SweepUnclaimed() + b_.service->SweepUnclaimed(), 0);
}

// A seat taken on one replica keeps the session on the other, whose copy
// may still say unclaimed: its sweep reads the store first.
TEST_F(SharedStoreServiceTest, ASeatTakenElsewhereKeepsTheSession) {
  // Change notices lost: A's copy stays unclaimed.
  const Board board = NewBoard(*a_.service, /*seat=*/false);
  ASSERT_TRUE(Get(*b_.service, board.id).ok());
  a_.store->LoseNotices(1);
  Join(*b_.service, board.id, v1::SILVER, "alice");
  clock_.Advance(limits_.unclaimed_session_timeout + absl::Seconds(1));
  EXPECT_EQ(a_.service->SweepUnclaimed(), 0);
  EXPECT_EQ(b_.service->SweepUnclaimed(), 0);
  absl::StatusOr<v1::Session> kept = Get(*a_.service, board.id);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_TRUE(kept->seats(0).occupied());
}

TEST_F(SharedStoreServiceTest, AComputerSeatMovesOncePerTurn) {
  const Board board = NewBoard(*a_.service, /*seat=*/false);
  ASSERT_TRUE(Get(*b_.service, board.id).ok());  // both replicas know it
  // Two computer seats, both replicas hearing every turn: for each version
  // only one move may be stored.
  for (v1::Color color : {v1::SILVER, v1::RED}) {
    v1::SeatComputerRequest seat;
    seat.set_session_id(board.id);
    seat.set_color(color);
    seat.set_level(1);
    ASSERT_TRUE(a_.service->SeatComputer(seat, Caller{board.owner}).ok());
  }
  ASSERT_TRUE(WaitFor([&] {
    absl::StatusOr<v1::Session> s = Get(*b_.service, board.id);
    return s.ok() && (s->moves_size() >= 6 || s->status() == v1::FINISHED);
  }));
  // Both computers keep writing from both replicas, so a reset may lose
  // every race of one call (ABORTED after its attempts); it is asked again.
  v1::ResetGameRequest reset;
  reset.set_session_id(board.id);
  absl::Status reset_status;
  for (int i = 0; i < 20; ++i) {
    reset_status = b_.service->ResetGame(reset, Caller{board.owner}).status();
    if (!absl::IsAborted(reset_status)) break;
  }
  ASSERT_TRUE(reset_status.ok()) << reset_status;
  // The log is one event per version, and each move follows the one
  // before it (a second move at a version would have been refused).
  const std::vector<v1::Event> events = StoredEvents(board.id);
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].version(), static_cast<int64_t>(i) + 1);
  }
  int moves = 0;
  for (const v1::Event& e : events) moves += e.has_move_made();
  EXPECT_GE(moves, 1);
}

// The engine's search, counted; while `hold` is set it searches nothing
// and waits to be stopped, as a search that takes long.
struct CountedSearch {
  std::atomic<int> searches = 0;
  std::atomic<bool> hold = false;
  SearchFunction Function() {
    return [this](const Position& pos, const SearchLimits& limits,
                  const SearchStyle& style, const std::atomic<bool>* stop) {
      ++searches;
      while (hold && !stop->load()) absl::SleepFor(absl::Milliseconds(2));
      return Search(pos, limits, style, stop);
    };
  }
};

class SharedStoreLeaseTest : public SharedStoreServiceTest {
 protected:
  SharedStoreLeaseTest() { search_ = counted_.Function(); }

  // The computer in `color`'s seat at level 1, seated through `on`.
  void SeatComputer(SessionService& on, const Board& b, v1::Color color) {
    v1::SeatComputerRequest seat;
    seat.set_session_id(b.id);
    seat.set_color(color);
    seat.set_level(1);
    ASSERT_TRUE(on.SeatComputer(seat, Caller{b.owner}).ok());
  }

  int Moves(SessionService& on, const Board& b) {
    absl::StatusOr<v1::Session> s = Get(on, b.id);
    return s.ok() ? s->moves_size() : -1;
  }

  CountedSearch counted_;
};

TEST_F(SharedStoreLeaseTest, OneReplicaSearchesPerComputerTurn) {
  Board board = NewBoard(*a_.service, /*seat=*/false);
  board.red = Join(*b_.service, board.id, v1::RED, "bob");
  ASSERT_TRUE(Get(*b_.service, board.id).ok());  // both replicas know it
  SeatComputer(*a_.service, board, v1::SILVER);
  for (int turn = 1; turn <= 3; ++turn) {
    // The computer moves once, searched for by one replica.
    ASSERT_TRUE(
        WaitFor([&] { return Moves(*b_.service, board) == 2 * turn - 1; }));
    EXPECT_EQ(counted_.searches, turn);
    // bob answers, through either replica.
    SessionService& through = turn % 2 == 0 ? *a_.service : *b_.service;
    ASSERT_TRUE(PlayOn(through, board).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return Moves(*a_.service, board) == 7; }));
  // The other replica, still asking for the lease every 20 ms, never got
  // it: no second search of any turn.
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_EQ(counted_.searches, 4);
  EXPECT_EQ(Moves(*a_.service, board), 7);
}

TEST_F(SharedStoreLeaseTest, ALeaseOfAStoppedReplicaPassesOnAfterItsTtl) {
  b_.service.reset();  // A alone takes the lease
  b_.store.reset();
  Board board = NewBoard(*a_.service, /*seat=*/false);
  board.red = Join(*a_.service, board.id, v1::RED, "bob");
  counted_.hold = true;
  SeatComputer(*a_.service, board, v1::SILVER);
  ASSERT_TRUE(WaitFor([&] { return counted_.searches == 1; }));
  // B comes up while A searches, then A stops without a word.
  CountedSearch on_b;
  b_ = NewReplica(on_b.Function());
  ASSERT_NE(b_.service, nullptr);
  ASSERT_EQ(Moves(*b_.service, board), 0);
  a_.service.reset();
  a_.store.reset();
  // A's lease runs on: B waits, asking every 20 ms.
  clock_.Advance(limits_.computer_lease_ttl - absl::Seconds(1));
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_EQ(on_b.searches, 0);
  EXPECT_EQ(Moves(*b_.service, board), 0);
  // Run out: B takes it over and the computer moves.
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(WaitFor([&] { return Moves(*b_.service, board) == 1; }));
  EXPECT_EQ(on_b.searches, 1);
}

class SharedStoreLimitTest : public SharedStoreServiceTest {
 protected:
  SharedStoreLimitTest() { limits_.max_sessions = 2; }
};

TEST_F(SharedStoreLimitTest, AdoptedSessionsCountTowardMaxSessions) {
  NewBoard(*a_.service, /*seat=*/false);
  NewBoard(*a_.service, /*seat=*/false);
  // B adopts both from the store's notices, without a request for them.
  ASSERT_TRUE(WaitFor([&] {
    absl::StatusOr<v1::ListSessionsResponse> listed =
        b_.service->ListSessions({});
    return listed.ok() && listed->sessions_size() == 2;
  }));
  v1::CreateSessionRequest create;
  create.set_name("one too many");
  absl::StatusOr<v1::CreateSessionResponse> refused =
      b_.service->CreateSession(create);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted)
      << refused.status();
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "max_sessions"))
      << refused.status();
}

TEST_F(SharedStoreServiceTest, ASessionMadeOnOneReplicaIsListedByTheOther) {
  b_.store->LoseNotices(1);  // B does not hear of it
  const Board board = NewBoard(*a_.service, /*seat=*/false);
  absl::StatusOr<v1::ListSessionsResponse> listed =
      b_.service->ListSessions({});
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->sessions_size(), 1);
  EXPECT_EQ(listed->sessions(0).id(), board.id);
}

// A move on a copy that is current is written at once: the write's own
// version check is the test, so the store is not read first.
TEST_F(SharedStoreServiceTest, AMoveOnACurrentCopyReadsNothingFirst) {
  const Board board = NewBoard(*a_.service);
  absl::StatusOr<v1::Session> s = Get(*a_.service, board.id);
  ASSERT_TRUE(s.ok()) << s.status();
  v1::MakeMoveRequest move;
  move.set_session_id(board.id);
  move.mutable_move()->set_notation(QuietMove(s->board().position()));
  const int reads_before = a_.store->reads();
  absl::StatusOr<v1::MakeMoveResponse> made =
      a_.service->MakeMove(move, Caller{board.silver});
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->version(), s->version() + 1);
  EXPECT_EQ(a_.store->reads(), reads_before);
}

// A copy that is behind (its replica missed the other's notice) cannot
// answer from what it holds: the opponent's move, made on it right after
// a move on the other replica, is played on the stored session.
TEST_F(SharedStoreServiceTest, AMoveOnACopyBehindIsPlayedOnTheStoredSession) {
  const Board board = NewBoard(*a_.service);
  ASSERT_TRUE(PlayOn(*a_.service, board).ok());  // Silver, on A
  a_.store->LoseNotices(1000);
  // Red on B, then Silver on A, which has not heard of Red's move.
  absl::StatusOr<v1::MakeMoveResponse> red = PlayOn(*b_.service, board);
  ASSERT_TRUE(red.ok()) << red.status();
  v1::MakeMoveRequest move;
  move.set_session_id(board.id);
  move.mutable_move()->set_notation(QuietMove(red->board().position()));
  absl::StatusOr<v1::MakeMoveResponse> silver =
      a_.service->MakeMove(move, Caller{board.silver});
  ASSERT_TRUE(silver.ok()) << silver.status();
  EXPECT_EQ(silver->version(), red->version() + 1);
  // A move out of turn still fails, after the same check.
  move.mutable_move()->set_notation(QuietMove(silver->board().position()));
  absl::StatusOr<v1::MakeMoveResponse> again =
      a_.service->MakeMove(move, Caller{board.silver});
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();
  // The log holds each move once, in order.
  std::vector<v1::Event> events = StoredEvents(board.id);
  int moves = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].version(), static_cast<int64_t>(i) + 1);
    if (events[i].has_move_made()) ++moves;
  }
  EXPECT_EQ(moves, 3);
}

// A request_id retried in a new game is a new move, also on a copy that
// missed the new game: the answer kept from the old game is not replayed.
TEST_F(SharedStoreServiceTest,
       AKeptAnswerIsNotReplayedInANewGameMadeElsewhere) {
  const Board board = NewBoard(*a_.service);
  absl::StatusOr<v1::Session> s = Get(*a_.service, board.id);
  ASSERT_TRUE(s.ok()) << s.status();
  v1::MakeMoveRequest move;
  move.set_session_id(board.id);
  move.set_request_id("move-1");
  move.mutable_move()->set_notation(QuietMove(s->board().position()));
  absl::StatusOr<v1::MakeMoveResponse> first =
      a_.service->MakeMove(move, Caller{board.silver});
  ASSERT_TRUE(first.ok()) << first.status();
  // On B, unheard by A: Red resigns, Silver starts a new game, same seats.
  a_.store->LoseNotices(1000);
  v1::ResignRequest resign;
  resign.set_session_id(board.id);
  ASSERT_TRUE(b_.service->Resign(resign, Caller{board.red}).ok());
  v1::ChooseSetupRequest setup;
  setup.set_session_id(board.id);
  setup.set_setup_id(s->setup_id());
  absl::StatusOr<v1::Session> new_game =
      b_.service->ChooseSetup(setup, Caller{board.silver});
  ASSERT_TRUE(new_game.ok()) << new_game.status();
  ASSERT_EQ(new_game->status(), v1::IN_PROGRESS);
  absl::StatusOr<v1::MakeMoveResponse> retried =
      a_.service->MakeMove(move, Caller{board.silver});
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->version(), new_game->version() + 1);
  absl::StatusOr<v1::Session> now = Get(*b_.service, board.id);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->version(), retried->version());
  EXPECT_EQ(now->moves_size(), 1);
}

}  // namespace
}  // namespace khet
