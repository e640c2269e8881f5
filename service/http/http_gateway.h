// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's HTTP/JSON gateway (docs/http-api.md): the routes of the API over
// SessionService, the web board's files at "/", one log line per request.
// Runs its own server threads: max_waiting for long polls and event
// streams plus serving_threads for the rest.
#ifndef KHET_SERVICE_HTTP_HTTP_GATEWAY_H_
#define KHET_SERVICE_HTTP_HTTP_GATEWAY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "service/core/session_service.h"
#include "service/http/gateway_options.h"

namespace khet {

class HttpGateway {
 public:
  // `core` must outlive the gateway.
  HttpGateway(SessionService* core, HttpGatewayOptions options);
  // Shuts down if it is running.
  ~HttpGateway();
  HttpGateway(const HttpGateway&) = delete;
  HttpGateway& operator=(const HttpGateway&) = delete;

  // Listens on "host:port" ("[::1]:8080" for IPv6; port 0 picks a free one)
  // and serves on background threads; returns the port. INVALID_ARGUMENT
  // for a malformed address, UNAVAILABLE if it cannot listen. At most once.
  absl::StatusOr<int> Start(absl::string_view listen);

  // Ends long polls and event streams at once, stops accepting, lets the
  // requests in flight finish and joins the threads. Idempotent.
  void Shutdown();

 private:
  class Server;
  std::unique_ptr<Server> server_;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_GATEWAY_H_
