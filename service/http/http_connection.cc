// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "boost/asio/buffer.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core/string.hpp"
#include "boost/beast/http/error.hpp"
#include "boost/beast/http/field.hpp"
#include "boost/beast/http/read.hpp"
#include "boost/beast/http/verb.hpp"
#include "service/fair_use/client_identity.h"
#include "service/http/response_text.h"

namespace khet {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using ErrorCode = boost::system::error_code;

std::chrono::nanoseconds Chrono(absl::Duration d) {
  return absl::ToChronoNanoseconds(d);
}

std::string Seconds(absl::Duration d) {
  return absl::StrCat(absl::ToDoubleSeconds(d), " s");
}

// Whether the peer of the TCP socket `fd` has sent its FIN.
bool PeerClosed(int fd) {
  tcp_info info{};
  socklen_t size = sizeof(info);
  return ::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) == 0 &&
         info.tcpi_state == TCP_CLOSE_WAIT;
}

}  // namespace

template <bool kTls>
HttpConnection<kTls>::~HttpConnection() {
  ForgetOnce();
}

template <bool kTls>
void HttpConnection<kTls>::Run() {
  if constexpr (kTls) {
    Lowest().expires_after(Chrono(options_.header_timeout));
    stream_.async_handshake(
        ssl::stream_base::server,
        [self = this->shared_from_this()](const ErrorCode& ec) {
          if (ec) return self->Close();
          self->ReadHeader();
        });
  } else {
    ReadHeader();
  }
}

template <bool kTls>
void HttpConnection<kTls>::StopWhenIdle() {
  net::post(executor(), [self = this->shared_from_this()] {
    self->stopping_ = true;
    if (self->exchange_ == nullptr && !self->after_write_close_ &&
        self->out_.empty()) {
      self->Close();
    }
  });
}

template <bool kTls>
void HttpConnection<kTls>::CloseSoon() {
  net::post(executor(), [self = this->shared_from_this()] { self->Close(); });
}

template <bool kTls>
bool HttpConnection<kTls>::AddBacklog(size_t bytes) {
  if (backlog_.fetch_add(bytes) + bytes > options_.max_stream_backlog) {
    CloseSoon();
    return false;
  }
  return true;
}

template <bool kTls>
void HttpConnection<kTls>::SendWhole(ThisExchange* from,
                                     HttpResponse response) {
  if (closed_ || from != exchange_.get() || streaming_) return;
  const bool keep_alive = keep_alive_ && !stopping_;
  std::string text = ResponseHeadText(response, keep_alive);
  absl::StrAppend(&text, "Content-Length: ", response.body.size(), "\r\n\r\n");
  if (!head_) text += response.body;
  Complete(keep_alive);
  Queue(std::move(text));
}

template <bool kTls>
void HttpConnection<kTls>::SendHead(ThisExchange* from, HttpResponse head) {
  if (closed_ || from != exchange_.get() || streaming_) return;
  streaming_ = true;
  std::string text = ResponseHeadText(head, keep_alive_ && !head_);
  text += "Transfer-Encoding: chunked\r\n\r\n";
  if (!head.body.empty()) text += ChunkText(head.body);
  Queue(std::move(text));
}

template <bool kTls>
void HttpConnection<kTls>::SendPiece(ThisExchange* from, std::string piece) {
  if (closed_ || from != exchange_.get() || !streaming_) return;
  backlog_ -= piece.size();
  Queue(ChunkText(piece));
}

template <bool kTls>
void HttpConnection<kTls>::SendEnd(ThisExchange* from) {
  if (closed_ || from != exchange_.get() || !streaming_) return;
  streaming_ = false;
  Complete(keep_alive_ && !stopping_ && !head_);
  Queue("0\r\n\r\n");
}

template <bool kTls>
beast::tcp_stream& HttpConnection<kTls>::Lowest() {
  return beast::get_lowest_layer(stream_);
}

template <bool kTls>
void HttpConnection<kTls>::ReadNext() {
  if (stopping_) return Close();
  if (buffer_.size() > 0) return ReadHeader();
  idle_timer_.expires_after(Chrono(options_.idle_timeout));
  idle_timer_.async_wait(
      [self = this->shared_from_this()](const ErrorCode& ec) {
        if (!ec) self->Close();
      });
  Lowest().socket().async_wait(
      tcp::socket::wait_read,
      [self = this->shared_from_this()](const ErrorCode& ec) {
        self->idle_timer_.cancel();
        if (ec || self->closed_) return self->Close();
        self->ReadHeader();
      });
}

template <bool kTls>
void HttpConnection<kTls>::StartStageClock(absl::Duration limit) {
  timed_out_ = false;
  stage_timer_.expires_after(Chrono(limit));
  stage_timer_.async_wait(
      [self = this->shared_from_this()](const ErrorCode& ec) {
        if (ec || self->closed_) return;
        self->timed_out_ = true;
        ErrorCode ignored;
        self->Lowest().socket().cancel(ignored);
      });
}

template <bool kTls>
void HttpConnection<kTls>::ReadHeader() {
  reading_ = true;
  parser_.emplace(options_.max_header_count);
  parser_->header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
  parser_->body_limit(options_.max_body_bytes);
  Lowest().expires_never();
  StartStageClock(options_.header_timeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = this->shared_from_this()](const ErrorCode& ec, size_t) {
        self->OnHeader(ec);
      });
}

template <bool kTls>
void HttpConnection<kTls>::OnHeader(const ErrorCode& ec) {
  stage_timer_.cancel();
  if (closed_) return;
  if (ec) return ReadFailed(ec, options_.header_timeout, "headers");
  const auto object_key = parser_->get()[beast::string_view(
      kObjectKeyHeader.data(), kObjectKeyHeader.size())];
  if (server_.needs_object_key &&
      ObjectKey(absl::string_view(object_key.data(), object_key.size()))
          .empty()) {
    return Refuse(429, absl::ResourceExhaustedError(absl::StrCat(
                           "too many connections from ", address_, " (at most ",
                           options_.max_connections_per_address,
                           " without an in-world object key)")));
  }
  if (parser_->is_done()) return Dispatch();
  if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
    Queue("HTTP/1.1 100 Continue\r\n\r\n");
    Lowest().expires_never();  // the body's read runs on the stage clock
  }
  StartStageClock(options_.body_timeout);
  http::async_read(
      stream_, buffer_, *parser_,
      [self = this->shared_from_this()](const ErrorCode& body_ec, size_t) {
        self->stage_timer_.cancel();
        if (self->closed_) return;
        if (body_ec) {
          return self->ReadFailed(body_ec, self->options_.body_timeout, "body");
        }
        self->Dispatch();
      });
}

template <bool kTls>
void HttpConnection<kTls>::ReadFailed(const ErrorCode& ec, absl::Duration limit,
                                      absl::string_view part) {
  if (ec == http::error::header_limit && parser_->too_many_lines()) {
    return Refuse(431, absl::ResourceExhaustedError(absl::StrCat(
                           "the request has more than ",
                           options_.max_header_count, " header lines; at most ",
                           options_.max_header_count, " are accepted")));
  }
  if (ec == http::error::header_limit) {
    return Refuse(431, absl::ResourceExhaustedError(absl::StrCat(
                           "the request line and headers are larger than ",
                           options_.max_header_bytes, " bytes")));
  }
  if (ec == http::error::body_limit) {
    return Refuse(413, absl::ResourceExhaustedError(absl::StrCat(
                           "the request body is larger than the limit of ",
                           options_.max_body_bytes, " bytes")));
  }
  if (timed_out_) {
    if (part == "headers" && buffer_.size() == 0 && !parser_->got_some()) {
      return Close();  // an idle connection, nothing to answer
    }
    return Refuse(408, absl::DeadlineExceededError(absl::StrCat(
                           "the request's ", part, " did not arrive within ",
                           Seconds(limit))));
  }
  // Anything but a parse error means the connection is gone (or its TLS
  // failed): nobody to answer.
  if (ec.category() !=
          http::make_error_code(http::error::bad_method).category() ||
      ec == http::error::end_of_stream || ec == http::error::partial_message) {
    return Close();
  }
  return Refuse(400, absl::InvalidArgumentError(absl::StrCat(
                         "malformed HTTP request: ", ec.message())));
}

template <bool kTls>
void HttpConnection<kTls>::Refuse(int status, const absl::Status& problem) {
  HttpRequest request;
  if (parser_.has_value() && parser_->is_header_done()) {
    request = ToRequest(/*with_body=*/false);
  }
  request.remote_address = address_;
  HttpResponse response = server_.error_page(request, status, problem);
  std::string text = ResponseHeadText(response, /*keep_alive=*/false);
  absl::StrAppend(&text, "Content-Length: ", response.body.size(), "\r\n\r\n",
                  response.body);
  Complete(/*keep_alive=*/false);
  Queue(std::move(text));
}

template <bool kTls>
HttpRequest HttpConnection<kTls>::ToRequest(bool with_body) {
  auto& message = parser_->get();
  HttpRequest request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  request.path = request.target.substr(0, request.target.find('?'));
  for (const auto& field : message) {
    request.headers.emplace_back(std::string(field.name_string()),
                                 std::string(field.value()));
  }
  if (with_body) request.body = std::move(message.body());
  request.remote_address = address_;
  return request;
}

template <bool kTls>
void HttpConnection<kTls>::Dispatch() {
  reading_ = false;
  keep_alive_ = parser_->get().keep_alive();
  head_ = parser_->get().method() == http::verb::head;
  exchange_ = std::make_shared<ThisExchange>(this->shared_from_this(),
                                             ToRequest(/*with_body=*/true));
  parser_.reset();
  WatchForGone();
  server_.handler(exchange_);
}

template <bool kTls>
void HttpConnection<kTls>::WatchForGone() {
  const uint64_t generation = ++watch_generation_;
  Lowest().socket().async_wait(
      tcp::socket::wait_read,
      [self = this->shared_from_this(), generation](const ErrorCode& ec) {
        if (generation != self->watch_generation_ ||
            self->exchange_ == nullptr || self->closed_) {
          return;
        }
        if (ec) return self->Close();
        const int fd = self->Lowest().socket().native_handle();
        char byte;
        const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || PeerClosed(fd)) return self->Close();  // gone
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
          return self->Close();
        }
        if (n < 0) return self->WatchForGone();  // woken for nothing
        // Bytes wait (a pipelined request, or TLS's close_notify before
        // the FIN): the socket stays readable, so look again in a while.
        self->gone_timer_.expires_after(std::chrono::seconds(1));
        self->gone_timer_.async_wait(
            [self, generation](const ErrorCode& timer_ec) {
              if (!timer_ec && generation == self->watch_generation_) {
                self->WatchForGone();
              }
            });
      });
}

template <bool kTls>
void HttpConnection<kTls>::Complete(bool keep_alive) {
  ++watch_generation_;  // the watch for a gone client ends
  if (exchange_ != nullptr) exchange_->MarkComplete();
  exchange_.reset();
  after_write_close_ = !keep_alive;
  after_write_next_ = keep_alive;
}

template <bool kTls>
void HttpConnection<kTls>::Queue(std::string text) {
  out_.push_back(std::move(text));
  if (!writing_) WriteFront();
}

template <bool kTls>
void HttpConnection<kTls>::WriteFront() {
  writing_ = true;
  Lowest().expires_after(Chrono(options_.write_timeout));
  net::async_write(
      stream_, net::buffer(out_.front()),
      [self = this->shared_from_this()](const ErrorCode& ec, size_t) {
        self->writing_ = false;
        if (ec || self->closed_) return self->Close();
        self->out_.pop_front();
        if (!self->out_.empty()) return self->WriteFront();
        self->AfterWrites();
      });
}

template <bool kTls>
void HttpConnection<kTls>::AfterWrites() {
  if (after_write_close_) {
    after_write_close_ = false;
    return LingerThenClose();
  }
  if (after_write_next_ && exchange_ == nullptr && !reading_) {
    after_write_next_ = false;
    ReadNext();
  }
}

template <bool kTls>
void HttpConnection<kTls>::LingerThenClose() {
  ErrorCode ignored;
  Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
  Lowest().expires_after(std::chrono::seconds(2));  // the whole linger
  Drain(0);
}

template <bool kTls>
void HttpConnection<kTls>::Drain(size_t drained) {
  constexpr size_t kMaxDrained = 1 << 20;
  if (drained > kMaxDrained) return Close();
  Lowest().async_read_some(net::buffer(scratch_),
                           [self = this->shared_from_this(), drained](
                               const ErrorCode& ec, size_t n) {
                             if (ec) return self->Close();
                             self->Drain(drained + n);
                           });
}

template <bool kTls>
void HttpConnection<kTls>::ForgetOnce() {
  if (forgotten_) return;
  forgotten_ = true;
  server_.open_connections.Forget(this, address_);
}

template <bool kTls>
void HttpConnection<kTls>::Close() {
  if (closed_) return;
  closed_ = true;
  if (exchange_ != nullptr) exchange_->MarkGone();
  exchange_.reset();
  idle_timer_.cancel();
  stage_timer_.cancel();
  gone_timer_.cancel();
  Lowest().close();
  ForgetOnce();
}

template class HttpConnection<false>;
template class HttpConnection<true>;

}  // namespace khet
