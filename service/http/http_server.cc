// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_server.h"

#include <openssl/ssl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "boost/asio/buffer.hpp"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/strand.hpp"
#include "boost/asio/write.hpp"
#include "service/http/http_connection.h"
#include "service/http/http_message.h"
#include "service/http/open_connections.h"
#include "service/http/response_text.h"

namespace khet {
namespace {

namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using ErrorCode = boost::system::error_code;

class ServerImpl final : public HttpServer {
 public:
  ServerImpl(HttpServerOptions options, HttpHandler handler,
             HttpErrorPage error_page, std::optional<ssl::context> tls)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        error_page_(std::move(error_page)),
        tls_(std::move(tls)),
        open_connections_(options_.max_connections,
                          options_.max_connections_per_address,
                          options_.max_inworld_connections_per_address,
                          options_.trusted_proxies),
        acceptor_(net::make_strand(io_)),
        work_(net::make_work_guard(io_)) {}

  ~ServerImpl() override { Shutdown(absl::ZeroDuration()); }

  absl::StatusOr<int> Start(absl::string_view listen) override;
  void Shutdown(absl::Duration grace) override;
  net::io_context::executor_type executor() override {
    return io_.get_executor();
  }
  int connections() override { return open_connections_.count(); }

 private:
  // Accepts connections until the acceptor is closed: each is admitted and
  // served, or refused.
  void Accept();
  // Serves an admitted connection from `address`.
  template <bool kTls>
  void Serve(tcp::socket socket, const std::string& address,
             bool needs_object_key);
  // Answers a connection that was not admitted with `status` and closes it;
  // with TLS, closes it without an answer.
  void Refuse(tcp::socket socket, int status, const absl::Status& problem);

  const HttpServerOptions options_;
  const HttpHandler handler_;
  const HttpErrorPage error_page_;
  std::optional<ssl::context> tls_;

  // Before io_: handlers that io_ destroys last reach it.
  OpenConnections open_connections_;

  net::io_context io_;
  tcp::acceptor acceptor_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
};

absl::StatusOr<int> ServerImpl::Start(absl::string_view listen) {
  const size_t colon = listen.rfind(':');
  int port = 0;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("the HTTP address \"", listen,
                     "\" is not of the form host:port (port 0 to 65535)"));
  }
  std::string host(listen.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  ErrorCode ec;
  tcp::resolver resolver(io_);
  const auto endpoints =
      resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
  if (ec || endpoints.empty()) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for HTTP on ", listen, ": ", ec.message()));
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for HTTP on ", listen, ": ", ec.message()));
  }
  const int bound = acceptor_.local_endpoint().port();
  Accept();
  for (int i = 0; i < std::max(1, options_.io_threads); ++i) {
    threads_.emplace_back([this] { io_.run(); });
  }
  return bound;
}

void ServerImpl::Accept() {
  acceptor_.async_accept(net::make_strand(io_), [this](const ErrorCode& ec,
                                                       tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) {
      return;
    }
    if (!ec) {
      ErrorCode ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      const tcp::endpoint remote = socket.remote_endpoint(ignored);
      const std::string address = remote.address().to_string();
      bool needs_object_key = false;
      const int refusal = open_connections_.Admit(address, &needs_object_key);
      if (refusal == 429) {
        Refuse(std::move(socket), 429,
               absl::ResourceExhaustedError(absl::StrCat(
                   "too many connections from ", address, " (at most ",
                   options_.max_connections_per_address, ", or ",
                   options_.max_inworld_connections_per_address,
                   " with in-world object keys)")));
      } else if (refusal != 0) {
        Refuse(std::move(socket), 503,
               absl::ResourceExhaustedError(
                   absl::StrCat("the server has the maximum of ",
                                options_.max_connections, " connections")));
      } else if (tls_.has_value()) {
        Serve<true>(std::move(socket), address, needs_object_key);
      } else {
        Serve<false>(std::move(socket), address, needs_object_key);
      }
    }
    // Errors such as too many open files: keep accepting.
    Accept();
  });
}

template <bool kTls>
void ServerImpl::Serve(tcp::socket socket, const std::string& address,
                       bool needs_object_key) {
  const HttpConnectionContext server{options_, handler_, error_page_,
                                     open_connections_, needs_object_key};
  std::shared_ptr<HttpConnection<kTls>> connection;
  if constexpr (kTls) {
    connection = std::make_shared<HttpConnection<true>>(
        server, address, std::move(socket), *tls_);
  } else {
    connection = std::make_shared<HttpConnection<false>>(server, address,
                                                         std::move(socket));
  }
  open_connections_.Register(connection.get(), connection);
  connection->Run();
}

void ServerImpl::Refuse(tcp::socket socket, int status,
                        const absl::Status& problem) {
  if (tls_.has_value()) return;  // no handshake spent on it: just closed
  HttpRequest nothing;
  const HttpResponse response = error_page_(nothing, status, problem);
  auto text = std::make_shared<std::string>(ResponseHeadText(response, false));
  absl::StrAppend(text.get(), "Content-Length: ", response.body.size(),
                  "\r\n\r\n", response.body);
  auto shared = std::make_shared<tcp::socket>(std::move(socket));
  net::async_write(*shared, net::buffer(*text),
                   [shared, text](const ErrorCode&, size_t) {
                     ErrorCode ignored;
                     shared->shutdown(tcp::socket::shutdown_both, ignored);
                     shared->close(ignored);
                   });
}

void ServerImpl::Shutdown(absl::Duration grace) {
  if (!open_connections_.BeginStopping()) return;
  net::post(acceptor_.get_executor(), [this] {
    ErrorCode ignored;
    acceptor_.close(ignored);
  });
  if (!threads_.empty()) {
    open_connections_.ForEach(&StoppableConnection::StopWhenIdle);
    open_connections_.WaitForNone(absl::Now() + grace);
    open_connections_.ForEach(&StoppableConnection::CloseSoon);
    open_connections_.WaitForNone(absl::Now() + absl::Seconds(1));
  }
  work_.reset();
  io_.stop();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Create(
    HttpServerOptions options, HttpHandler handler, HttpErrorPage error_page) {
  std::optional<ssl::context> tls;
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "TLS needs both a certificate file and a key file");
  }
  if (!options.tls_cert_file.empty()) {
    tls.emplace(ssl::context::tls_server);
    tls->set_options(ssl::context::default_workarounds |
                     ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    ErrorCode ec;
    tls->use_certificate_chain_file(options.tls_cert_file, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read the TLS certificate \"",
                       options.tls_cert_file, "\": ", ec.message()));
    }
    tls->use_private_key_file(options.tls_key_file, ssl::context::pem, ec);
    if (ec && absl::StrContains(ec.message(), "mismatch")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the TLS key \"", options.tls_key_file,
          "\" does not match the certificate \"", options.tls_cert_file, "\""));
    }
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read the TLS key \"", options.tls_key_file,
                       "\": ", ec.message()));
    }
    if (SSL_CTX_check_private_key(tls->native_handle()) != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the TLS key \"", options.tls_key_file,
          "\" does not match the certificate \"", options.tls_cert_file, "\""));
    }
  }
  return std::unique_ptr<HttpServer>(
      new ServerImpl(std::move(options), std::move(handler),
                     std::move(error_page), std::move(tls)));
}

}  // namespace khet
