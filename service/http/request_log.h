// One log line per HTTP request: method, route, session, HTTP status, code,
// latency and, for an error, its message (escaped and cut to
// LoggedMessage's bound). Never a token.
#ifndef KHET_SERVICE_HTTP_REQUEST_LOG_H_
#define KHET_SERVICE_HTTP_REQUEST_LOG_H_

#include <chrono>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace khet {

class RequestLog {
 public:
  using Sink = std::function<void(const std::string& line)>;
  // Starts the clock. `sink` must outlive the log.
  RequestLog(const Sink* sink, absl::string_view method,
             absl::string_view route, absl::string_view session_id);

  // For a route that learns its session from its answer (CreateSession).
  void set_session_id(absl::string_view id) { session_id_ = std::string(id); }

  // Writes the line; later calls do nothing.
  void Done(int http_status, const absl::Status& status);

 private:
  const Sink* const sink_;
  const std::string method_;
  const std::string route_;
  std::string session_id_;
  const std::chrono::steady_clock::time_point start_;
  bool done_ = false;
};

// The line as RequestLog writes it.
std::string FormatHttpLog(absl::string_view method, absl::string_view route,
                          absl::string_view session_id, int http_status,
                          const absl::Status& status, double latency_ms);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_REQUEST_LOG_H_
