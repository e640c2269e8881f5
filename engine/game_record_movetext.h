// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The movetext of a game record as writing and reading both see it: move
// numbers, the result token, comments as written between braces, and the
// laser's hit comments. Internal to the game_record*.cc files.
#ifndef KHET_ENGINE_GAME_RECORD_MOVETEXT_H_
#define KHET_ENGINE_GAME_RECORD_MOVETEXT_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/game.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {
namespace game_record_internal {

// The full-move number of the move at `ply` (from 0) of a game that
// `first_mover` opened.
int MoveNumber(int ply, Color first_mover);

// The marker written before a move: "3." before Silver's move, "3..."
// before Red's.
std::string MoveLabel(int ply, Color first_mover, Color mover);

// The outcome a result token ("1-0", "0-1", "1/2-1/2", "*") stands for, or
// nullopt when `token` is none of them. The inverse of ResultToken.
std::optional<Outcome> OutcomeFromToken(std::string_view token);

// Whether a comment as written between its braces claims what a shot hit:
// it ends in " hit" and does not start with a backslash.
bool IsHitClaim(std::string_view raw);

// `text` as written between braces: `}` and `\` escaped, and a backslash
// in front when it would read as a hit comment.
std::string EscapeComment(std::string_view text);

// A comment as written between braces back to its text: a backslash
// escapes the character after it.
std::string UnescapeComment(std::string_view raw);

// HitComment of a move that `effects` reports, played from `before`.
std::string HitText(const Position& before, const MoveEffects& effects);

}  // namespace game_record_internal
}  // namespace khet

#endif  // KHET_ENGINE_GAME_RECORD_MOVETEXT_H_
