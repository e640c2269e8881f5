// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The gateway in-process on 127.0.0.1:0 over a memory store, driven by
// httplib's client and, for event streams, a raw socket.
#include "service/http/http_gateway.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "service/base/mutex.h"
#include "service/core/session_service.h"
#include "service/http/compact_size_cases.h"
#include "service/http/compact_view.h"
#include "service/http/http_routes.h"
#include "service/http/json_codec.h"
#include "service/http/testing/raw_connection.h"
#include "service/metrics/metrics.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

// Red to move wins at once with a1R; Silver's e1-d1 first keeps it so.
constexpr char kShortGame[] = "xs4k4/10/10/10/10/10/10/pnw3K4Xn s 2";

std::string StreamRequest(const std::string& id, const std::string& extra) {
  return absl::StrCat("GET /v1/sessions/", id,
                      "/events:stream HTTP/1.1\r\nHost: localhost\r\n", extra,
                      "\r\n");
}

TEST(MatchRouteTest, TakesTheIdBetweenPrefixAndSuffix) {
  std::string id;
  EXPECT_TRUE(MatchRoute("/v1/setups", "/v1/setups", &id));
  EXPECT_FALSE(MatchRoute("/v1/setups", "/v1/setups/", &id));
  EXPECT_TRUE(
      MatchRoute("/v1/sessions/{id}:move", "/v1/sessions/a-b_9:move", &id));
  EXPECT_EQ(id, "a-b_9");
  EXPECT_FALSE(MatchRoute("/v1/sessions/{id}", "/v1/sessions/x:move", &id));
  EXPECT_FALSE(MatchRoute("/v1/sessions/{id}", "/v1/sessions/x/events", &id));
  EXPECT_FALSE(MatchRoute("/v1/sessions/{id}", "/v1/sessions/", &id));
  EXPECT_FALSE(MatchRoute("/v1/sessions/{id}/events",
                          "/v1/sessions/x/events:stream", &id));
}

TEST(MatchRouteTest, TakesEveryPlaceholdersValue) {
  std::string id;
  std::vector<std::string> more;
  const std::string route = "/v1/sessions/{id}/games/{game}/positions/{ply}";
  EXPECT_TRUE(
      MatchRoute(route, "/v1/sessions/s1/games/s1-g2/positions/7", &id, &more));
  EXPECT_EQ(id, "s1");
  EXPECT_EQ(more, (std::vector<std::string>{"s1-g2", "7"}));
  EXPECT_FALSE(
      MatchRoute(route, "/v1/sessions/s1/games//positions/7", &id, &more));
  EXPECT_FALSE(
      MatchRoute(route, "/v1/sessions/s1/games/g/positions/7/8", &id, &more));
  EXPECT_FALSE(MatchRoute("/v1/sessions/{id}/games/{game}",
                          "/v1/sessions/s1/games/g/record", &id, &more));
}

class HttpGatewayTest : public ::testing::Test {
 protected:
  void SetUp() override { StartGateway(HttpGatewayOptions()); }

  void StartGateway(HttpGatewayOptions options) {
    gateway_.reset();
    ServiceOptions service_options;
    service_options.store = &store_;
    if (core_ == nullptr)
      core_ = SessionService::Create(service_options).value();
    options.server.max_body_bytes = 4096;
    if (options.max_waiting == HttpGatewayOptions().max_waiting) {
      options.max_waiting = 4;
    }
    options.serving_threads = 4;
    options.stream_keepalive = absl::Milliseconds(200);
    options.server.idle_timeout = absl::Seconds(1);
    options.shutdown_grace = absl::Seconds(2);
    options.log = [this](const std::string& line) {
      MutexLock lock(&log_mu_);
      log_.push_back(line);
    };
    gateway_ = std::make_unique<HttpGateway>(core_.get(), options);
    absl::StatusOr<int> port = gateway_->Start("127.0.0.1:0");
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(30, 0);
  }

  std::vector<std::string> Log() {
    MutexLock lock(&log_mu_);
    return log_;
  }

  static httplib::Headers Auth(const std::string& token) {
    if (token.empty()) return {};
    return {{"Authorization", "Bearer " + token}};
  }

  // The answer's status and JSON body.
  struct Answer {
    int status = 0;
    json body;
    std::string text;
  };
  static Answer Read(const httplib::Result& result) {
    Answer answer;
    if (!result) {
      ADD_FAILURE() << "request failed: " << httplib::to_string(result.error());
      return answer;
    }
    answer.status = result->status;
    answer.text = result->body;
    answer.body = json::parse(result->body, nullptr, false);
    return answer;
  }
  Answer Post(const std::string& path, const std::string& body,
              const std::string& token = "") {
    return Read(
        client_->Post(path.c_str(), Auth(token), body, "application/json"));
  }
  Answer Get(const std::string& path) {
    return Read(client_->Get(path.c_str()));
  }

  // A session at `position` (or classic-2) with both seats taken.
  struct Game {
    std::string id, owner, silver, red;
  };
  Game NewGame(const std::string& position = "") {
    Game game;
    json create = {{"name", "http game"}};
    if (!position.empty()) create["position"] = position;
    Answer created = Post("/v1/sessions", create.dump());
    EXPECT_EQ(created.status, 200) << created.text;
    game.id = created.body["session"]["id"];
    game.owner = created.body["ownerToken"];
    Answer silver = Post("/v1/sessions/" + game.id + ":join",
                         R"({"playerName":"alice","color":"SILVER"})");
    EXPECT_EQ(silver.status, 200) << silver.text;
    game.silver = silver.body["playerToken"];
    Answer red =
        Post("/v1/sessions/" + game.id + ":join", R"({"playerName":"bob"})");
    EXPECT_EQ(red.status, 200) << red.text;
    game.red = red.body["playerToken"];
    return game;
  }

  int64_t Version(const std::string& id) {
    Answer session = Get("/v1/sessions/" + id);
    return std::stoll(session.body["version"].get<std::string>());
  }

  // Declared before the gateway, which logs until it is gone.
  Mutex log_mu_;
  std::vector<std::string> log_;
  MemoryStore store_;
  std::unique_ptr<SessionService> core_;
  metrics::Registry registry_;  // for a test that passes it to the gateway
  std::unique_ptr<HttpGateway> gateway_;
  std::unique_ptr<httplib::Client> client_;
  int port_ = 0;
};

TEST_F(HttpGatewayTest, ListsSetupsSchemesAndLevels) {
  Answer setups = Get("/v1/setups");
  ASSERT_EQ(setups.status, 200);
  EXPECT_GT(setups.body["setups"].size(), 3u);
  EXPECT_EQ(setups.body["setups"][0]["id"], "classic-2");
  Answer schemes = Get("/v1/colorSchemes");
  ASSERT_EQ(schemes.status, 200);
  EXPECT_EQ(schemes.body["schemes"][0]["id"], "classic");
  Answer levels = Get("/v1/levels");
  ASSERT_EQ(levels.status, 200);
  EXPECT_EQ(levels.body["levels"].size(), 5u);
}

TEST_F(HttpGatewayTest, CreatesGetsAndListsSessions) {
  Answer created = Post("/v1/sessions", R"({"name":"one","setupId":"osiris"})");
  ASSERT_EQ(created.status, 200) << created.text;
  const std::string id = created.body["session"]["id"];
  EXPECT_FALSE(created.body["ownerToken"].get<std::string>().empty());
  // Defaults are printed: version 0 as a string, the empty move list.
  EXPECT_EQ(created.body["session"]["version"], "0");
  EXPECT_EQ(created.body["session"]["moves"], json::array());

  Answer got = Get("/v1/sessions/" + id);
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body["setupId"], "osiris");
  EXPECT_EQ(got.body["status"], "WAITING_FOR_PLAYERS");

  Post("/v1/sessions", R"({"name":"two"})");
  Answer page = Get("/v1/sessions?pageSize=1");
  ASSERT_EQ(page.status, 200);
  ASSERT_EQ(page.body["sessions"].size(), 1u);
  EXPECT_EQ(page.body["sessions"][0]["name"], "two");
  const std::string next = page.body["nextPageToken"];
  Answer rest = Get("/v1/sessions?pageSize=1&pageToken=" + next);
  ASSERT_EQ(rest.status, 200);
  EXPECT_EQ(rest.body["sessions"][0]["name"], "one");
  Answer waiting = Get("/v1/sessions?status=WAITING_FOR_PLAYERS");
  EXPECT_EQ(waiting.body["sessions"].size(), 2u);
  Answer playing = Get("/v1/sessions?status=IN_PROGRESS");
  EXPECT_EQ(playing.body["sessions"].size(), 0u);
}

// The same default names as over gRPC: the core gives them.
TEST_F(HttpGatewayTest, CreatesASessionWithoutAName) {
  Answer plain = Post("/v1/sessions", "{}");
  ASSERT_EQ(plain.status, 200) << plain.text;
  EXPECT_EQ(plain.body["session"]["name"], "Classic 2 game");
  Answer dynasty = Post("/v1/sessions", R"({"setupId":"dynasty-2"})");
  ASSERT_EQ(dynasty.status, 200) << dynasty.text;
  EXPECT_EQ(dynasty.body["session"]["name"], "Dynasty 2 game");
  json create = {{"record", "[Setup \"classic-2\"]\n\n1. j4-j3 *\n"}};
  Answer imported = Post("/v1/sessions", create.dump());
  ASSERT_EQ(imported.status, 200) << imported.text;
  EXPECT_EQ(imported.body["session"]["name"], "Classic 2 game from a record");
  EXPECT_EQ(Post("/v1/sessions", R"({"name":"  "})").status, 400);
}

TEST_F(HttpGatewayTest, PlaysAWholeGameToAPharaohHit) {
  const Game game = NewGame(kShortGame);
  Answer legal = Get("/v1/sessions/" + game.id + "/legalMoves?square=e1");
  ASSERT_EQ(legal.status, 200);
  EXPECT_GT(legal.body["moves"].size(), 2u);

  Answer first = Post("/v1/sessions/" + game.id + ":move",
                      R"({"move":{"notation":"e1-d1"}})", game.silver);
  ASSERT_EQ(first.status, 200) << first.text;
  EXPECT_EQ(first.body["move"]["notation"], "e1-d1");
  EXPECT_EQ(first.body["result"]["outcome"], "ONGOING");

  // X-Khet-Token works as well as Authorization.
  Answer win =
      Read(client_->Post(("/v1/sessions/" + game.id + ":move").c_str(),
                         {{"X-Khet-Token", game.red}},
                         R"({"move":{"from":"a1","kind":"ROTATE_CLOCKWISE"}})",
                         "application/json"));
  ASSERT_EQ(win.status, 200) << win.text;
  EXPECT_EQ(win.body["result"]["outcome"], "RED_WINS");
  EXPECT_EQ(win.body["result"]["reason"], "PHARAOH_HIT");
  EXPECT_EQ(win.body["removals"][0]["square"], "d1");

  Answer session = Get("/v1/sessions/" + game.id);
  EXPECT_EQ(session.body["status"], "FINISHED");
  EXPECT_EQ(session.body["moves"], json({"e1-d1", "a1R"}));
  Answer board = Get("/v1/sessions/" + game.id + "/board");
  ASSERT_EQ(board.status, 200);
  EXPECT_THAT(board.body["text"].get<std::string>(), HasSubstr("K*"));
}

TEST_F(HttpGatewayTest, EveryOtherRoute) {
  const Game game = NewGame();
  const std::string s = "/v1/sessions/" + game.id;
  Answer offered = Post(s + ":offerDraw", "", game.silver);
  ASSERT_EQ(offered.status, 200) << offered.text;
  EXPECT_EQ(offered.body["drawOfferedBy"], "SILVER");
  Answer accepted = Post(s + ":acceptDraw", "{}", game.red);
  ASSERT_EQ(accepted.status, 200) << accepted.text;
  EXPECT_EQ(accepted.body["result"]["outcome"], "DRAW");
  Answer claim = Post(s + ":claimRepetitionDraw", "", game.red);
  EXPECT_EQ(claim.status, 400) << claim.text;  // no game in progress
  Answer reset = Post(s + ":reset", "", game.owner);
  ASSERT_EQ(reset.status, 200) << reset.text;
  EXPECT_EQ(reset.body["status"], "WAITING_FOR_PLAYERS");
  Answer setup =
      Post(s + ":chooseSetup", R"({"setupId":"imhotep-2"})", game.owner);
  ASSERT_EQ(setup.status, 200) << setup.text;
  EXPECT_EQ(setup.body["setupId"], "imhotep-2");
  Answer settings =
      Post(s + ":updateSettings",
           R"({"settings":{"quiet":true,"colorScheme":"nile"}})", game.owner);
  ASSERT_EQ(settings.status, 200) << settings.text;
  EXPECT_EQ(settings.body["settings"]["colorScheme"], "nile");
  Answer joined = Post(s + ":join", R"({"playerName":"carol"})");
  ASSERT_EQ(joined.status, 200);
  const std::string carol = joined.body["playerToken"];
  Answer computer = Post(s + ":seatComputer", R"({"level":1})", game.owner);
  ASSERT_EQ(computer.status, 200) << computer.text;
  EXPECT_TRUE(computer.body["seats"][1]["computer"].get<bool>());
  Answer left = Post(s + ":leave", R"({"color":"RED"})", game.owner);
  ASSERT_EQ(left.status, 200) << left.text;
  Answer suggest = Post(s + ":suggest?timeoutMs=2000", R"({"level":1})");
  ASSERT_EQ(suggest.status, 200) << suggest.text;
  EXPECT_FALSE(suggest.body["move"]["notation"].get<std::string>().empty());
  Answer resigned = Post(s + ":leave", "", carol);
  ASSERT_EQ(resigned.status, 200) << resigned.text;
  Answer deleted = Read(client_->Delete(s.c_str(), Auth(game.owner)));
  ASSERT_EQ(deleted.status, 200) << deleted.text;
  EXPECT_EQ(deleted.body, json::object());
  EXPECT_EQ(Get(s).status, 404);
}

TEST_F(HttpGatewayTest, ResignsOverHttp) {
  const Game game = NewGame();
  Answer resigned = Post("/v1/sessions/" + game.id + ":resign", "", game.red);
  ASSERT_EQ(resigned.status, 200) << resigned.text;
  EXPECT_EQ(resigned.body["result"]["outcome"], "SILVER_WINS");
}

TEST_F(HttpGatewayTest, TakesAMoveBackOverHttp) {
  const Game game = NewGame();
  const std::string start =
      Get("/v1/sessions/" + game.id).body["board"]["position"];
  ASSERT_EQ(Post("/v1/sessions/" + game.id + ":move",
                 R"({"move":{"notation":"j1L"}})", game.silver)
                .status,
            200);
  Answer asked =
      Post("/v1/sessions/" + game.id + ":requestTakeback?view=compact", "",
           game.silver);
  ASSERT_EQ(asked.status, 200) << asked.text;
  EXPECT_EQ(asked.body["tb"], "s");
  // Only the other player answers.
  Answer own =
      Post("/v1/sessions/" + game.id + ":acceptTakeback", "", game.silver);
  EXPECT_EQ(own.status, 400) << own.text;
  Answer done =
      Post("/v1/sessions/" + game.id + ":acceptTakeback", "", game.red);
  ASSERT_EQ(done.status, 200) << done.text;
  EXPECT_EQ(done.body["board"]["position"], start);
  EXPECT_TRUE(done.body.value("moves", json::array()).empty()) << done.text;
  Answer none =
      Post("/v1/sessions/" + game.id + ":declineTakeback", "", game.red);
  EXPECT_EQ(none.status, 400) << none.text;
  EXPECT_NE(none.body["error"]["message"].get<std::string>().find(
                "no takeback request stands"),
            std::string::npos)
      << none.text;
  Answer events =
      Get("/v1/sessions/" + game.id + "/events?afterVersion=4&view=compact");
  ASSERT_EQ(events.status, 200) << events.text;
  ASSERT_EQ(events.body["events"].size(), 2u) << events.text;
  EXPECT_EQ(events.body["events"][0]["kind"], "takeback");
  EXPECT_EQ(events.body["events"][1]["kind"], "takeback-answer");
  EXPECT_EQ(events.body["events"][1]["accepted"], true);
  EXPECT_EQ(events.body["events"][1]["pos"], start);
}

TEST_F(HttpGatewayTest, RatedPlayersAndTheLeaderboard) {
  Answer created =
      Post("/v1/sessions", R"({"name":"rated","settings":{"rated":true}})");
  ASSERT_EQ(created.status, 200) << created.text;
  const std::string id = created.body["session"]["id"];
  Answer silver = Post("/v1/sessions/" + id + ":join",
                       R"({"playerName":"alice","playerId":"irc:alice"})");
  ASSERT_EQ(silver.status, 200) << silver.text;
  Answer red = Post("/v1/sessions/" + id + ":join",
                    R"({"playerName":"bob","playerId":"sl/bob-key"})");
  ASSERT_EQ(red.status, 200) << red.text;
  EXPECT_EQ(red.body["session"]["gameRated"], true);
  ASSERT_EQ(Post("/v1/sessions/" + id + ":resign", "",
                 red.body["playerToken"].get<std::string>())
                .status,
            200);
  Answer alice = Get("/v1/player?playerId=irc%3Aalice");
  ASSERT_EQ(alice.status, 200) << alice.text;
  EXPECT_EQ(alice.body["name"], "alice");
  EXPECT_GT(alice.body["rating"].get<double>(), 1500);
  EXPECT_EQ(alice.body["wins"], 1);
  Answer board = Get("/v1/players?pageSize=1");
  ASSERT_EQ(board.status, 200) << board.text;
  ASSERT_EQ(board.body["players"].size(), 1u);
  EXPECT_EQ(board.body["players"][0]["playerId"], "irc:alice");
  EXPECT_EQ(board.body["nextPageToken"], "1");
  Answer unknown = Get("/v1/player?playerId=nobody");
  EXPECT_EQ(unknown.status, 404) << unknown.text;
  Answer bad = Get("/v1/player?playerId=a%20b");
  EXPECT_EQ(bad.status, 400) << bad.text;
  Answer extra = Get("/v1/players?page=2");
  EXPECT_EQ(extra.status, 400) << extra.text;
}

// Every error maps to its status with a JSON body naming the problem, and
// changes nothing.
TEST_F(HttpGatewayTest, ErrorsMapToStatusesAndChangeNothing) {
  const Game game = NewGame();
  const std::string s = "/v1/sessions/" + game.id;
  const int64_t version = Version(game.id);
  struct Case {
    std::string name;
    Answer answer;
    int status;
    std::string code;
    std::string message;
  };
  const std::string big(5000, ' ');
  std::vector<Case> cases = {
      {"malformed JSON", Post(s + ":move", "{\"move\":", game.silver), 400,
       "INVALID_ARGUMENT", "strict JSON"},
      // JSON as RFC 8259 writes it, which protobuf's parser alone loosens.
      {"single quotes",
       Post(s + ":move", "{'move':{'notation':'j1L'}}", game.silver), 400,
       "INVALID_ARGUMENT", "strict JSON"},
      {"trailing comma",
       Post(s + ":move", R"({"move":{"notation":"j1L"},})", game.silver), 400,
       "INVALID_ARGUMENT", "strict JSON"},
      {"repeated key",
       Post(s + ":move",
            R"({"move":{"notation":"j1L"},"move":{"notation":"j1R"}})",
            game.silver),
       400, "INVALID_ARGUMENT", "\"move\" appears twice"},
      {"repeated nested key",
       Post(s + ":move", R"({"move":{"notation":"j1L","notation":"j1L"}})",
            game.silver),
       400, "INVALID_ARGUMENT", "\"notation\" appears twice"},
      {"comment",
       Post(s + ":move", "{/* */\"move\":{\"notation\":\"j1L\"}}", game.silver),
       400, "INVALID_ARGUMENT", "strict JSON"},
      {"deep nesting",
       Post(s + ":move", std::string(100, '[') + std::string(100, ']'),
            game.silver),
       400, "INVALID_ARGUMENT", "deeper than 32"},
      {"invalid UTF-8",
       Post(s + ":move", "{\"move\":{\"notation\":\"j1\xff\"}}", game.silver),
       400, "INVALID_ARGUMENT", "strict JSON"},
      {"unknown field", Post(s + ":move", R"({"mvoe":{}})", game.silver), 400,
       "INVALID_ARGUMENT", "mvoe"},
      {"wrong type", Post(s + ":move", R"({"move":42})", game.silver), 400,
       "INVALID_ARGUMENT", "MakeMoveRequest"},
      {"other session in body",
       Post(s + ":move", R"({"sessionId":"elsewhere"})", game.silver), 400,
       "INVALID_ARGUMENT", "elsewhere"},
      {"illegal move",
       Post(s + ":move", R"({"move":{"notation":"e1R"}})", game.silver), 400,
       "INVALID_ARGUMENT", "e1"},
      {"wrong turn",
       Post(s + ":move", R"({"move":{"notation":"a8L"}})", game.red), 400,
       "FAILED_PRECONDITION", ""},
      {"no token", Post(s + ":move", R"({"move":{"notation":"j1L"}})"), 401,
       "UNAUTHENTICATED", "Authorization"},
      {"malformed token",
       Read(client_->Post((s + ":move").c_str(), {{"Authorization", "Basic x"}},
                          R"({"move":{"notation":"j1L"}})",
                          "application/json")),
       401, "UNAUTHENTICATED", "Bearer"},
      // A token that cannot be any token is 401; a well-formed token that
      // is not this seat's is 403.
      {"token of no token's shape",
       Post(s + ":move", R"({"move":{"notation":"j1L"}})", "x"), 401,
       "UNAUTHENTICATED", "malformed"},
      {"token of other characters",
       Post(s + ":move", R"({"move":{"notation":"j1L"}})", "!!!"), 401,
       "UNAUTHENTICATED", "43 characters"},
      {"10 KB token",
       Post(s + ":move", R"({"move":{"notation":"j1L"}})",
            std::string(10240, 'a')),
       401, "UNAUTHENTICATED", "malformed"},
      {"X-Khet-Token of no token's shape",
       Read(client_->Post((s + ":move").c_str(), {{"X-Khet-Token", "x"}},
                          R"({"move":{"notation":"j1L"}})",
                          "application/json")),
       401, "UNAUTHENTICATED", "X-Khet-Token"},
      {"wrong token",
       Post(s + ":move", R"({"move":{"notation":"j1L"}})",
            std::string(43, 'x')),
       403, "PERMISSION_DENIED", ""},
      {"other player's token",
       Post(s + ":move", R"({"move":{"notation":"j1L"}})", game.red), 400,
       "FAILED_PRECONDITION", ""},
      {"unknown session", Get("/v1/sessions/nope"), 404, "NOT_FOUND", "nope"},
      {"unknown route", Get("/v1/nothing"), 404, "NOT_FOUND", "/v1/nothing"},
      {"unknown action", Post(s + ":fly", "{}"), 404, "NOT_FOUND", ":fly"},
      {"wrong method", Read(client_->Put(s.c_str(), "{}", "application/json")),
       405, "UNIMPLEMENTED", "GET, DELETE"},
      {"stale expectedVersion",
       Post(s + ":move", R"({"move":{"notation":"j1L"},"expectedVersion":"1"})",
            game.silver),
       409, "ABORTED", ""},
      {"body over the limit", Post(s + ":move", "{" + big + "}", game.silver),
       413, "RESOURCE_EXHAUSTED", "4096"},
      {"unknown query parameter", Get(s + "?verbose=1"), 400,
       "INVALID_ARGUMENT", "verbose"},
      {"bad view", Get(s + "?view=tiny"), 400, "INVALID_ARGUMENT", "tiny"},
      {"wait out of range", Get(s + "/events?waitSeconds=26"), 400,
       "INVALID_ARGUMENT", "waitSeconds"},
      {"bad page size", Get("/v1/sessions?pageSize=many"), 400,
       "INVALID_ARGUMENT", "pageSize"},
      {"page size with a plus", Get("/v1/sessions?pageSize=+5"), 400,
       "INVALID_ARGUMENT", "in digits"},
      {"page size with a space", Get("/v1/sessions?pageSize=%2010"), 400,
       "INVALID_ARGUMENT", "in digits"},
      {"session in single quotes", Post("/v1/sessions", "{'name':'x'}"), 400,
       "INVALID_ARGUMENT", "strict JSON"},
      {"session with a trailing comma",
       Post("/v1/sessions", R"({"name":"x",})"), 400, "INVALID_ARGUMENT",
       "strict JSON"},
      {"bad status", Get("/v1/sessions?status=PLAYING"), 400,
       "INVALID_ARGUMENT", "PLAYING"},
      {"bad suggestion timeout", Post(s + ":suggest?timeoutMs=0", "{}"), 400,
       "INVALID_ARGUMENT", "timeoutMs"},
      {"owner only", Post(s + ":reset", "", game.silver), 403,
       "PERMISSION_DENIED", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.answer.status, c.status) << c.answer.text;
    ASSERT_TRUE(c.answer.body.is_object()) << c.answer.text;
    EXPECT_EQ(c.answer.body["error"]["code"], c.code);
    EXPECT_EQ(c.answer.body["error"]["status"], c.status);
    EXPECT_THAT(c.answer.body["error"]["message"].get<std::string>(),
                HasSubstr(c.message));
  }
  EXPECT_EQ(Version(game.id), version);
  Answer session = Get(s);
  EXPECT_EQ(session.body["moves"], json::array());
}

TEST_F(HttpGatewayTest, ExpectedVersionAndRetries) {
  const Game game = NewGame();
  const std::string s = "/v1/sessions/" + game.id;
  const int64_t version = Version(game.id);
  const std::string move = absl::StrCat(
      R"({"move":{"notation":"j1L"},"requestId":"r1","expectedVersion":")",
      version, "\"}");
  Answer first = Post(s + ":move", move, game.silver);
  ASSERT_EQ(first.status, 200) << first.text;
  Answer retry = Post(s + ":move", move, game.silver);
  ASSERT_EQ(retry.status, 200) << retry.text;
  EXPECT_EQ(retry.body, first.body);
  EXPECT_EQ(Version(game.id), version + 1);
}

TEST_F(HttpGatewayTest, LongPollAnswersAtOnceWhenEventsExist) {
  const Game game = NewGame();
  const auto start = std::chrono::steady_clock::now();
  Answer events = Get("/v1/sessions/" + game.id + "/events?afterVersion=0");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_EQ(events.status, 200) << events.text;
  ASSERT_EQ(events.body["events"].size(), 3u);  // two seats, the start
  EXPECT_TRUE(events.body["events"][0].contains("seatChanged"));
  EXPECT_TRUE(events.body["events"][2].contains("gameStarted"));
  EXPECT_EQ(events.body["version"], "3");
  Answer later = Get("/v1/sessions/" + game.id + "/events?afterVersion=2");
  ASSERT_EQ(later.body["events"].size(), 1u);
}

TEST_F(HttpGatewayTest, LongPollWaitsAndWakesOnAMove) {
  const Game game = NewGame();
  const int64_t version = Version(game.id);
  std::thread mover([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    httplib::Client other("127.0.0.1", port_);
    auto moved = other.Post(("/v1/sessions/" + game.id + ":move").c_str(),
                            Auth(game.silver), R"({"move":{"notation":"j1L"}})",
                            "application/json");
    EXPECT_TRUE(moved && moved->status == 200);
  });
  const auto start = std::chrono::steady_clock::now();
  Answer events =
      Get(absl::StrCat("/v1/sessions/", game.id,
                       "/events?waitSeconds=10&afterVersion=", version));
  const auto took = std::chrono::steady_clock::now() - start;
  mover.join();
  ASSERT_EQ(events.status, 200) << events.text;
  ASSERT_EQ(events.body["events"].size(), 1u);
  EXPECT_EQ(events.body["events"][0]["moveMade"]["move"]["notation"], "j1L");
  EXPECT_EQ(events.body["version"], absl::StrCat(version + 1));
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST_F(HttpGatewayTest, LongPollTimesOutEmpty) {
  const Game game = NewGame();
  const int64_t version = Version(game.id);
  const auto start = std::chrono::steady_clock::now();
  Answer events =
      Get(absl::StrCat("/v1/sessions/", game.id,
                       "/events?waitSeconds=1&afterVersion=", version));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(events.status, 200) << events.text;
  EXPECT_EQ(events.body["events"], json::array());
  EXPECT_EQ(events.body["version"], absl::StrCat(version));
  EXPECT_GE(took, std::chrono::milliseconds(900));
  EXPECT_LT(took, std::chrono::seconds(4));
}

TEST_F(HttpGatewayTest, TooManyWaitingRequestsAre429) {
  const Game game = NewGame();
  const std::string poll =
      absl::StrCat("/v1/sessions/", game.id,
                   "/events?waitSeconds=3&afterVersion=", Version(game.id));
  std::vector<std::future<int>> polls;
  for (int i = 0; i < 4; ++i) {  // the fixture's max_waiting
    polls.push_back(std::async(std::launch::async, [&] {
      httplib::Client other("127.0.0.1", port_);
      other.set_read_timeout(10, 0);
      auto result = other.Get(poll.c_str());
      return result ? result->status : -1;
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  Answer refused = Get(poll);
  EXPECT_EQ(refused.status, 429) << refused.text;
  EXPECT_EQ(refused.body["error"]["code"], "RESOURCE_EXHAUSTED");
  // Other requests still get threads while the polls wait.
  EXPECT_EQ(Get("/v1/setups").status, 200);
  // A move wakes every poll.
  EXPECT_EQ(Post("/v1/sessions/" + game.id + ":move",
                 R"({"move":{"notation":"j1L"}})", game.silver)
                .status,
            200);
  for (auto& p : polls) EXPECT_EQ(p.get(), 200);
  EXPECT_EQ(Get(poll).status, 200);  // places are given back
}

// Finding: long polls opened and abandoned kept their places until their
// wait ended (real polls got 429 for 21 s). A poll whose client left gives
// its place back at once.
TEST_F(HttpGatewayTest, AbandonedLongPollsGiveTheirPlacesBackAtOnce) {
  const Game game = NewGame();
  const std::string path =
      absl::StrCat("/v1/sessions/", game.id,
                   "/events?waitSeconds=25&afterVersion=", Version(game.id));
  const std::string poll =
      absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: x\r\n\r\n");
  {
    std::vector<std::unique_ptr<RawConnection>> abandoned;
    for (int i = 0; i < 4; ++i) {  // the fixture's max_waiting
      abandoned.push_back(std::make_unique<RawConnection>(port_, poll));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(Get(path).status, 429);
  }  // the clients go away
  const auto start = std::chrono::steady_clock::now();
  bool waiting = false;
  while (!waiting &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    // A poll that got a place waits: no answer within 200 ms.
    RawConnection next(port_, poll);
    waiting = !next.WaitFor("HTTP/1.1", std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(waiting) << "every place still taken after 5 s";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// Found by fuzz/http_routes_fuzzer.cc: a target of a query alone ("?x")
// has an empty path, which the lookup of the web board's files cut with
// substr(1): std::out_of_range on a worker thread ended khetd. It is now
// read as "/".
TEST_F(HttpGatewayTest, TargetWithAnEmptyPathIsTheWebBoard) {
  RawConnection empty_path(port_, "GET ?x HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(empty_path.WaitFor("</html>")) << empty_path.received();
  EXPECT_TRUE(absl::StartsWith(empty_path.received(), "HTTP/1.1 200"))
      << empty_path.received();
  EXPECT_EQ(Get("/v1/setups").status, 200);  // still serving
}

TEST_F(HttpGatewayTest, ShutdownEndsALongPollPromptly) {
  const Game game = NewGame();
  const std::string poll =
      absl::StrCat("/v1/sessions/", game.id,
                   "/events?waitSeconds=25&afterVersion=", Version(game.id));
  auto answer = std::async(std::launch::async, [&] {
    httplib::Client other("127.0.0.1", port_);
    other.set_read_timeout(30, 0);
    auto result = other.Get(poll.c_str());
    return result ? result->status : -1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  gateway_->Shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(answer.get(), 503);
}

TEST_F(HttpGatewayTest, CompactViews) {
  const Game game = NewGame();
  const std::string s = "/v1/sessions/" + game.id;
  Answer session = Get(s + "?view=compact");
  ASSERT_EQ(session.status, 200) << session.text;
  EXPECT_EQ(session.body["st"], "P");
  EXPECT_EQ(session.body["turn"], "s");
  EXPECT_EQ(session.body["silver"], "alice");
  EXPECT_EQ(
      session.body["pos"],
      "xs3askaspse2/2psw7/3Pnw6/pne1Psw1s\\s/1pse1Pnw/pse1Pnw1S/S\\1pne1Psw/"
      "6pse3/7Pne2/2PnwAnKAn3Xn s 2");
  Answer moved = Post(s + ":move?view=compact",
                      R"({"move":{"notation":"j1L"}})", game.silver);
  ASSERT_EQ(moved.status, 200) << moved.text;
  EXPECT_EQ(moved.body["move"], "j1L");
  EXPECT_EQ(moved.body["turn"], "r");
  EXPECT_EQ(moved.body["laser"], "j1f1x");  // the Anubis on f1, from its side
  EXPECT_EQ(moved.body["rm"], "f1An");
  EXPECT_LE(moved.text.size(), kCompactLimit);
  Answer legal = Get(s + "/legalMoves?view=compact&square=a8");
  ASSERT_EQ(legal.status, 200);
  EXPECT_EQ(legal.body["moves"], "a8L");
  Answer events = Get(s + "/events?afterVersion=0&view=compact");
  ASSERT_EQ(events.status, 200);
  EXPECT_EQ(events.body["events"].size(), 4u);
  EXPECT_EQ(events.body["events"][3]["kind"], "move");
  EXPECT_EQ(events.body["v"], 4);
  EXPECT_EQ(events.body["more"], false);
}

// The fields of GetSession's compact view, in order.
const std::vector<std::string>& CompactSessionKeys() {
  static const auto* const keys = new std::vector<std::string>{
      "id",    "name",  "v",      "st",    "turn",   "pos",  "last",
      "laser", "rm",    "res",    "why",   "silver", "red",  "draw",
      "tb",    "setup", "scheme", "quiet", "scale",  "lang", "hints"};
  return *keys;
}

// The keys of a JSON object in the order written.
std::vector<std::string> KeysInOrder(const std::string& text) {
  std::vector<std::string> keys;
  const nlohmann::ordered_json doc =
      nlohmann::ordered_json::parse(text, nullptr, false);
  if (!doc.is_object()) return keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  return keys;
}

// Four quiet moves (Silver, Red, Silver, Red) that bring `start` back: a
// pair of moves each undone.
std::vector<std::string> RepetitionCycle(const Position& start) {
  const auto quiet = [](const Position& pos) {
    std::vector<std::pair<Move, Position>> out;
    MoveList moves;
    GenerateMoves(pos, &moves);
    for (const Move m : moves) {
      Position child = pos;
      absl::StatusOr<MoveEffects> effects = ApplyMove(&child, m);
      if (effects.ok() && effects->removals.empty()) out.push_back({m, child});
    }
    return out;
  };
  const auto undo = [](const Position& pos, Move m) -> std::optional<Move> {
    const Move back =
        m.is_rotation()
            ? Move::Rotate(m.from(), m.kind() != MoveKind::kRotateClockwise)
            : Move(m.to(), m.from(), m.kind());
    absl::StatusOr<Move> legal = CheckMove(pos, back);
    if (!legal.ok()) return std::nullopt;
    return *legal;
  };
  for (const auto& [a, p1] : quiet(start)) {
    for (const auto& [b, p2] : quiet(p1)) {
      const std::optional<Move> a2 = undo(p2, a);
      if (!a2) continue;
      Position p3 = p2;
      absl::StatusOr<MoveEffects> e3 = ApplyMove(&p3, *a2);
      if (!e3.ok() || !e3->removals.empty()) continue;
      const std::optional<Move> b2 = undo(p3, b);
      if (!b2) continue;
      Position p4 = p3;
      absl::StatusOr<MoveEffects> e4 = ApplyMove(&p4, *b2);
      if (!e4.ok() || !e4->removals.empty() || !(p4 == start)) continue;
      return {FormatMove(start, a), FormatMove(p1, b), FormatMove(p2, *a2),
              FormatMove(p3, *b2)};
    }
  }
  return {};
}

// A compact answer within the bound holding `first` then GetSession's fields
// (with the legal moves after the position while a game is in progress).
void ExpectCompact(const std::string& text,
                   const std::vector<std::string>& first) {
  EXPECT_LE(text.size(), kCompactLimit) << text;
  std::vector<std::string> keys = first;
  for (const std::string& key : CompactSessionKeys()) {
    keys.push_back(key);
    if (key == "pos" && json::parse(text)["st"] == "P") keys.push_back("lm");
  }
  EXPECT_EQ(KeysInOrder(text), keys) << text;
}

TEST_F(HttpGatewayTest, CompactCreateJoinAndEverySessionRoute) {
  Answer created = Post("/v1/sessions?view=compact", R"({"name":"lunch"})");
  ASSERT_EQ(created.status, 200) << created.text;
  ExpectCompact(created.text, {"owner"});
  const std::string id = created.body["id"];
  const std::string owner = created.body["owner"];
  EXPECT_FALSE(owner.empty());
  EXPECT_EQ(created.body["name"], "lunch");
  EXPECT_EQ(created.body["st"], "W");
  EXPECT_EQ(created.body["v"], 0);
  EXPECT_EQ(created.body["setup"], "classic-2");
  const std::string s = "/v1/sessions/" + id;
  EXPECT_EQ(Get(s).body["id"], id);

  Answer alice = Post(s + ":join?view=compact",
                      R"({"playerName":"alice","color":"SILVER"})");
  ASSERT_EQ(alice.status, 200) << alice.text;
  ExpectCompact(alice.text, {"token", "color"});
  EXPECT_EQ(alice.body["color"], "s");
  EXPECT_EQ(alice.body["id"], id);
  EXPECT_EQ(alice.body["silver"], "alice");
  EXPECT_EQ(alice.body["st"], "W");
  Answer bob = Post(s + ":join?view=compact", R"({"playerName":"bob"})");
  ASSERT_EQ(bob.status, 200) << bob.text;
  ExpectCompact(bob.text, {"token", "color"});
  EXPECT_EQ(bob.body["color"], "r");
  EXPECT_EQ(bob.body["red"], "bob");
  EXPECT_EQ(bob.body["st"], "P");
  const std::string silver = alice.body["token"];
  const std::string red = bob.body["token"];
  EXPECT_EQ(bob.body["v"], Get(s + "?view=compact").body["v"]);

  // Each session route's compact answer is GetSession's compact view.
  const auto compact = [&](const std::string& route, const std::string& body,
                           const std::string& token) {
    Answer answer = Post(s + ":" + route + "?view=compact", body, token);
    EXPECT_EQ(answer.status, 200) << route << ": " << answer.text;
    ExpectCompact(answer.text, {});
    EXPECT_EQ(answer.text, Get(s + "?view=compact").text) << route;
    return answer.body;
  };
  const std::vector<std::string> cycle = RepetitionCycle(
      ParsePosition(Get(s + "?view=compact").body["pos"].get<std::string>())
          .value());
  ASSERT_EQ(cycle.size(), 4u);
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < cycle.size(); ++i) {
      Answer moved =
          Post(s + ":move", json{{"move", {{"notation", cycle[i]}}}}.dump(),
               i % 2 == 0 ? silver : red);
      ASSERT_EQ(moved.status, 200) << moved.text;
    }
  }
  json session = compact("claimRepetitionDraw", "", silver);
  EXPECT_EQ(session["res"], "D");
  EXPECT_EQ(session["why"], "repetition_claimed");
  EXPECT_EQ(session["last"], cycle[3]);
  EXPECT_EQ(compact("reset", "{}", owner)["st"], "W");
  EXPECT_EQ(
      compact("chooseSetup", R"({"setupId":"imhotep-2"})", owner)["setup"],
      "imhotep-2");
  EXPECT_EQ(compact("updateSettings", R"({"settings":{"colorScheme":"nile"}})",
                    owner)["scheme"],
            "nile");
  Answer carol = Post(s + ":join?view=compact", R"({"playerName":"carol"})");
  ASSERT_EQ(carol.status, 200) << carol.text;
  const std::string carol_token = carol.body["token"];
  session = compact("seatComputer", R"({"level":1})", owner);
  EXPECT_EQ(session["st"], "P");
  EXPECT_FALSE(session["red"].get<std::string>().empty());
  EXPECT_EQ(compact("leave", R"({"color":"RED"})", owner)["red"], "");
  Answer dave = Post(s + ":join?view=compact", R"({"playerName":"dave"})");
  ASSERT_EQ(dave.status, 200) << dave.text;
  EXPECT_EQ(dave.body["red"], "dave");
  EXPECT_EQ(compact("offerDraw", "", carol_token)["draw"], "s");
  session = compact("acceptDraw", "", dave.body["token"]);
  EXPECT_EQ(session["why"], "agreed_draw");
  EXPECT_EQ(session["st"], "F");
  compact("reset", "", owner);
  Answer erin = Post(s + ":join?view=compact", R"({"playerName":"erin"})");
  Answer fred = Post(s + ":join?view=compact", R"({"playerName":"fred"})");
  ASSERT_EQ(fred.status, 200) << fred.text;
  session = compact("resign", "", fred.body["token"]);
  EXPECT_EQ(session["res"], "S");
  EXPECT_EQ(session["why"], "resignation");
  EXPECT_EQ(compact("leave", "", erin.body["token"])["silver"], "");

  // Errors keep their usual body; a view other than full or compact is one.
  Answer bad = Post(s + ":reset?view=tiny", "", owner);
  EXPECT_EQ(bad.status, 400) << bad.text;
  EXPECT_THAT(bad.body["error"]["message"].get<std::string>(),
              HasSubstr("view"));
  Answer denied = Post(s + ":reset?view=compact", "", carol_token);
  EXPECT_EQ(denied.status, 403) << denied.text;
  EXPECT_TRUE(denied.body.contains("error"));
}

// Compact answers of create, join and the session routes stay within the
// bound with the longest names, after a long game (whose full answers grow
// with its move list) and on boards crowded with Eyes of Horus; tokens and
// ids are whole.
TEST_F(HttpGatewayTest, CompactAnswersFitInTheLargestCases) {
  const std::string name = LongName("\xf0\x9f\x90\x8d\"");
  const std::string silver_name = LongName("\xf0\x9f\x90\x8d\\");
  const std::string red_name = LongName("\xf0\x9f\xa6\x82\"");
  size_t largest_compact = 0, largest_full = 0;
  const auto measure = [&](const Answer& answer, const std::string& what) {
    EXPECT_EQ(answer.status, 200) << what << ": " << answer.text;
    EXPECT_LE(answer.text.size(), kCompactLimit) << what;
    largest_compact = std::max(largest_compact, answer.text.size());
  };
  struct Board {
    std::string id, owner, silver, red;
  };
  const auto new_board = [&](const std::string& position) {
    json create = {{"name", name}, {"setupId", "osiris"}};
    if (!position.empty()) create = {{"name", name}, {"position", position}};
    Board board;
    Answer created = Post("/v1/sessions?view=compact", create.dump());
    measure(created, "create");
    board.id = created.body["id"];
    board.owner = created.body["owner"];
    EXPECT_EQ(created.body["name"], name);  // nothing cut
    for (const std::string* player : {&silver_name, &red_name}) {
      Answer joined = Post("/v1/sessions/" + board.id + ":join?view=compact",
                           json{{"playerName", *player}}.dump());
      measure(joined, "join");
      (player == &silver_name ? board.silver : board.red) =
          joined.body["token"];
    }
    return board;
  };
  const auto play = [&](const Board& board, const std::string& notation) {
    Answer session = Get("/v1/sessions/" + board.id + "?view=compact");
    const std::string& token =
        session.body["turn"] == "s" ? board.silver : board.red;
    Answer moved = Post("/v1/sessions/" + board.id + ":move?view=compact",
                        json{{"move", {{"notation", notation}}}}.dump(), token);
    measure(moved, "move " + notation);
  };
  // Leaves and takes both seats again, and offers a draw: the compact
  // answers, and the largest full one for comparison.
  const auto churn = [&](Board& board) {
    const std::string s = "/v1/sessions/" + board.id;
    for (std::string* token : {&board.silver, &board.red}) {
      measure(Post(s + ":leave?view=compact", "", *token), "leave");
      Answer full_leave = Get(s);
      largest_full = std::max(largest_full, full_leave.text.size());
      Answer joined = Post(
          s + ":join?view=compact",
          json{{"playerName", token == &board.silver ? silver_name : red_name}}
              .dump());
      measure(joined, "join again");
      EXPECT_EQ(joined.body["silver"], silver_name);
      *token = joined.body["token"];
    }
    Answer session = Get(s + "?view=compact");
    measure(Post(s + ":offerDraw?view=compact", "",
                 session.body["turn"] == "s" ? board.silver : board.red),
            "offerDraw");
  };

  // A long game on osiris: random moves that hit no Pharaoh.
  Board game = new_board("");
  std::mt19937 random(7);
  int plies = 0;
  for (; plies < 160; ++plies) {
    const Position pos =
        ParsePosition(Get("/v1/sessions/" + game.id + "?view=compact")
                          .body["pos"]
                          .get<std::string>())
            .value();
    MoveList moves;
    GenerateMoves(pos, &moves);
    std::vector<Move> safe;
    for (const Move m : moves) {
      Position child = pos;
      if (MakeMove(&child, m) == 0) safe.push_back(m);
    }
    if (safe.empty()) break;
    play(game, FormatMove(pos, safe[std::uniform_int_distribution<size_t>(
                                   0, safe.size() - 1)(random)]));
    if (Get("/v1/sessions/" + game.id + "?view=compact").body["st"] != "P") {
      break;
    }
  }
  EXPECT_GE(plies, 100);
  churn(game);
  const size_t long_game_full = largest_full;

  // A board crowded with Eyes: Silver's first move fires a laser of
  // hundreds of beams, which the compact answers cut.
  const std::string crowded = LongLaserSearch(1).Climb(2000);
  Board eyes = new_board(crowded);
  const Position start = ParsePosition(crowded).value();
  MoveList moves;
  GenerateMoves(start, &moves);
  play(eyes, FormatMove(start, moves.moves[0]));
  Answer cut = Get("/v1/sessions/" + eyes.id + "?view=compact");
  measure(cut, "crowded session");
  EXPECT_THAT(cut.body["laser"].get<std::string>(), ::testing::EndsWith("+"));
  churn(eyes);
  std::cout << "largest compact answer: " << largest_compact
            << " bytes; full session after " << plies
            << " plies: " << long_game_full
            << " bytes, on the crowded board: " << largest_full << " bytes\n";
}

TEST_F(HttpGatewayTest, SvgBoard) {
  const Game game = NewGame();
  Post("/v1/sessions/" + game.id + ":move", R"({"move":{"notation":"j1L"}})",
       game.silver);
  auto svg = client_->Get(("/v1/sessions/" + game.id + "/board.svg").c_str());
  ASSERT_TRUE(svg);
  EXPECT_EQ(svg->status, 200);
  EXPECT_EQ(svg->get_header_value("Content-Type"), "image/svg+xml");
  EXPECT_THAT(svg->body, HasSubstr("class=\"beam\""));
  auto plain = client_->Get(
      ("/v1/sessions/" + game.id + "/board.svg?laser=false").c_str());
  ASSERT_TRUE(plain);
  EXPECT_THAT(plain->body, Not(HasSubstr("class=\"beam\"")));
}

TEST_F(HttpGatewayTest, ServesArchivedGamesRecordsAndPositions) {
  const Game game = NewGame();
  ASSERT_EQ(Post("/v1/sessions/" + game.id + ":move",
                 R"({"move":{"notation":"j1L"}})", game.silver)
                .status,
            200);
  ASSERT_EQ(Post("/v1/sessions/" + game.id + ":reset", "{}", game.owner).status,
            200);
  const std::string g1 = game.id + "-g1";

  Answer listed = Get("/v1/sessions/" + game.id + "/games");
  ASSERT_EQ(listed.status, 200) << listed.text;
  ASSERT_EQ(listed.body["games"].size(), 1u);
  EXPECT_EQ(listed.body["games"][0]["id"], g1);
  EXPECT_EQ(listed.body["games"][0]["result"], "*");
  EXPECT_EQ(Get("/v1/games?player=alice").body["games"].size(), 1u);
  EXPECT_EQ(Get("/v1/games?player=carol").body["games"].size(), 0u);
  EXPECT_EQ(Get("/v1/games?sessionId=" + game.id).body["games"].size(), 1u);
  EXPECT_EQ(Get("/v1/games?result=2-0").status, 400);
  EXPECT_EQ(Get("/v1/sessions/nope/games").status, 404);

  auto download = client_->Get(
      ("/v1/sessions/" + game.id + "/games/" + g1 + "/record").c_str());
  ASSERT_TRUE(download);
  EXPECT_EQ(download->status, 200);
  EXPECT_THAT(download->get_header_value("Content-Type"),
              HasSubstr("text/plain"));
  EXPECT_EQ(download->get_header_value("Content-Disposition"),
            "attachment; filename=\"" + g1 + ".khet\"");
  EXPECT_THAT(download->body, HasSubstr("1. j1L"));
  auto current = client_->Get(
      ("/v1/sessions/" + game.id + "/games/current/record").c_str());
  ASSERT_TRUE(current);
  EXPECT_EQ(current->get_header_value("Content-Disposition"),
            "attachment; filename=\"" + game.id + "-g2.khet\"");

  Answer structured = Get("/v1/sessions/" + game.id + "/games/" + g1);
  ASSERT_EQ(structured.status, 200) << structured.text;
  EXPECT_EQ(structured.body["moves"][0]["notation"], "j1L");
  EXPECT_EQ(structured.body["game"]["silverPlayer"], "alice");

  Answer at1 = Get("/v1/sessions/" + game.id + "/games/" + g1 + "/positions/1");
  ASSERT_EQ(at1.status, 200) << at1.text;
  EXPECT_EQ(at1.body["move"]["notation"], "j1L");
  EXPECT_GT(at1.body["legalMoves"].size(), 0u);
  EXPECT_EQ(
      Get("/v1/sessions/" + game.id + "/games/" + g1 + "/positions/2").status,
      400);
  EXPECT_EQ(
      Get("/v1/sessions/" + game.id + "/games/" + g1 + "/positions/x").status,
      400);
  EXPECT_EQ(Get("/v1/sessions/" + game.id + "/games/nope/record").status, 404);

  json create = {{"name", "imported"}, {"record", download->body}};
  Answer imported = Post("/v1/sessions", create.dump());
  ASSERT_EQ(imported.status, 200) << imported.text;
  EXPECT_EQ(imported.body["session"]["moves"][0], "j1L");
  EXPECT_EQ(imported.body["session"]["status"], "IN_PROGRESS");
  create["record"] = "[Setup \"classic-2\"]\n\n1. a1-a9 *\n";
  Answer bad = Post("/v1/sessions", create.dump());
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.text, HasSubstr("line 3"));
}

TEST_F(HttpGatewayTest, AnalysesAFinishedGame) {
  const Game game = NewGame();
  const std::string move = "/v1/sessions/" + game.id + ":move";
  ASSERT_EQ(Post(move, R"({"move":{"notation":"j5L"}})", game.silver).status,
            200);
  const std::string analyze =
      "/v1/sessions/" + game.id + "/games/current:analyze";
  Answer going = Post(analyze, "{}");
  EXPECT_EQ(going.status, 400) << going.text;
  EXPECT_THAT(going.text, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(going.text, HasSubstr("still going"));
  ASSERT_EQ(Post(move, R"({"move":{"notation":"e5-f6"}})", game.red).status,
            200);
  ASSERT_EQ(Post(move, R"({"move":{"notation":"j5-j6"}})", game.silver).status,
            200);
  EXPECT_EQ(Post(analyze, R"({"msPerPly":5})").status, 400);
  EXPECT_EQ(Post(analyze, R"({"gameId":"other"})").status, 400);
  EXPECT_EQ(Post(analyze, "{").status, 400);
  EXPECT_EQ(Post("/v1/sessions/nope/games/current:analyze", "{}").status, 404);

  Answer first = Post(analyze, R"({"msPerPly":100})");
  ASSERT_EQ(first.status, 200) << first.text;
  EXPECT_EQ(first.body["gameId"], game.id + "-g1");
  EXPECT_EQ(first.body["plies"], 3);
  Answer done;
  for (int i = 0; i < 400; ++i) {  // at most 20 s
    done = Post(analyze, "{}");
    ASSERT_EQ(done.status, 200) << done.text;
    if (done.body["state"] == "DONE") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(done.body["state"], "DONE") << done.text;
  EXPECT_EQ(done.body["msPerPly"], 100);
  ASSERT_EQ(done.body["moves"].size(), 3u);
  EXPECT_EQ(done.body["moves"][1]["played"], "e5-f6");
  EXPECT_EQ(done.body["moves"][1]["judgement"], "BLUNDER");

  // The record now carries it, as JSON and as comments in the download.
  Answer record = Get("/v1/sessions/" + game.id + "/games/current");
  ASSERT_EQ(record.status, 200) << record.text;
  EXPECT_EQ(record.body["analysis"]["state"], "DONE");
  auto download = client_->Get(
      ("/v1/sessions/" + game.id + "/games/" + game.id + "-g1/record").c_str());
  ASSERT_TRUE(download);
  EXPECT_THAT(download->body, HasSubstr("{?? blunder: loses in 1; better "));
}

TEST_F(HttpGatewayTest, ClocksInFullAndCompactViews) {
  json create = {{"name", "blitz"},
                 {"rules",
                  {{"timeControl",
                    {{"kind", "FISCHER"},
                     {"baseMs", "300000"},
                     {"incrementMs", "5000"}}}}}};
  Answer created = Post("/v1/sessions", create.dump());
  ASSERT_EQ(created.status, 200) << created.text;
  const std::string id = created.body["session"]["id"];
  EXPECT_EQ(created.body["session"]["clocks"]["silverMs"], "300000");
  Answer silver = Post("/v1/sessions/" + id + ":join",
                       R"({"playerName":"alice","color":"SILVER"})");
  ASSERT_EQ(silver.status, 200) << silver.text;
  Answer red = Post("/v1/sessions/" + id + ":join", R"({"playerName":"bob"})");
  ASSERT_EQ(red.status, 200) << red.text;
  EXPECT_EQ(red.body["session"]["clocks"]["running"], "SILVER");
  EXPECT_TRUE(red.body["session"]["clocks"].contains("flagAt"));

  Answer compact = Get("/v1/sessions/" + id + "?view=compact");
  ASSERT_EQ(compact.status, 200) << compact.text;
  const std::string clk = compact.body["clk"];
  // Silver's clock runs from the join: at most a few seconds have gone.
  EXPECT_TRUE(clk == "300 300 s" || clk == "299 300 s" || clk == "298 300 s")
      << clk;
  Answer events =
      Get("/v1/sessions/" + id + "/events?afterVersion=0&view=compact");
  ASSERT_EQ(events.status, 200) << events.text;
  for (const json& e : events.body["events"]) {
    EXPECT_TRUE(e.contains("clk")) << e.dump();
  }
  // A move's answer has the clocks after it: Red's runs now, and Silver
  // gained the increment (300 s less the few gone, plus 5).
  Answer moved = Post("/v1/sessions/" + id + ":move?view=compact",
                      R"({"move":{"notation":"j5L"}})",
                      silver.body["playerToken"].get<std::string>());
  ASSERT_EQ(moved.status, 200) << moved.text;
  const std::string moved_clk = moved.body["clk"];
  // Red's clock is read at the answer, so it may have lost a second.
  EXPECT_THAT(moved_clk, testing::AnyOf(testing::EndsWith(" 300 r"),
                                        testing::EndsWith(" 299 r")));
  EXPECT_GE(std::stoi(moved_clk), 302) << moved_clk;
  EXPECT_LT(moved.text.find("\"clk\""), moved.text.find("\"ann\""));
  Answer full =
      Post("/v1/sessions/" + id + ":move", R"({"move":{"notation":"e5-f6"}})",
           red.body["playerToken"].get<std::string>());
  ASSERT_EQ(full.status, 200) << full.text;
  EXPECT_EQ(full.body["clocks"]["running"], "SILVER");
  EXPECT_TRUE(full.body["clocks"].contains("flagAt")) << full.text;
  // A session without clocks has no clk.
  const Game plain = NewGame();
  EXPECT_FALSE(
      Get("/v1/sessions/" + plain.id + "?view=compact").body.contains("clk"));
  json bad = {{"name", "bad"},
              {"rules", {{"timeControl", {{"kind", "FISCHER"}}}}}};
  Answer refused = Post("/v1/sessions", bad.dump());
  EXPECT_EQ(refused.status, 400);
  EXPECT_THAT(refused.text, HasSubstr("rules.time_control.base_ms"));
}

TEST_F(HttpGatewayTest, ServesTheWebBoard) {
  auto index = client_->Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_THAT(index->get_header_value("Content-Type"), HasSubstr("text/html"));
  EXPECT_THAT(index->body, HasSubstr("<html"));
  auto same = client_->Get("/index.html");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->body, index->body);
  EXPECT_EQ(Get("/no-such-file.js").status, 404);
}

TEST_F(HttpGatewayTest, LogsOneLinePerRequestWithoutTokens) {
  const Game game = NewGame();
  Post("/v1/sessions/" + game.id + ":move", R"({"move":{"notation":"j1L"}})",
       game.silver);
  Get("/v1/nothing");
  const std::vector<std::string> log = Log();
  ASSERT_EQ(log.size(), 5u);  // create, two joins, the move, the 404
  EXPECT_THAT(log[3], HasSubstr("http method=POST route=/v1/sessions/{id}:move "
                                "session=" +
                                game.id + " status=200 code=OK"));
  EXPECT_THAT(log[0], HasSubstr("session=" + game.id));
  EXPECT_THAT(log[4], HasSubstr("status=404 code=NOT_FOUND"));
  for (const std::string& line : log) {
    EXPECT_THAT(line, Not(HasSubstr(game.silver)));
    EXPECT_THAT(line, Not(HasSubstr(game.owner)));
  }
}

TEST_F(HttpGatewayTest, EventStreamSendsHistoryThenLiveEvents) {
  const Game game = NewGame();
  RawConnection stream(port_, StreamRequest(game.id, ""));
  ASSERT_TRUE(stream.WaitFor("id: 3\nevent: gameStarted\ndata: {"))
      << stream.received();
  EXPECT_THAT(stream.received(), HasSubstr("Content-Type: text/event-stream"));
  EXPECT_THAT(stream.received(), HasSubstr("id: 1\nevent: seatChanged\n"));
  EXPECT_EQ(Post("/v1/sessions/" + game.id + ":move",
                 R"({"move":{"notation":"j1L"}})", game.silver)
                .status,
            200);
  ASSERT_TRUE(
      stream.WaitFor("id: 4\nevent: moveMade\ndata: {\"version\":\"4\""))
      << stream.received();
  // Quiet for longer than the keep-alive interval: a comment line.
  EXPECT_TRUE(stream.WaitFor("\n: keep-alive\n\n")) << stream.received();
}

TEST_F(HttpGatewayTest, PollsAndStreamsSendEachEventsToJsonText) {
  const Game game = NewGame();
  const int64_t version = Version(game.id);
  v1::WatchRequest watch;
  watch.set_session_id(game.id);
  watch.set_after_version(version);
  std::unique_ptr<EventStream> core_watch = core_->Watch(watch).value();
  const std::string after = absl::StrCat(version);
  RawConnection stream(
      port_, StreamRequest(game.id, "Last-Event-ID: " + after + "\r\n"));
  ASSERT_TRUE(stream.WaitFor("text/event-stream")) << stream.received();
  std::future<Answer> poll = std::async(std::launch::async, [&] {
    return Get(absl::StrCat("/v1/sessions/", game.id,
                            "/events?waitSeconds=10&afterVersion=", after));
  });
  // The core's watch, the stream and the poll all wait for the move.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (core_->watcher_count() < 3 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(core_->watcher_count(), 3);
  httplib::Client mover("127.0.0.1", port_);
  auto moved = mover.Post(("/v1/sessions/" + game.id + ":move").c_str(),
                          Auth(game.silver), R"({"move":{"notation":"j1L"}})",
                          "application/json");
  ASSERT_TRUE(moved && moved->status == 200);

  absl::StatusOr<std::optional<v1::Event>> event =
      core_watch->Next(absl::Seconds(10));
  ASSERT_TRUE(event.ok() && event->has_value());
  const std::string text = ToJson(**event);
  EXPECT_TRUE(stream.WaitFor(absl::StrCat(
      "id: ", version + 1, "\nevent: moveMade\ndata: ", text, "\n\n")))
      << stream.received();
  const Answer polled = poll.get();
  ASSERT_EQ(polled.status, 200) << polled.text;
  EXPECT_EQ(polled.text, absl::StrCat(R"({"events":[)", text,
                                      R"(],"version":")", version + 1, "\"}"));
}

TEST_F(HttpGatewayTest, EventStreamResumesAfterLastEventId) {
  const Game game = NewGame();
  RawConnection stream(port_, StreamRequest(game.id, "Last-Event-ID: 2\r\n"));
  ASSERT_TRUE(stream.WaitFor("id: 3\n")) << stream.received();
  EXPECT_THAT(stream.received(), Not(HasSubstr("id: 1\n")));
  EXPECT_THAT(stream.received(), Not(HasSubstr("id: 2\n")));
  RawConnection bad(port_, StreamRequest(game.id, "Last-Event-ID: two\r\n"));
  ASSERT_TRUE(bad.WaitFor("HTTP/1.1 400")) << bad.received();
  EXPECT_TRUE(bad.WaitFor("Last-Event-ID"));
}

TEST_F(HttpGatewayTest, EventStreamEndsWhenTheSessionIsDeleted) {
  const Game game = NewGame();
  RawConnection stream(port_, StreamRequest(game.id, ""));
  ASSERT_TRUE(stream.WaitFor("id: 3\n"));
  EXPECT_EQ(Read(client_->Delete(("/v1/sessions/" + game.id).c_str(),
                                 Auth(game.owner)))
                .status,
            200);
  EXPECT_TRUE(stream.WaitFor("event: sessionDeleted\n")) << stream.received();
  EXPECT_TRUE(stream.WaitFor("0\r\n\r\n")) << stream.received();  // the end
}

TEST_F(HttpGatewayTest, ShutdownEndsAnEventStreamPromptly) {
  const Game game = NewGame();
  RawConnection stream(port_, StreamRequest(game.id, ""));
  ASSERT_TRUE(stream.WaitFor("id: 3\n"));
  const auto start = std::chrono::steady_clock::now();
  gateway_->Shutdown();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_TRUE(stream.WaitForEnd(std::chrono::seconds(3)));
  EXPECT_THAT(stream.received(), HasSubstr(": khetd is shutting down\n"));
  const std::vector<std::string> log = Log();
  EXPECT_THAT(log.back(), HasSubstr("route=/v1/sessions/{id}/events:stream"));
  EXPECT_THAT(log.back(), HasSubstr("code=UNAVAILABLE"));
}

TEST_F(HttpGatewayTest, AStreamWhoseClientLeftGivesBackItsPlace) {
  const Game game = NewGame();
  {
    std::vector<std::unique_ptr<RawConnection>> streams;
    for (int i = 0; i < 4; ++i) {  // the fixture's max_waiting
      streams.push_back(
          std::make_unique<RawConnection>(port_, StreamRequest(game.id, "")));
      ASSERT_TRUE(streams.back()->WaitFor("id: 3\n"));
    }
    EXPECT_EQ(Get("/v1/sessions/" + game.id + "/events?waitSeconds=0").status,
              429);
  }  // closed: each is noticed at its next keep-alive (200 ms here)
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_EQ(Get("/v1/sessions/" + game.id + "/events?waitSeconds=0").status,
            200);
  int gone = 0;
  for (const std::string& line : Log()) {
    gone += absl::StrContains(line, "code=CANCELLED") &&
            absl::StrContains(line, "the client went away");
  }
  EXPECT_EQ(gone, 4);
}

TEST_F(HttpGatewayTest, BodiesOfAnyContentTypeAndEncodedQueries) {
  // curl's default form type: the JSON body is still the body, and its
  // text is no query parameter.
  Answer created = Read(client_->Post("/v1/sessions", R"({"name":"form"})",
                                      "application/x-www-form-urlencoded"));
  ASSERT_EQ(created.status, 200) << created.text;
  const std::string id = created.body["session"]["id"];
  Answer joined = Read(client_->Post(("/v1/sessions/" + id + ":join").c_str(),
                                     R"({"playerName":"ann"})",
                                     "text/plain;charset=utf-8"));
  ASSERT_EQ(joined.status, 200) << joined.text;
  Answer legal = Get("/v1/sessions/" + id + "/legalMoves?sq%75are=%6a1");
  ASSERT_EQ(legal.status, 200) << legal.text;
  EXPECT_EQ(legal.body["moves"].size(), 1u);  // j1L
  EXPECT_EQ(Get("/v1/sessions/" + id + "?view=%zz").status, 400);
  EXPECT_EQ(Get("/v1/sessions/" + id + "?view=compact&view=full").status, 400);
  auto head = client_->Head(("/v1/sessions/" + id).c_str());
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
}

TEST_F(HttpGatewayTest, ASuggestionWithoutTimeToSearch) {
  const Game game = NewGame();
  // Best play to depth 64 within 1 ms: cut short, or no move at all.
  Answer suggest = Post("/v1/sessions/" + game.id + ":suggest?timeoutMs=1",
                        R"({"limits":{"maxDepth":64}})");
  if (suggest.status == 200) {
    EXPECT_TRUE(suggest.body["cutShort"].get<bool>()) << suggest.text;
  } else {
    EXPECT_EQ(suggest.status, 504) << suggest.text;
    EXPECT_EQ(suggest.body["error"]["code"], "DEADLINE_EXCEEDED");
  }
}

TEST_F(HttpGatewayTest, MalformedRequestsGetJsonErrors) {
  // An unknown method on a known path is 405 like any other.
  RawConnection brew(port_, "BREW /v1/setups HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(brew.WaitFor("}}")) << brew.received();
  EXPECT_THAT(brew.received(), HasSubstr("HTTP/1.1 405"));
  EXPECT_THAT(brew.received(), HasSubstr("Allow: GET"));
  EXPECT_THAT(brew.received(), HasSubstr(R"("code":"UNIMPLEMENTED")"));
  EXPECT_THAT(Log().back(),
              HasSubstr("method=BREW route=/v1/setups session=- status=405"));

  // What is not HTTP at all is 400, and the connection closes.
  RawConnection garbage(port_, "\x01\x02 not http\r\n\r\n");
  ASSERT_TRUE(garbage.WaitFor("}}")) << garbage.received();
  EXPECT_THAT(garbage.received(), HasSubstr("HTTP/1.1 400"));
  EXPECT_THAT(garbage.received(), HasSubstr(R"("code":"INVALID_ARGUMENT")"));
  EXPECT_THAT(garbage.received(), HasSubstr("Connection: close"));
  EXPECT_TRUE(garbage.WaitForEnd(std::chrono::seconds(5)));
  EXPECT_THAT(Log().back(), HasSubstr("route=- session=- status=400"));
}

TEST_F(HttpGatewayTest, TokenHeaders) {
  const Game game = NewGame();
  const std::string move = "/v1/sessions/" + game.id + ":move";
  const std::string body = R"({"move":{"notation":"j1L"}})";
  Answer differ = Read(client_->Post(
      move.c_str(),
      {{"Authorization", "Bearer " + game.silver}, {"X-Khet-Token", game.red}},
      body, "application/json"));
  EXPECT_EQ(differ.status, 401) << differ.text;
  EXPECT_THAT(differ.text, HasSubstr("different tokens"));
  Answer same = Read(client_->Post(move.c_str(),
                                   {{"Authorization", "bearer " + game.silver},
                                    {"X-Khet-Token", game.silver}},
                                   body, "application/json"));
  EXPECT_EQ(same.status, 200) << same.text;
}

TEST_F(HttpGatewayTest, MetricsByRoutePatternAndJsonLog) {
  HttpGatewayOptions options;
  options.metrics = &registry_;
  options.log_format = LogFormat::kJson;
  StartGateway(options);
  const Game game = NewGame();
  const std::string move = "/v1/sessions/" + game.id + ":move";
  EXPECT_EQ(Post(move, R"({"move":{"notation":"j1L"}})", game.silver).status,
            200);
  EXPECT_EQ(Post(move, R"({"move":{"notation":"j1L"}})", game.red).status, 400);
  // Paths no route takes, an odd method and a request refused before
  // routing add no label values of their own.
  EXPECT_EQ(Get("/nope/" + game.id).status, 404);
  EXPECT_EQ(Get("/v1/sessions/" + game.id + "/x/y").status, 404);
  RawConnection brew(port_, "BREW /v1/setups HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(brew.WaitFor("}}")) << brew.received();
  RawConnection garbage(port_, "\x01\x02 not http\r\n\r\n");
  ASSERT_TRUE(garbage.WaitFor("}}")) << garbage.received();

  auto page = client_->Get("/metrics");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"),
            "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = page->body;
  const std::vector<std::string> expected = {
      R"(khet_http_requests_total{route="/v1/sessions/{id}:move",method="POST",status="200"} 1)",
      R"(khet_http_requests_total{route="/v1/sessions/{id}:move",method="POST",status="400"} 1)",
      R"(khet_http_requests_total{route="unmatched",method="GET",status="404"} 2)",
      R"(khet_http_requests_total{route="/v1/setups",method="other",status="405"} 1)",
      R"(khet_http_requests_total{route="none",method="other",status="400"} 1)",
      R"(khet_http_request_duration_seconds_count{route="/v1/sessions/{id}:move"} 2)",
      R"(khet_http_waiting_requests 0)",
  };
  for (const std::string& line : expected) {
    EXPECT_THAT(text, HasSubstr(line + "\n")) << text;
  }
  for (const std::string& secret : {game.id, game.owner, game.silver, game.red,
                                    std::string("nope"), std::string("BREW")}) {
    EXPECT_THAT(text, Not(HasSubstr(secret)));
  }
  EXPECT_EQ(Post("/metrics", "{}").status, 405);

  // One JSON object per line with the fixed keys; the client's address.
  const std::vector<std::string> log = Log();
  ASSERT_FALSE(log.empty());
  for (const std::string& line : log) {
    const json entry = json::parse(line, nullptr, false);
    ASSERT_TRUE(entry.is_object()) << line;
    EXPECT_EQ(entry.size(), 10u) << line;
    EXPECT_EQ(entry["protocol"], "http");
    EXPECT_EQ(entry["peer"], "127.0.0.1");
    EXPECT_THAT(line, Not(HasSubstr(game.silver)));
  }
  EXPECT_THAT(log, testing::Contains(HasSubstr(
                       R"("route":"/v1/sessions/{id}:move","status":200)")));
}

// A board maker's files: the scripts whose version /v1/version names, and
// the board's OAR; anything else is 404 naming what there is.
TEST_F(HttpGatewayTest, ServesTheInworldBoardsScriptsAndOar) {
  const Answer version = Get("/v1/version");
  ASSERT_EQ(version.status, 200);
  const std::string scripts = version.body["boardScripts"];
  EXPECT_EQ(version.body["boardScriptsUrl"], "/v1/inworld/");
  httplib::Result board = client_->Get("/v1/inworld/khet_board.lsl");
  ASSERT_TRUE(board);
  EXPECT_EQ(board->status, 200);
  EXPECT_THAT(board->get_header_value("Content-Type"),
              ::testing::StartsWith("text/plain"));
  EXPECT_THAT(board->body, HasSubstr(absl::StrCat("string BOARD_SCRIPTS = \"",
                                                  scripts, "\";")));
  for (const char* script :
       {"khet_render.lsl", "khet_words.lsl", "khet_keep.lsl"}) {
    EXPECT_EQ(client_->Get(absl::StrCat("/v1/inworld/", script))->status, 200)
        << script;
  }
  httplib::Result oar = client_->Get("/v1/inworld/khet-board.oar");
  ASSERT_TRUE(oar);
  EXPECT_EQ(oar->status, 200);
  ASSERT_GE(oar->body.size(), 2u);
  EXPECT_EQ(oar->body.substr(0, 2), "\x1f\x8b");  // gzip
  const Answer missing = Get("/v1/inworld/..%2fkhetd");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.text, HasSubstr("khet_board.lsl"));
}

}  // namespace
}  // namespace khet
