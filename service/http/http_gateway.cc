#include "service/http/http_gateway.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "boost/asio/post.hpp"
#include "boost/asio/thread_pool.hpp"
#include "service/http/http_metrics.h"
#include "service/http/http_routes.h"
#include "service/http/http_server.h"
#include "service/http/http_status.h"
#include "service/http/request_log.h"
#include "service/http/waiting_requests.h"
#include "service/http/web_assets.h"
#include "service/metrics/text_format.h"
#include "service/quoted_input.h"
#include "service/status_macros.h"

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
    for (const WebAsset& asset : WebAssets())
      assets_.emplace(std::string(asset.path), &asset);
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
    routes_ = ApiRoutes(context);
    return http_->Start(listen);
  }

  void Shutdown() {
    if (shut_down_.exchange(true)) return;
    // Long polls answer 503 and streams end at once; other requests in
    // flight may finish within the grace; then every connection closes.
    waiting_.Shutdown();
    if (http_ != nullptr) http_->Shutdown(options_.shutdown_grace);
    workers_.stop();
    workers_.join();
  }

 private:
  // On a worker: routes the request and answers it (or leaves that to a
  // handler that answers later).
  void Dispatch(std::shared_ptr<HttpExchange> exchange) {
    const HttpRequest& request = exchange->request();
    // HEAD is answered as GET; the server leaves the body out.
    const std::string method =
        request.method == "HEAD" ? "GET" : request.method;
    HttpResponse response;
    if (request.path == kMetricsPath && options_.metrics != nullptr) {
      ServeMetrics(request, method, *exchange);
      return;
    }
    std::vector<std::string> allowed;
    const std::string* matched = nullptr;  // the first route of the path
    std::string id;
    for (const Route& route : routes_) {
      if (!MatchRoute(route.path, request.path, &id)) continue;
      allowed.push_back(route.method);
      if (matched == nullptr) matched = &route.path;
      if (route.method != method) continue;
      HttpCall call{request, response, id, nullptr, exchange};
      call.log =
          std::make_shared<RequestLog>(&recorder_, request.method, route.path,
                                       call.session_id, request.remote_address);
      const absl::Status status = route.handler(call);
      if (call.answered_later) return;
      if (!status.ok()) {
        response = ErrorResponse(status, HttpStatusFor(status.code()));
      }
      call.log->set_session_id(call.session_id);
      call.log->Done(response.status, status);
      exchange->Respond(std::move(response));
      return;
    }
    RequestLog log(&recorder_, request.method, request.path, "",
                   request.remote_address);
    log.set_metric_route(matched != nullptr ? *matched : "unmatched");
    if (allowed.empty() && method == "GET") {
      std::string path = request.path.substr(1);
      if (path.empty() || path.back() == '/') path += "index.html";
      const auto it = assets_.find(path);
      if (it != assets_.end()) {
        response.content_type = std::string(it->second->content_type);
        response.headers.emplace_back("Cache-Control", "no-cache");
        response.body = std::string(it->second->body);
        log.set_metric_route("static");
        log.Done(200, absl::OkStatus());
        exchange->Respond(std::move(response));
        return;
      }
    }
    absl::Status status;
    if (allowed.empty()) {
      status = absl::NotFoundError(
          absl::StrCat("no route ", QuoteInput(request.method), " ",
                       QuoteInput(request.path),
                       "; the API is under /v1/ (docs/http-api.md)"));
      response = ErrorResponse(status, 404);
    } else {
      const std::string methods = absl::StrJoin(allowed, ", ");
      status = absl::UnimplementedError(
          absl::StrCat(QuoteInput(request.path), " does not take ",
                       QuoteInput(request.method), "; it takes ", methods));
      response = ErrorResponse(status, 405);
      response.headers.emplace_back("Allow", methods);
    }
    log.Done(response.status, status);
    exchange->Respond(std::move(response));
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
  std::vector<Route> routes_;
  std::map<std::string, const WebAsset*, std::less<>> assets_;
  std::unique_ptr<HttpServer> http_;
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
