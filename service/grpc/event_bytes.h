// A published event as the bytes of a gRPC message, without copying them:
// the buffer refers to the event's wire format, made once for every Watch
// stream, and keeps the event alive for as long as gRPC holds the bytes.
#ifndef KHET_SERVICE_GRPC_EVENT_BYTES_H_
#define KHET_SERVICE_GRPC_EVENT_BYTES_H_

#include "grpcpp/support/byte_buffer.h"
#include "service/shared_event.h"

namespace khet {

// Exactly the bytes a typed write of event->event() sends.
grpc::ByteBuffer EventBytes(SharedEventPtr event);

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_EVENT_BYTES_H_
