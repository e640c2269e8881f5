// Text notation for squares, moves, positions, beam traces and game records.
// docs/notation.md is the user-facing description; this header is the
// contract. Every Format/Parse pair round-trips exactly.
#ifndef KHET_ENGINE_NOTATION_H_
#define KHET_ENGINE_NOTATION_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/position.h"

namespace khet {

// Squares: file letter a..j then rank 1..8, e.g. "e4".
std::string SquareName(Square s);
absl::StatusOr<Square> ParseSquare(std::string_view text);

// Moves:
//   "e4-e5"   a step, a single Obelisk stacking, or a whole stack moving
//   "e4=f5"   a Scarab/Djed/Eye swapping with the piece on f5
//   "d1^d2"   the top Obelisk of the stack on d1 stepping to d2
//   "e4R"     a clockwise quarter turn; "e4L" anticlockwise (also Sphinxes)
// ParseMove also accepts "-" for a swap and lower-case "r"/"l", and fails
// with INVALID_ARGUMENT naming the problem for text that is not a move of
// this position's shape (it does not check legality: see CheckMove).
std::string FormatMove(const Position& pos, Move move);
absl::StatusOr<Move> ParseMove(const Position& pos, std::string_view text);

// Positions: "<rank 8>/<rank 7>/.../<rank 1> <side> <edition>". Each rank
// lists files a..j: a number 1..10 for a run of empty squares, or a piece:
// a letter (Silver upper case, Red lower case) and its attribute:
//   K Pharaoh (no attribute)   P Pyramid + ne|se|sw|nw (its mirror's facing)
//   A Anubis + n|e|s|w          X Sphinx + n|e|s|w (its facing)
//   S Scarab/Djed + / or \      E Eye of Horus + / or \
//   O Obelisk + 1|2 (the height of the stack)
// <side> is "s" (Silver to move) or "r"; <edition> is "1" or "2".
// ParsePosition also runs Position::Validate.
std::string FormatPosition(const Position& pos);
absl::StatusOr<Position> ParsePosition(std::string_view text);

// A beam trace as readable lines, one per beam, for golden tests and logs:
//   beam 0 from j1: north to j4, west to h4, north to h5, east to j5, north
//   off the board
//   beam 1 (split from 0) from e5: ...; hit Red Pyramid on c7
std::string FormatTrace(const BeamTrace& trace);

// A piece for people: "Silver Pyramid NE", "Red Obelisk stack".
std::string DescribePiece(Piece piece, Edition edition);

// Game records: "[Name "value"]" header lines, a blank line, then numbered
// moves and a result token, e.g.
//   [Setup "classic-2"]
//   [Silver "alice"]
//   [Result "1-0"]
//   [Termination "pharaoh hit"]
//
//   1. j1L a8R 2. e4-e5 f5=e5 1-0
// Headers written by FormatGameRecord: Setup (or Position for a custom
// start), Edition, BothPharaohsHit, Repetition, PlyLimit, then the caller's
// headers, then Result and Termination.
using GameHeaders = std::vector<std::pair<std::string, std::string>>;
std::string FormatGameRecord(const Game& game, const GameHeaders& headers);

struct GameRecord {
  GameHeaders headers;  // every header as read, in order
  Game game;            // replayed, result included
};
// Replays a record, checking every move and that the result agrees.
absl::StatusOr<GameRecord> ParseGameRecord(std::string_view text);

}  // namespace khet

#endif  // KHET_ENGINE_NOTATION_H_
