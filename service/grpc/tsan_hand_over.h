// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Orderings that Debian's gRPC creates without ThreadSanitizer seeing them
// (it is built without TSan): what a thread did to an object before handing
// it to gRPC (returning a reactor, StartWrite, Finish) happens before the
// callbacks gRPC then makes on it on another thread (OnWriteDone, OnCancel,
// OnDone). Telling TSan so keeps it checking our code on both sides rather
// than reporting the hand-over as a race. No-ops in other builds.
#ifndef KHET_SERVICE_GRPC_TSAN_HAND_OVER_H_
#define KHET_SERVICE_GRPC_TSAN_HAND_OVER_H_

#if defined(__SANITIZE_THREAD__)
#define KHET_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KHET_TSAN 1
#endif
#endif

#ifdef KHET_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace khet {

// Before handing `object` to gRPC.
inline void HandOverToGrpc([[maybe_unused]] void* object) {
#ifdef KHET_TSAN
  __tsan_release(object);
#endif
}

// First thing in a callback gRPC makes on `object`.
inline void TakeBackFromGrpc([[maybe_unused]] void* object) {
#ifdef KHET_TSAN
  __tsan_acquire(object);
#endif
}

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_TSAN_HAND_OVER_H_
