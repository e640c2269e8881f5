// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Moves: make one, list the legal ones.
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

int MoveCommand(const Invocation& call) {
  v1::MakeMoveRequest request;
  request.set_session_id(call.session);
  request.mutable_move()->set_notation(call.args[0]);
  if (call.flags.Has("expected_version")) {
    absl::StatusOr<int64_t> version = call.flags.GetInt(
        "expected_version", 0, 0, std::numeric_limits<int64_t>::max());
    if (!version.ok()) return UsageError(version.status().message());
    request.set_expected_version(*version);
  }
  request.set_request_id(call.flags.Get("request_id"));
  return call.client.Call(&v1::KhetService::Stub::MakeMove, request, MoveText);
}

int MovesCommand(const Invocation& call) {
  v1::ListLegalMovesRequest request;
  request.set_session_id(call.session);
  request.set_square(call.flags.Get("square"));
  return call.client.Call(&v1::KhetService::Stub::ListLegalMoves, request,
                          [](const v1::ListLegalMovesResponse& r) {
                            std::string out;
                            for (const v1::Move& m : r.moves()) {
                              absl::StrAppend(&out, m.notation(), "\n");
                            }
                            return out;
                          });
}

}  // namespace khet::ctl
