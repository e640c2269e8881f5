#include "service/http/http_gateway.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "httplib.h"
#include "service/http/http_routes.h"
#include "service/http/http_status.h"
#include "service/http/request_log.h"
#include "service/http/waiting_requests.h"
#include "service/http/web_assets.h"

namespace khet {
namespace {

void WriteToStderr(const std::string& line) {
  // One write per line so that lines from concurrent requests never mix.
  const std::string out = line + "\n";
  [[maybe_unused]] const ssize_t written =
      ::write(STDERR_FILENO, out.data(), out.size());
}

void WriteError(httplib::Response& response, const absl::Status& status,
                int http_status) {
  response.status = http_status;
  response.set_content(ErrorJson(status, http_status), "application/json");
}

// The error httplib found before any route ran, by the status it chose.
absl::Status ServerError(int http_status, size_t max_body_bytes) {
  switch (http_status) {
    case 413:
      return absl::ResourceExhaustedError(
          absl::StrCat("the request body is larger than the limit of ",
                       max_body_bytes, " bytes"));
    case 414:
      return absl::InvalidArgumentError("the request's URI is too long");
    case 400:
      return absl::InvalidArgumentError(
          "malformed HTTP request or an unsupported method");
    default:
      return absl::UnknownError(
          absl::StrCat("the HTTP server answered status ", http_status));
  }
}

}  // namespace

class HttpGateway::Server {
 public:
  Server(SessionService* core, HttpGatewayOptions options)
      : options_(std::move(options)), waiting_(options_.max_waiting) {
    if (!options_.log) options_.log = WriteToStderr;
    routes_ = ApiRoutes({core, &waiting_, &options_});
    for (const WebAsset& asset : WebAssets())
      assets_.emplace(std::string(asset.path), &asset);

    const size_t threads = static_cast<size_t>(options_.max_waiting) +
                           static_cast<size_t>(options_.serving_threads);
    http_.new_task_queue = [threads] {
      return new httplib::ThreadPool(threads);
    };
    http_.set_payload_max_length(options_.max_body_bytes);
    http_.set_keep_alive_timeout(
        std::max<time_t>(1, absl::ToInt64Seconds(options_.keep_alive_timeout)));
    http_.set_keep_alive_max_count(100);
    const auto dispatch = [this](const httplib::Request& request,
                                 httplib::Response& response) {
      Dispatch(request, response);
    };
    http_.Get(".*", dispatch);
    http_.Post(".*", dispatch);
    http_.Put(".*", dispatch);
    http_.Patch(".*", dispatch);
    http_.Delete(".*", dispatch);
    http_.Options(".*", dispatch);
    http_.set_error_handler(httplib::Server::HandlerWithResponse(
        [this](const httplib::Request& request, httplib::Response& response)
            -> httplib::Server::HandlerResponse {
          // Errors of the routes carry their body already.
          if (!response.body.empty()) {
            return httplib::Server::HandlerResponse::Unhandled;
          }
          const absl::Status status =
              ServerError(response.status, options_.max_body_bytes);
          WriteError(response, status, response.status);
          RequestLog log(&options_.log, request.method, "-", "");
          log.Done(response.status, status);
          return httplib::Server::HandlerResponse::Handled;
        }));
  }

  absl::StatusOr<int> Start(absl::string_view listen) {
    const size_t colon = listen.rfind(':');
    int port = 0;
    if (colon == absl::string_view::npos || colon == 0 ||
        !absl::SimpleAtoi(absl::string_view(listen.data() + colon + 1,
                                            listen.size() - colon - 1),
                          &port) ||
        port < 0 || port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("the HTTP address \"", std::string(listen),
                       "\" is not of the form host:port (port 0 to 65535)"));
    }
    std::string host(listen.substr(0, colon));
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (port == 0) {
      port = http_.bind_to_any_port(host);
    } else if (!http_.bind_to_port(host, port)) {
      port = -1;
    }
    if (port <= 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot listen for HTTP on ", std::string(listen)));
    }
    thread_ = std::thread([this] {
      http_.listen_after_bind();
      listen_ended_ = true;
    });
    // Shutdown can stop the server only once it runs.
    while (!http_.is_running() && !listen_ended_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return port;
  }

  void Shutdown() {
    // Long polls and streams end at once and answer before the server
    // stops; a stream stuck writing to a slow client is cut by the stop.
    waiting_.Shutdown();
    waiting_.WaitUntilNoneWaits(absl::Seconds(2));
    http_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Dispatch(const httplib::Request& request, httplib::Response& response) {
    // HEAD is answered as GET without the body.
    const std::string method =
        request.method == "HEAD" ? "GET" : request.method;
    std::vector<std::string> allowed;
    std::string id;
    for (const Route& route : routes_) {
      if (!MatchRoute(route.path, request.path, &id)) continue;
      allowed.push_back(route.method);
      if (route.method != method) continue;
      HttpCall call{request, response, id, nullptr};
      call.log = std::make_shared<RequestLog>(&options_.log, request.method,
                                              route.path, call.session_id);
      const absl::Status status = route.handler(call);
      if (!status.ok())
        WriteError(response, status, HttpStatusFor(status.code()));
      if (!call.log_later) {
        call.log->set_session_id(call.session_id);
        call.log->Done(response.status, status);
      }
      return;
    }
    RequestLog log(&options_.log, request.method, request.path, "");
    if (allowed.empty() && method == "GET") {
      std::string path = request.path.substr(1);
      if (path.empty() || path.back() == '/') path += "index.html";
      const auto it = assets_.find(path);
      if (it != assets_.end()) {
        response.status = 200;
        response.set_header("Cache-Control", "no-cache");
        response.set_content(std::string(it->second->body),
                             std::string(it->second->content_type).c_str());
        log.Done(200, absl::OkStatus());
        return;
      }
    }
    absl::Status status;
    if (allowed.empty()) {
      status = absl::NotFoundError(
          absl::StrCat("no route ", request.method, " ", request.path,
                       "; the API is under /v1/ (docs/http-api.md)"));
      WriteError(response, status, 404);
    } else {
      const std::string methods = absl::StrJoin(allowed, ", ");
      status = absl::UnimplementedError(
          absl::StrCat(request.path, " does not take ", request.method,
                       "; it takes ", methods));
      WriteError(response, status, 405);
      response.set_header("Allow", methods);
    }
    log.Done(response.status, status);
  }

  HttpGatewayOptions options_;
  WaitingRequests waiting_;
  std::vector<Route> routes_;
  std::map<std::string, const WebAsset*, std::less<>> assets_;
  httplib::Server http_;
  std::thread thread_;
  std::atomic<bool> listen_ended_{false};
};

HttpGateway::HttpGateway(SessionService* core, HttpGatewayOptions options)
    : server_(std::make_unique<Server>(core, std::move(options))) {}

HttpGateway::~HttpGateway() { Shutdown(); }

absl::StatusOr<int> HttpGateway::Start(absl::string_view listen) {
  return server_->Start(listen);
}

void HttpGateway::Shutdown() { server_->Shutdown(); }

}  // namespace khet
