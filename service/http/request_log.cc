#include "service/http/request_log.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/quoted_input.h"

namespace khet {
namespace {

// Text from the request, escaped and cut short if long.
std::string Shown(absl::string_view text) {
  constexpr size_t kMax = 64;
  if (text.empty()) return "-";
  std::string out = absl::CEscape(
      absl::string_view(text.data(), std::min(text.size(), kMax)));
  if (text.size() > kMax) out += "...";
  return out;
}

}  // namespace

std::string FormatHttpLog(absl::string_view method, absl::string_view route,
                          absl::string_view session_id, int http_status,
                          const absl::Status& status, double latency_ms) {
  std::string line = absl::StrFormat(
      "http method=%s route=%s session=%s status=%d code=%s latency_ms=%.2f",
      Shown(method), Shown(route), Shown(session_id), http_status,
      absl::StatusCodeToString(status.code()), latency_ms);
  if (!status.ok()) {
    absl::StrAppend(&line, " message=\"", LoggedMessage(status.message()),
                    "\"");
  }
  return line;
}

RequestLog::RequestLog(const Sink* sink, absl::string_view method,
                       absl::string_view route, absl::string_view session_id)
    : sink_(sink),
      method_(method),
      route_(route),
      session_id_(session_id),
      start_(std::chrono::steady_clock::now()) {}

void RequestLog::Done(int http_status, const absl::Status& status) {
  if (done_) return;
  done_ = true;
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start_)
                        .count();
  (*sink_)(
      FormatHttpLog(method_, route_, session_id_, http_status, status, ms));
}

}  // namespace khet
