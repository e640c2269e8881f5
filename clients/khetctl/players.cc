// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Rated players: one player's rating and record, and the leaderboard.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {
namespace {

// "1623 +- 120 (4 games: 3 won, 0 drawn, 1 lost)"
std::string RatingText(const v1::Player& p) {
  return absl::StrFormat("%.0f +- %.0f (%d games: %d won, %d drawn, %d lost)",
                         p.rating(), 2 * p.deviation(), p.games(), p.wins(),
                         p.draws(), p.losses());
}

}  // namespace

int PlayerCommand(const Invocation& call) {
  if (call.args.empty()) return UsageError("player needs a PLAYER_ID");
  v1::GetPlayerRequest request;
  request.set_player_id(call.args[0]);
  return call.client.Call(&v1::KhetService::Stub::GetPlayer, request,
                          [](const v1::Player& p) {
                            return absl::StrCat(p.player_id(), " (", p.name(),
                                                "): ", RatingText(p), "\n");
                          });
}

int PlayersCommand(const Invocation& call) {
  v1::ListPlayersRequest request;
  if (call.flags.Has("page_size")) {
    absl::StatusOr<int64_t> size = call.flags.GetInt("page_size", 0, 0, 100);
    if (!size.ok()) return UsageError(size.status().message());
    request.set_page_size(static_cast<int32_t>(*size));
  }
  request.set_page_token(call.flags.Get("page_token"));
  return call.client.Call(&v1::KhetService::Stub::ListPlayers, request,
                          [](const v1::ListPlayersResponse& r) {
                            std::string out;
                            for (const v1::Player& p : r.players()) {
                              absl::StrAppend(&out, p.player_id(), " (",
                                              p.name(), "): ", RatingText(p),
                                              "\n");
                            }
                            if (r.players().empty())
                              out = "no rated players yet\n";
                            if (!r.next_page_token().empty()) {
                              absl::StrAppend(&out, "more: --page_token ",
                                              r.next_page_token(), "\n");
                            }
                            return out;
                          });
}

}  // namespace khet::ctl
