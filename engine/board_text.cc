// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/board_text.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "engine/bitboard.h"
#include "engine/laser.h"
#include "engine/notation.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {
namespace {

constexpr int kCellWidth = 4;
constexpr std::string_view kMargin = "    ";  // before the first file

// Which beams cross each square, and which borders between a file and the
// next one along a rank a beam crosses.
struct LaserMarks {
  std::array<bool, kSquares> vertical{};
  std::array<bool, kSquares> horizontal{};
  // east_border[s]: a beam crosses from s to the square east of it.
  std::array<bool, kSquares> east_border{};
};

LaserMarks MarkBeams(const BeamTrace& trace) {
  LaserMarks marks;
  for (const BeamSegment& seg : trace.segments) {
    const bool along_file = seg.from.file == seg.to.file;
    if (along_file) {
      const int lo = std::max<int>(std::min(seg.from.rank, seg.to.rank), -1);
      const int hi =
          std::min<int>(std::max(seg.from.rank, seg.to.rank), kRanks);
      for (int r = lo + 1; r < hi; ++r) {
        if (IsOnBoard(seg.from.file, r)) {
          marks.vertical[MakeSquare(seg.from.file, r)] = true;
        }
      }
    } else {
      const int lo = std::max<int>(std::min(seg.from.file, seg.to.file), -1);
      const int hi =
          std::min<int>(std::max(seg.from.file, seg.to.file), kFiles);
      const int r = seg.from.rank;
      if (r < 0 || r >= kRanks) continue;
      for (int f = lo + 1; f < hi; ++f) {
        marks.horizontal[MakeSquare(f, r)] = true;
      }
      for (int f = std::max(lo, 0); f < hi && f + 1 < kFiles; ++f) {
        marks.east_border[MakeSquare(f, r)] = true;
      }
    }
  }
  return marks;
}

std::string FileLabels() {
  std::string line(kMargin);
  for (int f = 0; f < kFiles; ++f) {
    line += static_cast<char>('a' + f);
    if (f + 1 < kFiles) line.append(kCellWidth - 1, ' ');
  }
  return line + "\n";
}

// What one square shows, before padding to kCellWidth.
std::string CellText(Piece p, bool physical_facings, bool hit,
                     const LaserMarks& marks, Square s) {
  if (!p.empty()) {
    const std::string token = PieceToken(p, physical_facings);
    return hit ? token + "*" : token;
  }
  if (marks.vertical[s] && marks.horizontal[s]) return "+--";
  if (marks.horizontal[s]) return "---";
  if (marks.vertical[s]) return "|";
  if (!Contains(AllowedSquares(Color::kRed), s)) return ".s";
  if (!Contains(AllowedSquares(Color::kSilver), s)) return ".r";
  return ".";
}

}  // namespace

std::string RenderBoard(const Position& pos, const BeamTrace* trace) {
  LaserMarks marks;
  Bitboard hit = 0;
  if (trace != nullptr) {
    marks = MarkBeams(*trace);
    hit = trace->hit;
  }
  std::string out = FileLabels();
  for (int rank = kRanks - 1; rank >= 0; --rank) {
    std::string line = absl::StrCat(" ", rank + 1, "  ");
    for (int file = 0; file < kFiles; ++file) {
      const Square s = MakeSquare(file, rank);
      const Piece p = pos.at(s);
      std::string cell =
          CellText(p, pos.physical_facings(), Contains(hit, s), marks, s);
      const char pad = marks.east_border[s] ? '-' : ' ';
      cell.resize(kCellWidth, pad);
      line += cell;
    }
    absl::StrAppend(&line, " ", rank + 1, "\n");
    out += line;
  }
  out += FileLabels();
  absl::StrAppend(&out, pos.side_to_move() == Color::kSilver ? "Silver" : "Red",
                  " to move, ",
                  pos.edition() == Edition::kKhet1 ? "Khet 1.0" : "Khet 2.0",
                  "\n");
  return out;
}

}  // namespace khet
