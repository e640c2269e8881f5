// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_hostile/hostile_http_attack.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "boost/asio/co_spawn.hpp"
#include "boost/asio/detached.hpp"
#include "boost/asio/redirect_error.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/use_awaitable.hpp"
#include "boost/asio/write.hpp"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {

namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;

int64_t HttpAttack::Outcomes::Refused() const {
  int64_t n = 0;
  for (const auto& [status, count] : statuses) n += status >= 400 ? count : 0;
  return n;
}

HttpAttack::HttpAttack(const Options& options, int port,
                       std::vector<std::pair<std::string, int64_t>> quiet)
    : options_(options),
      server_(asio::ip::address_v4::loopback(), static_cast<uint16_t>(port)),
      quiet_(std::move(quiet)) {}

void HttpAttack::Start() {
  using Attacker = awaitable<void> (HttpAttack::*)(int);
  const std::pair<int, Attacker> kinds[] = {
      {options_.slow_headers, &HttpAttack::SlowHeader},
      {options_.idle_connections, &HttpAttack::IdleKeptAlive},
      {options_.waiters, &HttpAttack::Waiter},
      {options_.range_clients, &HttpAttack::MultiRange},
      {options_.flood_clients, &HttpAttack::HeaderFlood}};
  int index = 0;
  for (const auto& [count, attacker] : kinds) {
    for (int i = 0; i < count; ++i, ++index) {
      asio::co_spawn(io_, (this->*attacker)(index), asio::detached);
    }
  }
  thread_ = std::thread([this] { io_.run(); });
}

void HttpAttack::Stop() {
  io_.stop();
  thread_.join();
}

void HttpAttack::Print() const {
  std::printf("  %-22s %8s %8s %8s %8s %9s %8s  %s\n", "attack connections",
              "opened", "refused", "resets", "silent", "no answer", "idle end",
              "answers by status");
  const std::pair<const char*, const Outcomes*> rows[] = {
      {"slow headers", &slow_},
      {"idle kept-alive", &idle_},
      {"long polls, streams", &waiting_},
      {"multi-range", &range_},
      {"header flood", &flood_}};
  for (const auto& [name, o] : rows) {
    std::vector<std::string> statuses;
    for (const auto& [status, count] : o->statuses) {
      statuses.push_back(absl::StrCat(status, ": ", count));
    }
    std::printf("  %-22s %8lld %8lld %8lld %8lld %9lld %8lld  %s\n", name,
                static_cast<long long>(o->connections),
                static_cast<long long>(o->Refused()),
                static_cast<long long>(o->resets),
                static_cast<long long>(o->silent_closes),
                static_cast<long long>(o->unanswered),
                static_cast<long long>(o->idle_ends),
                absl::StrJoin(statuses, ", ").c_str());
  }
  std::printf(
      "  (refused: answers >= 400; resets and silent: ended by a reset or a "
      "close with a request pending and no status line; no answer: a "
      "flood neither answered nor closed 5 s after its last byte)\n");
  std::printf("  largest multi-range answer: %lld bytes (the file: %lld)\n",
              static_cast<long long>(range_.largest_body),
              static_cast<long long>(whole_file_bytes_));
}

int64_t HttpAttack::Unclean() const {
  int64_t n = 0;
  for (const Outcomes* o : {&slow_, &idle_, &waiting_, &range_, &flood_}) {
    n += o->resets + o->silent_closes;
  }
  return n;
}

awaitable<void> HttpAttack::Sleep(absl::Duration duration) {
  asio::steady_timer timer(io_, absl::ToChronoNanoseconds(duration));
  boost::system::error_code ignored;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
}

awaitable<void> HttpAttack::Stagger() {
  std::uniform_real_distribution<double> within(0, options_.ramp_seconds / 2);
  co_await Sleep(absl::Seconds(within(random_)));
}

awaitable<HttpAttack::Socket> HttpAttack::Connect(int index,
                                                  Outcomes& outcomes) {
  auto socket = std::make_shared<tcp::socket>(io_);
  boost::system::error_code error;
  socket->open(tcp::v4(), error);
  if (!error) {
    const int one = 1;
    setsockopt(socket->native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT,
               &one, sizeof one);
    const uint32_t source =
        0x7f000002u + static_cast<uint32_t>(index % options_.sources);
    socket->bind(tcp::endpoint(asio::ip::address_v4(source), 0), error);
  }
  if (!error) {
    co_await socket->async_connect(
        server_, asio::redirect_error(asio::use_awaitable, error));
  }
  if (error) {
    ++outcomes.connect_failures;
    co_return nullptr;
  }
  socket->set_option(tcp::no_delay(true), error);
  ++outcomes.connections;
  co_return socket;
}

awaitable<bool> HttpAttack::Write(tcp::socket& socket,
                                  absl::string_view bytes) {
  boost::system::error_code error;
  co_await asio::async_write(socket, asio::buffer(bytes.data(), bytes.size()),
                             asio::redirect_error(asio::use_awaitable, error));
  co_return !error;
}

awaitable<HttpAttack::Answer> HttpAttack::Read(tcp::socket& socket,
                                               std::string* buffer,
                                               bool head_only) {
  Answer answer;
  char chunk[16384];
  boost::system::error_code error;
  size_t end = buffer->find("\r\n\r\n");
  while (end == std::string::npos) {
    const size_t n = co_await socket.async_read_some(
        asio::buffer(chunk), asio::redirect_error(asio::use_awaitable, error));
    if (error) {
      answer.reset = error != asio::error::eof;
      co_return answer;
    }
    buffer->append(chunk, n);
    end = buffer->find("\r\n\r\n");
  }
  const std::string head = buffer->substr(0, end);
  buffer->erase(0, end + 4);
  const std::vector<std::string> words =
      absl::StrSplit(head.substr(0, head.find("\r\n")), ' ');
  if (words.size() < 2 || !absl::SimpleAtoi(words[1], &answer.status)) {
    answer.status = 0;
    co_return answer;
  }
  int64_t length = -1;
  answer.keep_alive = true;
  for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    const absl::string_view name = line.substr(0, colon);
    const absl::string_view value =
        absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (absl::EqualsIgnoreCase(name, "Content-Length")) {
      if (!absl::SimpleAtoi(value, &length)) length = -1;
    } else if (absl::EqualsIgnoreCase(name, "Connection") &&
               absl::EqualsIgnoreCase(value, "close")) {
      answer.keep_alive = false;
    }
  }
  if (head_only) co_return answer;
  if (length < 0) answer.keep_alive = false;  // the body ends at the close
  while (length < 0 || answer.body_bytes < length) {
    if (buffer->empty()) {
      const size_t n = co_await socket.async_read_some(
          asio::buffer(chunk),
          asio::redirect_error(asio::use_awaitable, error));
      if (error) break;
      buffer->append(chunk, n);
    }
    const int64_t take =
        length < 0
            ? static_cast<int64_t>(buffer->size())
            : std::min<int64_t>(buffer->size(), length - answer.body_bytes);
    answer.body_bytes += take;
    buffer->erase(0, static_cast<size_t>(take));
  }
  co_return answer;
}

awaitable<void> HttpAttack::DrainUntilEnd(tcp::socket& socket) {
  char chunk[16384];
  boost::system::error_code error;
  while (!error) {
    co_await socket.async_read_some(
        asio::buffer(chunk), asio::redirect_error(asio::use_awaitable, error));
  }
}

bool HttpAttack::Record(Outcomes& outcomes, const Answer& answer) {
  if (answer.status == 0) {
    ++(answer.reset ? outcomes.resets : outcomes.silent_closes);
    return true;
  }
  ++outcomes.statuses[answer.status];
  outcomes.largest_body = std::max(outcomes.largest_body, answer.body_bytes);
  return answer.status >= 400 || !answer.keep_alive;
}

awaitable<void> HttpAttack::Trickle(Socket socket, std::shared_ptr<bool> done,
                                    std::string text) {
  asio::steady_timer timer(io_);
  for (size_t i = 0; i < text.size() && !*done; ++i) {
    timer.expires_after(std::chrono::seconds(2));
    boost::system::error_code error;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, error));
    if (*done) break;
    const absl::string_view byte = absl::string_view(text).substr(i, 1);
    const bool sent = co_await Write(*socket, byte);
    if (!sent) break;
  }
}

awaitable<void> HttpAttack::SlowHeader(int index) {
  co_await Stagger();
  const std::string slow = absl::StrCat("X-Slow: ", std::string(4000, 'a'));
  while (true) {
    Socket socket = co_await Connect(index, slow_);
    if (socket == nullptr) {
      co_await Sleep(absl::Seconds(1));
      continue;
    }
    co_await Write(*socket, "GET /v1/setups HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    auto done = std::make_shared<bool>(false);
    asio::co_spawn(io_, Trickle(socket, done, slow), asio::detached);
    std::string buffer;
    const Answer answer = co_await Read(*socket, &buffer, /*head_only=*/true);
    *done = true;
    Record(slow_, answer);
    boost::system::error_code ignored;
    socket->close(ignored);
    co_await Sleep(answer.status >= 400 && answer.status != 408
                       ? absl::Seconds(1)
                       : absl::Milliseconds(100));
  }
}

awaitable<void> HttpAttack::IdleKeptAlive(int index) {
  co_await Stagger();
  while (true) {
    Socket socket = co_await Connect(index, idle_);
    if (socket == nullptr) {
      co_await Sleep(absl::Seconds(1));
      continue;
    }
    co_await Write(*socket, GetRequest("/v1/setups"));
    std::string buffer;
    const Answer answer = co_await Read(*socket, &buffer, false);
    if (!Record(idle_, answer)) {
      co_await DrainUntilEnd(*socket);  // until khetd ends it
      ++idle_.idle_ends;
    } else {
      co_await Sleep(absl::Seconds(1));
    }
  }
}

awaitable<void> HttpAttack::Waiter(int index) {
  co_await Stagger();
  const auto& [id, version] = quiet_[index % quiet_.size()];
  const std::string events = absl::StrCat("/v1/sessions/", id, "/events");
  const std::string request =
      index % 2 == 0
          ? GetRequest(absl::StrCat(events, "?afterVersion=", version,
                                    "&waitSeconds=25"))
          : GetRequest(absl::StrCat(events, ":stream?afterVersion=", version));
  while (true) {
    Socket socket = co_await Connect(index, waiting_);
    if (socket == nullptr) {
      co_await Sleep(absl::Seconds(1));
      continue;
    }
    std::string buffer;
    bool refused = false;
    while (!refused) {
      co_await Write(*socket, request);
      const bool stream = index % 2 == 1;
      const Answer answer = co_await Read(*socket, &buffer, stream);
      refused = Record(waiting_, answer);
      if (stream && !refused) {
        co_await DrainUntilEnd(*socket);  // held until it ends
        ++waiting_.idle_ends;
        break;
      }
    }
    co_await Sleep(absl::Seconds(1));
  }
}

awaitable<void> HttpAttack::MultiRange(int index) {
  co_await Stagger();
  std::vector<std::string> ranges(1500, "0-");
  const std::string request = GetRequest(
      "/game.js",
      absl::StrCat("Range: bytes=", absl::StrJoin(ranges, ","), "\r\n"));
  while (true) {
    Socket socket = co_await Connect(index, range_);
    if (socket == nullptr) {
      co_await Sleep(absl::Seconds(1));
      continue;
    }
    std::string buffer;
    bool again = true;
    while (again) {
      co_await Write(*socket, request);
      const Answer answer = co_await Read(*socket, &buffer, false);
      again = !Record(range_, answer);
      co_await Sleep(options_.attack_pause);
    }
  }
}

awaitable<void> HttpAttack::ReadFloodAnswer(Socket socket,
                                            std::shared_ptr<bool> done,
                                            std::shared_ptr<Answer> answer) {
  std::string buffer;
  *answer = co_await Read(*socket, &buffer, true);
  *done = true;
}

awaitable<void> HttpAttack::HeaderFlood(int index) {
  co_await Stagger();
  std::string chunk;
  for (int i = 0; i < 1000; ++i) chunk += "a:b\r\n";
  while (true) {
    Socket socket = co_await Connect(index, flood_);
    if (socket == nullptr) {
      co_await Sleep(absl::Seconds(1));
      continue;
    }
    auto done = std::make_shared<bool>(false);
    auto answer = std::make_shared<Answer>();
    asio::co_spawn(io_, ReadFloodAnswer(socket, done, answer), asio::detached);
    bool sent = co_await Write(
        *socket, "GET /v1/setups HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (int64_t bytes = 0; sent && !*done && bytes < options_.flood_bytes;
         bytes += static_cast<int64_t>(chunk.size())) {
      sent = co_await Write(*socket, chunk);
    }
    // The answer, if any, follows soon after khetd stops reading.
    for (int i = 0; i < 100 && !*done; ++i) {
      co_await Sleep(absl::Milliseconds(50));
    }
    if (*done) {
      Record(flood_, *answer);
    } else {
      ++flood_.unanswered;
    }
    boost::system::error_code ignored;
    socket->close(ignored);
    co_await Sleep(options_.attack_pause);
  }
}

}  // namespace khet::hostile
