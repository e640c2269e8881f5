// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Pushed events end to end on loopback: the gateway in-process over a
// memory store, boards' receivers as real HTTP servers (httplib's, in the
// test only) and raw sockets that misbehave as a hostile or broken
// receiver would. Also the URL rule of callback_target.h.
#include "service/http/board_pushes.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "service/base/mutex.h"
#include "service/base/sha256.h"
#include "service/http/callback_target.h"
#include "service/http/compact_moves.h"
#include "service/http/http_gateway.h"
#include "service/http/testing/push_receiver.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

// ---- The URL rule ---------------------------------------------------------

TEST(CallbackUrlTest, ReadsTheParts) {
  const CallbackUrl url =
      ParseCallbackUrl("http://Sim7.Example.org:12046/lslhttp/ab-cd/").value();
  EXPECT_FALSE(url.tls);
  EXPECT_EQ(url.host, "sim7.example.org");
  EXPECT_EQ(url.port, 12046);
  EXPECT_EQ(url.target, "/lslhttp/ab-cd/");
  const CallbackUrl secure = ParseCallbackUrl("https://[::1]?x=1").value();
  EXPECT_TRUE(secure.tls);
  EXPECT_EQ(secure.host, "::1");
  EXPECT_EQ(secure.port, 443);
  EXPECT_EQ(secure.target, "/?x=1");
}

TEST(CallbackUrlTest, RefusesWhatIsNotAPlainWebUrl) {
  for (const char* bad :
       {"", "ftp://example.org/", "file:///etc/passwd", "gopher://x:70/",
        "http://", "http://user:pw@example.org/", "http://example.org:0/",
        "http://example.org:65536/", "http://example.org:/",
        "http://example.org/#frag", "http://exa mple.org/",
        "http://example.org/\x01", "http://[::1/", "http://[1.2.3.4]/",
        "http://ex%41mple.org/", "javascript:alert(1)"}) {
    const absl::StatusOr<CallbackUrl> url = ParseCallbackUrl(bad);
    EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_FALSE(
      ParseCallbackUrl(absl::StrCat("http://h/", std::string(1100, 'a'))).ok());
}

TEST(CallbackHostsTest, MatchesNamesAndDomains) {
  const CallbackHosts hosts =
      CallbackHosts::Parse("*.agni.lindenlab.com, grid.example.org").value();
  EXPECT_TRUE(hosts.Matches("sim10007.agni.lindenlab.com"));
  EXPECT_TRUE(hosts.Matches("SIM1.Agni.LindenLab.com"));
  EXPECT_FALSE(hosts.Matches("agni.lindenlab.com"));
  EXPECT_FALSE(hosts.Matches("evil-agni.lindenlab.com.example.net"));
  EXPECT_FALSE(hosts.Matches("xagni.lindenlab.com"));
  EXPECT_TRUE(hosts.Matches("grid.example.org"));
  EXPECT_FALSE(hosts.Matches("sub.grid.example.org"));
  EXPECT_FALSE(CallbackHosts::Parse("*").ok());
  EXPECT_FALSE(CallbackHosts::Parse("a*.example.org").ok());
  EXPECT_FALSE(CallbackHosts::Parse("exa mple.org").ok());
}

TEST(CallbackTargetTest, OnlyTheCallerOrANamedHost) {
  const IpAddress loopback = *IpAddress::Parse("127.0.0.1");
  const CallbackHosts none;
  EXPECT_EQ(CheckCallbackTarget(ParseCallbackUrl("http://127.0.0.1:9/").value(),
                                loopback, none)
                .value(),
            loopback);
  // "localhost" resolves to the caller's address.
  EXPECT_TRUE(CheckCallbackTarget(
                  ParseCallbackUrl("http://localhost:9000/lslhttp/x/").value(),
                  loopback, none)
                  .ok());
  // Anywhere else is refused, whatever the caller owns.
  const absl::StatusOr<IpAddress> elsewhere = CheckCallbackTarget(
      ParseCallbackUrl("http://192.0.2.1/").value(), loopback, none);
  EXPECT_EQ(elsewhere.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(elsewhere.status().message(), HasSubstr("192.0.2.1"));
  EXPECT_EQ(
      CheckCallbackTarget(ParseCallbackUrl("http://169.254.169.254/").value(),
                          loopback, none)
          .status()
          .code(),
      absl::StatusCode::kPermissionDenied);
  // A host the operator names is allowed from anywhere.
  const CallbackHosts named = CallbackHosts::Parse("localhost").value();
  EXPECT_TRUE(
      CheckCallbackTarget(ParseCallbackUrl("http://localhost:9000/").value(),
                          *IpAddress::Parse("192.0.2.9"), named)
          .ok());
  EXPECT_EQ(CheckCallbackTarget(
                ParseCallbackUrl("http://no-such-host.invalid/").value(),
                loopback, none)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// ---- Deliveries -----------------------------------------------------------

// A listener that accepts connections and never answers (or, with
// `huge`, answers 200 with 5 MB): the worst a receiver can do.
class BadReceiver {
 public:
  explicit BadReceiver(bool huge) : huge_(huge) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(fd_, 64);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~BadReceiver() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
    for (int c : clients_) close(c);
  }
  std::string url() const {
    return absl::StrCat("http://127.0.0.1:", port_, "/lslhttp/bad/");
  }
  int accepted() const { return accepted_.load(); }

 private:
  void Serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      ++accepted_;
      clients_.push_back(c);
      if (huge_) {
        char buf[4096];
        [[maybe_unused]] ssize_t n = recv(c, buf, sizeof buf, 0);
        const std::string head =
            "HTTP/1.1 200 OK\r\nContent-Length: 5242880\r\n\r\n";
        [[maybe_unused]] ssize_t w =
            send(c, head.data(), head.size(), MSG_NOSIGNAL);
        const std::string chunk(64 * 1024, 'x');
        for (int i = 0; i < 80 && !stop_; ++i) {
          if (send(c, chunk.data(), chunk.size(), MSG_NOSIGNAL) < 0) break;
        }
      }
    }
  }

  const bool huge_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::vector<int> clients_;  // the serving thread's
  std::thread thread_;
};

class BoardPushesTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(HttpGatewayOptions()); }

  void Start(HttpGatewayOptions options) {
    gateway_.reset();
    ServiceOptions service_options;
    service_options.store = &store_;
    service_options.limits.max_sessions = 20000;
    if (core_ == nullptr) {
      core_ = SessionService::Create(service_options).value();
    }
    options.serving_threads = 4;
    options.log = [](const std::string&) {};
    options.pushes.connection.answer_timeout = absl::Milliseconds(500);
    options.pushes.connection.connect_timeout = absl::Milliseconds(500);
    options.pushes.first_retry = absl::Milliseconds(50);
    options.pushes.first_delivery_delay = absl::Milliseconds(50);
    metrics_ = std::make_unique<metrics::Registry>();
    options.metrics = metrics_.get();
    gateway_ = std::make_unique<HttpGateway>(core_.get(), options);
    const absl::StatusOr<int> port = gateway_->Start("127.0.0.1:0");
    ASSERT_TRUE(port.ok()) << port.status();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
    client_->set_read_timeout(30, 0);
  }

  struct Game {
    std::string id, owner, silver, red;
  };
  Game NewGame() {
    v1::CreateSessionRequest create;
    create.set_setup_id("classic-2");
    const v1::CreateSessionResponse created =
        core_->CreateSession(create).value();
    Game game{created.session().id(), created.owner_token(), "", ""};
    for (const v1::Color color : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(game.id);
      join.set_color(color);
      join.set_player_name(color == v1::SILVER ? "Ann" : "Bob");
      (color == v1::SILVER ? game.silver : game.red) =
          core_->JoinSeat(join).value().player_token();
    }
    return game;
  }
  int64_t Version(const Game& game) {
    v1::GetSessionRequest get;
    get.set_session_id(game.id);
    return core_->GetSession(get).value().version();
  }
  void Move(const Game& game, const std::string& token,
            const std::string& move) {
    v1::MakeMoveRequest request;
    request.set_session_id(game.id);
    request.mutable_move()->set_notation(move);
    ASSERT_TRUE(core_->MakeMove(request, Caller{token}).ok()) << move;
  }

  httplib::Result Register(const Game& game, const std::string& url,
                           int64_t after, const std::string& token) {
    httplib::Headers headers;
    if (!token.empty()) headers = {{"Authorization", "Bearer " + token}};
    return client_->Post(
        absl::StrCat("/v1/sessions/", game.id, "/callback"), headers,
        json{{"url", url}, {"afterVersion", after}}.dump(), "application/json");
  }
  // Registers as the owner; the secret.
  std::string RegisterOk(const Game& game, const std::string& url,
                         int64_t after) {
    httplib::Result result = Register(game, url, after, game.owner);
    if (!result || result->status != 200) {
      ADD_FAILURE() << (result ? result->body : "no answer");
      return "";
    }
    return json::parse(result->body)["secret"].get<std::string>();
  }
  int CallbackStatus(const Game& game) {
    httplib::Result result =
        client_->Get(absl::StrCat("/v1/sessions/", game.id, "/callback"),
                     {{"Authorization", "Bearer " + game.owner}});
    return result ? result->status : 0;
  }
  // Waits up to `wait` for the URL to be gone (404).
  bool DroppedWithin(const Game& game, absl::Duration wait) {
    const absl::Time end = absl::Now() + wait;
    while (absl::Now() < end) {
      if (CallbackStatus(game) == 404) return true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  }
  std::string Metrics() {
    httplib::Result result = client_->Get("/metrics");
    return result ? result->body : "";
  }
  // The metrics once they hold `text`, or as they are after 5 s: khetd
  // counts a delivery when it has read the board's answer, which is after
  // the board has the delivery.
  std::string MetricsHolding(const std::string& text) {
    const absl::Time end = absl::Now() + absl::Seconds(5);
    std::string metrics = Metrics();
    while (metrics.find(text) == std::string::npos && absl::Now() < end) {
      absl::SleepFor(absl::Milliseconds(10));
      metrics = Metrics();
    }
    return metrics;
  }

  MemoryStore store_;
  std::unique_ptr<metrics::Registry> metrics_;
  std::unique_ptr<SessionService> core_;
  std::unique_ptr<HttpGateway> gateway_;
  std::unique_ptr<httplib::Client> client_;

  void TearDown() override { gateway_.reset(); }
};

TEST_F(BoardPushesTest, DeliversEveryEventSignedInOrderWithLegalMoves) {
  PushReceiver board;
  const Game game = NewGame();
  const int64_t start = Version(game);
  const std::string secret = RegisterOk(game, board.url(), start);
  ASSERT_EQ(secret.size(), 64u);
  Move(game, game.silver, "j1L");
  Move(game, game.red, "a8L");
  Move(game, game.silver, "j1R");
  const int64_t end = Version(game);
  int64_t seen = start;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  std::vector<PushReceiver::Delivery> got;
  while (seen < end && absl::Now() < deadline) {
    got = board.WaitFor(got.size() + 1, absl::Seconds(5));
    seen = start;
    for (const PushReceiver::Delivery& d : got) {
      const json body = json::parse(d.body);
      seen = body["v"].get<int64_t>();
    }
  }
  ASSERT_EQ(seen, end);
  int64_t last = start;
  json last_move;
  for (const PushReceiver::Delivery& d : got) {
    EXPECT_LE(d.body.size(), 2048u);
    EXPECT_EQ(d.sig, Sha256Hex(absl::StrCat(secret, d.body, secret)));
    const json body = json::parse(d.body);
    for (const json& event : body["events"]) {
      EXPECT_EQ(event["v"].get<int64_t>(), last + 1) << d.body;
      last = event["v"].get<int64_t>();
      if (event["kind"] == "move") last_move = event;
    }
  }
  EXPECT_EQ(last, end);
  ASSERT_TRUE(last_move.is_object());
  EXPECT_EQ(last_move["move"], "j1R");
  EXPECT_EQ(last_move["lm"],
            CompactMoveList(last_move["pos"].get<std::string>()));
  const std::string ok = "khet_push_deliveries_total{result=\"ok\"}";
  EXPECT_THAT(MetricsHolding(ok), HasSubstr(ok));
}

TEST_F(BoardPushesTest, CatchesUpFromTheVersionTheBoardHas) {
  PushReceiver board;
  const Game game = NewGame();
  Move(game, game.silver, "j1L");
  RegisterOk(game, board.url(), 0);
  const std::vector<PushReceiver::Delivery> got =
      board.WaitFor(1, absl::Seconds(5));
  ASSERT_FALSE(got.empty());
  const json first = json::parse(got[0].body);
  EXPECT_EQ(first["events"][0]["v"], 1);
}

TEST_F(BoardPushesTest, OnlyTheOwnerRegisters) {
  PushReceiver board;
  const Game game = NewGame();
  httplib::Result player = Register(game, board.url(), 0, game.silver);
  ASSERT_TRUE(player);
  EXPECT_EQ(player->status, 403);
  httplib::Result nobody = Register(game, board.url(), 0, "");
  ASSERT_TRUE(nobody);
  EXPECT_EQ(nobody->status, 401);
  Game unknown = game;
  unknown.id = "no-such-session";
  httplib::Result missing = Register(unknown, board.url(), 0, game.owner);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(CallbackStatus(game), 404);
  Move(game, game.silver, "j1L");
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_TRUE(board.deliveries().empty());
}

TEST_F(BoardPushesTest, RefusesUrlsPointingElsewhere) {
  const Game game = NewGame();
  for (const std::string url :
       {"http://192.0.2.1/", "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1:8080/", "file:///etc/passwd", "http://user@127.0.0.1/",
        "gopher://127.0.0.1:70/"}) {
    httplib::Result result = Register(game, url, 0, game.owner);
    ASSERT_TRUE(result) << url;
    EXPECT_THAT(result->status, ::testing::AnyOf(400, 403)) << url;
    EXPECT_THAT(result->body, HasSubstr("callback url")) << url;
  }
  httplib::Result bad_body =
      client_->Post(absl::StrCat("/v1/sessions/", game.id, "/callback"),
                    {{"Authorization", "Bearer " + game.owner}},
                    R"({"url":1,"x":2})", "application/json");
  ASSERT_TRUE(bad_body);
  EXPECT_EQ(bad_body->status, 400);
  httplib::Result stale =
      Register(game, "http://127.0.0.1:9/", 999, game.owner);
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 400);
  EXPECT_EQ(CallbackStatus(game), 404);
}

TEST_F(BoardPushesTest, FollowsNoRedirectAndDropsTheUrl) {
  PushReceiver target;
  PushReceiver redirecting([&](httplib::Response& response) {
    response.status = 302;
    response.set_header("Location", target.url());
  });
  const Game game = NewGame();
  RegisterOk(game, redirecting.url(), 0);
  EXPECT_TRUE(DroppedWithin(game, absl::Seconds(10)));
  EXPECT_GE(redirecting.deliveries().size(), 1u);
  EXPECT_TRUE(target.deliveries().empty());
  const std::string dropped = "khet_push_drops_total{reason=\"failures\"}";
  EXPECT_THAT(MetricsHolding(dropped), HasSubstr(dropped));
}

TEST_F(BoardPushesTest, ANeverAnsweringReceiverIsDroppedAndHoldsNoOneUp) {
  BadReceiver silent(/*huge=*/false);
  PushReceiver good;
  const Game stuck = NewGame();
  const Game fine = NewGame();
  RegisterOk(stuck, silent.url(), 0);
  RegisterOk(fine, good.url(), Version(fine));
  Move(fine, fine.silver, "j1L");
  EXPECT_EQ(good.WaitFor(1, absl::Seconds(5)).size(), 1u);
  EXPECT_TRUE(DroppedWithin(stuck, absl::Seconds(15)));
  EXPECT_GE(silent.accepted(), 1);
  EXPECT_EQ(CallbackStatus(fine), 200);
}

TEST_F(BoardPushesTest, AHugeAnswerFailsTheDelivery) {
  BadReceiver huge(/*huge=*/true);
  const Game game = NewGame();
  RegisterOk(game, huge.url(), 0);
  EXPECT_TRUE(DroppedWithin(game, absl::Seconds(15)));
}

TEST_F(BoardPushesTest, ANewRegistrationReplacesTheOldAndDeleteEndsIt) {
  PushReceiver old_board, new_board;
  const Game game = NewGame();
  RegisterOk(game, old_board.url(), Version(game));
  RegisterOk(game, new_board.url(), Version(game));
  Move(game, game.silver, "j1L");
  EXPECT_EQ(new_board.WaitFor(1, absl::Seconds(5)).size(), 1u);
  EXPECT_TRUE(old_board.deliveries().empty());
  httplib::Result removed =
      client_->Delete(absl::StrCat("/v1/sessions/", game.id, "/callback"),
                      {{"Authorization", "Bearer " + game.owner}});
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->status, 200);
  EXPECT_EQ(CallbackStatus(game), 404);
  const size_t before = new_board.deliveries().size();
  Move(game, game.red, "a8L");
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(new_board.deliveries().size(), before);
}

TEST_F(BoardPushesTest, ABoardThatFailedOnceGetsTheSameEventsAgain) {
  std::atomic<int> calls{0};
  PushReceiver flaky([&](httplib::Response& response) {
    if (calls.fetch_add(1) == 0) response.status = 503;
  });
  const Game game = NewGame();
  RegisterOk(game, flaky.url(), Version(game));
  Move(game, game.silver, "j1L");
  const std::vector<PushReceiver::Delivery> got =
      flaky.WaitFor(2, absl::Seconds(5));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].body, got[1].body);
  EXPECT_EQ(CallbackStatus(game), 200);
}

// A board registering far behind (more events than a delivery backlog)
// gets the latest state first, then the events after it.
TEST_F(BoardPushesTest, ABoardFarBehindGetsTheLatestStateFirst) {
  PushReceiver board;
  const Game game = NewGame();
  for (int i = 0; i < 300; ++i) {
    v1::UpdateSettingsRequest update;
    update.set_session_id(game.id);
    update.mutable_settings()->set_quiet(i % 2 == 0);
    ASSERT_TRUE(core_->UpdateSettings(update, Caller{game.owner}).ok());
  }
  const int64_t now = Version(game);
  RegisterOk(game, board.url(), 0);
  Move(game, game.silver, "j1L");
  const std::vector<PushReceiver::Delivery> got =
      board.WaitFor(2, absl::Seconds(5));
  ASSERT_GE(got.size(), 2u);
  const json state = json::parse(got[0].body);
  EXPECT_EQ(state["id"], game.id);
  EXPECT_FALSE(state.contains("events"));
  EXPECT_EQ(state["v"], now);
  const json next = json::parse(got[1].body);
  EXPECT_EQ(next["events"][0]["v"], now + 1);
  EXPECT_EQ(next["events"][0]["kind"], "move");
}

// 10,000 registrations from one caller: each is answered, the limit holds
// beyond them, and khetd keeps serving.
TEST_F(BoardPushesTest, TenThousandRegistrationsMeetTheLimit) {
  HttpGatewayOptions options;
  options.pushes.max_boards = 10000;
  Start(options);
  PushReceiver board;
  std::vector<Game> games;
  for (int i = 0; i < 10001; ++i) {
    v1::CreateSessionRequest create;
    const v1::CreateSessionResponse created =
        core_->CreateSession(create).value();
    games.push_back({created.session().id(), created.owner_token(), "", ""});
  }
  for (int i = 0; i < 10000; ++i) {
    httplib::Result result =
        Register(games[i], board.url(absl::StrCat("/lslhttp/", i, "/")),
                 Version(games[i]), games[i].owner);
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << i << " " << result->body;
  }
  httplib::Result beyond =
      Register(games[10000], board.url(), 0, games[10000].owner);
  ASSERT_TRUE(beyond);
  EXPECT_EQ(beyond->status, 429);
  // Registering again replaces, so it is not refused.
  EXPECT_EQ(Register(games[0], board.url(), 0, games[0].owner)->status, 200);
  EXPECT_THAT(Metrics(), HasSubstr("khet_push_boards 10000"));
  EXPECT_EQ(client_->Get("/v1/version")->status, 200);
}

}  // namespace
}  // namespace khet
