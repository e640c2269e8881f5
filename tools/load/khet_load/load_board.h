// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-load's boards mode, the boards themselves: a Board is one in-world
// board (a session with both seats taken that waits for its events and moves
// once per period), a ClientThread one event-driven thread with its share of
// the boards and the HTTP connections they share. Both run on the client
// thread's io_context only; what they count (Counts) is read by the main
// thread once that thread has stopped. The push mode's side of a board
// (registering its URL, checking what is pushed to it) is in
// load_board_push.cc.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_BOARD_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_BOARD_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/address.hpp"
#include "boost/asio/ip/address_v4.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "engine/game.h"
#include "tools/load/khet_load/load_boards.h"
#include "tools/load/khet_load/load_http_connection.h"

namespace khet::load::boards_internal {

namespace net = boost::asio;
using tcp = net::ip::tcp;

// The steady clock in nanoseconds: the boards' times.
inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The number after `"key":` (a JSON number or a quoted one) in a compact
// answer, the first such key; -1 if none.
int64_t NumberField(absl::string_view json, absl::string_view key);

// The string after `"key":"` in a compact answer; "" if none.
std::string StringField(absl::string_view json, absl::string_view key);

// What one client thread counted; read once its thread has stopped.
struct Counts {
  std::vector<int64_t> delivery_ns;  // acknowledged -> delivered, in window
  std::vector<int64_t> move_ns;      // a move's answer time, in window
  int64_t moves = 0;                 // acknowledged in the window
  int64_t delivered_first = 0;       // of those, delivered before the answer
  int64_t skipped = 0;      // periods with the last move not yet delivered
  int64_t undelivered = 0;  // acknowledged in the window, never delivered
  int64_t reconnects = 0;
  // Pushed deliveries (push mode), from set-up to the end.
  int64_t deliveries = 0;
  int64_t bad_signatures = 0;  // sig not secret + body + secret's SHA-256
  int64_t out_of_order = 0;    // an event at or below one delivered before
  int64_t gaps = 0;            // an event version skipped
  int64_t states = 0;          // the compact session instead of events
  std::map<std::string, int64_t> refusals;  // "move 429" -> count
  std::vector<std::string> errors;          // the first few, in words
  // A fault (BoardsOptions::fault): calls that failed while it lasted or
  // after it (connection failed, 502, 503, 504), retried rather than
  // refused; each board's time from the fault (its end, when it has one)
  // or its first such failure, the later, to its next call answered; the
  // moves sent again with their request id; boards still failing at the end.
  std::map<std::string, int64_t> outage;  // "poll 502" -> count
  std::vector<int64_t> recovery_ns;
  int64_t moves_sent_again = 0;
  int64_t unrecovered = 0;
  std::atomic<int> set_up{0};  // boards playing
};

// When the boards measure, in NowNs(); set by the main thread before any
// board is started, read by the client threads.
struct Window {
  std::atomic<int64_t> start{INT64_MAX};
  std::atomic<int64_t> end{INT64_MAX};
  // The fault's start and end (BoardsOptions::fault), once they came.
  std::atomic<int64_t> fault_start{INT64_MAX};
  std::atomic<int64_t> fault_end{INT64_MAX};
  bool Contains(int64_t ns) const {
    return ns >= start.load(std::memory_order_relaxed) &&
           ns <= end.load(std::memory_order_relaxed);
  }
  bool Over(int64_t ns) const {
    return ns > end.load(std::memory_order_relaxed);
  }
  bool FaultStarted(int64_t ns) const {
    return ns >= fault_start.load(std::memory_order_relaxed);
  }
};

class ClientThread;

// One board: set up, then waiting for events and moving, on its client
// thread.
class Board {
 public:
  Board(ClientThread& client, int index, int address);
  void Start() { Create(); }
  // A delivery khetd pushed to this board's URL, `target` its path and
  // query, `arrival_ns` when its server had read it whole; on the board's
  // client thread.
  void Pushed(absl::string_view target, absl::string_view body,
              int64_t arrival_ns);
  const std::string& object_key() const { return object_key_; }
  ClientThread& client() const { return client_; }
  // At the end: an acknowledged move in the window still not delivered.
  bool Undelivered(const Window& window) const {
    return awaiting_ && window.Contains(acked_ns_);
  }
  // At the end: its calls still failing since the fault.
  bool Unrecovered() const { return outage_since_ns_ != 0; }

 private:
  void Create();
  void Join(int color);
  void Register();
  void Playing();
  void Wait();
  void Polled(HttpAnswer answer);
  void StreamData(absl::string_view data);
  void StreamEnded(int status);
  // A compact events list ({"v":N,"events":[...]}, polled or pushed) or
  // the compact session: each event's version checked to follow the last
  // delivered one by one (gaps and versions out of order counted), then
  // delivered at `at_ns`.
  void TakeEvents(absl::string_view body, int64_t at_ns);
  // `version` reached the board at `at_ns`.
  void Delivered(int64_t version, int64_t at_ns);
  void ScheduleMove(double seconds);
  void Move();
  // Sends a move (again, with the same request id, after an outage);
  // `sent_ns` is when it was first sent.
  void SendMove(khet::Move move, std::string notation, int side,
                std::string body, int64_t sent_ns, bool again);
  void Rematch();
  // After a rematch whose answer a fault lost: reads the session to learn
  // whether the rematch was made, and takes its new game if it was.
  void Resync();
  // A rematch made: the seats swapped, a new game at the answer's version.
  void Rematched(absl::string_view answer);
  // Calls `again` on `timer` after the refusal's Retry-After (at least
  // 1 s), or at once after a failed connection, with a random share more.
  void Retry(net::steady_timer& timer, std::function<void()> again,
             const HttpAnswer& answer);
  // A failure of the fault's making: it started, and the connection
  // failed or a proxy found no server (502, 503, 504).
  bool Outage(const HttpAnswer& answer) const;
  // Counts a refusal or failure of `what` (an outage's apart); false if
  // `answer` is a 200, which ends the board's outage.
  bool Refused(absl::string_view what, const HttpAnswer& answer);
  std::string Headers(const std::string& token) const;
  LoadHttpConnection& Shared();

  ClientThread& client_;
  const int index_;
  const int address_;
  std::mt19937_64 random_;
  std::string object_key_, owner_key_;
  std::string id_, owner_token_;
  std::string secret_;     // push mode: the registration's
  std::string tokens_[2];  // silver, red
  std::unique_ptr<Game> game_;
  int64_t version_ = 0;      // the latest version answered or delivered
  int64_t delivered_ = 0;    // the latest version delivered to the board
  bool awaiting_ = false;    // a move acknowledged, its event not yet here
  bool rematching_ = false;  // a rematch asked for, not yet answered
  int64_t acked_version_ = 0;
  int64_t acked_ns_ = 0;
  int64_t moves_ = 0;
  std::shared_ptr<LoadHttpConnection> waiter_;
  std::string stream_line_;
  int64_t outage_since_ns_ = 0;  // its first failure since the fault
  net::steady_timer move_timer_;
  net::steady_timer wait_timer_;
  net::steady_timer move_retry_timer_;
};

// A client thread: an io_context with its boards and their connections.
class ClientThread {
 public:
  // Each board waits on (or registers its URL with) the khetd at
  // `wait_port`; every other call goes to the one at `call_port` (the same
  // khetd, or another replica on the same database).
  ClientThread(const BoardsOptions& options, const Window& window,
               int wait_port, int call_port, int number)
      : options_(options),
        window_(window),
        wait_server_(net::ip::make_address_v4("127.0.0.1"), wait_port),
        call_server_(net::ip::make_address_v4("127.0.0.1"), call_port),
        number_(number) {}

  Board* Add(int index, int address) {
    boards_.push_back(std::make_unique<Board>(*this, index, address));
    return boards_.back().get();
  }
  void Run() {
    net::post(io_, [this] { StartMore(); });
    io_.run();
  }
  // A board finished setting up (or gave up): the next one starts.
  void SetUpDone() {
    --setting_up_;
    StartMore();
  }
  void Stop() { io_.stop(); }
  // Push mode: the port of each client address's receiving server.
  void SetPushPorts(std::vector<int> ports) { push_ports_ = std::move(ports); }
  int PushPort(int address) const { return push_ports_.at(address); }
  // After Stop and the thread's end.
  void CountUndelivered() {
    for (const auto& board : boards_) {
      if (board->Undelivered(window_)) ++counts_.undelivered;
      if (board->Unrecovered()) ++counts_.unrecovered;
    }
  }

  net::io_context& io() { return io_; }
  const BoardsOptions& options() const { return options_; }
  const Window& window() const { return window_; }
  Counts& counts() { return counts_; }
  int number() const { return number_; }

  static net::ip::address Source(int address) {
    return net::ip::address_v4(0x7F000002u + static_cast<uint32_t>(address));
  }
  // A board's own connection, for its long poll or event stream.
  std::shared_ptr<LoadHttpConnection> NewConnection(int address) {
    return std::make_shared<LoadHttpConnection>(
        io_, wait_server_, Source(address), &counts_.reconnects);
  }
  // The least busy of the connections shared by the boards of `address`.
  LoadHttpConnection& Shared(int address) {
    std::vector<std::shared_ptr<LoadHttpConnection>>& pool = shared_[address];
    if (pool.empty()) {
      for (int i = 0; i < options_.shared_connections; ++i) {
        pool.push_back(std::make_shared<LoadHttpConnection>(
            io_, call_server_, Source(address), &counts_.reconnects));
      }
    }
    LoadHttpConnection* best = pool[0].get();
    for (const auto& connection : pool) {
      if (connection->pending() < best->pending()) best = connection.get();
    }
    return *best;
  }
  void Error(std::string what) {
    if (counts_.errors.size() < 5) counts_.errors.push_back(std::move(what));
  }

 private:
  // Boards set up at once per client thread: as boards are rezzed over
  // time, rather than every session created before any is joined.
  static constexpr int kSettingUpAtOnce = 32;

  void StartMore() {
    while (setting_up_ < kSettingUpAtOnce && started_ < boards_.size()) {
      ++setting_up_;
      boards_[started_++]->Start();
    }
  }

  const BoardsOptions& options_;
  const Window& window_;
  const tcp::endpoint wait_server_;
  const tcp::endpoint call_server_;
  const int number_;
  net::io_context io_;
  Counts counts_;
  std::map<int, std::vector<std::shared_ptr<LoadHttpConnection>>> shared_;
  std::vector<std::unique_ptr<Board>> boards_;
  std::vector<int> push_ports_;
  size_t started_ = 0;
  int setting_up_ = 0;
};

}  // namespace khet::load::boards_internal

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_BOARD_H_
