// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// /metrics end to end: a real khetd (SQLite store, JSON request log) on
// loopback, games played over gRPC and HTTP, a computer seat's move, and two
// scrapes whose difference must be exactly what was done; unknown paths must
// add no label values, and the page must hold no token or session id.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/support/khetd_child.h"
#include "tests/support/text_file.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A scrape: each sample line's "name{labels}" to its value.
using Scrape = std::map<std::string, double>;

Scrape Parse(const std::string& text) {
  Scrape out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    const size_t space = line.rfind(' ');
    double value = 0;
    EXPECT_TRUE(absl::SimpleAtod(line.substr(space + 1), &value)) << line;
    out[std::string(line.substr(0, space))] = value;
  }
  return out;
}

double At(const Scrape& scrape, const std::string& series) {
  const auto it = scrape.find(series);
  return it == scrape.end() ? 0 : it->second;
}

class MetricsEndToEndTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            absl::StrCat("khet_metrics_e2e_", getpid()))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    absl::StatusOr<std::unique_ptr<khet::KhetdChild>> started =
        khet::KhetdChild::Start(
            KHETD_PATH,
            {"--store=sqlite", "--data_dir=" + dir_, "--log_format=json"},
            dir_ + "/khetd.log", {.http = true});
    ASSERT_TRUE(started.ok()) << started.status() << "; log:\n"
                              << khet::ReadTextFile(dir_ + "/khetd.log");
    khetd_ = *std::move(started);
    stub_ = khet::v1::KhetService::NewStub(grpc::CreateChannel(
        khetd_->address(), grpc::InsecureChannelCredentials()));
    http_ = std::make_unique<httplib::Client>("127.0.0.1", khetd_->http_port());
    http_->set_read_timeout(30, 0);
  }

  void TearDown() override {
    http_.reset();
    khetd_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string MetricsText() {
    auto result = http_->Get("/metrics");
    EXPECT_TRUE(result);
    if (!result) return "";
    EXPECT_EQ(result->status, 200);
    EXPECT_THAT(result->get_header_value("Content-Type"),
                HasSubstr("version=0.0.4"));
    return result->body;
  }

  std::unique_ptr<grpc::ClientContext> Context(const std::string& token = "") {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(30));
    if (!token.empty()) {
      context->AddMetadata("authorization", "Bearer " + token);
    }
    return context;
  }

  khet::v1::CreateSessionResponse Create(const std::string& name) {
    khet::v1::CreateSessionRequest request;
    request.set_name(name);
    khet::v1::CreateSessionResponse response;
    EXPECT_TRUE(stub_->CreateSession(Context().get(), request, &response).ok());
    return response;
  }

  std::string Join(const std::string& id, const std::string& player) {
    khet::v1::JoinSeatRequest request;
    request.set_session_id(id);
    request.set_player_name(player);
    khet::v1::JoinSeatResponse response;
    EXPECT_TRUE(stub_->JoinSeat(Context().get(), request, &response).ok());
    return response.player_token();
  }

  khet::v1::Session Get(const std::string& id) {
    khet::v1::GetSessionRequest request;
    request.set_session_id(id);
    khet::v1::Session session;
    EXPECT_TRUE(stub_->GetSession(Context().get(), request, &session).ok());
    return session;
  }

  // The first legal move of the side to move.
  std::string AnyMove(const std::string& id) {
    khet::v1::ListLegalMovesRequest request;
    request.set_session_id(id);
    khet::v1::ListLegalMovesResponse response;
    EXPECT_TRUE(
        stub_->ListLegalMoves(Context().get(), request, &response).ok());
    EXPECT_GT(response.moves_size(), 0);
    return response.moves_size() > 0 ? response.moves(0).notation() : "";
  }

  void GrpcMove(const std::string& id, const std::string& token) {
    khet::v1::MakeMoveRequest request;
    request.set_session_id(id);
    request.mutable_move()->set_notation(AnyMove(id));
    khet::v1::MakeMoveResponse response;
    const grpc::Status status =
        stub_->MakeMove(Context(token).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
  }

  void HttpMove(const std::string& id, const std::string& token) {
    const std::string body =
        nlohmann::json{{"move", {{"notation", AnyMove(id)}}}}.dump();
    auto result = http_->Post(("/v1/sessions/" + id + ":move").c_str(),
                              {{"Authorization", "Bearer " + token}}, body,
                              "application/json");
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 200) << result->body;
  }

  std::string dir_;
  std::unique_ptr<khet::KhetdChild> khetd_;
  std::unique_ptr<khet::v1::KhetService::Stub> stub_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(MetricsEndToEndTest, CountersMoveWithTheGames) {
  // Two humans on board A; a human (Silver) against the computer on B.
  const khet::v1::CreateSessionResponse a = Create("metrics a");
  const std::string a_id = a.session().id();
  const std::string silver = Join(a_id, "alice");
  const std::string red = Join(a_id, "bob");
  const khet::v1::CreateSessionResponse b = Create("metrics b");
  const std::string b_id = b.session().id();
  const std::string human = Join(b_id, "carol");
  {
    khet::v1::SeatComputerRequest request;
    request.set_session_id(b_id);
    request.set_level(1);
    khet::v1::Session session;
    ASSERT_TRUE(
        stub_->SeatComputer(Context(human).get(), request, &session).ok());
    ASSERT_EQ(session.status(), khet::v1::IN_PROGRESS);
  }

  const std::string before_text = MetricsText();
  const Scrape before = Parse(before_text);
  EXPECT_EQ(At(before, "khet_sessions{status=\"IN_PROGRESS\"}"), 2)
      << before_text;

  // Four moves on A, two by gRPC and two by HTTP; one on B, which the
  // computer answers.
  GrpcMove(a_id, silver);
  HttpMove(a_id, red);
  GrpcMove(a_id, silver);
  HttpMove(a_id, red);
  const int64_t b_version = Get(b_id).version();
  GrpcMove(b_id, human);
  // Unknown paths, each different, and an unknown session.
  for (const char* path : {"/nope", "/v2/x/y", "/v1/sessions/a/b/c/d"}) {
    auto result = http_->Get(path);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 404);
  }
  {
    khet::v1::GetSessionRequest request;
    request.set_session_id("no-such-session");
    khet::v1::Session session;
    EXPECT_EQ(
        stub_->GetSession(Context().get(), request, &session).error_code(),
        grpc::StatusCode::NOT_FOUND);
  }
  // A long poll on A stays open while the second scrape reads.
  auto poll = std::async(std::launch::async, [this, a_id] {
    httplib::Client other("127.0.0.1", khetd_->http_port());
    other.set_read_timeout(30, 0);
    const std::string version = absl::StrCat(Get(a_id).version());
    auto result = other.Get(("/v1/sessions/" + a_id +
                             "/events?waitSeconds=4&afterVersion=" + version)
                                .c_str());
    return result ? result->status : -1;
  });

  // The computer's move and the poll show up within seconds.
  std::string after_text;
  Scrape after;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (true) {
    after_text = MetricsText();
    after = Parse(after_text);
    if ((At(after, "khet_computer_searches_total{outcome=\"played\"}") >= 1 &&
         At(after, "khet_http_waiting_requests") >= 1) ||
        absl::Now() > deadline) {
      break;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(Get(b_id).version(), b_version + 2);

  auto delta = [&](const std::string& series) {
    return At(after, series) - At(before, series);
  };
  EXPECT_EQ(delta("khet_grpc_requests_total{method=\"MakeMove\",code=\"OK\"}"),
            3)
      << after_text;
  EXPECT_EQ(
      delta("khet_grpc_request_duration_seconds_count{method=\"MakeMove\"}"),
      3);
  EXPECT_EQ(delta("khet_grpc_request_duration_seconds_bucket{method="
                  "\"MakeMove\",le=\"+Inf\"}"),
            3);
  EXPECT_GT(
      delta("khet_grpc_request_duration_seconds_sum{method=\"MakeMove\"}"), 0);
  EXPECT_EQ(delta("khet_grpc_requests_total{method=\"GetSession\",code="
                  "\"NOT_FOUND\"}"),
            1);
  const std::string move_route = "route=\"/v1/sessions/{id}:move\"";
  EXPECT_EQ(delta("khet_http_requests_total{" + move_route +
                  ",method=\"POST\",status=\"200\"}"),
            2);
  EXPECT_EQ(
      delta("khet_http_request_duration_seconds_count{" + move_route + "}"), 2);
  EXPECT_EQ(delta("khet_http_requests_total{route=\"unmatched\",method="
                  "\"GET\",status=\"404\"}"),
            3);
  // Five human moves and the computer's: one store update each, each its
  // own group commit here (the moves came one after another).
  EXPECT_EQ(delta("khet_store_write_duration_seconds_count{op=\"update\"}"), 6);
  EXPECT_EQ(delta("khet_store_group_commit_writes_sum"), 6);
  EXPECT_EQ(delta("khet_store_group_commit_writes_count"), 6);
  EXPECT_EQ(delta("khet_computer_searches_total{outcome=\"played\"}"), 1);
  EXPECT_EQ(delta("khet_computer_search_duration_seconds_count"), 1);
  EXPECT_EQ(At(after, "khet_sessions{status=\"IN_PROGRESS\"}"), 2);
  EXPECT_EQ(At(after, "khet_watchers"), 1);
  // A store of one process hears no other replica's changes.
  for (const char* series :
       {"khet_store_notices_waiting", "khet_store_notice_wait_seconds"}) {
    ASSERT_EQ(after.count(series), 1) << series;
    EXPECT_EQ(after.at(series), 0) << series;
  }
  EXPECT_EQ(At(after, "khet_http_waiting_requests"), 1);

  // Only the fixed words and patterns label the routes; no path from a
  // request, no session id, no token anywhere on the page.
  for (const auto& [series, value] : after) {
    if (!absl::StartsWith(series, "khet_http_request")) continue;
    EXPECT_THAT(series, Not(HasSubstr("nope")));
    EXPECT_THAT(series, Not(HasSubstr("/v2/")));
    EXPECT_THAT(series, Not(HasSubstr("a/b/c")));
  }
  for (const std::string& secret :
       {a_id, b_id, a.owner_token(), b.owner_token(), silver, red, human}) {
    EXPECT_THAT(after_text, Not(HasSubstr(secret)));
  }
  EXPECT_EQ(poll.get(), 200);  // timed out empty after its wait

  // The JSON log: one object per line, with the move's route and session.
  const std::string log = khetd_->log();
  EXPECT_THAT(log, HasSubstr("\"protocol\":\"grpc\",\"method\":\"MakeMove\","
                             "\"route\":\"/khet.v1.KhetService/MakeMove\""));
  EXPECT_THAT(log, HasSubstr("\"route\":\"/v1/sessions/{id}:move\","
                             "\"status\":200,\"code\":\"OK\""));
  EXPECT_THAT(log, HasSubstr("\"session\":\"" + a_id + "\""));
  for (const std::string& token :
       {a.owner_token(), b.owner_token(), silver, red, human}) {
    EXPECT_THAT(log, Not(HasSubstr(token)));
  }
  for (absl::string_view line : absl::StrSplit(log, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "khetd:")) continue;  // khetd's own lines
    EXPECT_TRUE(nlohmann::json::parse(line, nullptr, false).is_object())
        << line;
  }
}

}  // namespace
