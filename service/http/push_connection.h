// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// One kept-alive HTTP/1.1 client connection from khetd to a board's
// callback URL (board_pushes.h): connects to the address the registration
// checked (never asking the resolver again), speaks TLS when the URL is
// https (verifying the certificate against the URL's host name), POSTs one
// delivery at a time and reads the answer within its limits. Redirects are
// never followed: a 3xx is just a status like any other.
//
// Not thread-safe: every call and every completion runs on the executor it
// is made with (BoardPushes' strand).
#ifndef KHET_SERVICE_HTTP_PUSH_CONNECTION_H_
#define KHET_SERVICE_HTTP_PUSH_CONNECTION_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "boost/asio/any_io_executor.hpp"
#include "boost/asio/ssl/context.hpp"
#include "boost/asio/ssl/stream.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/http/message.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/string_body.hpp"
#include "service/fair_use/client_address.h"
#include "service/http/callback_target.h"

namespace khet {

struct PushConnectionLimits {
  absl::Duration connect_timeout = absl::Seconds(3);
  // From the first byte of the request to the last of the answer.
  absl::Duration answer_timeout = absl::Seconds(5);
  // A longer answer (headers or body) fails the delivery.
  size_t max_answer_bytes = 16 * 1024;
};

// How one POST went.
struct PushOutcome {
  absl::Status status;  // OK when an answer was read whole
  int http_status = 0;  // the answer's status when status is OK
  bool keep_alive = false;
};

class PushConnection : public std::enable_shared_from_this<PushConnection> {
 public:
  using Done = std::function<void(const PushOutcome& outcome)>;

  // `tls` (for https URLs) must outlive the connection.
  PushConnection(boost::asio::any_io_executor executor,
                 boost::asio::ssl::context* tls, const CallbackUrl& url,
                 const IpAddress& address, const PushConnectionLimits& limits);
  ~PushConnection();

  // POSTs `body` as JSON to `target` (the path and query), connecting
  // first if need be; calls `done` once, on the executor. One at a time.
  void Post(const std::string& target, std::string body,
            const std::string& user_agent, Done done);

  // Whether it has carried an answer before (a failure on such a
  // connection may be the server having closed it while idle).
  bool reused() const { return answers_ > 0; }

  // Closes the socket; a Post in flight ends with an error.
  void Close();

 private:
  void Connect();
  void Handshake();
  void Send();
  void Finish(PushOutcome outcome);
  boost::beast::tcp_stream& tcp();

  const CallbackUrl url_;
  const IpAddress address_;
  const PushConnectionLimits limits_;
  std::unique_ptr<boost::beast::tcp_stream> plain_;
  std::unique_ptr<boost::asio::ssl::stream<boost::beast::tcp_stream>> tls_;
  bool connected_ = false;
  int answers_ = 0;
  boost::beast::http::request<boost::beast::http::string_body> request_;
  boost::beast::flat_buffer buffer_;
  std::optional<
      boost::beast::http::response_parser<boost::beast::http::string_body>>
      parser_;
  Done done_;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_PUSH_CONNECTION_H_
