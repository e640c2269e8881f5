// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/request_log.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "service/fair_use/budget_refusal.h"
#include "service/text/quoted_input.h"

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
  if (const std::optional<RefusedBudget> refused = RefusedBy(status)) {
    absl::StrAppend(&line, " budget=", BudgetName(refused->budget));
  }
  if (!status.ok()) {
    absl::StrAppend(&line, " message=\"", LoggedMessage(status.message()),
                    "\"");
  }
  return line;
}

RequestLog::RequestLog(const RequestRecorder* recorder,
                       absl::string_view method, absl::string_view route,
                       absl::string_view session_id, absl::string_view peer)
    : recorder_(recorder),
      method_(method),
      route_(route),
      session_id_(session_id),
      peer_(peer),
      start_(std::chrono::steady_clock::now()) {}

void RequestLog::Done(int http_status, const absl::Status& status) {
  if (done_) return;
  done_ = true;
  const std::chrono::steady_clock::duration elapsed =
      std::chrono::steady_clock::now() - start_;
  if (recorder_->metrics != nullptr) {
    recorder_->metrics->Record(metric_route_.empty() ? route_ : metric_route_,
                               method_, http_status, absl::FromChrono(elapsed));
  }
  if (recorder_->callers != nullptr) {
    recorder_->callers->CountRefusal(status, Door::kHttp);
  }
  const double ms = std::chrono::duration<double, std::milli>(elapsed).count();
  if (recorder_->format == LogFormat::kText) {
    recorder_->sink(
        FormatHttpLog(method_, route_, session_id_, http_status, status, ms));
    return;
  }
  RequestLogEntry entry;
  entry.protocol = "http";
  entry.method = method_;
  entry.route = route_;
  entry.http_status = http_status;
  const std::string code = absl::StatusCodeToString(status.code());
  entry.code = code;
  entry.ms = ms;
  entry.peer = peer_;
  entry.session_id = session_id_;
  entry.message = status.message();
  recorder_->sink(FormatJsonLog(entry, absl::Now()));
}

}  // namespace khet
