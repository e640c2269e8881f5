// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-load's reading of a MakeMove reply: the game's outcome, straight from
// the reply's bytes, without parsing the message.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_MOVE_OUTCOME_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_MOVE_OUTCOME_H_

#include "grpcpp/support/byte_buffer.h"
#include "khet/v1/game.pb.h"

namespace khet::load {

// The one thing the tool needs of a MakeMoveResponse, read from its bytes
// without parsing the rest (the board, the shot): result.outcome (field 4,
// then 1). The health check's reply is not parsed at all, so neither call's
// latency carries more of the client's own work than it must. Returns
// OUTCOME_UNSPECIFIED for bytes that are not such a reply.
v1::Outcome OutcomeOf(const grpc::ByteBuffer& reply);

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_MOVE_OUTCOME_H_
