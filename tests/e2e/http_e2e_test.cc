// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// End to end over HTTP: the real khetd binary with its gRPC and HTTP ports
// on free loopback ports, driven with httplib's client: a game to a
// Pharaoh hit, long polling, the compact view, the SVG board, the web
// board, the request log, and SIGTERM with a long poll open.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/support/khetd_child.h"
#include "tests/support/text_file.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif

namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

json Body(const httplib::Result& result, int status) {
  EXPECT_TRUE(result) << "no answer";
  if (!result) return json();
  EXPECT_EQ(result->status, status) << result->body;
  return json::parse(result->body, nullptr, false);
}

TEST(HttpEndToEndTest, PlaysOverHttpAndStopsOnSigterm) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           absl::StrCat("khet_http_e2e_", getpid()))
                              .string();
  std::filesystem::create_directories(dir);
  absl::StatusOr<std::unique_ptr<khet::KhetdChild>> started =
      khet::KhetdChild::Start(KHETD_PATH, {"--store=memory"},
                              dir + "/khetd.log", {.http = true});
  ASSERT_TRUE(started.ok()) << started.status() << "; log:\n"
                            << khet::ReadTextFile(dir + "/khetd.log");
  khet::KhetdChild& khetd = **started;
  const int port = khetd.http_port();

  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30, 0);
  const json created = Body(
      client.Post(
          "/v1/sessions",
          R"({"name":"e2e","position":"xs4k4/10/10/10/10/10/10/pnw3K4Xn s 2"})",
          "application/json"),
      200);
  const std::string id = created["session"]["id"];
  const std::string owner = created["ownerToken"];
  const std::string s = "/v1/sessions/" + id;
  const std::string silver =
      Body(client.Post((s + ":join").c_str(), R"({"playerName":"alice"})",
                       "application/json"),
           200)["playerToken"];
  const std::string red =
      Body(client.Post((s + ":join").c_str(), R"({"playerName":"bob"})",
                       "application/json"),
           200)["playerToken"];

  // A long poll from version 3 wakes on Silver's move.
  auto poll = std::async(std::launch::async, [port, s] {
    httplib::Client other("127.0.0.1", port);
    other.set_read_timeout(30, 0);
    auto result = other.Get(
        (s + "/events?afterVersion=3&waitSeconds=10&view=compact").c_str());
    return result ? result->body : std::string();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const json first =
      Body(client.Post((s + ":move?view=compact").c_str(),
                       {{"Authorization", "Bearer " + silver}},
                       R"({"move":{"notation":"e1-d1"}})", "application/json"),
           200);
  EXPECT_EQ(first["move"], "e1-d1");
  EXPECT_EQ(first["turn"], "r");
  const json woken = json::parse(poll.get(), nullptr, false);
  ASSERT_TRUE(woken.is_object());
  EXPECT_EQ(woken["v"], 4);
  EXPECT_EQ(woken["events"][0]["kind"], "move");

  const json win =
      Body(client.Post((s + ":move").c_str(), {{"X-Khet-Token", red}},
                       R"({"move":{"notation":"a1R"}})", "application/json"),
           200);
  EXPECT_EQ(win["result"]["outcome"], "RED_WINS");
  EXPECT_EQ(win["result"]["reason"], "PHARAOH_HIT");
  EXPECT_EQ(Body(client.Get((s + "?view=compact").c_str()), 200)["st"], "F");

  auto svg = client.Get((s + "/board.svg").c_str());
  ASSERT_TRUE(svg);
  EXPECT_THAT(svg->body, HasSubstr("class=\"beam\""));
  auto index = client.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_THAT(index->body, HasSubstr("<html"));
  Body(client.Get("/v1/nowhere"), 404);

  // SIGTERM with a long poll open: the poll answers 503 and khetd exits 0.
  const std::string version = Body(client.Get(s.c_str()), 200)["version"];
  auto open_poll = std::async(std::launch::async, [port, s, version] {
    httplib::Client other("127.0.0.1", port);
    other.set_read_timeout(30, 0);
    auto result = other.Get(
        (s + "/events?waitSeconds=25&afterVersion=" + version).c_str());
    return result ? result->status : -1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  khetd.process().Signal(SIGTERM);
  EXPECT_EQ(khetd.process().Wait(absl::Seconds(15)), 0) << khetd.log();
  EXPECT_EQ(open_poll.get(), 503);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  const std::string log = khetd.log();
  EXPECT_THAT(log, HasSubstr("http method=POST route=/v1/sessions/{id}:move "
                             "session=" +
                             id + " status=200 code=OK"));
  EXPECT_THAT(log, HasSubstr("status=404 code=NOT_FOUND"));
  EXPECT_THAT(log, HasSubstr("khetd: stopped"));
  for (const std::string& token : {owner, silver, red}) {
    EXPECT_THAT(log, Not(HasSubstr(token)));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
