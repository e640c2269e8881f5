// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The conversion benchmark's positions (tools/data/conversion_positions.txt,
// read by khet-convert): won positions from real games, each with the game
// and ply it came from. One position a line:
//
//   <setup id> <game> <ply> <winner: silver|red> <position in notation>
//
// e.g. "classic-2 7 23 silver 1k8/... r 2"; '#' starts a comment line, blank
// lines are skipped. A position counts as won for `winner` when it has at
// least kWonLead pieces more than the other side (PieceCount).
#ifndef KHET_TOOLS_CONVERSION_POSITIONS_H_
#define KHET_TOOLS_CONVERSION_POSITIONS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {

// Pieces up that make a position won for the benchmark.
inline constexpr int kWonLead = 2;

// The pieces of colour c a laser can take: each Pyramid and Anubis, and
// each storey of an Obelisk stack.
int PieceCount(const Position& pos, Color c);

// PieceCount(c) minus PieceCount of the other colour.
int PieceLead(const Position& pos, Color c);

struct ConversionPosition {
  std::string setup;  // the setup the game started from
  int game = 0;       // the harvesting run's game number (from 1)
  int ply = 0;        // plies played in that game before this position
  Color winner = Color::kSilver;
  Position position;
};

// One line of the file, without a newline.
std::string FormatConversionPosition(const ConversionPosition& p);

// Reads a whole file. INVALID_ARGUMENT naming the line for a malformed
// line, an unknown setup, a position that does not parse, or a winner less
// than kWonLead pieces up.
absl::StatusOr<std::vector<ConversionPosition>> ParseConversionPositions(
    std::string_view text);

}  // namespace khet

#endif  // KHET_TOOLS_CONVERSION_POSITIONS_H_
