// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// An HTTP request as the gateway's routes read it and the answer they give,
// free of the server underneath (service/http/http_server.h).
#ifndef KHET_SERVICE_HTTP_HTTP_MESSAGE_H_
#define KHET_SERVICE_HTTP_HTTP_MESSAGE_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace khet {

struct HttpRequest {
  std::string method;  // as sent: "GET", "POST", ...
  std::string target;  // the path and query as sent
  std::string path;    // the target up to '?'
  // Every header line in the order sent, names as sent.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string remote_address;  // the client's IP address

  // How many headers are named `name` (case-insensitively).
  size_t HeaderCount(absl::string_view name) const;
  bool HasHeader(absl::string_view name) const { return HeaderCount(name) > 0; }
  // The first header named `name`'s value; empty if there is none.
  std::string Header(absl::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  // Further headers; the server adds Content-Length (or chunked transfer
  // for a stream) and Connection itself.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_HTTP_MESSAGE_H_
