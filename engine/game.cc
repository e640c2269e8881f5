// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/game.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "engine/names.h"

namespace khet {
namespace {

Outcome WinFor(Color c) {
  return c == Color::kSilver ? Outcome::kSilverWins : Outcome::kRedWins;
}

}  // namespace

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kOngoing:
      return "ongoing";
    case Outcome::kSilverWins:
      return "silver wins";
    case Outcome::kRedWins:
      return "red wins";
    case Outcome::kDraw:
      return "draw";
  }
  return "unknown";
}

std::string_view ResultReasonName(ResultReason r) {
  switch (r) {
    case ResultReason::kNone:
      return "none";
    case ResultReason::kPharaohHit:
      return "pharaoh hit";
    case ResultReason::kBothPharaohsHit:
      return "both pharaohs hit";
    case ResultReason::kResignation:
      return "resignation";
    case ResultReason::kAgreedDraw:
      return "agreed draw";
    case ResultReason::kRepetitionClaimed:
      return "repetition claimed";
    case ResultReason::kRepetition:
      return "repetition";
    case ResultReason::kPlyLimit:
      return "ply limit";
    case ResultReason::kTimeForfeit:
      return "time forfeit";
  }
  return "unknown";
}

Game::Game(const Position& start, RuleOptions options)
    : options_(options), history_{start} {
  history_.front().SetPhysicalFacings(options.physical_facings);
}

int Game::RepetitionCount() const {
  const Position& now = position();
  int count = 0;
  for (const Position& p : history_) {
    if (p.hash() == now.hash() && p == now) ++count;
  }
  return count;
}

absl::StatusOr<MoveEffects> Game::Play(Move move) {
  if (over()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the game is over: ", std::string(OutcomeName(result_.outcome)), " (",
        std::string(ResultReasonName(result_.reason)), ")"));
  }
  Position next = position();
  const Color mover = next.side_to_move();
  absl::StatusOr<MoveEffects> effects = ApplyMove(&next, move);
  if (!effects.ok()) return effects.status();
  history_.push_back(next);
  moves_.push_back(effects->move);

  const bool mine = PharaohWasHit(effects->pharaohs_hit, mover);
  const bool theirs = PharaohWasHit(effects->pharaohs_hit, Opponent(mover));
  if (mine && theirs) {
    result_ = {options_.both_pharaohs_hit_draws ? Outcome::kDraw
                                                : WinFor(Opponent(mover)),
               ResultReason::kBothPharaohsHit};
  } else if (mine || theirs) {
    result_ = {WinFor(mine ? Opponent(mover) : mover),
               ResultReason::kPharaohHit};
  } else if (options_.automatic_repetition_draw && RepetitionCount() >= 3) {
    result_ = {Outcome::kDraw, ResultReason::kRepetition};
  } else if (options_.ply_limit > 0 && ply() >= options_.ply_limit) {
    result_ = {Outcome::kDraw, ResultReason::kPlyLimit};
  }
  return effects;
}

absl::Status Game::Resign(Color loser) {
  if (over()) return absl::FailedPreconditionError("the game is already over");
  result_ = {WinFor(Opponent(loser)), ResultReason::kResignation};
  return absl::OkStatus();
}

absl::Status Game::LoseOnTime(Color loser) {
  if (over()) return absl::FailedPreconditionError("the game is already over");
  result_ = {WinFor(Opponent(loser)), ResultReason::kTimeForfeit};
  return absl::OkStatus();
}

absl::Status Game::AgreeDraw() {
  if (over()) return absl::FailedPreconditionError("the game is already over");
  result_ = {Outcome::kDraw, ResultReason::kAgreedDraw};
  return absl::OkStatus();
}

absl::Status Game::ClaimRepetitionDraw(Color claimer) {
  if (over()) return absl::FailedPreconditionError("the game is already over");
  if (claimer != position().side_to_move()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "only the player to move (", ColorName(position().side_to_move()),
        ") may claim a draw by repetition"));
  }
  const int count = RepetitionCount();
  if (count < 3) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the current position has occurred ", count,
        (count == 1 ? " time" : " times"), "; a claim needs three"));
  }
  result_ = {Outcome::kDraw, ResultReason::kRepetitionClaimed};
  return absl::OkStatus();
}

}  // namespace khet
