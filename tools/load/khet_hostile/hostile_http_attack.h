// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The HTTP half of khet-hostile's attack: slow-header, idle kept-alive,
// waiting (long polls and event streams), multi-range and header-flood
// connections from many loopback addresses, all on one thread's event loop;
// and what khetd answered them.
#ifndef KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_HTTP_ATTACK_H_
#define KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_HTTP_ATTACK_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "boost/asio/awaitable.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"

namespace khet::hostile {

// The HTTP attackers, all on one thread's event loop. Each kind of attacker
// starts over when khetd refuses or ends its connection.
class HttpAttack {
 public:
  struct Options {
    // Connections that send a request line, then a header byte every 2 s.
    int slow_headers = 1000;
    // Kept-alive connections idle after one request.
    int idle_connections = 500;
    // Open waits on the quiet sessions: half long polls, half event streams.
    int waiters = 1000;
    // Clients repeating a request for a web board file with 1500 ranges.
    int range_clients = 4;
    // Clients repeating a request with endless tiny headers.
    int flood_clients = 4;
    // The most one header-flood request sends, unless khetd answers or stops
    // reading first.
    int64_t flood_bytes = 10'000'000;
    // Pause between two multi-range or two header-flood requests of one
    // client.
    absl::Duration attack_pause = absl::Milliseconds(50);
    // Loopback addresses the attack comes from: 127.0.0.2 and up.
    int sources = 100;
    // The connections open at random times within the first half of this.
    double ramp_seconds = 5;
  };

  // An attack on khetd's HTTP `port`; the waiters wait on `quiet` sessions
  // (id and version), 50 at most on each. REQUIRES: `quiet` is not empty
  // if options.waiters > 0; options.sources >= 1.
  HttpAttack(const Options& options, int port,
             std::vector<std::pair<std::string, int64_t>> quiet);
  HttpAttack(const HttpAttack&) = delete;
  HttpAttack& operator=(const HttpAttack&) = delete;

  // Starts every attacker on the attack's own thread.
  void Start();

  // Ends the attack: every connection is dropped. REQUIRES: Start was
  // called.
  void Stop();

  // Prints what khetd did with each kind of attack connection.
  // REQUIRES: the attack is stopped.
  void Print() const;

  // Requests ended by a reset or a close with no status line.
  int64_t Unclean() const;
  // The largest body of an answer to a multi-range request.
  int64_t LargestRangeAnswer() const { return range_.largest_body; }
  // The size of the whole web board file, for Print.
  void set_whole_file_bytes(int64_t bytes) { whole_file_bytes_ = bytes; }

 private:
  template <typename T>
  using awaitable = boost::asio::awaitable<T>;
  using tcp = boost::asio::ip::tcp;
  using Socket = std::shared_ptr<tcp::socket>;

  // What khetd did with one kind of attack connection.
  struct Outcomes {
    int64_t connections = 0;
    int64_t connect_failures = 0;
    std::map<int, int64_t> statuses;  // answers by status
    int64_t resets = 0;               // reset while a request was pending
    int64_t silent_closes = 0;        // closed while a request was pending
    int64_t idle_ends = 0;   // ended with nothing pending (idle, a stream)
    int64_t unanswered = 0;  // given up on 5 s after its last byte
    int64_t largest_body = 0;

    // Answers with a status of 400 or more.
    int64_t Refused() const;
  };

  // One answer read from an attack connection.
  struct Answer {
    int status = 0;  // 0: the connection ended before a status line
    int64_t body_bytes = 0;
    bool keep_alive = false;
    bool reset = false;  // it ended by a reset, not in order
  };

  // Waits `duration` on the event loop.
  awaitable<void> Sleep(absl::Duration duration);

  // A random wait in the first half of the ramp, so that the connections
  // do not all open at once.
  awaitable<void> Stagger();

  // A connection from 127.0.0.(2 + index % sources); nullptr if it fails.
  awaitable<Socket> Connect(int index, Outcomes& outcomes);

  // Writes `bytes`; false if the connection is gone.
  awaitable<bool> Write(tcp::socket& socket, absl::string_view bytes);

  // Reads one answer after what *buffer holds: the status line and headers,
  // then (unless `head_only`) the body by Content-Length or to the end,
  // counted but not kept.
  awaitable<Answer> Read(tcp::socket& socket, std::string* buffer,
                         bool head_only);

  // Reads and drops what comes until the connection ends.
  awaitable<void> DrainUntilEnd(tcp::socket& socket);

  // Counts an answer to a pending request; true if it was a refusal or the
  // end of the connection (the caller then starts over after a pause).
  static bool Record(Outcomes& outcomes, const Answer& answer);

  // Sends one byte of `text` every 2 s until *done.
  awaitable<void> Trickle(Socket socket, std::shared_ptr<bool> done,
                          std::string text);

  // A request line, then a header byte every 2 s, until khetd answers or
  // ends the connection; then again.
  awaitable<void> SlowHeader(int index);

  // One GET, then idle until khetd closes the connection; then again.
  awaitable<void> IdleKeptAlive(int index);

  // Even indexes: long polls on a quiet session, one after another on a
  // kept-alive connection; odd: an event stream held open.
  awaitable<void> Waiter(int index);

  // A web board file with 1500 ranges, again and again.
  awaitable<void> MultiRange(int index);

  // Reads the answer to a flood, then sets *done.
  awaitable<void> ReadFloodAnswer(Socket socket, std::shared_ptr<bool> done,
                                  std::shared_ptr<Answer> answer);

  // A request line, then tiny headers until khetd answers, stops reading or
  // flood_bytes are sent; then again.
  awaitable<void> HeaderFlood(int index);

  const Options options_;
  const tcp::endpoint server_;
  const std::vector<std::pair<std::string, int64_t>> quiet_;
  boost::asio::io_context io_;
  std::thread thread_;
  std::mt19937_64 random_{7};
  Outcomes slow_, idle_, waiting_, range_, flood_;
  int64_t whole_file_bytes_ = 0;
};

}  // namespace khet::hostile

#endif  // KHET_TOOLS_LOAD_KHET_HOSTILE_HOSTILE_HTTP_ATTACK_H_
