// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Budgets per caller against a real khetd (issue 29): a caller who uses the
// API as designed, only too much, is refused with RESOURCE_EXHAUSTED (HTTP
// 429 and Retry-After) naming the budget, and other callers are served as
// before. Every client here is on loopback; khetd trusts 127.0.0.0/8 as a
// proxy, so X-Forwarded-For (gRPC: x-forwarded-for metadata) names the
// client addresses the tests play (documentation ranges, RFC 5737).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/hostile/hostile_test_base.h"
#include "tools/load/common/grpc_call.h"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {
namespace {

using ::testing::HasSubstr;

std::string From(absl::string_view client) {
  return absl::StrCat("X-Forwarded-For: ", client, "\r\n");
}

class CallerBudgetsTest : public HostileTest {
 protected:
  // The value of khet_budget_refusals_total{budget, door} on /metrics; -1
  // if it is not there.
  double Refusals(absl::string_view budget, absl::string_view door) {
    absl::StatusOr<RawResponse> page =
        Exchange(GetRequest("/metrics", From("192.0.2.200")));
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) return -1;
    const std::string series =
        absl::StrCat("khet_budget_refusals_total{budget=\"", budget,
                     "\",door=\"", door, "\"} ");
    const size_t at = page->body.find(series);
    if (at == std::string::npos) return -1;
    const size_t end = page->body.find('\n', at);
    double value = -1;
    EXPECT_TRUE(absl::SimpleAtod(
        page->body.substr(at + series.size(), end - at - series.size()),
        &value));
    return value;
  }
};

constexpr char kTrustLoopback[] = "--trusted_proxies=127.0.0.0/8";
constexpr char kFlooder[] = "198.51.100.7";
constexpr char kPlayer[] = "203.0.113.9";

// The error message of a JSON error body; "" if it is none.
std::string ErrorMessage(const RawResponse& response) {
  const nlohmann::json body = nlohmann::json::parse(response.body, nullptr,
                                                    /*allow_exceptions=*/false);
  if (!body.is_object() || !body["error"]["message"].is_string()) return "";
  return body["error"]["message"];
}

// A gRPC context from `client` (through the trusted loopback proxy).
std::unique_ptr<grpc::ClientContext> ContextFrom(absl::string_view client) {
  std::unique_ptr<grpc::ClientContext> context = CallContext(absl::Seconds(10));
  context->AddMetadata("x-forwarded-for", std::string(client));
  return context;
}

// Finding: nothing limited calls per caller on either door. Over its
// calls' budget a caller gets 429 with Retry-After and a sentence naming
// the budget; another address is served; the refusal is counted and logged.
TEST_F(CallerBudgetsTest, HttpCallsOverBudgetAre429WithRetryAfter) {
  ASSERT_NO_FATAL_FAILURE(
      StartKhetd({kTrustLoopback, "--calls_per_second=1", "--calls_burst=5"}));
  // 50 calls at once: at most 5, and one a second after, are served.
  std::optional<RawResponse> refused;
  int served = 0;
  for (int i = 0; i < 50 && !refused.has_value(); ++i) {
    absl::StatusOr<RawResponse> answer =
        Exchange(GetRequest("/v1/setups", From(kFlooder)));
    ASSERT_TRUE(answer.ok()) << answer.status();
    if (answer->status == 200) {
      ++served;
    } else {
      refused = *answer;
    }
  }
  ASSERT_TRUE(refused.has_value()) << served << " calls served";
  EXPECT_GE(served, 5);
  EXPECT_EQ(refused->status, 429) << refused->body;
  int64_t retry_after = 0;
  EXPECT_TRUE(absl::SimpleAtoi(refused->Header("Retry-After"), &retry_after))
      << refused->head;
  EXPECT_EQ(retry_after, 1);
  EXPECT_THAT(ErrorMessage(*refused),
              HasSubstr("too many calls from 198.51.100.7: at most 1 a "
                        "second, try again in 1 s"));
  EXPECT_TRUE(refused->keep_alive) << "a refusal by budget keeps the "
                                      "connection";

  // Another address is served at once.
  absl::StatusOr<RawResponse> other =
      Exchange(GetRequest("/v1/setups", From(kPlayer)));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->status, 200);
  // The web board's files are not API calls: served to the flooder too.
  absl::StatusOr<RawResponse> page = Exchange(GetRequest("/", From(kFlooder)));
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->status, 200);

  EXPECT_GE(Refusals("calls", "http"), 1);
  EXPECT_EQ(Refusals("calls", "grpc"), 0);
  EXPECT_TRUE(LogHas("status=429 code=RESOURCE_EXHAUSTED"));
  EXPECT_TRUE(
      LogHas("budget=calls message=\"too many calls from "
             "198.51.100.7"))
      << khetd().log();
}

// The same on the gRPC door: the peer through the trusted proxy's
// x-forwarded-for metadata, the refusal's trailing metadata retry-after.
TEST_F(CallerBudgetsTest, GrpcCallsOverBudgetAreResourceExhausted) {
  ASSERT_NO_FATAL_FAILURE(
      StartKhetd({kTrustLoopback, "--calls_per_second=1", "--calls_burst=5"}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  grpc::Status refused;
  std::multimap<grpc::string_ref, grpc::string_ref> trailers;
  std::unique_ptr<grpc::ClientContext> context;
  int served = 0;
  for (int i = 0; i < 50; ++i) {
    context = ContextFrom(kFlooder);
    v1::ListSetupsResponse setups;
    const grpc::Status status =
        stub->ListSetups(context.get(), v1::ListSetupsRequest(), &setups);
    if (status.ok()) {
      ++served;
      continue;
    }
    refused = status;
    break;
  }
  ASSERT_FALSE(refused.ok()) << served << " calls served";
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("too many calls from 198.51.100.7: at most 1 a "
                        "second"));
  const auto retry = context->GetServerTrailingMetadata().find("retry-after");
  ASSERT_NE(retry, context->GetServerTrailingMetadata().end());
  EXPECT_EQ(std::string(retry->second.data(), retry->second.size()), "1");

  v1::ListSetupsResponse setups;
  EXPECT_TRUE(stub->ListSetups(ContextFrom(kPlayer).get(),
                               v1::ListSetupsRequest(), &setups)
                  .ok());
  EXPECT_GE(Refusals("calls", "grpc"), 1);
  EXPECT_TRUE(
      LogHas("budget=calls message=\"too many calls from "
             "198.51.100.7"))
      << khetd().log();
}

// Finding: one address created sessions in a loop until the server held
// --max_sessions, and then a player at another address could not create
// one. An address may hold only so many sessions nobody has joined; the
// flood is refused there, and the server stays open to everyone else.
TEST_F(CallerBudgetsTest, AFloodOfSessionsFromOneAddressLocksNobodyOut) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({kTrustLoopback, "--max_sessions=60"}));
  int created = 0;
  std::optional<RawResponse> refused;
  for (int i = 0; i < 100 && !refused.has_value(); ++i) {
    absl::StatusOr<RawResponse> answer = Exchange(
        PostRequest("/v1/sessions", R"({"name":"flood"})", From(kFlooder)));
    ASSERT_TRUE(answer.ok()) << answer.status();
    if (answer->status == 200) {
      ++created;
    } else {
      refused = *answer;
    }
  }
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 429);
  EXPECT_THAT(ErrorMessage(*refused), HasSubstr("198.51.100.7"));
  EXPECT_THAT(ErrorMessage(*refused), HasSubstr("nobody has joined"));
  EXPECT_LT(created, 60);

  // A player elsewhere creates a board, over either door.
  absl::StatusOr<RawResponse> mine = Exchange(
      PostRequest("/v1/sessions", R"({"name":"mine"})", From(kPlayer)));
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_EQ(mine->status, 200) << mine->body;
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  v1::CreateSessionRequest create;
  create.set_name("mine too");
  v1::CreateSessionResponse created_too;
  const grpc::Status status = stub->CreateSession(
      ContextFrom("203.0.113.10").get(), create, &created_too);
  EXPECT_TRUE(status.ok()) << Describe(status);
}

// Finding: a caller holding both seats could play, resign and start again
// without end, and every game was archived for good. A board archives at
// most --max_unrated_games_per_hour unrated games an hour; then no new game
// follows until the hour is over, and the refusal says when.
TEST_F(CallerBudgetsTest, ABoardArchivesAtMostItsUnratedGamesAnHour) {
  ASSERT_NO_FATAL_FAILURE(
      StartKhetd({kTrustLoopback, "--max_unrated_games_per_hour=2"}));
  const auto post = [&](const std::string& path, const std::string& body,
                        const std::string& token) {
    absl::StatusOr<RawResponse> answer = Exchange(PostRequest(
        path, body,
        absl::StrCat(From(kPlayer), token.empty() ? "" : "X-Khet-Token: ",
                     token, token.empty() ? "" : "\r\n")));
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? *answer : RawResponse();
  };
  const RawResponse created = post("/v1/sessions", R"({"name":"loop"})", "");
  ASSERT_EQ(created.status, 200) << created.body;
  const nlohmann::json session = nlohmann::json::parse(created.body);
  const std::string id = session["session"]["id"];
  const std::string owner = session["ownerToken"];
  const std::string base = absl::StrCat("/v1/sessions/", id);
  std::string tokens[2];  // by seat as joined: Silver, Red
  for (int seat = 0; seat < 2; ++seat) {
    const RawResponse joined =
        post(base + ":join",
             seat == 0 ? R"({"color":"SILVER","playerName":"ann"})"
                       : R"({"color":"RED","playerName":"bob"})",
             "");
    ASSERT_EQ(joined.status, 200) << joined.body;
    tokens[seat] = nlohmann::json::parse(joined.body)["playerToken"];
  }
  RawResponse rematch;
  for (int game = 0; game < 3; ++game) {
    // Each rematch swaps the seats: Silver's player alternates.
    const std::string& silver = tokens[game % 2];
    const std::string& red = tokens[(game + 1) % 2];
    ASSERT_EQ(
        post(base + ":move", R"({"move":{"notation":"j5L"}})", silver).status,
        200);
    ASSERT_EQ(post(base + ":resign", "", red).status, 200);
    rematch = post(base + ":rematch", "", owner);
    if (game < 1) {
      ASSERT_EQ(rematch.status, 200) << rematch.body;
    }
    if (rematch.status != 200) break;
  }
  EXPECT_EQ(rematch.status, 429) << rematch.body;
  EXPECT_THAT(ErrorMessage(rematch),
              HasSubstr("has archived 2 unrated games within the hour: at "
                        "most 2 an hour"));
  int64_t retry_after = 0;
  EXPECT_TRUE(absl::SimpleAtoi(rematch.Header("Retry-After"), &retry_after))
      << rematch.head;
  EXPECT_GT(retry_after, 3000);
  EXPECT_LE(retry_after, 3600);
  absl::StatusOr<RawResponse> games =
      Exchange(GetRequest(base + "/games", From(kPlayer)));
  ASSERT_TRUE(games.ok()) << games.status();
  EXPECT_EQ(nlohmann::json::parse(games->body)["games"].size(), 2u);
  EXPECT_EQ(Refusals("archived_games", "http"), 1);
}

// One address runs at most --max_suggestions_per_address searches at once;
// others search meanwhile.
TEST_F(CallerBudgetsTest, SuggestionsAtOncePerAddress) {
  ASSERT_NO_FATAL_FAILURE(
      StartKhetd({kTrustLoopback, "--max_suggestions_per_address=1"}));
  const std::string id = CreateSession();
  ASSERT_FALSE(id.empty());
  // Searches to any depth, cut short by their 3 s deadline.
  const std::string suggest =
      PostRequest(absl::StrCat("/v1/sessions/", id, ":suggest?timeoutMs=3000"),
                  R"({"limits":{"maxDepth":64}})", From(kFlooder));
  std::vector<std::unique_ptr<RawConnection>> flooder;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::unique_ptr<RawConnection>> c =
        RawConnection::Open(http_port());
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_TRUE((*c)->Send(suggest));
    flooder.push_back(*std::move(c));
  }
  absl::StatusOr<RawResponse> other = Exchange(
      PostRequest(absl::StrCat("/v1/sessions/", id, ":suggest?timeoutMs=3000"),
                  R"({"limits":{"maxDepth":64}})", From(kPlayer)),
      "", absl::Seconds(30));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->status, 200) << other->body;
  int served = 0, refused = 0;
  for (auto& c : flooder) {
    absl::StatusOr<RawResponse> answer = c->Read(absl::Seconds(30));
    ASSERT_TRUE(answer.ok()) << answer.status();
    if (answer->status == 200) ++served;
    if (answer->status == 429) {
      ++refused;
      EXPECT_THAT(ErrorMessage(*answer),
                  HasSubstr("too many suggestions at once from 198.51.100.7: "
                            "at most 1"));
      EXPECT_EQ(answer->Header("Retry-After"), "1");
    }
  }
  EXPECT_EQ(served, 1);
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(Refusals("suggestions", "http"), 1);
}

// One address analyses at most --max_analyses_per_address games at once
// (default 1): asked over gRPC, through the trusted proxy's metadata.
TEST_F(CallerBudgetsTest, AnalysesAtOncePerAddress) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({kTrustLoopback}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  // Two finished games: a move, then a resignation.
  std::string games[2];
  for (std::string& game : games) {
    v1::CreateSessionRequest create;
    create.set_name("analysed");
    v1::CreateSessionResponse created;
    ASSERT_TRUE(
        stub->CreateSession(ContextFrom(kPlayer).get(), create, &created).ok());
    game = created.session().id();
    std::string tokens[2];
    for (int seat = 0; seat < 2; ++seat) {
      v1::JoinSeatRequest join;
      join.set_session_id(game);
      join.set_color(seat == 0 ? v1::SILVER : v1::RED);
      join.set_player_name(seat == 0 ? "ann" : "bob");
      v1::JoinSeatResponse joined;
      ASSERT_TRUE(
          stub->JoinSeat(ContextFrom(kPlayer).get(), join, &joined).ok());
      tokens[seat] = joined.player_token();
    }
    v1::MakeMoveRequest move;
    move.set_session_id(game);
    move.mutable_move()->set_notation("j5L");
    std::unique_ptr<grpc::ClientContext> as_silver = ContextFrom(kPlayer);
    as_silver->AddMetadata("authorization", "Bearer " + tokens[0]);
    v1::MakeMoveResponse moved;
    ASSERT_TRUE(stub->MakeMove(as_silver.get(), move, &moved).ok());
    v1::ResignRequest resign;
    resign.set_session_id(game);
    std::unique_ptr<grpc::ClientContext> as_red = ContextFrom(kPlayer);
    as_red->AddMetadata("authorization", "Bearer " + tokens[1]);
    v1::Session resigned;
    ASSERT_TRUE(stub->Resign(as_red.get(), resign, &resigned).ok());
  }
  const auto analyze = [&](const std::string& game, absl::string_view client,
                           std::unique_ptr<grpc::ClientContext>* context) {
    v1::AnalyzeGameRequest request;
    request.set_session_id(game);
    request.set_game_id("current");
    request.set_ms_per_ply(2000);  // long enough to still run below
    *context = ContextFrom(client);
    v1::GameAnalysis analysis;
    return stub->AnalyzeGame(context->get(), request, &analysis);
  };
  std::unique_ptr<grpc::ClientContext> context;
  const grpc::Status first = analyze(games[0], kFlooder, &context);
  ASSERT_TRUE(first.ok()) << Describe(first);
  const grpc::Status second = analyze(games[1], kFlooder, &context);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(second.error_message(),
              HasSubstr("too many game analyses at once from 198.51.100.7"));
  const auto retry = context->GetServerTrailingMetadata().find("retry-after");
  ASSERT_NE(retry, context->GetServerTrailingMetadata().end());
  EXPECT_EQ(std::string(retry->second.data(), retry->second.size()), "10");
  const grpc::Status other = analyze(games[1], kPlayer, &context);
  EXPECT_TRUE(other.ok()) << Describe(other);
  EXPECT_EQ(Refusals("analyses", "grpc"), 1);
}

// Sessions nobody claimed are removed after
// --unclaimed_session_timeout_seconds, on a store of the process alone as
// on PostgreSQL (service tests): a flood drains by itself, and a session
// someone joined stays.
class UnclaimedSessionsAgeOutTest
    : public CallerBudgetsTest,
      public ::testing::WithParamInterface<std::string> {};

TEST_P(UnclaimedSessionsAgeOutTest, AFloodDrainsByItself) {
  std::vector<std::string> flags = {
      kTrustLoopback, "--max_unclaimed_sessions_per_address=3",
      "--unclaimed_session_timeout_seconds=2", "--timeout_sweep_seconds=1"};
  if (GetParam() == "sqlite") {
    flags.push_back("--store=sqlite");
    flags.push_back(absl::StrCat("--data_dir=", dir(), "/data"));
  }
  ASSERT_NO_FATAL_FAILURE(StartKhetd(flags));
  // A player's board, joined at once: claimed, never removed so.
  absl::StatusOr<RawResponse> mine = Exchange(
      PostRequest("/v1/sessions", R"({"name":"mine"})", From(kPlayer)));
  ASSERT_TRUE(mine.ok()) << mine.status();
  ASSERT_EQ(mine->status, 200) << mine->body;
  const std::string my_id =
      nlohmann::json::parse(mine->body)["session"]["id"].get<std::string>();
  absl::StatusOr<RawResponse> joined = Exchange(
      PostRequest(absl::StrCat("/v1/sessions/", my_id, ":join"),
                  R"({"color":"SILVER","playerName":"alice"})", From(kPlayer)));
  ASSERT_TRUE(joined.ok()) << joined.status();
  ASSERT_EQ(joined->status, 200) << joined->body;

  std::vector<std::string> flood;
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<RawResponse> answer = Exchange(
        PostRequest("/v1/sessions", R"({"name":"flood"})", From(kFlooder)));
    ASSERT_TRUE(answer.ok()) << answer.status();
    if (i < 3) {
      ASSERT_EQ(answer->status, 200) << answer->body;
      flood.push_back(nlohmann::json::parse(answer->body)["session"]["id"]
                          .get<std::string>());
    } else {
      EXPECT_EQ(answer->status, 429) << answer->body;
      EXPECT_FALSE(answer->Header("Retry-After").empty()) << answer->head;
    }
  }
  // Within a generous bound (the sweep runs every second), each is gone.
  for (const std::string& id : flood) {
    int status = 0;
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (absl::Now() < deadline) {
      absl::StatusOr<RawResponse> got = Exchange(
          GetRequest(absl::StrCat("/v1/sessions/", id), From(kFlooder)));
      ASSERT_TRUE(got.ok()) << got.status();
      status = got->status;
      if (status == 404) break;
      absl::SleepFor(absl::Milliseconds(200));
    }
    EXPECT_EQ(status, 404) << id;
  }
  absl::StatusOr<RawResponse> again = Exchange(
      PostRequest("/v1/sessions", R"({"name":"again"})", From(kFlooder)));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->status, 200) << again->body;
  absl::StatusOr<RawResponse> kept =
      Exchange(GetRequest(absl::StrCat("/v1/sessions/", my_id), From(kPlayer)));
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->status, 200);
  EXPECT_TRUE(LogHas("session(s) nobody joined within")) << khetd().log();
}

INSTANTIATE_TEST_SUITE_P(Stores, UnclaimedSessionsAgeOutTest,
                         ::testing::Values("memory", "sqlite"));

}  // namespace
}  // namespace khet::hostile
