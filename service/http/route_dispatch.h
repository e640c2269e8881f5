// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Which route answers a request: the gateway's dispatch, free of the
// server and its threads so that tests and fuzz targets drive it in
// process.
#ifndef KHET_SERVICE_HTTP_ROUTE_DISPATCH_H_
#define KHET_SERVICE_HTTP_ROUTE_DISPATCH_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "service/fair_use/caller_budgets.h"
#include "service/http/http_routes.h"
#include "service/http/http_server.h"
#include "service/http/request_log.h"
#include "service/http/web_assets.h"

namespace khet {

class RouteDispatcher {
 public:
  // `recorder` (log lines and metrics) and `callers` (may be null: no
  // budget) must outlive the dispatcher.
  RouteDispatcher(std::vector<Route> routes, const RequestRecorder* recorder,
                  CallerBudgets* callers = nullptr);

  // Answers the exchange's request (HEAD as GET): the route matching its
  // path and method; else, for GET of a path no route has, the web board's
  // file of that path ("/", an empty path as in the target "?x", and paths
  // ending in "/" name index.html); else
  // 404 NOT_FOUND for an unknown path, 405 UNIMPLEMENTED with an Allow
  // header for a known path with another method. A route's request is
  // first identified and admitted by `callers` (its calls' budget): a
  // refusal answers 429 with Retry-After before the route runs. Writes one
  // log line, or leaves the answer and the line to a handler that answers
  // later.
  void Dispatch(const std::shared_ptr<HttpExchange>& exchange) const;

 private:
  // Who sends `request`. REQUIRES: callers_.
  ClientIdentity Identify(const HttpRequest& request) const;

  const std::vector<Route> routes_;
  const RequestRecorder* const recorder_;
  CallerBudgets* const callers_;
  std::map<std::string, const WebAsset*, std::less<>> assets_;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_ROUTE_DISPATCH_H_
