// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/push_connection.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/ip/address.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/ssl/host_name_verification.hpp"
#include "boost/beast/http/read.hpp"
#include "boost/beast/http/write.hpp"
#include "boost/beast/ssl/ssl_stream.hpp"

namespace khet {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

std::chrono::steady_clock::duration Chrono(absl::Duration d) {
  return absl::ToChronoNanoseconds(d);
}

absl::Status Failed(absl::string_view stage, const beast::error_code& ec) {
  if (ec == beast::error::timeout) {
    return absl::DeadlineExceededError(absl::StrCat(stage, ": timed out"));
  }
  return absl::UnavailableError(absl::StrCat(stage, ": ", ec.message()));
}

}  // namespace

PushConnection::PushConnection(asio::any_io_executor executor,
                               asio::ssl::context* tls, const CallbackUrl& url,
                               const IpAddress& address,
                               const PushConnectionLimits& limits)
    : url_(url), address_(address), limits_(limits) {
  if (url_.tls) {
    tls_ =
        std::make_unique<asio::ssl::stream<beast::tcp_stream>>(executor, *tls);
  } else {
    plain_ = std::make_unique<beast::tcp_stream>(executor);
  }
}

PushConnection::~PushConnection() = default;

beast::tcp_stream& PushConnection::tcp() {
  return tls_ != nullptr ? tls_->next_layer() : *plain_;
}

void PushConnection::Close() {
  beast::error_code ignored;
  tcp().socket().close(ignored);
  connected_ = false;
}

void PushConnection::Post(const std::string& target, std::string body,
                          const std::string& user_agent, Done done) {
  done_ = std::move(done);
  request_ = {};
  request_.method(http::verb::post);
  request_.target(target);
  request_.version(11);
  const bool default_port = url_.port == (url_.tls ? 443 : 80);
  const std::string host = absl::StrContains(url_.host, ':')
                               ? absl::StrCat("[", url_.host, "]")
                               : url_.host;
  request_.set(http::field::host,
               default_port ? host : absl::StrCat(host, ":", url_.port));
  request_.set(http::field::user_agent, user_agent);
  request_.set(http::field::content_type, "application/json");
  request_.keep_alive(true);
  request_.body() = std::move(body);
  request_.prepare_payload();
  if (connected_) {
    Send();
  } else {
    Connect();
  }
}

void PushConnection::Connect() {
  beast::error_code bad_address;
  const asio::ip::address ip =
      asio::ip::make_address(address_.ToString(), bad_address);
  if (bad_address) {
    Finish({absl::InternalError("bad pinned address"), 0, false});
    return;
  }
  tcp().expires_after(Chrono(limits_.connect_timeout));
  tcp().async_connect(asio::ip::tcp::endpoint(ip, url_.port),
                      [self = shared_from_this()](const beast::error_code& ec) {
                        if (ec) {
                          self->Finish({Failed("connect", ec), 0, false});
                          return;
                        }
                        self->connected_ = true;
                        if (self->tls_ != nullptr) {
                          self->Handshake();
                        } else {
                          self->Send();
                        }
                      });
}

void PushConnection::Handshake() {
  SSL* ssl = tls_->native_handle();
  if (!IpAddress::Parse(url_.host).has_value()) {
    SSL_set_tlsext_host_name(ssl, url_.host.c_str());
  }
  tls_->set_verify_mode(asio::ssl::verify_peer);
  tls_->set_verify_callback(asio::ssl::host_name_verification(url_.host));
  tcp().expires_after(Chrono(limits_.connect_timeout));
  tls_->async_handshake(
      asio::ssl::stream_base::client,
      [self = shared_from_this()](const beast::error_code& ec) {
        if (ec) {
          self->connected_ = false;
          self->Finish({Failed("TLS handshake", ec), 0, false});
          return;
        }
        self->Send();
      });
}

void PushConnection::Send() {
  tcp().expires_after(Chrono(limits_.answer_timeout));
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(limits_.max_answer_bytes));
  parser_->body_limit(limits_.max_answer_bytes);
  auto on_read = [self = shared_from_this()](const beast::error_code& ec,
                                             size_t) {
    if (ec) {
      self->Finish({Failed("reading the answer", ec), 0, false});
      return;
    }
    ++self->answers_;
    const auto& answer = self->parser_->get();
    self->Finish({absl::OkStatus(), static_cast<int>(answer.result_int()),
                  answer.keep_alive()});
  };
  auto on_write = [self = shared_from_this(), on_read](
                      const beast::error_code& ec, size_t) {
    if (ec) {
      self->Finish({Failed("sending", ec), 0, false});
      return;
    }
    if (self->tls_ != nullptr) {
      http::async_read(*self->tls_, self->buffer_, *self->parser_, on_read);
    } else {
      http::async_read(*self->plain_, self->buffer_, *self->parser_, on_read);
    }
  };
  if (tls_ != nullptr) {
    http::async_write(*tls_, request_, on_write);
  } else {
    http::async_write(*plain_, request_, on_write);
  }
}

void PushConnection::Finish(PushOutcome outcome) {
  tcp().expires_never();
  if (!outcome.status.ok() || !outcome.keep_alive) Close();
  buffer_.clear();
  Done done = std::move(done_);
  done_ = nullptr;
  if (done) done(outcome);
}

}  // namespace khet
