// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// One kept-alive HTTP/1.1 connection of khet-load's boards to khetd on
// loopback, from a chosen source address (127.0.0.N), driven by an Asio
// io_context: requests are sent one at a time, in the order given, and a
// closed connection is opened again for the next request (counted as a
// reconnect). Or, instead, one event stream whose body is handed over as it
// comes. Runs on its io_context's thread only; not thread-safe.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_HTTP_CONNECTION_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_HTTP_CONNECTION_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/http/string_body.hpp"

namespace khet::load {

// An answer: the HTTP status (0 when the connection failed before a whole
// answer came; `body` then says why), its body and its Retry-After header.
struct HttpAnswer {
  int status = 0;
  std::string body;
  int retry_after_seconds = 0;
};

class LoadHttpConnection
    : public std::enable_shared_from_this<LoadHttpConnection> {
 public:
  using Done = std::function<void(HttpAnswer)>;

  // Requests to `server` from `source`. `reconnects` counts the
  // connections opened again after the first.
  LoadHttpConnection(boost::asio::io_context& io,
                     boost::asio::ip::tcp::endpoint server,
                     boost::asio::ip::address source, int64_t* reconnects);

  // Sends `method` `target` with `headers` (each "Name: value\r\n") and
  // `body` once the requests before it are answered; `done` gets the answer. A
  // request that finds the kept-alive connection closed by the server before
  // any byte of its answer is sent once more on a new connection (the server's
  // idle timeout).
  void Send(const char* method, std::string target, std::string headers,
            std::string body, Done done);

  // GETs the event stream `target`: `data` gets the body's bytes as they
  // come (chunk framing removed), `ended` the status once the stream ends
  // or fails (0). The connection is the stream's alone.
  void Stream(std::string target, const std::string& headers,
              std::function<void(absl::string_view data)> data,
              std::function<void(int status)> ended);

  // Requests queued or in flight.
  size_t pending() const { return queue_.size(); }

 private:
  struct Request {
    const char* method;
    std::string target;
    std::string headers;
    std::string body;
    Done done;
    bool retried = false;
  };

  // Sends the queue's first request, connecting first if needed.
  void Next();
  // Connects, then runs `then`; or `fail` with the reason.
  void Connect(std::function<void()> then,
               std::function<void(std::string)> fail);
  void Write();
  void Finish(HttpAnswer answer);
  void Close();
  std::string RequestText(const Request& request) const;

  boost::asio::io_context& io_;
  const boost::asio::ip::tcp::endpoint server_;
  const boost::asio::ip::address source_;
  int64_t* const reconnects_;

  std::unique_ptr<boost::beast::tcp_stream> stream_;
  bool connected_ever_ = false;
  bool busy_ = false;
  int answered_on_this_ = 0;  // answers read on the current socket
  std::deque<Request> queue_;
  std::string out_;
  boost::beast::flat_buffer buffer_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
};

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_HTTP_CONNECTION_H_
