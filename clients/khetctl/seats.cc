// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Seats: join and leave.
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

int JoinCommand(const Invocation& call) {
  v1::JoinSeatRequest request;
  request.set_session_id(call.session);
  request.set_player_name(call.flags.Get("name"));
  request.set_player_id(call.flags.Get("player_id"));
  if (call.flags.Has("color")) {
    absl::StatusOr<v1::Color> color = ParseColor(call.flags.Get("color"));
    if (!color.ok()) return UsageError(color.status().message());
    request.set_color(*color);
  }
  return call.client.Call(&v1::KhetService::Stub::JoinSeat, request,
                          [](const v1::JoinSeatResponse& r) {
                            return absl::StrCat(
                                "joined ", r.session().id(), " as ",
                                SideName(r.color()),
                                "\nplayer token: ", r.player_token(),
                                "\n(keep it: it is shown only once)\n");
                          });
}

int LeaveCommand(const Invocation& call) {
  v1::LeaveSeatRequest request;
  request.set_session_id(call.session);
  if (call.flags.Has("color")) {
    absl::StatusOr<v1::Color> color = ParseColor(call.flags.Get("color"));
    if (!color.ok()) return UsageError(color.status().message());
    request.set_color(*color);
  }
  return call.client.Call(&v1::KhetService::Stub::LeaveSeat, request,
                          SessionText);
}

}  // namespace khet::ctl
