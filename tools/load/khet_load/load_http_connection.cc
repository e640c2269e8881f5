// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_http_connection.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/write.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/read.hpp"

namespace khet::load {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using ErrorCode = boost::system::error_code;

LoadHttpConnection::LoadHttpConnection(net::io_context& io,
                                       tcp::endpoint server,
                                       net::ip::address source,
                                       int64_t* reconnects)
    : io_(io),
      server_(std::move(server)),
      source_(std::move(source)),
      reconnects_(reconnects) {}

void LoadHttpConnection::Send(const char* method, std::string target,
                              std::string headers, std::string body,
                              Done done) {
  queue_.push_back({method, std::move(target), std::move(headers),
                    std::move(body), std::move(done)});
  if (!busy_) Next();
}

std::string LoadHttpConnection::RequestText(const Request& request) const {
  std::string text =
      absl::StrCat(request.method, " ", request.target,
                   " HTTP/1.1\r\nHost: 127.0.0.1\r\n", request.headers);
  if (!request.body.empty() || request.method[0] == 'P') {
    absl::StrAppend(&text, "Content-Type: application/json\r\nContent-Length: ",
                    request.body.size(), "\r\n");
  }
  absl::StrAppend(&text, "\r\n", request.body);
  return text;
}

void LoadHttpConnection::Next() {
  if (queue_.empty()) {
    busy_ = false;
    return;
  }
  busy_ = true;
  if (stream_ == nullptr) {
    Connect([this] { Write(); },
            [this](std::string why) {
              Finish({0, std::move(why)});
            });
  } else {
    Write();
  }
}

void LoadHttpConnection::Connect(std::function<void()> then,
                                 std::function<void(std::string)> fail) {
  if (connected_ever_) ++*reconnects_;
  connected_ever_ = true;
  answered_on_this_ = 0;
  buffer_.clear();
  stream_ = std::make_unique<beast::tcp_stream>(io_);
  ErrorCode ec;
  tcp::socket& socket = stream_->socket();
  socket.open(tcp::v4(), ec);
  if (!ec) {
    // The source port is chosen at connect, per destination: many
    // thousands of connections from one source address.
    const int one = 1;
    setsockopt(socket.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT,
               &one, sizeof one);
    socket.bind(tcp::endpoint(source_, 0), ec);
  }
  if (ec) {
    fail(absl::StrCat("bind ", source_.to_string(), ": ", ec.message()));
    return;
  }
  stream_->async_connect(
      server_, [self = shared_from_this(), then = std::move(then),
                fail = std::move(fail)](const ErrorCode& error) {
        if (error) {
          fail(absl::StrCat("connect: ", error.message()));
          return;
        }
        ErrorCode ignored;
        self->stream_->socket().set_option(tcp::no_delay(true), ignored);
        then();
      });
}

void LoadHttpConnection::Write() {
  out_ = RequestText(queue_.front());
  net::async_write(
      *stream_, net::buffer(out_),
      [self = shared_from_this()](const ErrorCode& error, size_t) {
        if (error) {
          self->Finish({0, absl::StrCat("write: ", error.message())});
          return;
        }
        self->response_ = {};
        http::async_read(
            *self->stream_, self->buffer_, self->response_,
            [self](const ErrorCode& read_error, size_t) {
              if (read_error) {
                self->Finish({0, absl::StrCat("read: ", read_error.message())});
                return;
              }
              ++self->answered_on_this_;
              HttpAnswer answer;
              answer.status = self->response_.result_int();
              answer.body = std::move(self->response_.body());
              const auto retry = self->response_.find("Retry-After");
              if (retry != self->response_.end()) {
                (void)absl::SimpleAtoi(absl::string_view(retry->value().data(),
                                                         retry->value().size()),
                                       &answer.retry_after_seconds);
              }
              if (!self->response_.keep_alive()) self->Close();
              self->Finish(std::move(answer));
            });
      });
}

void LoadHttpConnection::Finish(HttpAnswer answer) {
  if (answer.status == 0) {
    // A kept-alive socket the server closed while idle: once more anew.
    const bool reused = answered_on_this_ > 0;
    Close();
    if (reused && !queue_.front().retried) {
      queue_.front().retried = true;
      Next();
      return;
    }
  }
  Done done = std::move(queue_.front().done);
  queue_.pop_front();
  done(std::move(answer));
  Next();
}

void LoadHttpConnection::Close() {
  if (stream_ == nullptr) return;
  ErrorCode ignored;
  stream_->socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_->socket().close(ignored);
  // Handlers still queued on the socket hold `self`; the stream object
  // goes when they have run.
  net::post(io_,
            [old = std::shared_ptr<beast::tcp_stream>(std::move(stream_))] {});
}

void LoadHttpConnection::Stream(
    std::string target, const std::string& headers,
    std::function<void(absl::string_view data)> data,
    std::function<void(int status)> ended) {
  struct State {
    http::response_parser<http::string_body> parser;
    std::function<size_t(uint64_t, beast::string_view, ErrorCode&)> on_chunk;
    std::function<void(absl::string_view)> data;
    std::function<void(int)> ended;
    std::string out;
  };
  auto state = std::make_shared<State>();
  state->data = std::move(data);
  state->ended = std::move(ended);
  state->parser.body_limit(boost::none);
  state->on_chunk = [raw = state.get()](uint64_t, beast::string_view body,
                                        ErrorCode&) {
    raw->data(absl::string_view(body.data(), body.size()));
    return body.size();
  };
  state->parser.on_chunk_body(state->on_chunk);
  state->out = absl::StrCat("GET ", target,
                            " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: "
                            "text/event-stream\r\n",
                            headers, "\r\n");
  Close();
  queue_.clear();
  busy_ = true;
  Connect(
      [self = shared_from_this(), state] {
        net::async_write(*self->stream_, net::buffer(state->out),
                         [self, state](const ErrorCode& error, size_t) {
                           if (error) {
                             self->Close();
                             return state->ended(0);
                           }
                           http::async_read(
                               *self->stream_, self->buffer_, state->parser,
                               [self, state](const ErrorCode&, size_t) {
                                 const int status =
                                     state->parser.is_header_done()
                                         ? state->parser.get().result_int()
                                         : 0;
                                 self->Close();
                                 state->ended(status);
                               });
                         });
      },
      [self = shared_from_this(), state](std::string) {
        self->Close();
        state->ended(0);
      });
}

}  // namespace khet::load
