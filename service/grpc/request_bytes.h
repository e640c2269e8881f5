// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A gRPC request's bytes read into its message by the service itself, so
// that bytes that are not the message answer INVALID_ARGUMENT naming the
// problem (gRPC's own parsing answers UNIMPLEMENTED, with no message, for a
// method that exists).
#ifndef KHET_SERVICE_GRPC_REQUEST_BYTES_H_
#define KHET_SERVICE_GRPC_REQUEST_BYTES_H_

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "grpcpp/support/byte_buffer.h"

namespace khet {

// Reads `bytes` into `request` (cleared first). INVALID_ARGUMENT when a
// string field holds bytes that are not UTF-8 (naming the field) or the
// bytes are not the message's wire format (naming the message); `request`
// is then left empty.
absl::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request);

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_REQUEST_BYTES_H_
