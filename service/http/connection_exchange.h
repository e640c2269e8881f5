// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The HttpExchange a handler gets for one request read on a connection:
// each of its calls is posted to the connection's strand. Part of
// HttpServer's implementation (http_connection.h).
#ifndef KHET_SERVICE_HTTP_CONNECTION_EXCHANGE_H_
#define KHET_SERVICE_HTTP_CONNECTION_EXCHANGE_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "boost/asio/any_io_executor.hpp"
#include "boost/asio/post.hpp"
#include "service/base/mutex.h"
#include "service/http/http_message.h"
#include "service/http/http_server.h"

namespace khet {

// The exchange of one request, handed to the handler. Its calls go to the
// connection's strand. `Conn` is an HttpConnection: its executor() is its
// strand, AddBacklog may be called from any thread, and SendWhole,
// SendHead, SendPiece and SendEnd take the exchange on the strand.
template <typename Conn>
class ConnectionExchange final
    : public HttpExchange,
      public std::enable_shared_from_this<ConnectionExchange<Conn>> {
 public:
  ConnectionExchange(std::shared_ptr<Conn> connection, HttpRequest request)
      : connection_(std::move(connection)), request_(std::move(request)) {}

  const HttpRequest& request() const override { return request_; }

  void Respond(HttpResponse response) override {
    Post([response = std::move(response)](Conn& c,
                                          ConnectionExchange* self) mutable {
      c.SendWhole(self, std::move(response));
    });
  }
  void StartStream(HttpResponse head) override {
    Post([head = std::move(head)](Conn& c, ConnectionExchange* self) mutable {
      c.SendHead(self, std::move(head));
    });
  }
  bool Write(std::string piece) override {
    if (gone()) return false;
    const std::shared_ptr<Conn> connection = connection_.lock();
    if (connection == nullptr || !connection->AddBacklog(piece.size())) {
      return false;
    }
    Post([piece = std::move(piece)](Conn& c, ConnectionExchange* self) mutable {
      c.SendPiece(self, std::move(piece));
    });
    return true;
  }
  void EndStream() override {
    Post([](Conn& c, ConnectionExchange* self) { c.SendEnd(self); });
  }

  bool gone() const override { return gone_.load(); }
  void OnGone(std::function<void()> on_gone) override {
    {
      MutexLock lock(&mu_);
      if (!gone_.load()) {
        on_gone_ = std::move(on_gone);
        return;
      }
    }
    on_gone();
  }

  // By the connection: the answer is complete; OnGone never runs now.
  void MarkComplete() {
    MutexLock lock(&mu_);
    complete_ = true;
    on_gone_ = nullptr;
  }
  // By the connection: it ended before the answer was complete.
  void MarkGone() {
    std::function<void()> on_gone;
    {
      MutexLock lock(&mu_);
      if (complete_ || gone_.load()) return;
      gone_ = true;
      on_gone = std::move(on_gone_);
      on_gone_ = nullptr;
    }
    if (on_gone) on_gone();
  }

 private:
  template <typename Action>
  void Post(Action action) {
    std::shared_ptr<Conn> connection = connection_.lock();
    if (connection == nullptr) return;  // closed and gone
    boost::asio::any_io_executor executor = connection->executor();
    boost::asio::post(executor, [connection = std::move(connection),
                                 self = this->shared_from_this(),
                                 action = std::move(action)]() mutable {
      action(*connection, self.get());
    });
  }

  // Weak: while an answer is awaited the connection's own pending watch
  // keeps it; an exchange held longer never keeps a closed one (nor the
  // server's event loop) alive.
  const std::weak_ptr<Conn> connection_;
  const HttpRequest request_;
  mutable Mutex mu_;
  std::atomic<bool> gone_{false};
  bool complete_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> on_gone_ ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_CONNECTION_EXCHANGE_H_
