// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Game records: a game as text in the spirit of PGN, header lines, the
// numbered moves with comments, the result. docs/notation.md ("Game
// records") gives the grammar with examples; this header is the contract.
// What FormatGameRecord writes ParseGameRecord reads back to the same game,
// headers and comments, and formats again to the same text.
#ifndef KHET_ENGINE_GAME_RECORD_H_
#define KHET_ENGINE_GAME_RECORD_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/game.h"
#include "engine/move.h"
#include "engine/position.h"

namespace khet {

// Header lines `[Name "value"]` in order. Names are letters, digits, `_`
// and `-`; in a value a backslash escapes `"` and `\`, and a line break is
// written as a space.
using GameHeaders = std::vector<std::pair<std::string, std::string>>;

// Comments in braces around the moves: comments[0] before the first move,
// comments[n] after the n-th move, each in order and without its braces.
// Any text: Format escapes `}` and `\` with a backslash. The laser's hit
// comments are not among them (see HitComment).
using GameComments = std::vector<std::vector<std::string>>;

struct GameRecord {
  GameHeaders headers;  // every header as read, in order
  Game game;            // replayed, result included
  // Read: game.ply() + 1 lists, the hit comments left out.
  GameComments comments;
  int line = 1;  // the line of the text where the record starts, from 1
};

// What `move`'s shot hits, for the comment FormatGameRecord writes after
// it, or "" when it hits nothing. One hit: "Red Pyramid on e5 hit"; the
// top Obelisk of a stack: "top of the Red Obelisk stack on f6 hit". Only a
// beam split by an Eye of Horus hits several, named in square order (a1,
// b1, ..., j8) as "A and B hit" or "A, B and C hit", after the squares it
// split on: "beam split on f5; Red Pyramid on h5 and Red Pharaoh on f8
// hit". Pieces are named as PieceTypeName does (a "Djed" in Khet 1.0).
// An illegal move gives "".
std::string HitComment(const Position& before, Move move);

// Writes a record. Headers in this order:
//   Event, Site, Date, Silver, Red   when the caller gives them
//   Setup (the id of the named setup the game starts from) or Position
//     (FormatPosition of any other start)
//   Edition "Khet 1.0" | "Khet 2.0"
//   BothPharaohsHit "mover loses" | "draw"
//   Repetition "claim" | "automatic"
//   PlyLimit   a number, 0 for none
//   Facings "physical"   only with RuleOptions::physical_facings
//   TimeControl  when the caller gives it (free-form, e.g. "fischer 300+5")
//   the caller's other headers, in their order
//   Result "1-0" | "0-1" | "1/2-1/2" | "*"
//   Termination  once the game is over: ResultReasonName of the reason
// A caller's header named Setup, Position, Edition, BothPharaohsHit,
// Repetition, PlyLimit, Facings, Result or Termination is left out (the game's
// own value is written), and of two headers with the same name the first is
// kept. Then a blank line and the moves: "1." before Silver's move, "1..."
// before Red's when it opens the record or follows a comment; after each
// move its hit comment, if it hit something, then comments[n]; the result
// token last. Lines wrap at 80 columns between tokens; a comment is never
// broken. Entries of `comments` past the last move are ignored.
// The result as a record writes it: "1-0" (Silver won), "0-1" (Red won),
// "1/2-1/2" (drawn) or "*" (still going).
std::string_view ResultToken(Outcome outcome);

std::string FormatGameRecord(const Game& game, const GameHeaders& headers,
                             const GameComments& comments = {});
std::string FormatGameRecord(const GameRecord& record);

// Several records, a blank line between two.
std::string FormatGameRecords(absl::Span<const GameRecord> records);

// Reads one record and replays it: the start from Setup or Position, the
// rule options from their headers (defaults if absent; a Setup takes the
// Facings header's facings, a Position must have them), every move with
// Game::Play. Move numbers are optional but must be right if given. A
// comment whose text as written ends in " hit" is a hit comment: it must
// come first after a move and be that move's HitComment, else the record
// is refused; it may be left out. (Format writes a caller's comment that
// would read as one with a backslash before its first character.) Then
// applies a Termination of "resignation" (the loser read from the result),
// "agreed draw" or "repetition claimed" (by the player to move), checks any
// other Termination against the replay, and checks that the Result header
// and the result token agree with the replayed result. Every error is
// INVALID_ARGUMENT and starts with the line (from 1) it is about, then the
// move when there is one, e.g.
//   `line 14: move 7... e3-e2: illegal: ...`.
// The text must hold exactly one record.
absl::StatusOr<GameRecord> ParseGameRecord(std::string_view text);

// Reads every record of a file: a record ends with its result token, and
// the next begins with its header lines. Line numbers in errors count from
// the start of `text`. No text, or only whitespace, holds no records.
absl::StatusOr<std::vector<GameRecord>> ParseGameRecords(std::string_view text);

}  // namespace khet

#endif  // KHET_ENGINE_GAME_RECORD_H_
