// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The board as a standalone SVG image: the 10x8 squares (those reserved
// for one colour tinted with it), every piece in its colour of the
// session's scheme and turned as it stands, and optionally the last shot:
// one polyline per beam (class "beam") in the scheme's beam colour, each hit
// square marked (class "hit") with the hit piece still standing, as
// RenderBoard shows it. Pieces are <g class="piece" data-square="e4"
// data-token="Pnw"> with a <title> naming them.
#ifndef KHET_SERVICE_HTTP_BOARD_SVG_H_
#define KHET_SERVICE_HTTP_BOARD_SVG_H_

#include <string>

#include "khet/v1/khet_service.pb.h"

namespace khet {

std::string BoardSvg(const v1::Session& session, bool with_laser);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_BOARD_SVG_H_
