// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Pushed events on replicas: two gateways, each over its own core and
// connections to one PostgreSQL database (the ctest fixture `postgres`), a
// board's receiver on loopback. The replica that registered a board dies or
// shuts down; the other takes the board over and goes on delivering, signed
// with the registration's secret, with no version skipped. A board's
// callback answers alike on either replica, and one registered again on
// the other is delivered to by that one alone.
#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "service/base/random_source.h"
#include "service/base/sha256.h"
#include "service/core/session_service.h"
#include "service/http/http_gateway.h"
#include "service/http/testing/push_receiver.h"
#include "service/metrics/metrics.h"
#include "service/store/postgres_store.h"
#include "service/store/postgres_testing.h"

namespace khet {
namespace {

using json = nlohmann::json;

// The heartbeat's pace here: a round each 100 ms, dead after 1 s (a
// loaded sanitizer run stays well inside it).
constexpr absl::Duration kBeat = absl::Milliseconds(100);
constexpr absl::Duration kBeatTtl = absl::Seconds(1);

class BoardPushesReplicasTest : public ::testing::Test {
 protected:
  struct Replica {
    std::unique_ptr<PostgresStore> store;
    std::unique_ptr<SessionService> core;
    std::unique_ptr<HttpGateway> gateway;
    std::unique_ptr<httplib::Client> client;
    std::unique_ptr<metrics::Registry> metrics;
    std::string id;
  };

  void SetUp() override {
    std::string skip_reason;
    absl::StatusOr<std::unique_ptr<TestDatabase>> db =
        TestDatabase::Create(&skip_reason);
    ASSERT_TRUE(db.ok()) << db.status();
    if (*db == nullptr) GTEST_SKIP() << skip_reason;
    db_ = *std::move(db);
    ASSERT_NO_FATAL_FAILURE(Start(a_));
    ASSERT_NO_FATAL_FAILURE(Start(b_));
  }

  void TearDown() override {
    for (Replica* r : {&a_, &b_}) Stop(*r);
  }

  void Start(Replica& r) {
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(db_->conninfo());
    ASSERT_TRUE(store.ok()) << store.status();
    r.store = *std::move(store);
    ServiceOptions service_options;
    service_options.store = r.store.get();
    r.core = SessionService::Create(service_options).value();
    HttpGatewayOptions options;
    options.serving_threads = 4;
    options.log = [](const std::string&) {};
    options.pushes.first_delivery_delay = absl::Milliseconds(50);
    options.pushes.shared_store = r.store.get();
    r.id = SystemRandom()->NewToken();
    options.pushes.replica_id = r.id;
    options.pushes.heartbeat = kBeat;
    options.pushes.heartbeat_ttl = kBeatTtl;
    r.metrics = std::make_unique<metrics::Registry>();
    options.metrics = r.metrics.get();
    r.gateway = std::make_unique<HttpGateway>(r.core.get(), options);
    const absl::StatusOr<int> port = r.gateway->Start("127.0.0.1:0");
    ASSERT_TRUE(port.ok()) << port.status();
    r.client = std::make_unique<httplib::Client>("127.0.0.1", *port);
    r.client->set_read_timeout(30, 0);
  }

  static void Stop(Replica& r) {
    r.client.reset();
    if (r.gateway != nullptr) r.gateway->Shutdown();
    r.gateway.reset();
    r.core.reset();
    r.store.reset();
  }

  struct Game {
    std::string id, owner, silver, red;
  };
  static Game NewGame(SessionService& core) {
    v1::CreateSessionRequest create;
    create.set_setup_id("classic-2");
    const v1::CreateSessionResponse created =
        core.CreateSession(create).value();
    Game game{created.session().id(), created.owner_token(), "", ""};
    for (const v1::Color color : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(game.id);
      join.set_color(color);
      join.set_player_name(color == v1::SILVER ? "Ann" : "Bob");
      (color == v1::SILVER ? game.silver : game.red) =
          core.JoinSeat(join).value().player_token();
    }
    return game;
  }
  static int64_t Move(SessionService& core, const std::string& id,
                      const std::string& token, const std::string& move) {
    v1::MakeMoveRequest request;
    request.set_session_id(id);
    request.mutable_move()->set_notation(move);
    absl::StatusOr<v1::MakeMoveResponse> moved =
        core.MakeMove(request, Caller{token});
    EXPECT_TRUE(moved.ok()) << move << ": " << moved.status();
    return moved.ok() ? moved->version() : -1;
  }
  // Registers `url` for the game through `r`; the secret, or "" on failure.
  static std::string Register(Replica& r, const Game& game,
                              const std::string& url) {
    httplib::Result registered = r.client->Post(
        absl::StrCat("/v1/sessions/", game.id, "/callback"),
        {{"Authorization", "Bearer " + game.owner}},
        json{{"url", url}, {"afterVersion", Version(*r.core, game.id)}}.dump(),
        "application/json");
    EXPECT_TRUE(registered) << "no answer";
    if (!registered) return "";
    EXPECT_EQ(registered->status, 200) << registered->body;
    if (registered->status != 200) return "";
    return json::parse(registered->body)["secret"].get<std::string>();
  }
  static httplib::Result Callback(Replica& r, const std::string& method,
                                  const Game& game) {
    const std::string path =
        absl::StrCat("/v1/sessions/", game.id, "/callback");
    const httplib::Headers auth = {{"Authorization", "Bearer " + game.owner}};
    return method == "GET" ? r.client->Get(path, auth)
                           : r.client->Delete(path, auth);
  }
  // Waits up to `wait` for r's /metrics to hold `line`.
  static bool WaitForMetric(Replica& r, const std::string& line,
                            absl::Duration wait) {
    const absl::Time end = absl::Now() + wait;
    while (absl::Now() < end) {
      httplib::Result got = r.client->Get("/metrics");
      if (got && got->body.find(line) != std::string::npos) return true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  }

  static int64_t Version(SessionService& core, const std::string& id) {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    return core.GetSession(get).value().version();
  }

  // The highest version a delivery carried, if every delivery is signed
  // with `secret`; -1 otherwise.
  static int64_t LastSignedVersion(
      const std::vector<PushReceiver::Delivery>& got,
      const std::string& secret) {
    int64_t last = 0;
    for (const PushReceiver::Delivery& d : got) {
      if (d.sig != Sha256Hex(secret + d.body + secret)) return -1;
      last = std::max<int64_t>(last, json::parse(d.body)["v"].get<int64_t>());
    }
    return last;
  }

  // True if the deliveries from `from` on carry rising versions, none
  // twice.
  static bool EachVersionOnceInOrder(
      const std::vector<PushReceiver::Delivery>& got, size_t from = 0) {
    std::vector<int64_t> versions;
    for (size_t i = from; i < got.size(); ++i) {
      versions.push_back(json::parse(got[i].body)["v"].get<int64_t>());
    }
    return std::adjacent_find(versions.begin(), versions.end(),
                              std::greater_equal<int64_t>()) == versions.end();
  }

  // Waits up to `wait` for a delivery carrying `version`.
  static bool WaitForVersion(PushReceiver& board, const std::string& secret,
                             int64_t version, absl::Duration wait) {
    const absl::Time end = absl::Now() + wait;
    while (absl::Now() < end) {
      if (LastSignedVersion(board.deliveries(), secret) >= version) return true;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return false;
  }

  std::unique_ptr<TestDatabase> db_;
  Replica a_, b_;
};

// A shut down: its heartbeat ends, B claims the board at its next round,
// delivers the latest state and then each move, with A's secret.
TEST_F(BoardPushesReplicasTest, AReplicaShuttingDownHandsItsBoardsOver) {
  const Game game = NewGame(*a_.core);
  PushReceiver board;
  const std::string secret = Register(a_, game, board.url());
  ASSERT_FALSE(secret.empty());
  const int64_t first = Move(*a_.core, game.id, game.silver, "j1L");
  ASSERT_TRUE(WaitForVersion(board, secret, first, absl::Seconds(10)));

  Stop(a_);
  const absl::Time handed = absl::Now();
  const int64_t second = Move(*b_.core, game.id, game.red, "a8L");
  ASSERT_TRUE(WaitForVersion(board, secret, second, absl::Seconds(10)))
      << "B never delivered version " << second;
  std::cout << "the move after A shut down reached the board "
            << absl::Now() - handed << " later\n";
  EXPECT_EQ(LastSignedVersion(board.deliveries(), secret), second);
  httplib::Result found = Callback(b_, "GET", game);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->status, 200) << found->body;
  EXPECT_TRUE(WaitForMetric(b_, "khet_push_paused 0", absl::Seconds(10)));
}

// A replica that died (a target whose owner never beats again) has its
// board taken over: the state at once, then the events, with the stored
// secret.
TEST_F(BoardPushesReplicasTest, ADeadReplicasBoardIsTakenOverWithItsSecret) {
  const Game game = NewGame(*b_.core);
  PushReceiver board;
  const std::string secret(64, 'c');
  ASSERT_TRUE(
      b_.store
          ->SavePushTarget(PushTargetRecord{.session_id = game.id,
                                            .url = board.url(),
                                            .address = "127.0.0.1",
                                            .caller = "127.0.0.1",
                                            .secret = secret,
                                            .owner = "a replica that died"})
          .ok());
  const int64_t now = Version(*b_.core, game.id);
  ASSERT_TRUE(WaitForVersion(board, secret, now, absl::Seconds(10)))
      << "no replica took the board over";
  const std::vector<PushReceiver::Delivery> state = board.deliveries();
  ASSERT_FALSE(state.empty());
  EXPECT_TRUE(json::parse(state.front().body).contains("st"))
      << "the first delivery is not the session's state: "
      << state.front().body;
  const int64_t moved = Move(*a_.core, game.id, game.silver, "j1L");
  ASSERT_TRUE(WaitForVersion(board, secret, moved, absl::Seconds(10)));
  // One of the two replicas took it, once: no delivery came twice.
  EXPECT_TRUE(EachVersionOnceInOrder(board.deliveries()));
}

// The replica a request reaches need not be the one that delivers: B
// answers A's board's GET from the store, and B's DELETE ends A's
// deliveries at A's next heartbeat.
TEST_F(BoardPushesReplicasTest, EitherReplicaFindsAndUnregistersABoard) {
  const Game game = NewGame(*a_.core);
  PushReceiver board;
  const std::string secret = Register(a_, game, board.url());
  ASSERT_FALSE(secret.empty());
  httplib::Result found = Callback(b_, "GET", game);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->status, 200) << found->body;
  EXPECT_EQ(json::parse(found->body)["url"], board.url());

  httplib::Result deleted = Callback(b_, "DELETE", game);
  ASSERT_TRUE(deleted);
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  ASSERT_TRUE(WaitForMetric(a_, "khet_push_drops_total{reason=\"moved\"} 1",
                            absl::Seconds(10)))
      << "A still delivers a board B unregistered";
  for (Replica* r : {&a_, &b_}) {
    httplib::Result gone = Callback(*r, "GET", game);
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone->status, 404) << gone->body;
  }
  const size_t before = board.deliveries().size();
  Move(*a_.core, game.id, game.silver, "j1L");
  absl::SleepFor(10 * kBeat);
  EXPECT_EQ(board.deliveries().size(), before)
      << "a delivery came after the board was unregistered";
  httplib::Result again = Callback(b_, "DELETE", game);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 404) << again->body;
}

// The board registers again through B (its script restarted, or nginx
// chose the other replica): B delivers from then on, A stops at its next
// heartbeat, and no version reaches the board twice after that.
TEST_F(BoardPushesReplicasTest, ARegistrationOnAnotherReplicaMovesTheBoard) {
  const Game game = NewGame(*a_.core);
  PushReceiver board;
  const std::string first = Register(a_, game, board.url());
  ASSERT_FALSE(first.empty());
  const int64_t v1 = Move(*a_.core, game.id, game.silver, "j1L");
  ASSERT_TRUE(WaitForVersion(board, first, v1, absl::Seconds(10)));

  const std::string second = Register(b_, game, board.url());
  ASSERT_FALSE(second.empty());
  ASSERT_NE(first, second);
  ASSERT_TRUE(WaitForMetric(a_, "khet_push_drops_total{reason=\"moved\"} 1",
                            absl::Seconds(10)))
      << "A still delivers a board registered again on B";
  const size_t before = board.deliveries().size();
  const int64_t v2 = Move(*a_.core, game.id, game.red, "a8L");
  const int64_t v3 = Move(*b_.core, game.id, game.silver, "j1R");
  ASSERT_GT(v3, v2);
  const absl::Time end = absl::Now() + absl::Seconds(10);
  std::vector<PushReceiver::Delivery> after;
  while (absl::Now() < end) {
    const std::vector<PushReceiver::Delivery> all = board.deliveries();
    after.assign(all.begin() + before, all.end());
    if (LastSignedVersion(after, second) >= v3) break;
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(LastSignedVersion(after, second), v3)
      << "the moves after the move were not all delivered by B alone";
  absl::SleepFor(5 * kBeat);
  const std::vector<PushReceiver::Delivery> all = board.deliveries();
  for (size_t i = before; i < all.size(); ++i) {
    EXPECT_EQ(all[i].sig, Sha256Hex(second + all[i].body + second))
        << "a delivery after the move was not B's: " << all[i].body;
  }
  EXPECT_TRUE(EachVersionOnceInOrder(all, before));
}

}  // namespace
}  // namespace khet
