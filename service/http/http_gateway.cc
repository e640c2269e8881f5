// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_gateway.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <utility>

#include "boost/asio/post.hpp"
#include "boost/asio/thread_pool.hpp"
#include "service/base/status_macros.h"
#include "service/http/board_pushes.h"
#include "service/http/http_metrics.h"
#include "service/http/http_routes.h"
#include "service/http/http_server.h"
#include "service/http/http_status.h"
#include "service/http/request_log.h"
#include "service/http/route_dispatch.h"
#include "service/http/waiting_requests.h"
#include "service/metrics/text_format.h"
#include "service/text/quoted_input.h"

namespace khet {
namespace {

void WriteToStderr(const std::string& line) {
  // One write per line so that lines from concurrent requests never mix.
  const std::string out = line + "\n";
  [[maybe_unused]] const ssize_t written =
      ::write(STDERR_FILENO, out.data(), out.size());
}

}  // namespace

class HttpGateway::Server {
 public:
  Server(SessionService* core, HttpGatewayOptions options)
      : core_(core),
        options_(std::move(options)),
        waiting_(options_.max_waiting),
        workers_(static_cast<size_t>(std::max(1, options_.serving_threads))) {
    recorder_.sink = options_.log ? options_.log : WriteToStderr;
    recorder_.format = options_.log_format;
    recorder_.callers = options_.callers;
    if (options_.metrics != nullptr) {
      metrics_ = std::make_unique<HttpMetrics>(options_.metrics);
      recorder_.metrics = metrics_.get();
      options_.metrics->AddGaugeCallback(
          "khet_http_waiting_requests",
          "HTTP long polls and event streams waiting for events now.", {},
          [this](const metrics::GaugeCallback::Emit& emit) {
            emit({}, waiting_.waiting());
          });
    }
  }

  absl::StatusOr<int> Start(absl::string_view listen) {
    KHET_ASSIGN_OR_RETURN(
        http_,
        HttpServer::Create(
            options_.server,
            [this](std::shared_ptr<HttpExchange> exchange) {
              boost::asio::post(
                  workers_, [this, exchange = std::move(exchange)]() mutable {
                    Dispatch(std::move(exchange));
                  });
            },
            [this](const HttpRequest& request, int http_status,
                   const absl::Status& problem) {
              RequestLog log(&recorder_,
                             request.method.empty() ? "-" : request.method, "-",
                             "", request.remote_address);
              log.set_metric_route("none");
              log.Done(http_status, problem);
              return ErrorResponse(problem, http_status);
            }));
    RouteContext context;
    context.core = core_;
    context.waiting = &waiting_;
    context.options = &options_;
    context.timers = http_->executor();
    context.run_on_worker = [this](std::function<void()> task) {
      boost::asio::post(workers_, std::move(task));
    };
    if (options_.push_events) {
      KHET_ASSIGN_OR_RETURN(
          pushes_,
          BoardPushes::Create(core_, http_->executor(), context.run_on_worker,
                              options_.pushes, options_.metrics));
      context.pushes = pushes_.get();
    }
    dispatcher_ = std::make_unique<RouteDispatcher>(
        ApiRoutes(context), &recorder_, options_.callers);
    return http_->Start(listen);
  }

  void Shutdown() {
    if (shut_down_.exchange(true)) return;
    // Long polls answer 503 and streams end at once; other requests in
    // flight may finish within the grace; then every connection closes.
    waiting_.Shutdown();
    if (pushes_ != nullptr) pushes_->Shutdown();
    if (http_ != nullptr) http_->Shutdown(options_.shutdown_grace);
    workers_.stop();
    workers_.join();
  }

 private:
  // On a worker: routes the request and answers it (or leaves that to a
  // handler that answers later).
  void Dispatch(std::shared_ptr<HttpExchange> exchange) {
    const HttpRequest& request = exchange->request();
    if (request.path == kMetricsPath && options_.metrics != nullptr) {
      // HEAD is answered as GET; the server leaves the body out.
      ServeMetrics(request, request.method == "HEAD" ? "GET" : request.method,
                   *exchange);
      return;
    }
    dispatcher_->Dispatch(exchange);
  }

  // GET (or HEAD) /metrics: every figure of options_.metrics now. They name
  // no session and hold no token.
  void ServeMetrics(const HttpRequest& request, const std::string& method,
                    HttpExchange& exchange) {
    RequestLog log(&recorder_, request.method, kMetricsPath, "",
                   request.remote_address);
    log.set_metric_route("metrics");
    HttpResponse response;
    absl::Status status;
    if (method != "GET") {
      status = absl::UnimplementedError(
          absl::StrCat(kMetricsPath, " does not take ",
                       QuoteInput(request.method), "; it takes GET"));
      response = ErrorResponse(status, 405);
      response.headers.emplace_back("Allow", "GET");
    } else {
      response.content_type = std::string(metrics::kTextContentType);
      response.headers.emplace_back("Cache-Control", "no-store");
      response.body = metrics::TextExposition(options_.metrics->Collect());
    }
    log.Done(response.status, status);
    exchange.Respond(std::move(response));
  }

  static constexpr absl::string_view kMetricsPath = "/metrics";

  SessionService* const core_;
  HttpGatewayOptions options_;
  RequestRecorder recorder_;
  std::unique_ptr<HttpMetrics> metrics_;
  WaitingRequests waiting_;
  std::unique_ptr<RouteDispatcher> dispatcher_;
  std::unique_ptr<HttpServer> http_;
  // After http_: destroyed before the loop it runs on.
  std::unique_ptr<BoardPushes> pushes_;
  // After http_: destroyed first, with the exchanges its tasks hold.
  boost::asio::thread_pool workers_;
  std::atomic<bool> shut_down_{false};
};

HttpGateway::HttpGateway(SessionService* core, HttpGatewayOptions options)
    : server_(std::make_unique<Server>(core, std::move(options))) {}

HttpGateway::~HttpGateway() { Shutdown(); }

absl::StatusOr<int> HttpGateway::Start(absl::string_view listen) {
  return server_->Start(listen);
}

void HttpGateway::Shutdown() { server_->Shutdown(); }

}  // namespace khet
