// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_push_receiver.h"

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/write.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/core/tcp_stream.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/read.hpp"
#include "boost/beast/http/string_body.hpp"

namespace khet::load {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using ErrorCode = boost::system::error_code;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A delivery's body is at most 2048 bytes; anything far larger is not one.
constexpr uint64_t kMaxBody = 64 * 1024;

constexpr char kOk[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n";

// One connection khetd opened: requests read one after another, each
// answered 200 before the next is read.
class ReceiverConnection
    : public std::enable_shared_from_this<ReceiverConnection> {
 public:
  ReceiverConnection(tcp::socket socket, const PushReceiver::Deliver& deliver,
                     ReceiverCounts* counts)
      : stream_(std::move(socket)), deliver_(deliver), counts_(counts) {}

  void Read() {
    parser_.emplace();
    parser_->body_limit(kMaxBody);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](const ErrorCode& error, size_t) {
          if (error) return self->Close();  // khetd closed it, or garbage
          const int64_t arrival = NowNs();
          http::request<http::string_body> request = self->parser_->release();
          if (request.method() != http::verb::post) {
            ++self->counts_->bad;
          } else {
            ++self->counts_->requests;
            self->deliver_(absl::string_view(request.target().data(),
                                             request.target().size()),
                           std::move(request.body()), arrival);
          }
          const bool keep_alive = request.keep_alive();
          net::async_write(
              self->stream_, net::buffer(kOk, sizeof kOk - 1),
              [self, keep_alive](const ErrorCode& write_error, size_t) {
                if (write_error || !keep_alive) {
                  return self->Close();
                }
                self->Read();
              });
        });
  }

 private:
  void Close() {
    ErrorCode ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  const PushReceiver::Deliver& deliver_;
  ReceiverCounts* const counts_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
};

}  // namespace

PushReceiver::PushReceiver(std::vector<net::io_context*> ios, Deliver deliver)
    : ios_(std::move(ios)),
      deliver_(std::move(deliver)),
      acceptor_(*ios_[0]),
      pause_(*ios_[0]) {}

absl::StatusOr<std::unique_ptr<PushReceiver>> PushReceiver::Listen(
    const net::ip::address& address, std::vector<net::io_context*> ios,
    Deliver deliver) {
  if (ios.empty()) return absl::InvalidArgumentError("no io_context");
  std::unique_ptr<PushReceiver> receiver(
      new PushReceiver(std::move(ios), std::move(deliver)));
  ErrorCode ec;
  tcp::acceptor& acceptor = receiver->acceptor_;
  const tcp::endpoint endpoint(address, 0);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("listening on ", address.to_string(), ": ", ec.message()));
  }
  receiver->port_ = acceptor.local_endpoint(ec).port();
  receiver->Accept();
  return receiver;
}

void PushReceiver::Accept() {
  net::io_context& io = *ios_[next_++ % ios_.size()];
  acceptor_.async_accept(
      io, [this, &io](const ErrorCode& error, tcp::socket socket) {
        if (error == net::error::operation_aborted) return;
        if (error) {
          // Out of descriptors, say: a moment, then on.
          pause_.expires_after(std::chrono::milliseconds(10));
          pause_.async_wait([this](const ErrorCode& ec) {
            if (!ec) Accept();
          });
          return;
        }
        ++counts_.connections;
        ErrorCode ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        // Its work on its own io_context's thread from the first read on.
        net::post(io, [connection = std::make_shared<ReceiverConnection>(
                           std::move(socket), deliver_, &counts_)] {
          connection->Read();
        });
        Accept();
      });
}

}  // namespace khet::load
