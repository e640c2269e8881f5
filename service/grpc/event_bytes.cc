#include "service/grpc/event_bytes.h"

#include <string>
#include <utility>

#include "grpcpp/support/slice.h"
#include "service/grpc/tsan_hand_over.h"

namespace khet {
namespace {

// gRPC calls these on whichever thread drops the slice's last reference,
// ordered after the slice's making through atomics of its own that TSan
// does not see: hence the hand-over of `held` both ways.
void Release(void* held) {
  TakeBackFromGrpc(held);
  delete static_cast<SharedEventPtr*>(held);
}

void ReleaseString(void* held) {
  TakeBackFromGrpc(held);
  delete static_cast<std::string*>(held);
}

}  // namespace

grpc::ByteBuffer EventBytes(SharedEventPtr event) {
  const std::string& wire = event->wire();
  // gRPC only reads the slice; the event it points into lives until gRPC
  // drops its last reference and Release runs.
  char* const data = const_cast<char*>(wire.data());
  // Readers of these bytes on other threads (an in-process client gets the
  // very slice) are ordered after this one inside gRPC.
  HandOverToGrpc(data);
  auto* held = new SharedEventPtr(std::move(event));
  HandOverToGrpc(held);
  grpc::Slice slice(data, wire.size(), &Release, held);
  return grpc::ByteBuffer(&slice, 1);
}

grpc::ByteBuffer OwnedBytes(std::string bytes) {
  auto* held = new std::string(std::move(bytes));
  char* const data = held->data();
  HandOverToGrpc(data);
  HandOverToGrpc(held);
  grpc::Slice slice(data, held->size(), &ReleaseString, held);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace khet
