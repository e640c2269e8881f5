// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// One client connection of the HTTP server, plain or TLS: it reads each
// request within HttpServerOptions' limits and clocks, hands it to the
// handler and writes the answer, or refuses what it cannot read (400, 408,
// 413, 431). Part of HttpServer's implementation (http_server.cc).
#ifndef KHET_SERVICE_HTTP_HTTP_CONNECTION_H_
#define KHET_SERVICE_HTTP_HTTP_CONNECTION_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "boost/asio/any_io_executor.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/ssl/ssl_stream.hpp"
#include "boost/system/error_code.hpp"
#include "service/http/connection_exchange.h"
#include "service/http/http_message.h"
#include "service/http/http_request_parser.h"
#include "service/http/http_server.h"
#include "service/http/open_connections.h"

namespace khet {

// What a server gives each of its connections. What it refers to outlives
// every connection.
struct HttpConnectionContext {
  const HttpServerOptions& options;
  const HttpHandler& handler;
  const HttpErrorPage& error_page;
  // Counts the connection until it closes.
  OpenConnections& open_connections;
  // Admitted beyond its address's plain limit: each request must carry an
  // in-world object key, else 429 and close.
  bool needs_object_key = false;
};

// One client connection, plain (kTls false) or TLS. Everything but the
// exchange's entry points and AddBacklog runs on its strand.
template <bool kTls>
class HttpConnection final
    : public StoppableConnection,
      public std::enable_shared_from_this<HttpConnection<kTls>> {
 public:
  using Stream =
      std::conditional_t<kTls,
                         boost::beast::ssl_stream<boost::beast::tcp_stream>,
                         boost::beast::tcp_stream>;
  using ThisExchange = ConnectionExchange<HttpConnection>;

  // A connection from `address` over the stream made of `stream_args` (the
  // socket on a strand of its own; for TLS also the context).
  // REQUIRES: server.open_connections admitted it from `address`.
  template <typename... StreamArgs>
  HttpConnection(const HttpConnectionContext& server, std::string address,
                 StreamArgs&&... stream_args)
      : server_(server),
        options_(server.options),
        address_(std::move(address)),
        stream_(std::forward<StreamArgs>(stream_args)...),
        idle_timer_(stream_.get_executor()),
        stage_timer_(stream_.get_executor()),
        gone_timer_(stream_.get_executor()) {}

  ~HttpConnection() override;

  boost::asio::any_io_executor executor() { return stream_.get_executor(); }

  // Starts serving: the TLS handshake (on the header clock) if any, then
  // the requests one after another. REQUIRES: once, owned by a shared_ptr.
  void Run();

  void StopWhenIdle() override;
  void CloseSoon() override;

  // From any thread: counts `bytes` more waiting to be written; false (and
  // the connection is closed) if that passes the bound.
  bool AddBacklog(size_t bytes);

  // The answers, from the exchange on this strand. Each is dropped when the
  // connection is closed or `from` is not the request being answered.
  void SendWhole(ThisExchange* from, HttpResponse response);
  void SendHead(ThisExchange* from, HttpResponse head);
  void SendPiece(ThisExchange* from, std::string piece);
  void SendEnd(ThisExchange* from);

 private:
  boost::beast::tcp_stream& Lowest();

  // Waits for the next request of a kept-alive connection at most the idle
  // timeout; the header clock starts with its first byte.
  void ReadNext();
  // Reads run on the stage clock, which cancels them without closing so
  // that the client still learns why (408).
  void StartStageClock(absl::Duration limit);
  void ReadHeader();
  void OnHeader(const boost::system::error_code& ec);
  // Answers a request that could not be read, or just closes when there is
  // nobody to answer.
  void ReadFailed(const boost::system::error_code& ec, absl::Duration limit,
                  absl::string_view part);
  // Answers the server's own error and closes the connection after it.
  void Refuse(int status, const absl::Status& problem);
  HttpRequest ToRequest(bool with_body);
  void Dispatch();
  // While a request is answered, notices a client that closes its side.
  void WatchForGone();

  // The current answer is complete: what happens after its last write.
  void Complete(bool keep_alive);
  void Queue(std::string text);
  void WriteFront();
  void AfterWrites();
  // Closes after a refusal or a last answer without resetting the
  // connection under a client still sending: our side is shut, what the
  // client still sends is read and dropped for a moment, then closed.
  void LingerThenClose();
  void Drain(size_t drained);

  // The server stops counting the connection when it closes, whoever still
  // holds its exchange.
  void ForgetOnce();
  void Close();

  const HttpConnectionContext server_;
  const HttpServerOptions& options_;
  const std::string address_;
  Stream stream_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer stage_timer_;  // the header or body clock
  boost::asio::steady_timer gone_timer_;   // the next look for a gone client
  boost::beast::flat_buffer buffer_;
  std::optional<HttpRequestParser> parser_;
  std::shared_ptr<ThisExchange> exchange_;  // the request being answered
  std::deque<std::string> out_;             // waiting to be written
  std::atomic<size_t> backlog_{0};          // stream bytes not yet queued
  std::array<char, 4096> scratch_;
  uint64_t watch_generation_ = 0;
  bool reading_ = false;
  bool writing_ = false;
  bool streaming_ = false;
  bool keep_alive_ = false;
  bool head_ = false;
  bool stopping_ = false;
  bool closed_ = false;
  bool timed_out_ = false;  // the stage clock cancelled the read
  bool forgotten_ = false;  // the server no longer counts it
  bool after_write_close_ = false;
  bool after_write_next_ = false;
};

// Both are instantiated in http_connection.cc.
extern template class HttpConnection<false>;
extern template class HttpConnection<true>;

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_CONNECTION_H_
