// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Checks of the reference implementation against the rules text itself, with
// no engine involved: the worked example of section 4, the reflection table,
// the Eye of Horus, the Khet 1.0 emitters, and the move rules of section 3.
#include "tests/reference/reference_rules.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/reference/reference_setups.h"

namespace khet::reference {
namespace {

Board FromText(const std::string& text) {
  Board board;
  EXPECT_TRUE(BoardFromText(text, &board)) << text;
  return board;
}

std::vector<Move> Sorted(std::vector<Move> moves) {
  std::sort(moves.begin(), moves.end());
  return moves;
}

int Sq(const char* name) { return SquareOf(name[0] - 'a', name[1] - '1'); }

TEST(ReferenceRulesTest, TextRoundTrips) {
  for (const std::string& id : RulesSetupIds()) {
    Board board;
    ASSERT_TRUE(RulesSetup(id, &board)) << id;
    Board parsed;
    ASSERT_TRUE(BoardFromText(BoardToText(board), &parsed)) << id;
    EXPECT_EQ(parsed, board) << id << ": " << BoardToText(board);
  }
}

// Section 4: "at the start of Classic, Silver's beam goes j1 north, turns west
// at j4 (SW pyramid), north at h4 (NE), east at h5 (SE), north at j5 (NW) and
// leaves the board beyond j8, hitting nothing."
TEST(ReferenceRulesTest, ClassicStartTraceFromTheRules) {
  Board board;
  ASSERT_TRUE(RulesSetup("classic-2", &board));
  const Trace trace = TraceLaser(board, /*red_shooter=*/false);
  ASSERT_EQ(trace.beams.size(), 1u);
  EXPECT_EQ(trace.beams[0].end, kLeftBoard);
  EXPECT_EQ(trace.beams[0].end_square, -1);
  const std::vector<Segment> expected = {
      {0, {9, 0}, {9, 3}, kNorth}, {0, {9, 3}, {7, 3}, kWest},
      {0, {7, 3}, {7, 4}, kNorth}, {0, {7, 4}, {9, 4}, kEast},
      {0, {9, 4}, {9, 8}, kNorth},
  };
  EXPECT_EQ(trace.segments, expected);
  EXPECT_EQ(std::count(trace.hit, trace.hit + 80, true), 0);

  // Point symmetry: Red's beam is Silver's turned half round.
  const Trace red = TraceLaser(board, /*red_shooter=*/true);
  ASSERT_EQ(red.segments.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(red.segments[i].from.file, 9 - expected[i].from.file);
    EXPECT_EQ(red.segments[i].from.rank, 7 - expected[i].from.rank);
    EXPECT_EQ(red.segments[i].to.file, 9 - expected[i].to.file);
    EXPECT_EQ(red.segments[i].to.rank, 7 - expected[i].to.rank);
    EXPECT_EQ(red.segments[i].travel, (expected[i].travel + 2) % 4);
  }
}

// One row of the reflection table: a piece on e4 and a beam entering it.
struct TableCase {
  std::string piece;  // the piece on e4, in notation
  int travel;         // the direction the beam travels as it enters e4
  int end;            // kHit or kBlocked, or -1 when the beam is reflected
  int turn;           // the direction it leaves e4 in when reflected
};

// Silver's Sphinx (j1) beam steered by Scarabs into e4 travelling `travel`.
Trace TraceInto(const std::string& piece, int travel) {
  std::string rank8 = "xs9", rank4 = "4" + piece + "5", rank1 = "9Xn";
  std::string rank2 = "10";
  if (travel == kNorth) {
    rank1 = "4S\\4Xw";  // W along rank 1, '\' on e1 turns it N
  } else if (travel == kSouth) {
    rank8 = "xs3S/4S\\";  // N up the j-file, '\' j8 -> W, '/' e8 -> S
  } else if (travel == kEast) {
    rank1 = "1S\\7Xw";  // W along rank 1, '\' on b1 -> N, '/' on b4 -> E
    rank4 = "1S/2" + piece + "5";
  } else {
    rank4 = "4" + piece + "4S\\";  // N up the j-file, '\' on j4 -> W
  }
  const std::string text =
      rank8 + "/10/10/10/" + rank4 + "/10/" + rank2 + "/" + rank1 + " s 2";
  Board board;
  EXPECT_TRUE(BoardFromText(text, &board)) << text;
  return TraceLaser(board, /*red_shooter=*/false);
}

TEST(ReferenceRulesTest, ReflectionTableOfSectionFour) {
  const int N = kNorth, E = kEast, S = kSouth, W = kWest;
  const std::vector<TableCase> cases = {
      {"Pne", N, kHit, 0},    {"Pne", E, kHit, 0},    {"Pne", S, -1, E},
      {"Pne", W, -1, N},      {"Pse", N, -1, E},      {"Pse", E, kHit, 0},
      {"Pse", S, kHit, 0},    {"Pse", W, -1, S},      {"Psw", N, -1, W},
      {"Psw", E, -1, S},      {"Psw", S, kHit, 0},    {"Psw", W, kHit, 0},
      {"Pnw", N, kHit, 0},    {"Pnw", E, -1, N},      {"Pnw", S, -1, W},
      {"Pnw", W, kHit, 0},    {"S\\", N, -1, W},      {"S\\", E, -1, S},
      {"S\\", S, -1, E},      {"S\\", W, -1, N},      {"S/", N, -1, E},
      {"S/", E, -1, N},       {"S/", S, -1, W},       {"S/", W, -1, S},
      {"An", S, kBlocked, 0}, {"An", N, kHit, 0},     {"An", E, kHit, 0},
      {"An", W, kHit, 0},     {"Ae", W, kBlocked, 0}, {"Ae", E, kHit, 0},
      {"As", N, kBlocked, 0}, {"Aw", E, kBlocked, 0}, {"K", N, kHit, 0},
      {"K", E, kHit, 0},      {"k", S, kHit, 0},      {"K", W, kHit, 0},
  };
  for (const TableCase& c : cases) {
    SCOPED_TRACE(c.piece + " travel " + std::to_string(c.travel));
    const Trace trace = TraceInto(c.piece, c.travel);
    ASSERT_FALSE(trace.beams.empty());
    const Beam& beam = trace.beams[0];
    if (c.end != -1) {
      EXPECT_EQ(beam.end, c.end);
      EXPECT_EQ(beam.end_square, Sq("e4"));
      EXPECT_EQ(trace.hit[Sq("e4")], c.end == kHit);
      EXPECT_EQ(trace.segments.back().to, (Point{4, 3}));
      EXPECT_EQ(trace.segments.back().travel, c.travel);
      continue;
    }
    // Reflected: a segment starts at e4 in the new direction.
    bool found = false;
    for (const Segment& s : trace.segments) {
      if (s.from == Point{4, 3}) {
        found = true;
        EXPECT_EQ(s.travel, c.turn);
      }
    }
    EXPECT_TRUE(found);
    EXPECT_FALSE(trace.hit[Sq("e4")]);
  }
}

TEST(ReferenceRulesTest, SphinxAbsorbs) {
  // Silver's Sphinx j1 faces N; '\' on j8 turns the beam W along rank 8 into
  // Red's Sphinx on a8.
  const Board board = FromText("xs8S\\/10/10/10/10/10/10/4K4Xn s 2");
  const Trace trace = TraceLaser(board, false);
  ASSERT_EQ(trace.beams.size(), 1u);
  EXPECT_EQ(trace.beams[0].end, kAbsorbed);
  EXPECT_EQ(trace.beams[0].end_square, Sq("a8"));
  EXPECT_EQ(trace.beams[0].end_piece, (Cell{'X', true, kSouth, 0}));
  EXPECT_EQ(std::count(trace.hit, trace.hit + 80, true), 0);
}

TEST(ReferenceRulesTest, KhetOneEmittersAndObeliskStacks) {
  // Silver's emitter fires up the j-file; the stack on j1 is the first thing
  // it reaches and loses its top obelisk.
  const Board board = FromText("k9/10/10/10/10/10/10/4K4O2 s 1");
  const Trace trace = TraceLaser(board, false);
  ASSERT_EQ(trace.segments.size(), 1u);
  EXPECT_EQ(trace.segments[0].from, (Point{9, -1}));
  EXPECT_EQ(trace.segments[0].to, (Point{9, 0}));
  EXPECT_EQ(trace.beams[0].end, kHit);
  const MoveResult result =
      ApplyMove(board, Move{Sq("e1"), Sq("e2"), kMovePiece});
  ASSERT_EQ(result.removals.size(), 1u);
  EXPECT_EQ(result.removals[0].square, Sq("j1"));
  EXPECT_EQ(result.removals[0].before, (Cell{'O', false, 0, 2}));
  EXPECT_EQ(result.removals[0].after, (Cell{'O', false, 0, 1}));
  EXPECT_EQ(result.after.cells[0][9], (Cell{'O', false, 0, 1}));
  EXPECT_TRUE(result.after.red_to_move);

  // Red's emitter fires down the a-file from beyond a8.
  const Trace red = TraceLaser(FromText("10/10/10/10/10/10/10/4k5 r 1"), true);
  ASSERT_EQ(red.segments.size(), 1u);
  EXPECT_EQ(red.segments[0].from, (Point{0, 8}));
  EXPECT_EQ(red.segments[0].to, (Point{0, -1}));
  EXPECT_EQ(red.segments[0].travel, kSouth);
  EXPECT_EQ(red.beams[0].end, kLeftBoard);
}

TEST(ReferenceRulesTest, EyeSplitsReflectedFirstThenStraight) {
  // Silver's Sphinx j1 faces W: the beam runs along rank 1 into an Eye '/'
  // on e1 travelling W: reflected S (off the board), and straight on W.
  const Board board = FromText("xs9/10/10/10/10/10/10/4E/4Xw s 2");
  const Trace trace = TraceLaser(board, false);
  ASSERT_EQ(trace.beams.size(), 3u);
  EXPECT_EQ(trace.beams[0].end, kSplit);
  EXPECT_EQ(trace.beams[0].end_square, Sq("e1"));
  EXPECT_EQ(trace.beams[1].parent, 0);
  EXPECT_EQ(trace.beams[2].parent, 0);
  const std::vector<Segment> expected = {
      {0, {9, 0}, {4, 0}, kWest},
      {1, {4, 0}, {4, -1}, kSouth},
      {2, {4, 0}, {-1, 0}, kWest},
  };
  EXPECT_EQ(trace.segments, expected);
}

TEST(ReferenceRulesTest, LoopsThroughTheEyeAreCut) {
  // Sphinx j1 N; '\' j6 (N->W); '/' e6 (W->S); down into the Eye '\' on e4
  // travelling S: beam 0 splits into 1 (reflected E) and 2 (straight S).
  // 1: '\' h4 (E->S), '/' h2 (S->W), '\' e2 (W->N), into e4 travelling N:
  //    a new state, split into 3 (W, off the board) and 4 (N).
  // 2: '\' e2 (S->E), '/' h2 (E->N), '\' h4 (N->W), into e4 travelling W:
  //    split into 5 (reflected N) and 6 (straight W, off the board).
  // 4: '/' e6 travelling N (N->E), '\' j6 (E->S), down to the Sphinx on j1.
  // 5: into e6 travelling N, as beam 4 already did: looped.
  Board b;
  b.edition = 2;
  b.cells[0][9] = Cell{'X', false, kNorth, 0};
  b.cells[7][0] = Cell{'X', true, kSouth, 0};
  b.cells[5][9] = Cell{'S', false, 1, 0};  // j6 '\'
  b.cells[5][4] = Cell{'S', false, 0, 0};  // e6 '/'
  b.cells[3][4] = Cell{'E', false, 1, 0};  // e4 Eye '\'
  b.cells[3][7] = Cell{'S', false, 1, 0};  // h4 '\'
  b.cells[1][7] = Cell{'S', false, 0, 0};  // h2 '/'
  b.cells[1][4] = Cell{'S', false, 1, 0};  // e2 '\'
  const Trace t = TraceLaser(b, false);
  std::vector<int> ends, parents;
  for (const Beam& beam : t.beams) {
    ends.push_back(beam.end);
    parents.push_back(beam.parent);
  }
  EXPECT_EQ(ends, (std::vector<int>{kSplit, kSplit, kSplit, kLeftBoard,
                                    kAbsorbed, kLooped, kLeftBoard}));
  EXPECT_EQ(parents, (std::vector<int>{-1, 0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(t.beams[4].end_square, Sq("j1"));
  EXPECT_EQ(t.beams[5].end_square, Sq("e6"));
  // Beam 5 is one segment, from the Eye to where it looped.
  std::vector<Segment> five;
  for (const Segment& s : t.segments) {
    if (s.beam == 5) five.push_back(s);
  }
  EXPECT_EQ(five, (std::vector<Segment>{{5, {4, 3}, {4, 5}, kNorth}}));
}

TEST(ReferenceRulesTest, MovesOfALoneScarabAndPyramid) {
  Board board = FromText("xs4k4/10/10/10/10/4S/5/10/4K4Xn s 2");
  std::vector<Move> moves = Sorted(LegalMoves(board));
  // Scarab e3: 8 steps, 1 turn; Pharaoh e1: 5 steps; Sphinx: 1 turn.
  EXPECT_EQ(moves.size(), 15u);
  EXPECT_TRUE(std::count(moves.begin(), moves.end(),
                         Move{Sq("j1"), Sq("j1"), kRotateAnticlockwise}));
  EXPECT_FALSE(std::count(moves.begin(), moves.end(),
                          Move{Sq("e3"), Sq("e3"), kRotateAnticlockwise}));

  // Restricted squares: a Silver piece never enters the a-file, i1 or i8;
  // a Red one never the j-file, b1 or b8. A Silver Pyramid on b2 steps to
  // b1, c1, c2, c3, b3 (not a1, a2, a3) and turns twice.
  board = FromText("xs4k4/10/10/10/10/10/1Pne8/4K4Xn s 2");
  int pyramid_moves = 0;
  for (const Move& m : LegalMoves(board)) pyramid_moves += m.from == Sq("b2");
  EXPECT_EQ(pyramid_moves, 7);
  // A Silver Pharaoh on h1 may not step onto i1 (Red only).
  board = FromText("xs4k4/10/10/10/10/10/10/7K1Xn s 2");
  for (const Move& m : LegalMoves(board)) EXPECT_NE(m.to, Sq("i1"));
}

TEST(ReferenceRulesTest, SwapsNeedBothLandingSquaresAllowed) {
  // A Silver Scarab on b2 next to a Red Pyramid on a2 (Red only: the Scarab
  // may not land there), a Red Pyramid on b1 (Silver only, but the Scarab may
  // land there and the Pyramid on b2) and a Silver Pharaoh on c1 (never
  // swapped). Only b2-b1 is a swap.
  const Board board = FromText("xs4k4/10/10/10/10/10/pneS/8/1pneK6Xn s 2");
  std::vector<Move> swaps;
  for (const Move& m : LegalMoves(board)) {
    if (m.from == Sq("b2") && m.kind == kMovePiece &&
        board.cells[RankOfSquare(m.to)][FileOfSquare(m.to)].type != 0) {
      swaps.push_back(m);
    }
  }
  EXPECT_EQ(swaps, (std::vector<Move>{{Sq("b2"), Sq("b1"), kMovePiece}}));

  // A Silver Scarab on j2 may not swap a Red Pyramid on i2 onto the j-file.
  const Board edge = FromText("xs4k4/10/10/10/10/10/8pneS//4K4Xn s 2");
  int swaps_from_j2 = 0;
  for (const Move& m : LegalMoves(edge)) {
    swaps_from_j2 += m.from == Sq("j2") && m.to == Sq("i2");
  }
  EXPECT_EQ(swaps_from_j2, 0);
}

TEST(ReferenceRulesTest, ObeliskStacking) {
  // Khet 1.0: a Silver stack on d2, a single on e2 and a Red single on d3.
  const Board board = FromText("k9/10/10/10/10/3o16/3O2O15/4K5 s 1");
  std::vector<Move> moves;
  for (const Move& m : LegalMoves(board)) {
    if (m.from == Sq("d2") || m.from == Sq("e2")) moves.push_back(m);
  }
  moves = Sorted(moves);
  // d2 (stack): to 6 empty neighbours (c1 c2 c3 d1 e3, e1 is the Pharaoh:
  // c1 d1 c2 c3 e3 = 5 empty), whole or top: 10; top onto e2: 1; none onto
  // d3 (Red). e2 (single): to d1 e3 f1 f2 f3 (5 empty), onto the stack d2:
  // no (three high).
  int from_stack = 0, from_single = 0;
  for (const Move& m : moves) {
    if (m.from == Sq("d2")) ++from_stack;
    if (m.from == Sq("e2")) ++from_single;
    EXPECT_NE(m.kind, kRotateClockwise);
    EXPECT_NE(m.to, Sq("d3"));
  }
  EXPECT_EQ(from_stack, 11);
  EXPECT_EQ(from_single, 5);
  EXPECT_TRUE(std::count(moves.begin(), moves.end(),
                         Move{Sq("d2"), Sq("e2"), kMoveTopObelisk}));
  const MoveResult r =
      ApplyMove(board, Move{Sq("d2"), Sq("e2"), kMoveTopObelisk});
  EXPECT_EQ(r.after.cells[1][3], (Cell{'O', false, 0, 1}));
  EXPECT_EQ(r.after.cells[1][4], (Cell{'O', false, 0, 2}));
}

TEST(ReferenceRulesTest, SetupsArePointSymmetric) {
  for (const std::string& id : RulesSetupIds()) {
    Board board;
    ASSERT_TRUE(RulesSetup(id, &board));
    for (int rank = 0; rank < 8; ++rank) {
      for (int file = 0; file < 10; ++file) {
        const Cell& a = board.cells[rank][file];
        const Cell& b = board.cells[7 - rank][9 - file];
        ASSERT_EQ(a.type, b.type)
            << id << " " << SquareName(SquareOf(file, rank));
        if (a.type == 0) continue;
        EXPECT_NE(a.red, b.red) << id;
        EXPECT_EQ(a.height, b.height) << id;
        if (a.type == 'P' || a.type == 'A' || a.type == 'X') {
          EXPECT_EQ(b.facing, (a.facing + 2) % 4) << id;
        } else {
          EXPECT_EQ(b.facing, a.facing) << id;
        }
      }
    }
  }
}

}  // namespace
}  // namespace khet::reference
