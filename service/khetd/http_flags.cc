// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/khetd/http_flags.h"

#include <cstddef>
#include <tuple>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

ABSL_FLAG(int, http_max_waiting, khet::HttpGatewayOptions().max_waiting,
          "HTTP long polls and event streams at once at most; beyond: 429 "
          "(they hold no thread)");
ABSL_FLAG(int, http_threads, khet::HttpGatewayOptions().serving_threads,
          "Threads running HTTP requests' calls into the service");
ABSL_FLAG(int, http_max_connections, khet::HttpServerOptions().max_connections,
          "HTTP connections at once; a new one beyond is answered 503 and "
          "closed");
ABSL_FLAG(int, http_max_connections_per_address,
          khet::HttpServerOptions().max_connections_per_address,
          "HTTP connections at once from one client address; a new one beyond "
          "is answered 429 and closed");
ABSL_FLAG(int, http_max_inworld_connections_per_address,
          khet::HttpServerOptions().max_inworld_connections_per_address,
          "HTTP connections at once from one client address in all, beyond "
          "--http_max_connections_per_address, whose every request carries "
          "an in-world object key (X-SecondLife-Object-Key): a simulator "
          "host's boards, each holding a long poll; a request without a key "
          "on such a connection is answered 429 and the connection closed");
ABSL_FLAG(int, http_max_header_count,
          static_cast<int>(khet::HttpServerOptions().max_header_count),
          "Header lines of an HTTP request at most; beyond: 431");
ABSL_FLAG(int, http_max_header_bytes,
          static_cast<int>(khet::HttpServerOptions().max_header_bytes),
          "Bytes of an HTTP request's line and headers at most; beyond: 431");
ABSL_FLAG(int, http_header_timeout_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::HttpServerOptions().header_timeout)),
          "An HTTP request's headers must arrive within this; else 408");
ABSL_FLAG(int, http_body_timeout_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::HttpServerOptions().body_timeout)),
          "An HTTP request's body must arrive within this; else 408");
ABSL_FLAG(int, http_idle_timeout_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::HttpServerOptions().idle_timeout)),
          "A kept-alive HTTP connection idle this long is closed");

namespace khet {

absl::Status ReadHttpFlags(HttpGatewayOptions& options) {
  HttpServerOptions& server = options.server;
  options.max_waiting = absl::GetFlag(FLAGS_http_max_waiting);
  options.serving_threads = absl::GetFlag(FLAGS_http_threads);
  if (options.max_waiting < 1 || options.max_waiting > 100000) {
    return absl::InvalidArgumentError("--http_max_waiting must be 1 to 100000");
  }
  if (options.serving_threads < 1 || options.serving_threads > 256) {
    return absl::InvalidArgumentError("--http_threads must be 1 to 256");
  }
  server.max_connections = absl::GetFlag(FLAGS_http_max_connections);
  server.max_connections_per_address =
      absl::GetFlag(FLAGS_http_max_connections_per_address);
  server.max_inworld_connections_per_address =
      absl::GetFlag(FLAGS_http_max_inworld_connections_per_address);
  if (server.max_connections < 1 || server.max_connections_per_address < 1 ||
      server.max_inworld_connections_per_address < 0) {
    return absl::InvalidArgumentError(
        "--http_max_connections and --http_max_connections_per_address must "
        "be >= 1, --http_max_inworld_connections_per_address >= 0");
  }
  const int header_count = absl::GetFlag(FLAGS_http_max_header_count);
  const int header_bytes = absl::GetFlag(FLAGS_http_max_header_bytes);
  if (header_count < 1 || header_bytes < 256) {
    return absl::InvalidArgumentError(
        "--http_max_header_count must be >= 1 and --http_max_header_bytes >= "
        "256");
  }
  server.max_header_count = static_cast<size_t>(header_count);
  server.max_header_bytes = static_cast<size_t>(header_bytes);
  for (const auto& [flag, seconds, field] :
       {std::tuple{"--http_header_timeout_seconds",
                   absl::GetFlag(FLAGS_http_header_timeout_seconds),
                   &server.header_timeout},
        std::tuple{"--http_body_timeout_seconds",
                   absl::GetFlag(FLAGS_http_body_timeout_seconds),
                   &server.body_timeout},
        std::tuple{"--http_idle_timeout_seconds",
                   absl::GetFlag(FLAGS_http_idle_timeout_seconds),
                   &server.idle_timeout}}) {
    if (seconds < 1) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " must be >= 1"));
    }
    *field = absl::Seconds(seconds);
  }
  return absl::OkStatus();
}

}  // namespace khet
