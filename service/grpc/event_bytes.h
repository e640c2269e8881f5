// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A published event as the bytes of a gRPC message, without copying them:
// the buffer refers to the event's wire format, made once for every Watch
// stream, and keeps the event alive for as long as gRPC holds the bytes.
// Also any encoded message held in a string (MakeMove's raw reply).
#ifndef KHET_SERVICE_GRPC_EVENT_BYTES_H_
#define KHET_SERVICE_GRPC_EVENT_BYTES_H_

#include <string>

#include "grpcpp/support/byte_buffer.h"
#include "service/events/shared_event.h"

namespace khet {

// Exactly the bytes a typed write of event->event() sends.
grpc::ByteBuffer EventBytes(SharedEventPtr event);

// `bytes` as a gRPC message's bytes, without copying them: the buffer owns
// the string until gRPC drops it.
grpc::ByteBuffer OwnedBytes(std::string bytes);

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_EVENT_BYTES_H_
