// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tests/reference/reference_setups.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace khet::reference {
namespace {

// Section 7 as written in the rules, one line per side: groups separated by
// ';', each a piece letter (Silver upper case, Red lower case) then squares
// with their attribute, separated by ','.
struct SetupText {
  const char* name;
  const char* silver;
  const char* red;
};

const SetupText kSetups[] = {
    {"classic",
     "X j1 N; K e1; A d1 N, f1 N; S e4 /, f4 \\; "
     "P c1 NW, h2 NE, c4 NW, j4 SW, c5 SW, j5 NW, d6 NW",
     "x a8 S; k f8; a e8 S, g8 S; s e5 \\, f5 /; "
     "p g3 SE, a4 SE, h4 NE, a5 NE, h5 SE, c7 SW, h8 SE"},
    {"imhotep",
     "X j1 N; K e1; A d1 N, f1 N; S c1 /, e4 /; "
     "P d3 SW, b4 NW, j4 SW, b5 SW, e5 SE, j5 NW, d6 NW",
     "x a8 S; k f8; a e8 S, g8 S; s f5 /, h8 /; "
     "p g3 SE, a4 SE, f4 NW, i4 NE, a5 NE, i5 SE, g6 NE"},
    {"dynasty",
     "X j1 N; K e2; A e1 N, e3 N; S d3 /, h4 \\; "
     "P d1 NW, f1 NE, f3 NE, j3 SW, j4 NW, e5 NW, g5 SE",
     "x a8 S; k f7; a f6 S, f8 S; s c5 \\, g6 /; "
     "p d4 NW, f4 SE, a5 SE, a6 NE, e6 SW, e8 SW, g8 SE"},
    {"osiris",
     "X j1 N; K d1; A d2 N, h2 N; S e4 \\, b8 /; E f4 /; "
     "P b1 NW, e1 NE, c2 NW, j4 SW, j5 NW, g6 NW, j8 SW",
     "x a8 S; k g8; a c7 S, g7 S; s i1 /, f5 \\; e e5 /; "
     "p a1 NE, d3 SE, a4 SE, a5 NE, h7 SE, f8 SW, i8 SE"},
    {"isis",
     "X j1 N; K c1; A d1 N, c2 N; S h2 \\, b6 \\; E f5 /; "
     "P b1 NW, d2 NE, j2 SW, b4 NE, h4 SW, j4 SW, e5 NW",
     "x a8 S; k h8; a g8 S, h7 S; s i3 \\, c7 \\; e e4 /; "
     "p f4 SE, a5 NE, c5 NE, i5 SW, a7 NE, g7 SW, i8 SE"},
};

// The Scarabs that become Eyes in the "b" versions: Silver's, then Red's.
struct EyeSquares {
  const char* name;
  const char* silver;
  const char* red;
};
const EyeSquares kEyeSquares[] = {
    {"classic", "e4", "f5"},
    {"imhotep", "e4", "f5"},
    {"dynasty", "h4", "c5"},
};

int ParseSquareName(const std::string& name) {
  return SquareOf(name[0] - 'a', name[1] - '1');
}

int ParseAttribute(char type, const std::string& attribute) {
  if (type == 'P') {
    if (attribute == "NE") return 0;
    if (attribute == "SE") return 1;
    if (attribute == "SW") return 2;
    if (attribute == "NW") return 3;
  }
  if (type == 'A' || type == 'X') {
    if (attribute == "N") return kNorth;
    if (attribute == "E") return kEast;
    if (attribute == "S") return kSouth;
    if (attribute == "W") return kWest;
  }
  if (type == 'S' || type == 'E') {
    if (attribute == "/") return 0;
    if (attribute == "\\") return 1;
  }
  if (type == 'K' && attribute.empty()) return 0;
  std::abort();  // a typo in the transcription above
}

void PlaceSide(const char* text, Board* board) {
  std::stringstream groups(text);
  std::string group;
  while (std::getline(groups, group, ';')) {
    std::stringstream words(group);
    std::string letter;
    words >> letter;
    const bool red = letter[0] >= 'a' && letter[0] <= 'z';
    const char type =
        red ? static_cast<char>(letter[0] - 'a' + 'A') : letter[0];
    std::string rest;
    std::getline(words, rest);
    std::stringstream entries(rest);
    std::string entry;
    while (std::getline(entries, entry, ',')) {
      std::stringstream fields(entry);
      std::string square, attribute;
      fields >> square >> attribute;
      const int s = ParseSquareName(square);
      Cell& cell = board->cells[RankOfSquare(s)][FileOfSquare(s)];
      if (cell.type != 0) std::abort();  // two pieces on one square
      cell = Cell{type, red, ParseAttribute(type, attribute), 0};
    }
  }
}

}  // namespace

std::vector<std::string> RulesSetupIds() {
  std::vector<std::string> ids;
  for (const char* name : {"classic", "imhotep", "dynasty"}) {
    for (const char* suffix : {"-2", "-2b", "-1", "-1b"}) {
      ids.push_back(std::string(name) + suffix);
    }
  }
  ids.push_back("osiris");
  ids.push_back("isis");
  return ids;
}

bool RulesSetup(const std::string& id, Board* board) {
  *board = Board{};
  std::string name = id;
  int edition = 2;
  bool eyes = false;
  if (id != "osiris" && id != "isis") {
    const size_t dash = id.find('-');
    if (dash == std::string::npos) return false;
    name = id.substr(0, dash);
    const std::string version = id.substr(dash + 1);
    if (version != "2" && version != "2b" && version != "1" &&
        version != "1b") {
      return false;
    }
    edition = version[0] - '0';
    eyes = version.size() == 2;
  }
  const SetupText* setup = nullptr;
  for (const SetupText& s : kSetups) {
    if (name == s.name) setup = &s;
  }
  if (setup == nullptr) return false;
  if (name == "osiris" || name == "isis") {
    if (id != name) return false;
  }
  board->edition = edition;
  board->red_to_move = false;
  PlaceSide(setup->silver, board);
  PlaceSide(setup->red, board);

  if (eyes) {
    for (const EyeSquares& e : kEyeSquares) {
      if (name != e.name) continue;
      for (const char* square : {e.silver, e.red}) {
        const int s = ParseSquareName(square);
        Cell& cell = board->cells[RankOfSquare(s)][FileOfSquare(s)];
        if (cell.type != 'S') std::abort();
        cell.type = 'E';  // same square, same diagonal
      }
    }
  }
  if (edition == 1) {
    // Each Anubis becomes a stack of two Obelisks, each Scarab a Djed with
    // the same diagonal (the same cell here), and no Sphinx.
    for (auto& rank : board->cells) {
      for (Cell& cell : rank) {
        if (cell.type == 'A') cell = Cell{'O', cell.red, 0, 2};
        if (cell.type == 'X') cell = Cell{};
      }
    }
  }
  return true;
}

void GivePhysicalFacings(Board* board) {
  board->physical_facings = true;
  for (auto& rank : board->cells) {
    for (Cell& cell : rank) {
      if (cell.type == 'K') cell.facing = cell.red ? kSouth : kNorth;
      if (cell.type == 'S' || cell.type == 'E') {
        const bool slash = cell.facing == 0;
        if (!cell.red && slash) cell.facing = 0;   // NW
        if (!cell.red && !slash) cell.facing = 1;  // NE
        if (cell.red && slash) cell.facing = 2;    // SE
        if (cell.red && !slash) cell.facing = 3;   // SW
      }
    }
  }
}

}  // namespace khet::reference
