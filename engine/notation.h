// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Text notation for squares, moves, positions and beam traces (game
// records are in engine/game_record.h).
// docs/notation.md is the user-facing description; this header is the
// contract. Every Format/Parse pair round-trips exactly.
#ifndef KHET_ENGINE_NOTATION_H_
#define KHET_ENGINE_NOTATION_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/names.h"
#include "engine/position.h"

namespace khet {

// Squares: file letter a..j then rank 1..8, e.g. "e4". ParseSquare fails
// with INVALID_ARGUMENT naming the text and the problem, e.g.
// `"e9": rank must be 1..8`.
// SquareName is in engine/names.h.
absl::StatusOr<Square> ParseSquare(std::string_view text);

// Moves:
//   "e4-e5"   a step, a single Obelisk stacking, or a whole stack moving
//   "e4=f5"   a Scarab/Djed/Eye swapping with the piece on f5
//   "d1^d2"   the top Obelisk of the stack on d1 stepping to d2
//   "e4R"     a clockwise quarter turn; "e4L" anticlockwise (also Sphinxes)
// FormatMove looks at `pos` (the position before the move) only to choose
// between "-" and "="; a null move is "(none)". ParseMove also accepts "-"
// for a swap and lower-case "r"/"l", ignores surrounding spaces, and fails
// with INVALID_ARGUMENT naming the problem for text that is not a move of
// this position's shape: bad squares, squares that are not neighbours, or
// "=" towards an empty square. It does not check legality: see CheckMove.
std::string FormatMove(const Position& pos, Move move);
absl::StatusOr<Move> ParseMove(const Position& pos, std::string_view text);

// Positions: "<rank 8>/<rank 7>/.../<rank 1> <side> <edition>". Each rank
// lists files a..j: a number 1..10 for a run of empty squares, or a piece:
// a letter (Silver upper case, Red lower case) and its attribute:
//   K Pharaoh (no attribute)   P Pyramid + ne|se|sw|nw (its mirror's facing)
//   A Anubis + n|e|s|w          X Sphinx + n|e|s|w (its facing)
//   S Scarab/Djed + '/' or '\'  E Eye of Horus + '/' or '\'
//   O Obelisk + 1|2 (the height of the stack)
// <side> is "s" (Silver to move) or "r"; <edition> is "1" or "2". A "/"
// right after an S or E is its diagonal; any other "/" ends a rank. Classic 2:
//   xs3askaspse2/2psw7/3Pnw6/pne1Psw1s\s/1pse1Pnw/pse1Pnw1S/S\1pne1Psw/
//   6pse3/7Pne2/2PnwAnKAn3Xn s 2
// (one line in practice). With physical facings (Position::
// physical_facings(), RuleOptions::physical_facings) a fourth field "f"
// follows, and a Pharaoh, Scarab or Eye carries its facing instead:
//   K Pharaoh + n|e|s|w         S Scarab/Djed, E Eye + nw|ne|se|sw (the way
//                               its front mirror faces; nw and se are '/')
// e.g. "... Kn ... Snw ... s 2 f"; no "/" then follows a piece letter.
// FormatPosition writes exactly this canonical form. ParsePosition accepts any
// whitespace between the fields and runs Position::Validate; errors name the
// rank or square, e.g. `position rank 3 has 11 files`.
std::string FormatPosition(const Position& pos);
// One piece as FormatPosition writes it: "Pne", "s/", "O2", "K"; with
// physical facings "Kn", "sse".
std::string PieceToken(Piece piece, bool physical_facings = false);
absl::StatusOr<Position> ParsePosition(std::string_view text);

// A beam trace as readable lines, one per beam, each ending in a newline:
//   beam <id>[ (split from <parent>)] from <start>: <segments>; <ending>
// <start> is a square, or "below j1" / "above a8" for a Khet 1.0 emitter.
// Each straight segment is "<direction> to <square>", and the last segment of
// a beam that left the board "<direction> off the board". <ending> is one of
// "left the board", "hit <piece> on <sq>", "absorbed by <piece> on <sq>",
// "blocked by <piece> front on <sq>", "split on <sq>", "looped on <sq>",
// with <piece> as DescribePiece writes it. At the start of Classic 2:
//   beam 0 from j1: north to j4, west to h4, north to h5, east to j5, north
//   off the board; left the board
// (one line). A trace starting off the board is taken to be Khet 1.0 and
// names the Scarab a Djed.
std::string FormatTrace(const BeamTrace& trace);

// A piece for people: "Silver Pyramid NE", "Red Anubis S", "Silver Sphinx
// N", "Red Scarab /" (a "Djed" in Khet 1.0), "Silver Eye of Horus \",
// "Silver Pharaoh", "Red Obelisk", "Red Obelisk stack"; "nothing" if empty.
std::string DescribePiece(Piece piece, Edition edition);

}  // namespace khet

#endif  // KHET_ENGINE_NOTATION_H_
