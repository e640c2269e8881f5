// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The sessions khet-load plays: each with both seats taken and its game
// replayed locally with the engine, so that the tool can pick legal moves
// and check khetd's results; and the blocking gRPC calls that set them up.
#ifndef KHET_TOOLS_LOAD_KHET_LOAD_LOAD_SESSIONS_H_
#define KHET_TOOLS_LOAD_KHET_LOAD_LOAD_SESSIONS_H_

#include <memory>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "engine/game.h"
#include "grpcpp/support/status.h"
#include "khet/v1/khet_service.grpc.pb.h"

namespace khet::load {

// How every game the tool plays is set up.
struct GameOptions {
  // The setup every game starts from.
  std::string setup = "classic-2";
  // Each game is drawn after this many plies (games also end on a Pharaoh
  // hit or the third repetition).
  int ply_limit = 200;
};

// One session the tool plays, with its game replayed locally.
struct Player {
  std::string session_id;
  std::string owner_token;
  std::string tokens[2];  // by Color: silver, red
  std::unique_ptr<Game> game;
  std::mt19937_64 random;
  bool broken = false;  // an unexpected answer: the session is left alone
};

// A new local game as khetd starts it for `options`.
// REQUIRES: options.setup names a setup.
std::unique_ptr<Game> NewGame(const GameOptions& options);

// Takes both seats of `player`'s session; a new game starts.
absl::Status JoinBoth(v1::KhetService::Stub& stub, const GameOptions& options,
                      Player& player);

// Creates a session for a game of `options` into `player`; with `seated`,
// takes both seats too. UNAVAILABLE with khetd's answer if a call fails.
absl::Status CreateSession(v1::KhetService::Stub& stub,
                           const GameOptions& options, Player& player,
                           bool seated);

}  // namespace khet::load

#endif  // KHET_TOOLS_LOAD_KHET_LOAD_LOAD_SESSIONS_H_
