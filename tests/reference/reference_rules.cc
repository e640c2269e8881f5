// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tests/reference/reference_rules.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace khet::reference {
namespace {

bool OnBoard(int file, int rank) {
  return file >= 0 && file < 10 && rank >= 0 && rank < 8;
}

Cell& CellAt(Board& board, int square) {
  return board.cells[RankOfSquare(square)][FileOfSquare(square)];
}

int FileStep(int direction) {
  if (direction == kEast) return 1;
  if (direction == kWest) return -1;
  return 0;
}

int RankStep(int direction) {
  if (direction == kNorth) return 1;
  if (direction == kSouth) return -1;
  return 0;
}

int Opposite(int direction) {
  if (direction == kNorth) return kSouth;
  if (direction == kEast) return kWest;
  if (direction == kSouth) return kNorth;
  return kEast;
}

// The reflection table of section 4 for a Pyramid: the new direction of
// travel, or -1 when the beam strikes a non-mirrored face (a hit).
int PyramidTurn(int facing, int travel) {
  if (facing == 0) {  // NE
    if (travel == kNorth) return -1;
    if (travel == kEast) return -1;
    if (travel == kSouth) return kEast;
    if (travel == kWest) return kNorth;
  }
  if (facing == 1) {  // SE
    if (travel == kNorth) return kEast;
    if (travel == kEast) return -1;
    if (travel == kSouth) return -1;
    if (travel == kWest) return kSouth;
  }
  if (facing == 2) {  // SW
    if (travel == kNorth) return kWest;
    if (travel == kEast) return kSouth;
    if (travel == kSouth) return -1;
    if (travel == kWest) return -1;
  }
  if (facing == 3) {  // NW
    if (travel == kNorth) return -1;
    if (travel == kEast) return kNorth;
    if (travel == kSouth) return kWest;
    if (travel == kWest) return -1;
  }
  return -1;
}

// The reflection table of section 4 for a Scarab/Djed (and an Eye's
// reflected beam): always a new direction of travel.
int ScarabTurn(int facing, int travel) {
  if (facing == 1) {  // '\'
    if (travel == kNorth) return kWest;
    if (travel == kEast) return kSouth;
    if (travel == kSouth) return kEast;
    if (travel == kWest) return kNorth;
  }
  if (facing == 0) {  // '/'
    if (travel == kNorth) return kEast;
    if (travel == kEast) return kNorth;
    if (travel == kSouth) return kWest;
    if (travel == kWest) return kSouth;
  }
  return -1;
}

// The diagonal of a Scarab, Djed or Eye: 0 '/', 1 '\'.
int DiagonalOf(const Board& board, const Cell& cell) {
  if (!board.physical_facings) return cell.facing;
  // The front mirror faces NW (0) or SE (2) on '/', NE (1) or SW (3) on '\'.
  if (cell.facing == 0 || cell.facing == 2) return 0;
  return 1;
}

bool IsSwapper(const Cell& cell) {
  return cell.type == 'S' || cell.type == 'E';
}

// Pieces a Scarab/Djed/Eye may swap with (section 3, item 3).
bool IsSwappable(const Cell& cell) {
  return cell.type == 'P' || cell.type == 'A' || cell.type == 'O';
}

void AddRotations(const Board& board, int file, int rank,
                  std::vector<Move>* moves) {
  const Cell& cell = board.cells[rank][file];
  const int square = SquareOf(file, rank);
  if (cell.type == 'P' || cell.type == 'A') {
    moves->push_back({square, square, kRotateClockwise});
    moves->push_back({square, square, kRotateAnticlockwise});
  }
  if (board.physical_facings &&
      (cell.type == 'K' || cell.type == 'S' || cell.type == 'E')) {
    // Four facings: the two quarter turns lead to different positions.
    moves->push_back({square, square, kRotateClockwise});
    moves->push_back({square, square, kRotateAnticlockwise});
  } else if (cell.type == 'S' || cell.type == 'E') {
    // Two states: clockwise and anticlockwise are the same move, listed once.
    moves->push_back({square, square, kRotateClockwise});
  }
  if (cell.type == 'X') {
    // Silver: N or W. From W a clockwise turn reaches N; from N an
    // anticlockwise one reaches W. Red: S or E. From E clockwise reaches S;
    // from S anticlockwise reaches E.
    if (!cell.red && cell.facing == kWest) {
      moves->push_back({square, square, kRotateClockwise});
    }
    if (!cell.red && cell.facing == kNorth) {
      moves->push_back({square, square, kRotateAnticlockwise});
    }
    if (cell.red && cell.facing == kEast) {
      moves->push_back({square, square, kRotateClockwise});
    }
    if (cell.red && cell.facing == kSouth) {
      moves->push_back({square, square, kRotateAnticlockwise});
    }
  }
  // Obelisks do not turn, nor Pharaohs without physical facings.
}

void AddMovesToNeighbours(const Board& board, int file, int rank,
                          std::vector<Move>* moves) {
  const Cell& cell = board.cells[rank][file];
  if (cell.type == 'X') return;  // a Sphinx never moves
  const int from = SquareOf(file, rank);
  for (int rank_step = -1; rank_step <= 1; ++rank_step) {
    for (int file_step = -1; file_step <= 1; ++file_step) {
      if (rank_step == 0 && file_step == 0) continue;
      const int to_file = file + file_step;
      const int to_rank = rank + rank_step;
      if (!OnBoard(to_file, to_rank)) continue;
      const Cell& target = board.cells[to_rank][to_file];
      const int to = SquareOf(to_file, to_rank);
      if (target.type == 0) {
        // A step onto an empty square; for a stack, as a whole or its top.
        if (MayEnter(board, cell.red, to_file, to_rank)) {
          moves->push_back({from, to, kMovePiece});
          if (cell.type == 'O' && cell.height == 2) {
            moves->push_back({from, to, kMoveTopObelisk});
          }
        }
        continue;
      }
      if (IsSwapper(cell) && IsSwappable(target)) {
        // A swap: both pieces must land on squares their colours may enter.
        if (MayEnter(board, cell.red, to_file, to_rank) &&
            MayEnter(board, target.red, file, rank)) {
          moves->push_back({from, to, kMovePiece});
        }
        continue;
      }
      if (cell.type == 'O' && target.type == 'O' && target.red == cell.red &&
          target.height == 1 && MayEnter(board, cell.red, to_file, to_rank)) {
        // Stacking: same colour only, at most two high. A single obelisk
        // steps onto it; from a stack, only the top obelisk may.
        if (cell.height == 1) moves->push_back({from, to, kMovePiece});
        if (cell.height == 2) moves->push_back({from, to, kMoveTopObelisk});
      }
    }
  }
}

}  // namespace

bool MayEnter(const Board& board, bool red, int file, int rank) {
  const bool silver_only = file == 9 || (file == 1 && (rank == 0 || rank == 7));
  const bool red_only = file == 0 || (file == 8 && (rank == 0 || rank == 7));
  if (red && silver_only) return false;
  if (!red && red_only) return false;
  const bool sphinx_corner =
      (file == 0 && rank == 7) || (file == 9 && rank == 0);
  if (board.edition == 2 && sphinx_corner) return false;
  return true;
}

std::vector<Move> LegalMoves(const Board& board) {
  std::vector<Move> moves;
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 10; ++file) {
      const Cell& cell = board.cells[rank][file];
      if (cell.type == 0 || cell.red != board.red_to_move) continue;
      AddMovesToNeighbours(board, file, rank, &moves);
      AddRotations(board, file, rank, &moves);
    }
  }
  return moves;
}

Trace TraceLaser(const Board& board, bool red_shooter) {
  Trace trace;
  trace.red_shooter = red_shooter;

  struct PendingBeam {
    int parent;
    Point start;
    int travel;
  };
  std::deque<PendingBeam> pending;  // in id order: FIFO
  if (board.edition == 2) {
    const Point corner = red_shooter ? Point{0, 7} : Point{9, 0};
    const Cell& sphinx = board.cells[corner.rank][corner.file];
    if (sphinx.type != 'X' || sphinx.red != red_shooter) return trace;
    pending.push_back({-1, corner, sphinx.facing});
  } else if (red_shooter) {
    pending.push_back({-1, Point{0, 8}, kSouth});
  } else {
    pending.push_back({-1, Point{9, -1}, kNorth});
  }

  // arrived[square][direction]: some beam already entered this occupied
  // square travelling that way.
  bool arrived[80][4] = {};

  while (!pending.empty()) {
    const PendingBeam start = pending.front();
    pending.pop_front();
    Beam beam;
    beam.id = static_cast<int>(trace.beams.size());
    beam.parent = start.parent;
    Point segment_start = start.start;
    int travel = start.travel;
    int file = start.start.file;
    int rank = start.start.rank;
    while (true) {
      file += FileStep(travel);
      rank += RankStep(travel);
      const Point here{file, rank};
      if (!OnBoard(file, rank)) {
        trace.segments.push_back({beam.id, segment_start, here, travel});
        beam.end = kLeftBoard;
        break;
      }
      const Cell& cell = board.cells[rank][file];
      if (cell.type == 0) continue;
      const int square = SquareOf(file, rank);
      beam.end_square = square;
      beam.end_piece = cell;
      if (arrived[square][travel]) {
        trace.segments.push_back({beam.id, segment_start, here, travel});
        beam.end = kLooped;
        break;
      }
      arrived[square][travel] = true;

      int turn = -1;  // the new direction if the beam is reflected
      if (cell.type == 'P') turn = PyramidTurn(cell.facing, travel);
      if (cell.type == 'S') turn = ScarabTurn(DiagonalOf(board, cell), travel);
      if (turn != -1) {
        trace.segments.push_back({beam.id, segment_start, here, travel});
        segment_start = here;
        travel = turn;
        beam.end_square = -1;
        beam.end_piece = Cell{};
        continue;
      }

      trace.segments.push_back({beam.id, segment_start, here, travel});
      if (cell.type == 'X') {
        beam.end = kAbsorbed;
      } else if (cell.type == 'A' && travel == Opposite(cell.facing)) {
        beam.end = kBlocked;
      } else if (cell.type == 'E') {
        beam.end = kSplit;
        pending.push_back(
            {beam.id, here, ScarabTurn(DiagonalOf(board, cell), travel)});
        pending.push_back({beam.id, here, travel});
      } else {
        // Pharaoh, Obelisk, an Anubis's side or back, a Pyramid's back.
        beam.end = kHit;
        trace.hit[square] = true;
      }
      break;
    }
    trace.beams.push_back(beam);
  }
  return trace;
}

MoveResult ApplyMove(const Board& board, const Move& move) {
  MoveResult result;
  Board& after = result.after;
  after = board;
  Cell& from = CellAt(after, move.from);
  Cell& to = CellAt(after, move.to);

  if (move.kind == kRotateClockwise || move.kind == kRotateAnticlockwise) {
    const bool clockwise = move.kind == kRotateClockwise;
    if (!board.physical_facings && (from.type == 'S' || from.type == 'E')) {
      from.facing = from.facing == 0 ? 1 : 0;
    } else if (clockwise) {
      // Pyramid NE->SE->SW->NW->NE; Anubis and Sphinx N->E->S->W->N; with
      // physical facings Pharaoh N->E->S->W->N, Scarab NW->NE->SE->SW->NW.
      from.facing = from.facing == 3 ? 0 : from.facing + 1;
    } else {
      from.facing = from.facing == 0 ? 3 : from.facing - 1;
    }
  } else if (move.kind == kMoveTopObelisk) {
    from.height = 1;
    if (to.type == 0) {
      to = Cell{'O', from.red, 0, 1};
    } else {
      to.height = 2;
    }
  } else if (to.type == 0) {
    to = from;  // a step (a whole stack included)
    from = Cell{};
  } else if (IsSwapper(from)) {
    const Cell swapped = to;  // a swap
    to = from;
    from = swapped;
  } else {
    to.height = 2;  // a single obelisk stacks
    from = Cell{};
  }

  const Trace trace = TraceLaser(after, board.red_to_move);
  Board fired = after;
  for (int square = 0; square < 80; ++square) {
    if (!trace.hit[square]) continue;
    const Cell before = CellAt(after, square);
    Cell left;
    if (before.type == 'O' && before.height == 2) {
      left = before;
      left.height = 1;
    }
    if (before.type == 'K' && !before.red) result.silver_pharaoh_hit = true;
    if (before.type == 'K' && before.red) result.red_pharaoh_hit = true;
    CellAt(fired, square) = left;
    result.removals.push_back({square, before, left});
  }
  fired.red_to_move = !board.red_to_move;
  result.after = fired;
  return result;
}

uint64_t Perft(const Board& board, int depth) {
  if (depth == 0) return 1;
  const std::vector<Move> moves = LegalMoves(board);
  // Every move leads to a position after exactly one more move.
  if (depth == 1) return moves.size();
  uint64_t total = 0;
  for (const Move& move : moves) {
    const MoveResult result = ApplyMove(board, move);
    if (result.silver_pharaoh_hit || result.red_pharaoh_hit) continue;
    total += Perft(result.after, depth - 1);
  }
  return total;
}

std::string SquareName(int square) {
  std::string name;
  name += static_cast<char>('a' + FileOfSquare(square));
  name += static_cast<char>('1' + RankOfSquare(square));
  return name;
}

std::string MoveToText(const Move& move) {
  if (move.kind == kRotateClockwise) return SquareName(move.from) + "R";
  if (move.kind == kRotateAnticlockwise) return SquareName(move.from) + "L";
  const char* separator = move.kind == kMoveTopObelisk ? "^" : "-";
  return SquareName(move.from) + separator + SquareName(move.to);
}

namespace {

const char* const kPyramidFacings[4] = {"ne", "se", "sw", "nw"};
const char* const kDirections[4] = {"n", "e", "s", "w"};
const char* const kScarabFacings[4] = {"nw", "ne", "se", "sw"};

std::string CellToText(const Cell& cell, bool physical_facings) {
  std::string text(1, cell.type);
  if (cell.red) text[0] = static_cast<char>(text[0] - 'A' + 'a');
  if (cell.type == 'P') text += kPyramidFacings[cell.facing & 3];
  if (cell.type == 'A' || cell.type == 'X')
    text += kDirections[cell.facing & 3];
  if (cell.type == 'K' && physical_facings)
    text += kDirections[cell.facing & 3];
  if ((cell.type == 'S' || cell.type == 'E') && physical_facings)
    text += kScarabFacings[cell.facing & 3];
  if ((cell.type == 'S' || cell.type == 'E') && !physical_facings)
    text += cell.facing == 0 ? "/" : "\\";
  if (cell.type == 'O') text += cell.height == 2 ? "2" : "1";
  return text;
}

}  // namespace

std::string BoardToText(const Board& board) {
  std::string text;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 10; ++file) {
      const Cell& cell = board.cells[rank][file];
      if (cell.type == 0) {
        ++empty;
        continue;
      }
      if (empty > 0) text += std::to_string(empty);
      empty = 0;
      text += CellToText(cell, board.physical_facings);
    }
    if (empty > 0) text += std::to_string(empty);
    if (rank > 0) text += '/';
  }
  text += board.red_to_move ? " r " : " s ";
  text += std::to_string(board.edition);
  if (board.physical_facings) text += " f";
  return text;
}

bool BoardFromText(const std::string& full_text, Board* board) {
  *board = Board{};
  std::string text = full_text;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, " f") == 0) {
    board->physical_facings = true;
    text.resize(text.size() - 2);
  }
  size_t i = 0;
  for (int rank = 7; rank >= 0; --rank) {
    int file = 0;
    while (file < 10) {
      if (i >= text.size()) return false;
      const char c = text[i];
      if (c >= '0' && c <= '9') {
        int run = c - '0';
        ++i;
        if (run == 1 && i < text.size() && text[i] == '0') {
          run = 10;
          ++i;
        }
        if (run == 0) return false;
        file += run;
        continue;
      }
      Cell cell;
      cell.red = c >= 'a' && c <= 'z';
      cell.type = cell.red ? static_cast<char>(c - 'a' + 'A') : c;
      ++i;
      auto starts = [&](const char* word) {
        return text.compare(i, std::string(word).size(), word) == 0;
      };
      bool ok = false;
      if (cell.type == 'K' && !board->physical_facings) ok = true;
      if (cell.type == 'K' && board->physical_facings) {
        for (int d = 0; d < 4 && !ok; ++d) {
          if (starts(kDirections[d])) {
            cell.facing = d;
            i += 1;
            ok = true;
          }
        }
      }
      if ((cell.type == 'S' || cell.type == 'E') && board->physical_facings) {
        for (int f = 0; f < 4 && !ok; ++f) {
          if (starts(kScarabFacings[f])) {
            cell.facing = f;
            i += 2;
            ok = true;
          }
        }
      }
      if (cell.type == 'P') {
        for (int f = 0; f < 4 && !ok; ++f) {
          if (starts(kPyramidFacings[f])) {
            cell.facing = f;
            i += 2;
            ok = true;
          }
        }
      }
      if (cell.type == 'A' || cell.type == 'X') {
        for (int d = 0; d < 4 && !ok; ++d) {
          if (starts(kDirections[d])) {
            cell.facing = d;
            i += 1;
            ok = true;
          }
        }
      }
      if ((cell.type == 'S' || cell.type == 'E') && !board->physical_facings &&
          i < text.size() && (text[i] == '/' || text[i] == '\\')) {
        cell.facing = text[i] == '/' ? 0 : 1;
        i += 1;
        ok = true;
      }
      if (cell.type == 'O' && i < text.size() &&
          (text[i] == '1' || text[i] == '2')) {
        cell.height = text[i] - '0';
        i += 1;
        ok = true;
      }
      if (!ok) return false;
      board->cells[rank][file] = cell;
      ++file;
    }
    if (file != 10) return false;
    if (rank > 0) {
      if (i >= text.size() || text[i] != '/') return false;
      ++i;
    }
  }
  if (text.compare(i, std::string::npos, " s 1") == 0) {
    board->red_to_move = false;
    board->edition = 1;
  } else if (text.compare(i, std::string::npos, " s 2") == 0) {
    board->red_to_move = false;
    board->edition = 2;
  } else if (text.compare(i, std::string::npos, " r 1") == 0) {
    board->red_to_move = true;
    board->edition = 1;
  } else if (text.compare(i, std::string::npos, " r 2") == 0) {
    board->red_to_move = true;
    board->edition = 2;
  } else {
    return false;
  }
  return true;
}

}  // namespace khet::reference
