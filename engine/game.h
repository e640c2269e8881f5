// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A game: the start position, the moves played, repetitions and the result.
#ifndef KHET_ENGINE_GAME_H_
#define KHET_ENGINE_GAME_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/move.h"
#include "engine/play.h"
#include "engine/position.h"

namespace khet {

// Rule options a session may choose (section 5 and 6 of the rules).
struct RuleOptions {
  // Both Pharaohs hit by one shot: the mover loses (false, the default, as in
  // the Second Life edition) or the game is drawn (true).
  bool both_pharaohs_hit_draws = false;
  // The third occurrence of a position draws at once (true) or lets the
  // player to move claim a draw (false, the default).
  bool automatic_repetition_draw = false;
  // The game is drawn after this many plies without a result; 0: no limit.
  int ply_limit = 0;
  // Pharaohs, Scarabs/Djeds and Eyes have four facings (the tournament of
  // seed 003): their two quarter turns are distinct moves, a Pharaoh's a
  // waiting move, and repetition compares facings. The laser sees only a
  // Scarab's or Eye's diagonal. See Position::physical_facings().
  bool physical_facings = false;

  friend bool operator==(const RuleOptions&, const RuleOptions&) = default;
};

enum class Outcome : uint8_t { kOngoing, kSilverWins, kRedWins, kDraw };

enum class ResultReason : uint8_t {
  kNone,               // ongoing
  kPharaohHit,         // one Pharaoh was hit; its owner lost
  kBothPharaohsHit,    // both in one shot: the mover lost, or a draw
  kResignation,        // a player resigned
  kAgreedDraw,         // one offered a draw, the other accepted
  kRepetitionClaimed,  // the player to move claimed a third repetition
  kRepetition,         // automatic draw on the third repetition
  kPlyLimit,           // the ply limit ran out
  kTimeForfeit,        // a player's clock ran out; that player lost
};

struct GameResult {
  Outcome outcome = Outcome::kOngoing;
  ResultReason reason = ResultReason::kNone;
  friend bool operator==(const GameResult&, const GameResult&) = default;
};

std::string_view OutcomeName(Outcome o);  // "ongoing", "silver wins", ...
std::string_view ResultReasonName(ResultReason r);  // "pharaoh hit", ...

class Game {
 public:
  // REQUIRES: start.Validate() is OK. The start is brought to the facings of
  // `options` (Position::SetPhysicalFacings): a start in the other form has
  // its facings set or dropped.
  explicit Game(const Position& start, RuleOptions options = {});

  const Position& start() const { return history_.front(); }
  const Position& position() const { return history_.back(); }
  const std::vector<Move>& moves() const { return moves_; }
  const RuleOptions& options() const { return options_; }
  const GameResult& result() const { return result_; }
  bool over() const { return result_.outcome != Outcome::kOngoing; }
  int ply() const { return static_cast<int>(moves_.size()); }

  // How often the current position (pieces and side to move) has occurred.
  int RepetitionCount() const;

  // Plays a move for the side to move. FAILED_PRECONDITION if the game is
  // over; INVALID_ARGUMENT with the reason if the move is illegal. Nothing
  // changes on error.
  absl::StatusOr<MoveEffects> Play(Move move);

  // `loser` resigns. FAILED_PRECONDITION if the game is over.
  absl::Status Resign(Color loser);
  // `loser`'s time ran out (the service keeps the clocks): a loss.
  // FAILED_PRECONDITION if the game is over.
  absl::Status LoseOnTime(Color loser);
  // Both players agreed to a draw. FAILED_PRECONDITION if the game is over.
  absl::Status AgreeDraw();
  // `claimer` claims a draw by repetition: allowed to the player to move once
  // the current position has occurred three times; FAILED_PRECONDITION
  // otherwise, saying why.
  absl::Status ClaimRepetitionDraw(Color claimer);

 private:
  RuleOptions options_;
  std::vector<Position> history_;  // start, then the position after each move
  std::vector<Move> moves_;
  GameResult result_;
};

}  // namespace khet

#endif  // KHET_ENGINE_GAME_H_
