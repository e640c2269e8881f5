// A MakeMove reply as its wire format, made from the bytes of the move's
// MoveMade event rather than from typed messages: the event's move, shot,
// removals, result and board (MoveMade fields 2, 3, 4, 5 and 6) are the
// reply's fields 1, 2, 3, 4 and 7 with the same contents, and the event's
// clocks (Event field 5) are the reply's field 8, so their bytes are
// copied under the reply's field numbers, and the reply's own version (5)
// and announcement (6) are written between them. The result is the
// serialization of the MakeMoveResponse the typed path builds from the same
// event (fields in number order, as protobuf writes them).
#ifndef KHET_SERVICE_WIRE_MOVE_REPLY_WIRE_H_
#define KHET_SERVICE_WIRE_MOVE_REPLY_WIRE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace khet {

// `event_wire`: the serialization of a v1::Event whose kind is move_made.
// INTERNAL if the bytes are not such an event.
absl::StatusOr<std::string> MoveReplyWire(absl::string_view event_wire,
                                          int64_t version,
                                          absl::string_view announcement);

}  // namespace khet

#endif  // KHET_SERVICE_WIRE_MOVE_REPLY_WIRE_H_
