// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Conversions between the engine's types and the reference's, for the tests
// that compare the two. The reference itself never sees engine types.
#ifndef KHET_TESTS_REFERENCE_ENGINE_CONVERSION_H_
#define KHET_TESTS_REFERENCE_ENGINE_CONVERSION_H_

#include <algorithm>
#include <string>
#include <vector>

#include "engine/laser.h"
#include "engine/move.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/types.h"
#include "tests/reference/reference_rules.h"

namespace khet::reference {

inline Cell ToReference(Piece piece) {
  Cell cell;
  if (piece.empty()) return cell;
  cell.red = piece.color() == Color::kRed;
  switch (piece.type()) {
    case PieceType::kNone:
      return Cell{};
    case PieceType::kPharaoh:
      cell.type = 'K';
      cell.facing = piece.orientation();
      break;
    case PieceType::kPyramid:
      cell.type = 'P';
      cell.facing = piece.orientation();
      break;
    case PieceType::kScarab:
      cell.type = 'S';
      cell.facing = piece.orientation();
      break;
    case PieceType::kAnubis:
      cell.type = 'A';
      cell.facing = piece.orientation();
      break;
    case PieceType::kSphinx:
      cell.type = 'X';
      cell.facing = piece.orientation();
      break;
    case PieceType::kObelisk:
      cell.type = 'O';
      cell.height = piece.height();
      break;
    case PieceType::kEye:
      cell.type = 'E';
      cell.facing = piece.orientation();
      break;
  }
  return cell;
}

inline Piece ToEngine(const Cell& cell) {
  const Color color = cell.red ? Color::kRed : Color::kSilver;
  switch (cell.type) {
    case 'K':
      return Piece(color, PieceType::kPharaoh, cell.facing);
    case 'P':
      return Piece(color, PieceType::kPyramid, cell.facing);
    case 'S':
      return Piece(color, PieceType::kScarab, cell.facing);
    case 'A':
      return Piece(color, PieceType::kAnubis, cell.facing);
    case 'X':
      return Piece(color, PieceType::kSphinx, cell.facing);
    case 'O':
      return Piece(color, PieceType::kObelisk, cell.height - 1);
    case 'E':
      return Piece(color, PieceType::kEye, cell.facing);
    default:
      return Piece();
  }
}

inline Board ToReference(const Position& pos) {
  Board board;
  for (Square s = 0; s < kSquares; ++s) {
    board.cells[RankOf(s)][FileOf(s)] = ToReference(pos.at(s));
  }
  board.red_to_move = pos.side_to_move() == Color::kRed;
  board.edition = static_cast<int>(pos.edition());
  board.physical_facings = pos.physical_facings();
  return board;
}

inline Position ToEngine(const Board& board) {
  Position pos;
  pos.SetPhysicalFacings(board.physical_facings);  // empty: only the form
  for (Square s = 0; s < kSquares; ++s) {
    pos.Set(s, ToEngine(board.cells[RankOf(s)][FileOf(s)]));
  }
  pos.set_side_to_move(board.red_to_move ? Color::kRed : Color::kSilver);
  pos.set_edition(board.edition == 1 ? Edition::kKhet1 : Edition::kKhet2);
  return pos;
}

inline reference::Move ToReference(khet::Move move) {
  return reference::Move{move.from(), move.to(), static_cast<int>(move.kind())};
}

inline khet::Move ToEngine(const reference::Move& move) {
  return khet::Move(move.from, move.to, static_cast<MoveKind>(move.kind));
}

inline std::vector<reference::Move> SortedReferenceMoves(const MoveList& list) {
  std::vector<reference::Move> moves;
  for (khet::Move m : list) moves.push_back(ToReference(m));
  std::sort(moves.begin(), moves.end());
  return moves;
}

inline Point ToReference(BeamPoint p) { return Point{p.file, p.rank}; }

// The engine's trace in the reference's types, so the two compare with ==.
inline Trace ToReference(const BeamTrace& trace) {
  Trace out;
  out.red_shooter = trace.shooter == Color::kRed;
  for (const khet::Beam& b : trace.beams) {
    reference::Beam beam;
    beam.id = b.id;
    beam.parent = b.parent;
    beam.end = static_cast<int>(b.end);
    beam.end_square = b.end_square;
    beam.end_piece = ToReference(b.end_piece);
    out.beams.push_back(beam);
  }
  for (const BeamSegment& s : trace.segments) {
    out.segments.push_back(Segment{s.beam, ToReference(s.from),
                                   ToReference(s.to),
                                   static_cast<int>(s.travel)});
  }
  for (Square s = 0; s < kSquares; ++s) out.hit[s] = Contains(trace.hit, s);
  return out;
}

inline Bitboard HitBits(const Trace& trace) {
  Bitboard bits = 0;
  for (Square s = 0; s < kSquares; ++s) {
    if (trace.hit[s]) bits |= SquareBit(s);
  }
  return bits;
}

inline bool SameTrace(const Trace& a, const Trace& b) {
  return a.red_shooter == b.red_shooter && a.beams == b.beams &&
         a.segments == b.segments && std::equal(a.hit, a.hit + kSquares, b.hit);
}

// One line per beam and segment, for failure messages.
inline std::string TraceToText(const Trace& trace) {
  static const char* const kEnds[] = {"left board", "hit",   "absorbed",
                                      "blocked",    "split", "looped"};
  static const char* const kDirs[] = {"N", "E", "S", "W"};
  std::string text;
  for (const reference::Beam& b : trace.beams) {
    text += "beam " + std::to_string(b.id) + " parent " +
            std::to_string(b.parent) + ": ";
    for (const Segment& s : trace.segments) {
      if (s.beam != b.id) continue;
      text += "(" + std::to_string(s.from.file) + "," +
              std::to_string(s.from.rank) + ")-" + kDirs[s.travel & 3] + "->(" +
              std::to_string(s.to.file) + "," + std::to_string(s.to.rank) +
              ") ";
    }
    text += std::string(b.end >= 0 && b.end < 6 ? kEnds[b.end] : "?");
    if (b.end_square >= 0) text += " at " + SquareName(b.end_square);
    text += "\n";
  }
  text += "hit:";
  for (int s = 0; s < 80; ++s) {
    if (trace.hit[s]) text += " " + SquareName(s);
  }
  return text;
}

}  // namespace khet::reference

#endif  // KHET_TESTS_REFERENCE_ENGINE_CONVERSION_H_
