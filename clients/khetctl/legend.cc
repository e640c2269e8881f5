// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The key to khetctl's boards: `khetctl legend` in full, and the one line
// under every printed board naming the pieces on it.
#include "clients/khetctl/legend.h"

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {
namespace {

constexpr absl::string_view kLegend =
    R"(How to read a board

    a   b   c ...            files a-j left to right, ranks 1-8 bottom to
 8  xs  .s  .  ...  8        top; Silver starts at the bottom and moves first

Each square is four characters. A piece is a letter, UPPER CASE for Silver
and lower case for Red, then a mark saying which way it points:
  K   Pharaoh        lose it to the laser and you lose the game
  P   Pyramid        one mirror; ne, se, sw or nw: the way the mirror faces
  S   Scarab (Khet 2.0) or Djed (Khet 1.0)
                     a mirror on both sides, / or \; it can swap places
  A   Anubis         Khet 2.0; n, e, s or w: the way it faces. A beam on its
                     face stops harmlessly; from any other side it is hit
  X   Sphinx         the laser, Khet 2.0; n, e, s or w: where it fires
  E   Eye of Horus   a beam splitter, / or \ (the expansion)
  O   Obelisk        Khet 1.0; 1 or 2: how many stand stacked there
With physical facings (a rule option) Pharaohs take n, e, s or w and Scarabs,
Djeds and Eyes ne, se, sw or nw: the way their front faces.

Empty squares:
  .                  either side may move there
  .s  .r             only Silver (s) or only Red (r) may move there
The laser after the last move:
  |  -  +            the beam crossing an empty square north-south,
                     east-west, or both ways
  *                  after a piece: the beam hit it and it was taken off
Under the board: whose move it is and the edition, or, once the game is
over, who won and why.

Moves (khetctl move, play), each a good first move for Silver in Classic 2:
  j4-j3              the piece on j4 steps to the empty square j3 (one
                     square, any of the eight directions)
  f4=g3              a Scarab, Djed or Eye swaps places with the piece next
                     to it
  c1R  c1L           the piece on c1 turns a quarter right (clockwise) or
                     left (anticlockwise), staying where it is
  d1^d2              Khet 1.0: the top Obelisk of the stack on d1 steps to d2
After each move the mover's laser fires; a Pharaoh it hits ends the game,
and any other piece it hits is taken off, yours too. `khetctl moves SESSION`
lists the legal moves, `khetctl suggest SESSION` the computer's choice.
)";

// The pieces' names by letter; S depends on the edition.
std::string PieceName(char letter, bool khet1) {
  switch (letter) {
    case 'K':
      return "Pharaoh";
    case 'P':
      return "Pyramid";
    case 'S':
      return khet1 ? "Djed" : "Scarab";
    case 'A':
      return "Anubis";
    case 'X':
      return "Sphinx";
    case 'E':
      return "Eye of Horus";
    case 'O':
      return "Obelisk";
    default:
      return "";
  }
}

}  // namespace

absl::string_view LegendText() { return kLegend; }

int LegendCommand(const Invocation& /*call*/) {
  std::cout << kLegend << std::flush;
  return kExitOk;
}

std::string LegendLine(absl::string_view board_text) {
  // Rank lines are " 8  xs  .s  ...": a rank number, then four-character
  // squares from column 4, each starting with its piece's letter.
  std::set<char> seen;
  for (absl::string_view line : absl::StrSplit(board_text, '\n')) {
    if (line.size() < 2 || !absl::ascii_isdigit(line[1])) continue;
    for (size_t column = 4; column < line.size(); column += 4) {
      if (absl::ascii_isalpha(line[column])) {
        seen.insert(absl::ascii_toupper(line[column]));
      }
    }
  }
  const bool khet1 = absl::StrContains(board_text, "Khet 1.0");
  std::vector<std::string> names;
  for (const char letter : std::string("KPSAXEO")) {
    if (seen.count(letter)) {
      names.push_back(
          absl::StrCat(std::string(1, letter), " ", PieceName(letter, khet1)));
    }
  }
  return absl::StrCat("Key: Silver UPPER, Red lower; ",
                      absl::StrJoin(names, ", "),
                      "; c1R/c1L turn right/left (khetctl legend)\n");
}

}  // namespace khet::ctl
