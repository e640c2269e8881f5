// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Hostile single requests against khetd's HTTP server: many ranges,
// header floods, oversized and endless headers and bodies, and a POST with
// neither body nor length. Each test names the finding it guards.
#include <poll.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/hostile/hostile_test_base.h"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {
namespace {

constexpr int64_t kMiB = 1 << 20;

using HttpRequestLimitsTest = HostileTest;

// "Range: bytes=0-,0-,..." with `count` ranges, each the whole body.
std::string ManyRanges(int count) {
  return absl::StrCat("Range: bytes=",
                      absl::StrJoin(std::vector<std::string>(count, "0-"), ","),
                      "\r\n");
}

// Writes `text` one byte every `interval` until the server answers or ends
// the connection, or `text` runs out; how long that took.
absl::Duration Trickle(RawConnection& connection, absl::string_view text,
                       absl::Duration interval) {
  const absl::Time start = absl::Now();
  for (const char c : text) {
    if (!connection.Send(absl::string_view(&c, 1))) break;
    pollfd p{connection.fd(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(interval))) !=
        0) {
      break;
    }
  }
  return absl::Now() - start;
}

// Finding: a 4.5 KB request with many ranges got a 653 MB multipart
// answer, and four at once took khetd to 3.5 GB. No answer may be larger
// than the whole body; API routes ignore Range.
TEST_F(HttpRequestLimitsTest, ManyRangesGetNoLargerAnswerThanTheWholeBody) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  const std::string id = CreateSession();
  ASSERT_FALSE(id.empty());
  const std::string ranges = ManyRanges(1500);
  ASSERT_GT(ranges.size(), 4000u);
  for (const std::string& path :
       {std::string("/v1/setups"), absl::StrCat("/v1/sessions/", id)}) {
    absl::StatusOr<RawResponse> whole = Exchange(GetRequest(path));
    ASSERT_TRUE(whole.ok()) << whole.status();
    ASSERT_EQ(whole->status, 200);
    absl::StatusOr<RawResponse> ranged =
        Exchange(GetRequest(path, ranges), "", absl::Seconds(30));
    ASSERT_TRUE(ranged.ok()) << path << ": " << ranged.status();
    EXPECT_EQ(ranged->status, 200) << path;
    EXPECT_EQ(ranged->body_bytes, whole->body_bytes) << path;
    EXPECT_TRUE(ranged->body == whole->body)
        << path << " answered: " << ranged->body.substr(0, 300);
  }

  // A file of the web board, four at once: whatever the answer (the whole
  // file, one range or a refusal), never more than the file, never
  // multipart, and khetd's memory stays put.
  absl::StatusOr<RawResponse> file = Exchange(GetRequest("/game.js"));
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->status, 200);
  const int64_t rss_before = ResidentBytes();
  std::vector<absl::StatusOr<RawResponse>> answers(4);
  std::vector<std::thread> clients;
  for (auto& answer : answers) {
    clients.emplace_back([&] {
      answer = Exchange(GetRequest("/game.js", ranges), "", absl::Seconds(30));
    });
  }
  for (std::thread& client : clients) client.join();
  for (const auto& answer : answers) {
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_LE(answer->body_bytes, file->body_bytes) << answer->head;
    EXPECT_FALSE(absl::StartsWith(answer->Header("Content-Type"), "multipart/"))
        << answer->head;
  }
  EXPECT_LT(ResidentBytes() - rss_before, 50 * kMiB);
}

// Finding: 2,000,000 tiny headers on each of 8 connections took khetd from
// 142 MB to 1.85 GB, never given back; there was no limit on the headers.
// Now it stops reading at its limit and answers 431.
TEST_F(HttpRequestLimitsTest,
       HeaderFloodIsRefusedWith431AndMemoryStaysBounded) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  const int64_t rss_before = ResidentBytes();
  std::atomic<bool> flooding{true};
  std::atomic<int64_t> rss_peak{rss_before};
  std::thread sampler([&] {
    while (flooding) {
      const int64_t rss = ResidentBytes();
      if (rss > rss_peak) rss_peak = rss;
      absl::SleepFor(absl::Milliseconds(20));
    }
  });
  std::string chunk;
  for (int i = 0; i < 1000; ++i) chunk += "a:b\r\n";
  constexpr int kConnections = 8;
  constexpr int64_t kHeaders = 2'000'000;
  std::vector<int> statuses(kConnections, 0);
  std::vector<int64_t> sent(kConnections, 0);
  std::vector<std::string> errors(kConnections);
  std::vector<std::thread> flooders;
  for (int i = 0; i < kConnections; ++i) {
    flooders.emplace_back([&, i] {
      absl::StatusOr<std::unique_ptr<RawConnection>> connection =
          RawConnection::Open(http_port());
      if (!connection.ok()) {
        errors[i] = connection.status().ToString();
        return;
      }
      (*connection)->Send("GET /v1/setups HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      sent[i] = (*connection)->Flood(chunk, kHeaders * 5);
      absl::StatusOr<RawResponse> answer =
          (*connection)->Read(absl::Seconds(10));
      if (answer.ok()) {
        statuses[i] = answer->status;
      } else {
        errors[i] = answer.status().ToString();
      }
    });
  }
  for (std::thread& flooder : flooders) flooder.join();
  flooding = false;
  sampler.join();
  for (int i = 0; i < kConnections; ++i) {
    EXPECT_EQ(statuses[i], 431)
        << "connection " << i << " sent " << sent[i] << " bytes; " << errors[i];
  }
  EXPECT_LT(rss_peak - rss_before, 50 * kMiB)
      << "peak " << rss_peak / kMiB << " MiB";
  EXPECT_LT(ResidentBytes() - rss_before, 50 * kMiB);
  // khetd still serves.
  absl::StatusOr<RawResponse> after = Exchange(GetRequest("/v1/setups"));
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->status, 200);
}

// Finding (no limit on the number of headers): up to 100 are served, one
// more is 431.
TEST_F(HttpRequestLimitsTest, MoreThanTheHeaderCountIs431) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  auto headers = [](int count) {  // besides Host
    std::string text;
    for (int i = 0; i < count; ++i) absl::StrAppend(&text, "X-H", i, ": v\r\n");
    return text;
  };
  absl::StatusOr<RawResponse> hundred =
      Exchange(GetRequest("/v1/setups", headers(99)));
  ASSERT_TRUE(hundred.ok()) << hundred.status();
  EXPECT_EQ(hundred->status, 200);
  absl::StatusOr<RawResponse> more =
      Exchange(GetRequest("/v1/setups", headers(100)));
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_EQ(more->status, 431);
}

// Finding (no limit on the headers): the request line and headers may take
// 16 KiB together; beyond, 431.
TEST_F(HttpRequestLimitsTest, HeadersOverTheByteLimitAre431) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  absl::StatusOr<RawResponse> fits = Exchange(GetRequest(
      "/v1/setups", absl::StrCat("X-Big: ", std::string(15000, 'a'), "\r\n")));
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(fits->status, 200);
  absl::StatusOr<RawResponse> big = Exchange(GetRequest(
      "/v1/setups", absl::StrCat("X-Big: ", std::string(17000, 'a'), "\r\n")));
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->status, 431);
}

// Finding: a POST with no body and no Content-Length waited 5 s, then got
// 400. It has an empty body ("{}"), answered at once: ResetGame needs
// nothing more than the owner's token; CreateSession is refused for its
// missing name, not for a missing body.
TEST_F(HttpRequestLimitsTest, PostWithoutBodyOrLengthIsAnEmptyBody) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  absl::StatusOr<RawResponse> created =
      Exchange(PostRequest("/v1/sessions", R"({"name":"empty"})"));
  ASSERT_TRUE(created.ok()) << created.status();
  const nlohmann::json session =
      nlohmann::json::parse(created->body, nullptr, false);
  ASSERT_TRUE(session.is_object() && session["ownerToken"].is_string())
      << created->body;
  const std::string id = session["session"]["id"];
  const std::string owner = session["ownerToken"];

  const absl::Time start = absl::Now();
  absl::StatusOr<RawResponse> reset = Exchange(absl::StrCat(
      "POST /v1/sessions/", id, ":reset HTTP/1.1\r\nHost: 127.0.0.1\r\n",
      "X-Khet-Token: ", owner, "\r\n\r\n"));
  ASSERT_TRUE(reset.ok()) << reset.status();
  EXPECT_EQ(reset->status, 200) << reset->body;
  // An empty create is an empty request: a board with the default setup,
  // named after it.
  absl::StatusOr<RawResponse> unnamed =
      Exchange("POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(unnamed.ok()) << unnamed.status();
  EXPECT_EQ(unnamed->status, 200) << unnamed->body;
  const nlohmann::json made =
      nlohmann::json::parse(unnamed->body, nullptr, false);
  ASSERT_TRUE(made.is_object()) << unnamed->body;
  EXPECT_EQ(made["session"]["name"], "Classic 2 game") << unnamed->body;
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
}

// A body over --max_message_bytes is 413 as soon as its length is known:
// the server does not read the rest (here it could not: 100 MB are
// announced and at most 8 MB sent).
TEST_F(HttpRequestLimitsTest, BodyOverTheLimitIs413WithoutReadingTheRest) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--max_message_bytes=4096"}));
  const std::string filler(64 * 1024, ' ');
  for (const std::string& head :
       {std::string("Content-Length: 100000000\r\n\r\n"),
        std::string("Transfer-Encoding: chunked\r\n\r\n5f5e100\r\n")}) {
    absl::StatusOr<std::unique_ptr<RawConnection>> connection =
        RawConnection::Open(http_port());
    ASSERT_TRUE(connection.ok()) << connection.status();
    ASSERT_TRUE((*connection)
                    ->Send(absl::StrCat(
                        "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                        head, "{\"name\":\"")));
    const int64_t sent = (*connection)->Flood(filler, 8 * kMiB);
    absl::StatusOr<RawResponse> answer = (*connection)->Read(absl::Seconds(5));
    ASSERT_TRUE(answer.ok()) << head << ": " << answer.status();
    EXPECT_EQ(answer->status, 413) << head;
    EXPECT_LT(sent, 8 * kMiB) << head;
    EXPECT_NE((*connection)->WaitForEnd(absl::Seconds(5)), Ending::kOpen)
        << head << ": the connection should end after a 413";
  }
}

// Finding (slow clients hold the server): headers not complete within
// --http_header_timeout_seconds are 408 and the connection ends, however
// steadily the bytes trickle in.
TEST_F(HttpRequestLimitsTest, HeadersNotCompleteInTimeAre408) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--http_header_timeout_seconds=1"}));
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(http_port());
  ASSERT_TRUE(connection.ok()) << connection.status();
  const absl::Duration took =
      Trickle(**connection,
              absl::StrCat("GET /v1/setups HTTP/1.1\r\nX-Slow: ",
                           std::string(100, 'a')),
              absl::Milliseconds(100));
  EXPECT_LT(took, absl::Seconds(4));
  absl::StatusOr<RawResponse> answer = (*connection)->Read(absl::Seconds(3));
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->status, 408);
  EXPECT_NE((*connection)->WaitForEnd(absl::Seconds(3)), Ending::kOpen);
}

// Finding (slow bodies hold the server): a body not complete within
// --http_body_timeout_seconds is 408 and the connection ends.
TEST_F(HttpRequestLimitsTest, BodyNotCompleteInTimeIs408) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--http_body_timeout_seconds=1"}));
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(http_port());
  ASSERT_TRUE(connection.ok()) << connection.status();
  ASSERT_TRUE((*connection)
                  ->Send("POST /v1/sessions HTTP/1.1\r\nHost: "
                         "127.0.0.1\r\nContent-Length: "
                         "1000\r\n\r\n"));
  const absl::Duration took =
      Trickle(**connection, std::string(100, ' '), absl::Milliseconds(100));
  EXPECT_LT(took, absl::Seconds(4));
  absl::StatusOr<RawResponse> answer = (*connection)->Read(absl::Seconds(3));
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->status, 408);
  EXPECT_NE((*connection)->WaitForEnd(absl::Seconds(3)), Ending::kOpen);
}

// Finding (idle kept-alive connections hold the server): one idle for
// --http_idle_timeout_seconds is closed in order.
TEST_F(HttpRequestLimitsTest, IdleKeptAliveConnectionIsClosed) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--http_idle_timeout_seconds=1"}));
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(http_port());
  ASSERT_TRUE(connection.ok()) << connection.status();
  ASSERT_TRUE((*connection)->Send(GetRequest("/v1/setups")));
  absl::StatusOr<RawResponse> answer = (*connection)->Read(absl::Seconds(5));
  ASSERT_TRUE(answer.ok()) << answer.status();
  ASSERT_EQ(answer->status, 200);
  ASSERT_TRUE(answer->keep_alive);
  const absl::Time start = absl::Now();
  EXPECT_EQ((*connection)->WaitForEnd(absl::Seconds(4)), Ending::kClosed);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(500));
}

}  // namespace
}  // namespace khet::hostile
