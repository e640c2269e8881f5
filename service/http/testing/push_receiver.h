// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A board's side of pushed events in tests: an HTTP server on loopback
// (cpp-httplib's, for tests only; link PkgConfig::HTTPLIB) that records
// each delivery.
#ifndef KHET_SERVICE_HTTP_TESTING_PUSH_RECEIVER_H_
#define KHET_SERVICE_HTTP_TESTING_PUSH_RECEIVER_H_

#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "httplib.h"
#include "service/base/mutex.h"

namespace khet {

// A board's receiver: an HTTP server on 127.0.0.1 that records every
// delivery and answers as told.
class PushReceiver {
 public:
  struct Delivery {
    std::string body;
    std::string sig;
    absl::Time at;
  };
  // Answers each delivery with the status and body `answer` gives.
  using Answer = std::function<void(httplib::Response&)>;

  explicit PushReceiver(Answer answer = nullptr) : answer_(std::move(answer)) {
    server_.Post("/.*", [this](const httplib::Request& request,
                               httplib::Response& response) {
      {
        MutexLock lock(&mu_);
        deliveries_.push_back(
            {request.body, request.get_param_value("sig"), absl::Now()});
      }
      if (answer_) {
        answer_(response);
      } else {
        response.set_content("ok", "text/plain");
      }
    });
    server_.set_keep_alive_timeout(1);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~PushReceiver() {
    server_.stop();
    thread_.join();
  }

  std::string url(absl::string_view path = "/lslhttp/board/") const {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  std::vector<Delivery> deliveries() {
    MutexLock lock(&mu_);
    return deliveries_;
  }
  // Waits up to `wait` for at least n deliveries.
  std::vector<Delivery> WaitFor(size_t n, absl::Duration wait) {
    const absl::Time end = absl::Now() + wait;
    while (absl::Now() < end) {
      std::vector<Delivery> got = deliveries();
      if (got.size() >= n) return got;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return deliveries();
  }

 private:
  Answer answer_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  Mutex mu_;
  std::vector<Delivery> deliveries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_TESTING_PUSH_RECEIVER_H_
