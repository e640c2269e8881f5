// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The computer: seat it, its levels, and its suggestions.
#include <cstdint>

#include "absl/status/statusor.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

int ComputerCommand(const Invocation& call) {
  v1::SeatComputerRequest request;
  request.set_session_id(call.session);
  if (!call.flags.Has("level"))
    return UsageError("`computer` needs --level 1-5");
  absl::StatusOr<int64_t> level = call.flags.GetInt("level", 0, 1, 5);
  if (!level.ok()) return UsageError(level.status().message());
  request.set_level(static_cast<int32_t>(*level));
  if (call.flags.Has("color")) {
    absl::StatusOr<v1::Color> color = ParseColor(call.flags.Get("color"));
    if (!color.ok()) return UsageError(color.status().message());
    request.set_color(*color);
  }
  return call.client.Call(&v1::KhetService::Stub::SeatComputer, request,
                          SessionText);
}

int LevelsCommand(const Invocation& call) {
  return call.client.Call(&v1::KhetService::Stub::ListLevels,
                          v1::ListLevelsRequest(), LevelsText);
}

int SuggestCommand(const Invocation& call) {
  v1::SuggestMoveRequest request;
  request.set_session_id(call.session);
  const bool limits = call.flags.Has("depth") || call.flags.Has("nodes") ||
                      call.flags.Has("time_ms");
  if (limits && call.flags.Has("level")) {
    return UsageError(
        "`suggest` takes --level or --depth/--nodes/--time_ms, not both");
  }
  if (call.flags.Has("level")) {
    absl::StatusOr<int64_t> level = call.flags.GetInt("level", 0, 1, 5);
    if (!level.ok()) return UsageError(level.status().message());
    request.set_level(static_cast<int32_t>(*level));
  } else if (limits) {
    absl::StatusOr<int64_t> depth = call.flags.GetInt("depth", 0, 0, 64);
    absl::StatusOr<int64_t> nodes =
        call.flags.GetInt("nodes", 0, 0, int64_t{1} << 40);
    absl::StatusOr<int64_t> time_ms =
        call.flags.GetInt("time_ms", 0, 0, 86'400'000);
    for (const auto* value : {&depth, &nodes, &time_ms}) {
      if (!value->ok()) return UsageError(value->status().message());
    }
    v1::SearchLimits* l = request.mutable_limits();
    l->set_max_depth(static_cast<int32_t>(*depth));
    l->set_max_nodes(*nodes);
    l->set_max_time_ms(*time_ms);
  }
  return call.client.Call(&v1::KhetService::Stub::SuggestMove, request,
                          SuggestionText);
}

}  // namespace khet::ctl
