// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The gateway's routes (docs/http-api.md): for each, its method, its path
// pattern and the handler that reads the request, calls SessionService and
// writes the answer.
#ifndef KHET_SERVICE_HTTP_HTTP_ROUTES_H_
#define KHET_SERVICE_HTTP_HTTP_ROUTES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "boost/asio/any_io_executor.hpp"
#include "service/core/session_service.h"
#include "service/fair_use/client_identity.h"
#include "service/http/gateway_options.h"
#include "service/http/http_message.h"
#include "service/http/http_server.h"
#include "service/http/request_log.h"
#include "service/http/waiting_requests.h"

namespace khet {

class BoardPushes;

// One request as a handler sees it.
struct HttpCall {
  const HttpRequest& request;
  HttpResponse& response;
  std::string session_id;  // the path's {id}; empty for routes without
  // The values of the path's placeholders after {id} ("{game}", "{ply}"),
  // in order.
  std::vector<std::string> path_values;
  std::shared_ptr<RequestLog> log;
  // The request's exchange, for a handler that answers later.
  std::shared_ptr<HttpExchange> exchange;
  // Set by a handler that answers later through `exchange` (a long poll, an
  // event stream); it then writes the log too.
  bool answered_later = false;
  // Who calls, when the gateway has budgets (gateway_options.h); empty
  // otherwise.
  ClientIdentity client;
};

// A handler answers through call.response, or returns the error to answer
// with (and then has written nothing).
using RouteHandler = std::function<absl::Status(HttpCall& call)>;

struct Route {
  std::string method;  // GET, POST or DELETE
  // The path as the docs write it, e.g. "/v1/sessions/{id}:move"; also in
  // the log.
  std::string path;
  RouteHandler handler;
};

// Whether `path` is the route's path, with a non-empty text free of '/'
// and ':' for each of its placeholders ("{id}", "{game}"...; each value
// runs to the next '/' or ':'): the first's value is set into *id, the
// others' into *more when given.
bool MatchRoute(const std::string& route_path, const std::string& path,
                std::string* id, std::vector<std::string>* more = nullptr);

// What the handlers use; every pointer outlives the routes.
struct RouteContext {
  SessionService* core = nullptr;
  WaitingRequests* waiting = nullptr;
  const HttpGatewayOptions* options = nullptr;
  // The server's event loop, for timers of requests that wait.
  boost::asio::any_io_executor timers;
  // Runs a task on the threads that may call the service.
  std::function<void(std::function<void()>)> run_on_worker;
  // Pushes events to boards' URLs; null when khetd does not.
  BoardPushes* pushes = nullptr;
};

// Every API route under /v1/.
std::vector<Route> ApiRoutes(const RouteContext& context);

// Answers 200 with `body` of `content_type`.
void Reply(HttpCall& call, std::string body,
           const char* content_type = "application/json");

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_ROUTES_H_
