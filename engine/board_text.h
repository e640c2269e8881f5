// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A position, and optionally a laser's path, as a text board for terminals,
// logs and chat messages. Plain ASCII, a fixed 46 columns by 11 lines (under
// 600 characters), readable in any monospaced font.
//
// Classic 2 with Silver's laser:
//
//       a   b   c   d   e   f   g   h   i   j
//    8  xs  .s  .   .   as  k   as  pse .r  |    8
//    7  .r  .   psw .   .   .   .   .   .   |    7
//    6  .r  .   .   Pnw .   .   .   .   .   |    6
//    5  pne .   Psw .   s\  s/  .   pse-----Pnw  5
//    4  pse .   Pnw .   S/  S\  .   pne-----Psw  4
//    3  .r  .   .   .   .   .   pse .   .   |    3
//    2  .r  .   .   .   .   .   .   Pne .   |    2
//    1  .r  .s  Pnw An  K   An  .   .   .r  Xn   1
//       a   b   c   d   e   f   g   h   i   j
//   Silver to move, Khet 2.0
//
// Legend. Each square is four columns wide:
//   K P A X S E O   a piece as in the position notation (engine/notation.h):
//                   Silver upper case, Red lower case, followed by its
//                   orientation mark: Pyramid ne|se|sw|nw (the way its mirror
//                   faces), Anubis and Sphinx n|e|s|w (the way it faces),
//                   Scarab/Djed and Eye / or \, Obelisk 1 or 2 (stack height);
//                   with physical facings Pharaoh n|e|s|w and Scarab/Djed and
//                   Eye nw|ne|se|sw (the way its front mirror faces)
//   .               an empty square either colour may enter
//   .s  .r          an empty square only Silver (s) or only Red (r) may enter
//   |  -  +         the laser crossing an empty square: north-south,
//                   east-west, both; "-" also joins squares along a rank
//   *               after a piece: the laser hit it
// Below the board: whose move it is and the edition.
#ifndef KHET_ENGINE_BOARD_TEXT_H_
#define KHET_ENGINE_BOARD_TEXT_H_

#include <string>

#include "engine/laser.h"
#include "engine/position.h"

namespace khet {

// The board of `pos` as text, one line per rank with rank 8 at the top, each
// line ending in a newline. If `trace` is not null, its beams are drawn over
// the empty squares they cross and the pieces it hit are marked.
// REQUIRES: trace, if given, was traced on pos.
std::string RenderBoard(const Position& pos, const BeamTrace* trace);

}  // namespace khet

#endif  // KHET_ENGINE_BOARD_TEXT_H_
