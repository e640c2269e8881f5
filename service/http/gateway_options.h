// What the HTTP gateway may use: its limits and where its log goes.
#ifndef KHET_SERVICE_HTTP_GATEWAY_OPTIONS_H_
#define KHET_SERVICE_HTTP_GATEWAY_OPTIONS_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/time/time.h"

namespace khet {

struct HttpGatewayOptions {
  // Largest request body; beyond: 413 RESOURCE_EXHAUSTED.
  size_t max_body_bytes = 64 * 1024;
  // Long polls and event streams at once; beyond: 429 RESOURCE_EXHAUSTED.
  // Each holds a server thread while it waits.
  int max_waiting = 64;
  // Threads for every other request; the server has max_waiting +
  // serving_threads threads, so waiting requests never starve the rest.
  int serving_threads = 8;
  // An idle kept-alive connection is closed after this long; it holds a
  // thread meanwhile, and shutdown waits for it.
  absl::Duration keep_alive_timeout = absl::Seconds(2);
  // An event stream sends a comment line after this long without events.
  absl::Duration stream_keepalive = absl::Seconds(15);
  // SuggestMove's deadline when the request gives no timeoutMs, and the
  // longest one it may give.
  absl::Duration suggest_timeout = absl::Seconds(5);
  absl::Duration max_suggest_timeout = absl::Seconds(30);
  // Receives one line per request, e.g. "http method=POST
  // route=/v1/sessions/{id}:move session=s0001 status=200 code=OK
  // latency_ms=0.84". Never a token. Empty: stderr.
  std::function<void(const std::string& line)> log;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_GATEWAY_OPTIONS_H_
