// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_sessions.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/game.h"
#include "engine/setups.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/common/grpc_call.h"

namespace khet::load {
namespace {

RuleOptions LoadRules(const GameOptions& options) {
  RuleOptions rules;
  rules.automatic_repetition_draw = true;
  rules.ply_limit = options.ply_limit;
  return rules;
}

v1::RuleOptions LoadRulesProto(const GameOptions& options) {
  v1::RuleOptions rules;
  rules.set_automatic_repetition_draw(true);
  rules.set_ply_limit(options.ply_limit);
  return rules;
}

// Setting a game up may wait behind a loaded khetd: a minute at most.
std::unique_ptr<grpc::ClientContext> NewContext() {
  return CallContext(absl::Seconds(60));
}

}  // namespace

std::unique_ptr<Game> NewGame(const GameOptions& options) {
  return std::make_unique<Game>(*SetupPosition(options.setup),
                                LoadRules(options));
}

absl::Status JoinBoth(v1::KhetService::Stub& stub, const GameOptions& options,
                      Player& player) {
  for (v1::Color color : {v1::SILVER, v1::RED}) {
    v1::JoinSeatRequest join;
    join.set_session_id(player.session_id);
    join.set_color(color);
    join.set_player_name(color == v1::SILVER ? "load-silver" : "load-red");
    v1::JoinSeatResponse joined;
    const grpc::Status status =
        stub.JoinSeat(NewContext().get(), join, &joined);
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("JoinSeat: ", Describe(status)));
    }
    player.tokens[color == v1::SILVER ? 0 : 1] = joined.player_token();
  }
  player.game = NewGame(options);
  return absl::OkStatus();
}

absl::Status CreateSession(v1::KhetService::Stub& stub,
                           const GameOptions& options, Player& player,
                           bool seated) {
  v1::CreateSessionRequest create;
  create.set_name("load");
  create.set_setup_id(options.setup);
  *create.mutable_rules() = LoadRulesProto(options);
  v1::CreateSessionResponse created;
  const grpc::Status status =
      stub.CreateSession(NewContext().get(), create, &created);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat("CreateSession: ", Describe(status)));
  }
  player.session_id = created.session().id();
  player.owner_token = created.owner_token();
  return seated ? JoinBoth(stub, options, player) : absl::OkStatus();
}

}  // namespace khet::load
