// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/grpc/request_log.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "service/fair_use/budget_refusal.h"
#include "service/grpc/status_conversion.h"
#include "service/text/quoted_input.h"

namespace khet {

std::string FormatRequestLog(absl::string_view method,
                             absl::string_view session_id,
                             const grpc::Status& status, absl::Duration latency,
                             absl::string_view budget) {
  // The id comes from the request: escaped, and cut short if long.
  constexpr size_t kMaxIdLength = 64;
  std::string id = session_id.empty()
                       ? "-"
                       : absl::CEscape(session_id.substr(0, kMaxIdLength));
  if (session_id.size() > kMaxIdLength) id += "...";
  std::string line = absl::StrFormat(
      "rpc method=%s session=%s code=%s latency_ms=%.2f", method, id,
      StatusCodeName(status.error_code()), absl::ToDoubleMilliseconds(latency));
  if (!status.ok()) {
    if (!budget.empty()) absl::StrAppend(&line, " budget=", budget);
    absl::StrAppend(&line, " message=\"", LoggedMessage(status.error_message()),
                    "\"");
  }
  return line;
}

grpc::Status KhetGrpcService::RequestLog::Done(const absl::Status& status) {
  grpc::Status result = ToGrpcStatus(status);
  const absl::Duration latency =
      absl::FromChrono(std::chrono::steady_clock::now() - start_);
  if (service_->options_.metrics != nullptr) {
    service_->options_.metrics->Record(method_, result.error_code(), latency);
  }
  absl::string_view budget;
  if (const std::optional<RefusedBudget> refused = RefusedBy(status)) {
    budget = BudgetName(refused->budget);
    if (service_->options_.callers != nullptr) {
      service_->options_.callers->CountRefusal(status, Door::kGrpc);
    }
    if (context_ != nullptr) {
      context_->AddTrailingMetadata("retry-after",
                                    absl::StrCat(refused->retry_after_seconds));
    }
  }
  if (service_->options_.log_format == LogFormat::kText) {
    service_->Log(
        FormatRequestLog(method_, session_id_, result, latency, budget));
    return result;
  }
  const std::string route =
      absl::StrCat("/", v1::KhetService::service_full_name(), "/", method_);
  RequestLogEntry entry;
  entry.protocol = "grpc";
  entry.method = method_;
  entry.route = route;
  entry.code = StatusCodeName(result.error_code());
  entry.ms = absl::ToDoubleMilliseconds(latency);
  entry.peer = peer_;
  entry.session_id = session_id_;
  const std::string message = result.error_message();  // a copy
  entry.message = message;
  service_->Log(FormatJsonLog(entry, absl::Now()));
  return result;
}

}  // namespace khet
