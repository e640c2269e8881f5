#include "service/shared_event.h"

#include <utility>

namespace khet {

SharedEvent::SharedEvent(v1::Event event, std::string wire)
    : event_(std::move(event)) {
  std::call_once(wire_once_, [&] { wire_ = std::move(wire); });
}

const std::string& SharedEvent::wire() const {
  std::call_once(wire_once_, [this] { wire_ = event_.SerializeAsString(); });
  return wire_;
}

const std::string& SharedEvent::Json(
    absl::FunctionRef<std::string(const v1::Event&)> encode) const {
  std::call_once(json_once_, [&] { json_ = encode(event_); });
  return json_;
}

}  // namespace khet
