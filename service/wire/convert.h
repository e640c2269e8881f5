// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The one place that turns engine values into khet.v1 messages and back.
#ifndef KHET_SERVICE_WIRE_CONVERT_H_
#define KHET_SERVICE_WIRE_CONVERT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/search.h"
#include "engine/setups.h"
#include "google/protobuf/timestamp.pb.h"
#include "khet/v1/game.pb.h"
#include "khet/v1/khet_service.pb.h"

namespace khet {

v1::Color ToProto(Color c);
// INVALID_ARGUMENT for COLOR_UNSPECIFIED or an unknown value.
absl::StatusOr<Color> FromProto(v1::Color c);
v1::Edition ToProto(Edition e);

// One piece on one square; the edition names the Scarab a Djed in 1.0.
v1::Piece PieceToProto(Square square, Piece piece, Edition edition);

// The position: notation, every piece from a1 to j8, side to move, edition.
v1::Board BoardToProto(const Position& pos);

// The wire format of BoardToProto(pos), written directly: the same bytes as
// its serialization, from each piece's cached bytes, without building the
// Board and Piece messages.
std::string BoardWire(const Position& pos);

// `move` as played or playable in `before` (the position before it), with
// its notation; `swap` tells whether a Scarab or Eye swapped places.
v1::Move MoveToProto(const Position& before, Move move);

// A move request, from `notation` if it is set, else from the structured
// fields (`kind` may be left unset for MOVE when `to` is given). Checks only
// the shape (squares, kind), not legality: INVALID_ARGUMENT naming the
// problem.
absl::StatusOr<Move> MoveFromProto(const Position& pos, const v1::Move& move);

// The beams, segments and hit squares of a shot, and its text (FormatTrace).
// `edition` names the pieces.
v1::LaserShot ShotToProto(const BeamTrace& trace, Edition edition);

v1::Removal RemovalToProto(const Removal& removal, Edition edition);

// The game's result with its human text, e.g. "Silver wins: Red's Pharaoh
// was hit"; "The game goes on" while ongoing.
v1::GameResult ResultToProto(const Game& game);
// INVALID_ARGUMENT for an unknown outcome or reason.
absl::StatusOr<GameResult> ResultFromProto(const v1::GameResult& result);

v1::RuleOptions OptionsToProto(const RuleOptions& options);
// INVALID_ARGUMENT for a negative ply limit.
absl::StatusOr<RuleOptions> OptionsFromProto(const v1::RuleOptions& options);

google::protobuf::Timestamp TimeToProto(absl::Time t);
absl::Time TimeFromProto(const google::protobuf::Timestamp& t);

// A named setup with its start position.
v1::Setup SetupToProto(const SetupInfo& info);

// Search limits in whole milliseconds; 0 stays "no limit".
v1::SearchLimits SearchLimitsToProto(const SearchLimits& limits);

// One of the computer's levels with its limits.
v1::Level LevelToProto(const Level& level);

}  // namespace khet

#endif  // KHET_SERVICE_WIRE_CONVERT_H_
