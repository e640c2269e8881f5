// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The side to move's legal moves in the compact view's short form ("lm",
// docs/http-api.md): one entry per piece that can move, separated by one
// space, each its square followed by its moves:
//   -e5  a step to e5 (also an Obelisk stacking or a whole stack moving)
//   =f5  a swap with the piece on f5
//   ^d2  the top Obelisk of the stack stepping to d2
//   R L  a clockwise or anticlockwise quarter turn
// e.g. "j4-j3-i3R e1-e2=f2". Each move is its own move notation
// (docs/notation.md) with the entry's square in front: "j4-j3", "j4R".
#ifndef KHET_SERVICE_HTTP_COMPACT_MOVES_H_
#define KHET_SERVICE_HTTP_COMPACT_MOVES_H_

#include <string>

#include "absl/strings/string_view.h"

namespace khet {

// The legal moves of the position `position` (a position string) in the
// form above, in the engine's move order grouped by piece; "" when it has
// none or is not a position.
std::string CompactMoveList(absl::string_view position);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_COMPACT_MOVES_H_
