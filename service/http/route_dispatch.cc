// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/route_dispatch.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "service/http/http_status.h"
#include "service/text/quoted_input.h"

namespace khet {

ClientIdentity RouteDispatcher::Identify(const HttpRequest& request) const {
  std::vector<absl::string_view> forwarded_for;
  for (const auto& [name, value] : request.headers) {
    if (absl::EqualsIgnoreCase(name, kForwardedForHeader)) {
      forwarded_for.push_back(value);
    }
  }
  return callers_->Identify(IpAddress::Parse(request.remote_address),
                            forwarded_for, request.Header(kObjectKeyHeader));
}

RouteDispatcher::RouteDispatcher(std::vector<Route> routes,
                                 const RequestRecorder* recorder,
                                 CallerBudgets* callers)
    : routes_(std::move(routes)), recorder_(recorder), callers_(callers) {
  for (const WebAsset& asset : WebAssets())
    assets_.emplace(std::string(asset.path), &asset);
}

void RouteDispatcher::Dispatch(
    const std::shared_ptr<HttpExchange>& exchange) const {
  const HttpRequest& request = exchange->request();
  // HEAD is answered as GET; the server leaves the body out.
  const std::string method = request.method == "HEAD" ? "GET" : request.method;
  HttpResponse response;
  std::vector<std::string> allowed;
  const std::string* matched = nullptr;  // the first route of the path
  std::string id;
  std::vector<std::string> values;
  for (const Route& route : routes_) {
    if (!MatchRoute(route.path, request.path, &id, &values)) continue;
    allowed.push_back(route.method);
    if (matched == nullptr) matched = &route.path;
    if (route.method != method) continue;
    HttpCall call{request, response, id, values, nullptr, exchange, false, {}};
    call.log =
        std::make_shared<RequestLog>(recorder_, request.method, route.path,
                                     call.session_id, request.remote_address);
    absl::Status status;
    if (callers_ != nullptr) {
      call.client = Identify(request);
      status = callers_->AdmitCall(call.client);
    }
    if (status.ok()) status = route.handler(call);
    if (call.answered_later) return;
    if (!status.ok()) {
      response = ErrorResponse(status, HttpStatusFor(status.code()));
    }
    call.log->set_session_id(call.session_id);
    call.log->Done(response.status, status);
    exchange->Respond(std::move(response));
    return;
  }
  RequestLog log(recorder_, request.method, request.path, "",
                 request.remote_address);
  log.set_metric_route(matched != nullptr ? *matched : "unmatched");
  if (allowed.empty() && method == "GET") {
    // A target such as "?x" has an empty path.
    std::string path = request.path.empty() ? "" : request.path.substr(1);
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
    status = absl::NotFoundError(absl::StrCat(
        "no route ", QuoteInput(request.method), " ", QuoteInput(request.path),
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

}  // namespace khet
