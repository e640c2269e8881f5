// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/conversion_positions.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "engine/absl_view.h"
#include "engine/bitboard.h"
#include "engine/notation.h"
#include "engine/setups.h"

namespace khet {

int PieceCount(const Position& pos, Color c) {
  int count = 0;
  for (Bitboard b = pos.occupied(c); b != 0;) {
    const Piece p = pos.at(PopLowest(b));
    if (p.type() == PieceType::kPyramid || p.type() == PieceType::kAnubis) {
      ++count;
    } else if (p.type() == PieceType::kObelisk) {
      count += p.height();
    }
  }
  return count;
}

int PieceLead(const Position& pos, Color c) {
  return PieceCount(pos, c) - PieceCount(pos, Opponent(c));
}

std::string FormatConversionPosition(const ConversionPosition& p) {
  return absl::StrCat(p.setup, " ", p.game, " ", p.ply, " ",
                      p.winner == Color::kSilver ? "silver" : "red", " ",
                      FormatPosition(p.position));
}

absl::StatusOr<std::vector<ConversionPosition>> ParseConversionPositions(
    std::string_view text) {
  std::vector<ConversionPosition> out;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(Av(text), '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    auto fail = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line_number, ": ", why));
    };
    const std::vector<absl::string_view> fields = absl::StrSplit(
        line, absl::MaxSplits(absl::ByAnyChar(" \t"), 4), absl::SkipEmpty());
    if (fields.size() != 5) {
      return fail("expected <setup> <game> <ply> <winner> <position>");
    }
    ConversionPosition p;
    p.setup = std::string(fields[0]);
    if (!FindSetup(p.setup).ok()) {
      return fail(absl::StrCat("no setup \"", fields[0], "\""));
    }
    if (!absl::SimpleAtoi(fields[1], &p.game) || p.game < 1) {
      return fail(absl::StrCat("game \"", fields[1], "\": a number from 1"));
    }
    if (!absl::SimpleAtoi(fields[2], &p.ply) || p.ply < 0) {
      return fail(absl::StrCat("ply \"", fields[2], "\": a number from 0"));
    }
    if (fields[3] == "silver") {
      p.winner = Color::kSilver;
    } else if (fields[3] == "red") {
      p.winner = Color::kRed;
    } else {
      return fail(absl::StrCat("winner \"", fields[3], "\": silver or red"));
    }
    absl::StatusOr<Position> pos =
        ParsePosition(std::string_view(fields[4].data(), fields[4].size()));
    if (!pos.ok()) return fail(pos.status().message());
    p.position = *pos;
    const int lead = PieceLead(p.position, p.winner);
    if (lead < kWonLead) {
      return fail(
          absl::StrCat(fields[3], " is ", lead, " pieces up, not ", kWonLead));
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace khet
