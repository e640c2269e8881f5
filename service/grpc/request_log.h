// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// KhetGrpcService::RequestLog: times one call of the gRPC service; when the
// call is done, counts it in the service's metrics and writes its log line
// (text or JSON, as the service's options say). Used by the unary calls and
// by Watch.
#ifndef KHET_SERVICE_GRPC_REQUEST_LOG_H_
#define KHET_SERVICE_GRPC_REQUEST_LOG_H_

#include <chrono>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "service/grpc/grpc_service.h"

namespace khet {

// One request's log line: `rpc method=MakeMove session=3fa9 code=OK
// latency_ms=0.84`, and on errors ` budget=<name>` when a budget refused
// (budget_refusal.h) and ` message="..."`, escaped and cut to
// LoggedMessage's bound. Never a token.
std::string FormatRequestLog(absl::string_view method,
                             absl::string_view session_id,
                             const grpc::Status& status, absl::Duration latency,
                             absl::string_view budget = "");

class KhetGrpcService::RequestLog {
 public:
  RequestLog(KhetGrpcService* service, absl::string_view method,
             absl::string_view session_id)
      : service_(service),
        method_(method),
        session_id_(session_id),
        start_(std::chrono::steady_clock::now()) {}

  void set_session_id(absl::string_view id) { session_id_ = std::string(id); }
  // The call's context: its client's address, which only the JSON lines
  // show, and where a budget's refusal adds its retry-after trailing
  // metadata. The context must outlive Done.
  void set_peer(grpc::ServerContextBase& context) {
    context_ = &context;
    if (service_->options_.log_format == LogFormat::kJson) {
      peer_ = context.peer();
    }
  }
  // Who calls, as the budgets know it (KhetGrpcService::Admit); empty
  // without budgets.
  void set_client(ClientIdentity client) { client_ = std::move(client); }
  const ClientIdentity& client() const { return client_; }

  // Counts the call, writes its log line and returns its status.
  grpc::Status Done(const absl::Status& status);

  // The same, with the response's bytes put into `response` when OK.
  grpc::Status Done(absl::StatusOr<grpc::ByteBuffer> result,
                    grpc::ByteBuffer* response) {
    if (result.ok()) *response = *std::move(result);
    return Done(result.status());
  }

 private:
  KhetGrpcService* const service_;
  const absl::string_view method_;
  std::string session_id_;
  std::string peer_;
  grpc::ServerContextBase* context_ = nullptr;
  ClientIdentity client_;
  const std::chrono::steady_clock::time_point start_;
};

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_REQUEST_LOG_H_
