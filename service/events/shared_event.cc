// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/events/shared_event.h"

#include <utility>

namespace khet {

SharedEvent::SharedEvent(v1::Event event)
    : version_(event.version()), from_wire_(false), event_(std::move(event)) {}

SharedEvent::SharedEvent(int64_t version, std::string wire)
    : version_(version), from_wire_(true), wire_(std::move(wire)) {}

const v1::Event& SharedEvent::event() const {
  if (from_wire_) {
    // The bytes are a message's serialization, so they parse.
    std::call_once(made_once_, [this] { event_.ParseFromString(wire_); });
  }
  return event_;
}

const std::string& SharedEvent::wire() const {
  if (!from_wire_) {
    std::call_once(made_once_, [this] { wire_ = event_.SerializeAsString(); });
  }
  return wire_;
}

const std::string& SharedEvent::Json(
    absl::FunctionRef<std::string(const v1::Event&)> encode) const {
  std::call_once(json_once_, [&] { json_ = encode(event()); });
  return json_;
}

}  // namespace khet
