// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the load tools' and the hostile tests' gRPC calls share: a context
// with a deadline and the caller's token, and a status put in words.
#ifndef KHET_TOOLS_LOAD_COMMON_GRPC_CALL_H_
#define KHET_TOOLS_LOAD_COMMON_GRPC_CALL_H_

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"

namespace khet {

// A context for a call that must end within `timeout`, carrying `token`
// (unless empty) as its bearer token.
inline std::unique_ptr<grpc::ClientContext> CallContext(
    absl::Duration timeout, const std::string& token = "") {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (!token.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
  }
  return context;
}

// "code <number>: <message>", for log lines and test failures.
inline std::string Describe(const grpc::Status& status) {
  return absl::StrCat("code ", static_cast<int>(status.error_code()), ": ",
                      status.error_message());
}

}  // namespace khet

#endif  // KHET_TOOLS_LOAD_COMMON_GRPC_CALL_H_
