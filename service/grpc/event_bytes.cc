// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/grpc/event_bytes.h"

#include <cstddef>
#include <string>
#include <utility>

#include "grpcpp/support/slice.h"
#include "service/grpc/tsan_hand_over.h"

namespace khet {
namespace {

// gRPC calls these on whichever thread drops the slice's last reference,
// ordered after the slice's making through atomics of its own that TSan
// does not see: hence the hand-over of `held` both ways.
// The bytes are taken back too: an in-process reader hands them back to
// gRPC when done (see HandOverToGrpc), and the free must follow its reads.
void Release(void* held) {
  TakeBackFromGrpc(held);
  auto* event = static_cast<SharedEventPtr*>(held);
  TakeBackFromGrpc(const_cast<char*>((*event)->wire().data()));
  delete event;
}

void ReleaseString(void* held) {
  TakeBackFromGrpc(held);
  auto* bytes = static_cast<std::string*>(held);
  TakeBackFromGrpc(bytes->data());
  delete bytes;
}

}  // namespace

grpc::ByteBuffer EventBytes(SharedEventPtr event) {
  const std::string& wire = event->wire();
  // gRPC only reads the slice; the event it points into lives until gRPC
  // drops its last reference and Release runs.
  char* const data = const_cast<char*>(wire.data());
  const size_t size = wire.size();
  auto* held = new SharedEventPtr(std::move(event));
  // Everything read above is ordered before the release by the hand-overs;
  // nothing of the event or of `held` is touched after them. Readers of the
  // bytes on other threads (an in-process client gets the very slice) are
  // ordered after this one inside gRPC.
  HandOverToGrpc(data);
  HandOverToGrpc(held);
  grpc::Slice slice(data, size, &Release, held);
  return grpc::ByteBuffer(&slice, 1);
}

grpc::ByteBuffer OwnedBytes(std::string bytes) {
  auto* held = new std::string(std::move(bytes));
  char* const data = held->data();
  const size_t size = held->size();
  // As in EventBytes: `held` is not touched after the hand-overs.
  HandOverToGrpc(data);
  HandOverToGrpc(held);
  grpc::Slice slice(data, size, &ReleaseString, held);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace khet
