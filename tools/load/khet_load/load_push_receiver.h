// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The receiving side of khet-load's pushed boards (`--boards=N --push`):
// one HTTP/1.1 server per simulated simulator host, listening on that
// host's source address (127.0.0.N) on a port of the kernel's choice and
// serving many boards' URLs as paths (/lslhttp/<object key>/), as an
// OpenSimulator region serves its objects' URLs. It takes each request
// whole, notes when it arrived, answers 200 at once (kept alive) and hands
// the request to `deliver`. The checks (signature, version order) are the
// boards'. Connections it accepts are spread over the io_contexts it is
// given (the client threads'), each connection's work on its own.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_RECEIVER_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_RECEIVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/steady_timer.hpp"

namespace khet::load {

// What a receiver counted; read after its io_contexts have stopped.
struct ReceiverCounts {
  std::atomic<int64_t> requests{0};     // answered 200
  std::atomic<int64_t> connections{0};  // accepted
  std::atomic<int64_t> bad{0};          // not a POST, or unreadable
};

class PushReceiver {
 public:
  // A request as it came: its target (path and query) and body, and when
  // its last byte had been read (steady clock, ns). Called on the thread
  // of the io_context the connection runs on.
  using Deliver = std::function<void(absl::string_view target, std::string body,
                                     int64_t arrival_ns)>;

  // Listens on `address`:0; the acceptor runs on `ios[0]`, connections
  // round-robin on `ios`. Everything given must outlive the receiver's
  // work (stop the io_contexts first).
  static absl::StatusOr<std::unique_ptr<PushReceiver>> Listen(
      const boost::asio::ip::address& address,
      std::vector<boost::asio::io_context*> ios, Deliver deliver);

  PushReceiver(const PushReceiver&) = delete;
  PushReceiver& operator=(const PushReceiver&) = delete;

  // The port it listens on.
  int port() const { return port_; }
  const ReceiverCounts& counts() const { return counts_; }

 private:
  PushReceiver(std::vector<boost::asio::io_context*> ios, Deliver deliver);
  void Accept();

  std::vector<boost::asio::io_context*> ios_;
  const Deliver deliver_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer pause_;  // after a failed accept
  size_t next_ = 0;
  int port_ = 0;
  ReceiverCounts counts_;
};

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_PUSH_RECEIVER_H_
