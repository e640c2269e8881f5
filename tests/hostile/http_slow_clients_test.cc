// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Clients that hold khetd's HTTP connections without finishing their
// requests, or keep them and come back: slow headers, slow bodies, kept
// connections, long polls and event streams abandoned. Others must still be
// served at once, SIGTERM must still end khetd in time, and an abandoned
// wait must free its place at once. Each test names the finding it guards.
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/hostile/hostile_test_base.h"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {
namespace {

using HttpSlowClientsTest = HostileTest;

// Clients driven from one thread, each from 127.0.0.(10 + i % 20):
// a third send a request line, then the headers one byte every 2 s; a
// third send headers announcing a 1000-byte body, then the body one byte
// every 2 s; a third send a whole GET every 1.5 s on a kept-alive
// connection. Whatever the server sends is read and dropped.
class SlowClients {
 public:
  SlowClients(int port, int count) {
    for (int i = 0; i < count; ++i) {
      absl::StatusOr<std::unique_ptr<RawConnection>> connection =
          RawConnection::Open(port, absl::StrCat("127.0.0.", 10 + i % 20));
      if (!connection.ok()) {
        ADD_FAILURE() << "slow client " << i << ": " << connection.status();
        continue;
      }
      // Each starts at once, as a real client would.
      Client client{std::move(*connection), i % 3, 0, absl::Now()};
      client.connection->Send(kStarts[client.kind]);
      clients_.push_back(std::move(client));
    }
    driver_ = std::thread([this] { Drive(); });
  }
  ~SlowClients() {
    stop_ = true;
    driver_.join();
  }

  size_t size() const { return clients_.size(); }

 private:
  enum Kind { kHeader = 0, kBody = 1, kKeptAlive = 2 };
  static constexpr const char* kStarts[] = {
      "GET /v1/setups HTTP/1.1\r\nHost: 127.0.0.1\r\n",
      "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Content-Length: 1000\r\n\r\n",
      ""};  // the kept-alive ones send their first GET at the first tick
  struct Client {
    std::unique_ptr<RawConnection> connection;
    int kind;
    size_t sent;  // bytes of the slow text sent so far
    absl::Time next;
  };

  void Drive() {
    const std::string header =
        absl::StrCat("GET /v1/setups HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",
                     std::string(1000, 'a'));
    const std::string body(1000, ' ');
    const std::string get = GetRequest("/v1/setups");
    char sink[4096];
    while (!stop_) {
      const absl::Time now = absl::Now();
      for (Client& client : clients_) {
        const int fd = client.connection->fd();
        while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
        }
        if (now < client.next) continue;
        if (client.kind == kKeptAlive) {
          client.connection->Send(get, absl::ZeroDuration());
          client.next = now + absl::Milliseconds(1500);
          continue;
        }
        const std::string& text = client.kind == kHeader ? header : body;
        if (client.sent < text.size()) {
          client.connection->Send(text.substr(client.sent++, 1),
                                  absl::ZeroDuration());
        }
        client.next = now + absl::Seconds(2);
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
  }

  std::vector<Client> clients_;
  std::atomic<bool> stop_{false};
  std::thread driver_;
};

// Finding: with 80 slow clients (a header byte every 2 s, slow bodies, a
// GET every 1.5 s on kept-alive connections), none of 14 other requests
// was answered within 1 s, and SIGTERM took 39 s. Now all 14 are answered
// within 5 s together, and SIGTERM ends khetd within its grace + 3 s.
TEST_F(HttpSlowClientsTest, SlowClientsStarveNobodyAndSigtermStillEndsKhetd) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--shutdown_grace_seconds=2"}));
  const std::string id = CreateSession();
  ASSERT_FALSE(id.empty());
  const std::string session = absl::StrCat("/v1/sessions/", id);
  std::optional<SlowClients> slow;
  slow.emplace(http_port(), 80);
  ASSERT_EQ(slow->size(), 80u);
  absl::SleepFor(absl::Milliseconds(2500));  // each has sent something

  const std::vector<std::string> requests = {
      GetRequest("/v1/setups"),
      GetRequest("/v1/levels"),
      GetRequest("/v1/colorSchemes"),
      GetRequest(session),
      GetRequest(session + "?view=compact"),
      GetRequest(session + "/legalMoves"),
      GetRequest(session + "/board"),
      GetRequest(session + "/board.svg"),
      GetRequest(session + "/events?afterVersion=0&waitSeconds=0"),
      GetRequest("/v1/sessions"),
      GetRequest("/"),
      PostRequest("/v1/sessions", R"({"name":"other"})"),
      PostRequest(session + ":join", R"({"playerName":"alice"})"),
      PostRequest(session + ":suggest?timeoutMs=200", "{}"),
  };
  const absl::Time start = absl::Now();
  for (const std::string& request : requests) {
    absl::StatusOr<RawResponse> answer =
        Exchange(request, "127.0.0.1", absl::Seconds(5));
    ASSERT_TRUE(answer.ok())
        << request.substr(0, request.find('\r')) << ": " << answer.status();
    EXPECT_EQ(answer->status, 200)
        << request.substr(0, request.find('\r')) << ": " << answer->body;
  }
  const absl::Duration took = absl::Now() - start;
  EXPECT_LT(took, absl::Seconds(5)) << "14 requests took " << took;

  // SIGTERM while the slow clients go on.
  const absl::Time stopping = absl::Now();
  khetd().process().Signal(SIGTERM);
  const std::optional<int> code = khetd().process().Wait(absl::Seconds(5));
  EXPECT_EQ(code, std::optional<int>(0))
      << "khetd still ran " << absl::Now() - stopping << " after SIGTERM";
  slow.reset();
}

// Finding: a second request on a kept-alive connection took about 44 ms
// (a response written in pieces met the client's delayed ACK: Nagle);
// the first took 0.5 ms. Nagle's delay meets every kept-alive request, so
// the fastest of 20 is under 20 ms unless it is back; the median and the
// slowest are printed (figures a loaded machine may slow).
TEST_F(HttpSlowClientsTest, KeptAliveRequestsAreAnsweredWithoutDelay) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  const std::string id = CreateSession();
  ASSERT_FALSE(id.empty());
  absl::StatusOr<std::unique_ptr<RawConnection>> connection =
      RawConnection::Open(http_port());
  ASSERT_TRUE(connection.ok()) << connection.status();
  std::vector<absl::Duration> took;
  for (int i = 0; i < 21; ++i) {
    const absl::Time start = absl::Now();
    ASSERT_TRUE(
        (*connection)->Send(GetRequest(absl::StrCat("/v1/sessions/", id))));
    absl::StatusOr<RawResponse> answer = (*connection)->Read(absl::Seconds(5));
    ASSERT_TRUE(answer.ok()) << "request " << i << ": " << answer.status();
    ASSERT_EQ(answer->status, 200);
    ASSERT_TRUE(answer->keep_alive);
    if (i > 0) took.push_back(absl::Now() - start);  // the kept-alive ones
  }
  std::sort(took.begin(), took.end());
  std::cout << "20 kept-alive requests: fastest " << took.front()
            << ", median " << took[took.size() / 2] << ", slowest "
            << took.back() << "\n";
  EXPECT_LT(took.front(), absl::Milliseconds(20))
      << "the fastest of 20 kept-alive requests";
}

// Sends a long poll that waits `wait_seconds` at most for the session's
// next event, after `version`.
std::string LongPoll(const std::string& id, const std::string& version,
                     int wait_seconds) {
  return GetRequest(absl::StrCat("/v1/sessions/", id, "/events?afterVersion=",
                                 version, "&waitSeconds=", wait_seconds));
}

// Finding: 64 long polls opened and abandoned kept their places until
// their waitSeconds ran out, so real polls got 429 for 21 s. A client that
// goes away frees its place at once: here 4 long polls and 4 event streams
// fill --http_max_waiting=8, a ninth wait is 429, and within 2 s of their
// clients closing a new poll is served.
TEST_F(HttpSlowClientsTest, AbandonedWaitsFreeTheirPlacesAtOnce) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--http_max_waiting=8"}));
  const std::string id = CreateSession();
  ASSERT_FALSE(id.empty());
  absl::StatusOr<RawResponse> got =
      Exchange(GetRequest(absl::StrCat("/v1/sessions/", id)));
  ASSERT_TRUE(got.ok()) << got.status();
  const nlohmann::json session =
      nlohmann::json::parse(got->body, nullptr, false);
  ASSERT_TRUE(session.is_object() && session["version"].is_string())
      << got->body;
  const std::string version = session["version"];

  // The long polls first, then the event streams, each stream's answer
  // awaited: by then the server has taken the polls, sent earlier.
  std::vector<std::unique_ptr<RawConnection>> waiting;
  for (int i = 0; i < 8; ++i) {
    absl::StatusOr<std::unique_ptr<RawConnection>> connection =
        RawConnection::Open(http_port());
    ASSERT_TRUE(connection.ok()) << connection.status();
    if (i < 4) {
      ASSERT_TRUE((*connection)->Send(LongPoll(id, version, 25)));
    } else {
      ASSERT_TRUE((*connection)
                      ->Send(GetRequest(absl::StrCat(
                          "/v1/sessions/", id,
                          "/events:stream?afterVersion=", version))));
      absl::StatusOr<RawResponse> head =
          (*connection)->ReadHead(absl::Seconds(5));
      ASSERT_TRUE(head.ok()) << head.status();
      ASSERT_EQ(head->status, 200) << "wait " << i;
    }
    waiting.push_back(std::move(*connection));
  }
  absl::SleepFor(absl::Milliseconds(200));
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<RawResponse> early = waiting[i]->Read(absl::ZeroDuration());
    ASSERT_TRUE(absl::IsDeadlineExceeded(early.status()))
        << "long poll " << i << " was answered: "
        << (early.ok() ? early->head : early.status().ToString());
  }
  absl::StatusOr<RawResponse> ninth = Exchange(LongPoll(id, version, 1));
  ASSERT_TRUE(ninth.ok()) << ninth.status();
  ASSERT_EQ(ninth->status, 429)
      << "eight waits should fill --http_max_waiting=8";

  waiting.clear();  // the eight clients go away
  const absl::Time gone = absl::Now();
  int status = 0;
  absl::Duration freed_after;
  while (absl::Now() - gone < absl::Seconds(10)) {
    freed_after = absl::Now() - gone;
    absl::StatusOr<RawResponse> answer = Exchange(LongPoll(id, version, 1));
    status = answer.ok() ? answer->status : -1;
    if (status == 200) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  // Freed within milliseconds on an idle machine; the figure is printed and
  // the bound is one only a leaked wait misses.
  std::cout << "the waits were freed " << freed_after
            << " after their clients went away\n";
  EXPECT_EQ(status, 200) << "a new poll was still refused 10 s after the "
                            "waiting clients went away";
}

// Found by khet-hostile: clients of long polls and event streams going
// away while khetd shuts down could crash it (SIGSEGV in
// WaitingRequests::Shutdown, a stream freed before its place was given
// back). 400 waits on 8 sessions, from 10 addresses, all dropped at the
// moment of SIGTERM: khetd exits 0 within its grace + 3 s, five times over.
TEST_F(HttpSlowClientsTest, SigtermWhileWaitingClientsGoAwayExitsCleanly) {
  for (int round = 0; round < 5; ++round) {
    ASSERT_NO_FATAL_FAILURE(StartKhetd({"--shutdown_grace_seconds=2"}));
    std::vector<std::pair<std::string, std::string>> sessions;  // id, version
    for (int i = 0; i < 8; ++i) {
      const std::string id = CreateSession();
      ASSERT_FALSE(id.empty());
      absl::StatusOr<RawResponse> got =
          Exchange(GetRequest(absl::StrCat("/v1/sessions/", id)));
      ASSERT_TRUE(got.ok()) << got.status();
      const nlohmann::json session =
          nlohmann::json::parse(got->body, nullptr, false);
      ASSERT_TRUE(session.is_object() && session["version"].is_string());
      sessions.emplace_back(id, session["version"]);
    }
    std::vector<std::unique_ptr<RawConnection>> waiting;
    for (int i = 0; i < 400; ++i) {
      const auto& [id, version] = sessions[i % sessions.size()];
      absl::StatusOr<std::unique_ptr<RawConnection>> connection =
          RawConnection::Open(http_port(),
                              absl::StrCat("127.0.0.", 20 + i % 10));
      ASSERT_TRUE(connection.ok()) << connection.status();
      ASSERT_TRUE(
          (*connection)
              ->Send(i % 2 == 0
                         ? LongPoll(id, version, 25)
                         : GetRequest(absl::StrCat(
                               "/v1/sessions/", id,
                               "/events:stream?afterVersion=", version))));
      waiting.push_back(std::move(*connection));
    }
    for (int i = 1; i < 400; i += 2) {  // the streams have begun
      absl::StatusOr<RawResponse> head = waiting[i]->ReadHead(absl::Seconds(5));
      ASSERT_TRUE(head.ok()) << head.status();
      ASSERT_EQ(head->status, 200);
    }
    waiting.clear();
    khetd().process().Signal(SIGTERM);
    const std::optional<int> code = khetd().process().Wait(absl::Seconds(5));
    ASSERT_EQ(code, std::optional<int>(0)) << "round " << round;
  }
}

}  // namespace
}  // namespace khet::hostile
