// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// One event as published: immutable, shared by every watcher that receives
// it, with each encoding made once, by the first watcher that needs it, and
// then shared too. An event made from its wire format alone (a commit's)
// is parsed only if a reader asks for the message.
#ifndef KHET_SERVICE_EVENTS_SHARED_EVENT_H_
#define KHET_SERVICE_EVENTS_SHARED_EVENT_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "khet/v1/khet_service.pb.h"

namespace khet {

class SharedEvent {
 public:
  explicit SharedEvent(v1::Event event);
  // REQUIRES: `wire` is the serialization of an event of `version`.
  SharedEvent(int64_t version, std::string wire);

  SharedEvent(const SharedEvent&) = delete;
  SharedEvent& operator=(const SharedEvent&) = delete;

  const v1::Event& event() const;
  int64_t version() const { return version_; }

  // The event's protobuf wire format: the bytes a typed gRPC write sends.
  const std::string& wire() const;

  // The event's JSON text, made by `encode` on the first call; every later
  // call returns that same text, whatever it passes. One JSON form per
  // process (the HTTP gateway's ToJson).
  const std::string& Json(
      absl::FunctionRef<std::string(const v1::Event&)> encode) const;

 private:
  const int64_t version_;
  // Which of the two the event was made from; the other is made from it
  // once, on the first call that needs it.
  const bool from_wire_;
  mutable std::once_flag made_once_;
  mutable v1::Event event_;
  mutable std::string wire_;
  mutable std::once_flag json_once_;
  mutable std::string json_;
};

using SharedEventPtr = std::shared_ptr<const SharedEvent>;

inline SharedEventPtr ShareEvent(v1::Event event) {
  return std::make_shared<const SharedEvent>(std::move(event));
}

}  // namespace khet

#endif  // KHET_SERVICE_EVENTS_SHARED_EVENT_H_
