// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The one place where the core's absl::Status becomes a grpc::Status (and
// back, for clients and tests). The codes are the same numbers in both
// libraries; the message is kept as it is.
#ifndef KHET_SERVICE_GRPC_STATUS_CONVERSION_H_
#define KHET_SERVICE_GRPC_STATUS_CONVERSION_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace khet {

// The gRPC status with the same code and message. A code gRPC does not know
// becomes UNKNOWN.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The absl::Status with the same code and message.
absl::Status FromGrpcStatus(const grpc::Status& status);

// "OK", "INVALID_ARGUMENT", ...: the code's name as gRPC documents it.
absl::string_view StatusCodeName(grpc::StatusCode code);

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_STATUS_CONVERSION_H_
