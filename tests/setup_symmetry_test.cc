// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The named setups against the rules text: each equals its transcription of
// section 7, each is point symmetric (the piece on (f, r) maps to
// (9 - f, 7 - r) with colours swapped and turned half round), and so are the
// laser and the legal moves; and the Classic start trace of section 4.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/types.h"
#include "gtest/gtest.h"
#include "tests/reference/engine_conversion.h"
#include "tests/reference/reference_rules.h"
#include "tests/reference/reference_setups.h"

namespace khet {
namespace {

namespace ref = ::khet::reference;

// Positions along these many seeded random games are mirrored too.
constexpr int kRandomGames = 300;
constexpr int kMaxPlies = 80;

Square MirrorSquare(Square s) {
  return MakeSquare(kFiles - 1 - FileOf(s), kRanks - 1 - RankOf(s));
}

// The piece turned half round with its colour swapped.
Piece MirrorPiece(Piece p) {
  if (p.empty()) return p;
  int orientation = p.orientation();
  switch (p.type()) {
    case PieceType::kPyramid:
    case PieceType::kAnubis:
    case PieceType::kSphinx:
      orientation = (orientation + 2) % 4;
      break;
    default:  // a diagonal, a stack height or nothing: unchanged
      break;
  }
  return Piece(Opponent(p.color()), p.type(), orientation);
}

Position MirrorPosition(const Position& pos) {
  Position mirrored;
  for (Square s = 0; s < kSquares; ++s) {
    mirrored.Set(MirrorSquare(s), MirrorPiece(pos.at(s)));
  }
  mirrored.set_side_to_move(Opponent(pos.side_to_move()));
  mirrored.set_edition(pos.edition());
  return mirrored;
}

BeamPoint MirrorPoint(BeamPoint p) {
  return BeamPoint{static_cast<int8_t>(kFiles - 1 - p.file),
                   static_cast<int8_t>(kRanks - 1 - p.rank)};
}

BeamTrace MirrorTrace(const BeamTrace& trace) {
  BeamTrace mirrored;
  mirrored.shooter = Opponent(trace.shooter);
  for (Beam beam : trace.beams) {
    if (beam.end_square >= 0) beam.end_square = MirrorSquare(beam.end_square);
    beam.end_piece = MirrorPiece(beam.end_piece);
    mirrored.beams.push_back(beam);
  }
  for (BeamSegment segment : trace.segments) {
    segment.from = MirrorPoint(segment.from);
    segment.to = MirrorPoint(segment.to);
    segment.travel = Reverse(segment.travel);
    mirrored.segments.push_back(segment);
  }
  for (Square s = 0; s < kSquares; ++s) {
    if (Contains(trace.hit, s)) mirrored.hit |= SquareBit(MirrorSquare(s));
  }
  return mirrored;
}

Move MirrorMove(Move m) {
  // A half turn keeps clockwise clockwise.
  return Move(MirrorSquare(m.from()), MirrorSquare(m.to()), m.kind());
}

std::vector<uint16_t> MoveBits(const MoveList& list) {
  std::vector<uint16_t> bits;
  for (Move m : list) bits.push_back(m.bits());
  std::sort(bits.begin(), bits.end());
  return bits;
}

// Silver's trace mirrored equals Red's in the mirrored position, and the
// other way round; the mirrored position's moves are the mirrored moves.
testing::AssertionResult CheckMirrorSymmetry(const Position& pos) {
  const Position mirrored = MirrorPosition(pos);
  for (Color shooter : {Color::kSilver, Color::kRed}) {
    const ref::Trace expected =
        ref::ToReference(MirrorTrace(TraceLaser(pos, shooter)));
    const ref::Trace actual =
        ref::ToReference(TraceLaser(mirrored, Opponent(shooter)));
    if (!ref::SameTrace(expected, actual)) {
      return testing::AssertionFailure()
             << "trace not symmetric\n  mirrored original:\n"
             << ref::TraceToText(expected) << "\n  of the mirror:\n"
             << ref::TraceToText(actual);
    }
  }
  MoveList moves, mirrored_moves, expected;
  GenerateMoves(pos, &moves);
  GenerateMoves(mirrored, &mirrored_moves);
  for (Move m : moves) expected.push_back(MirrorMove(m));
  if (MoveBits(expected) != MoveBits(mirrored_moves)) {
    return testing::AssertionFailure() << "legal moves not symmetric";
  }
  return testing::AssertionSuccess();
}

TEST(SetupSymmetryTest, SetupsAreTheOnesOfTheRules) {
  std::set<std::string> ids;
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(std::string(info.id));
    ids.insert(std::string(info.id));
    const absl::StatusOr<Position> pos = SetupPosition(info.id);
    ASSERT_TRUE(pos.ok()) << pos.status();
    EXPECT_TRUE(pos->Validate().ok()) << pos->Validate();
    EXPECT_EQ(pos->side_to_move(), Color::kSilver);
    EXPECT_EQ(pos->edition(), info.edition);
    EXPECT_EQ(pos->hash(), pos->ComputeHash());
    ref::Board expected;
    ASSERT_TRUE(ref::RulesSetup(std::string(info.id), &expected))
        << "not a setup of section 7";
    EXPECT_EQ(ref::BoardToText(ref::ToReference(*pos)),
              ref::BoardToText(expected));
    bool has_eye = false;
    for (Square s = 0; s < kSquares; ++s) {
      has_eye = has_eye || pos->at(s).type() == PieceType::kEye;
    }
    EXPECT_EQ(info.beam_splitter, has_eye);
  }
  const std::vector<std::string> all = ref::RulesSetupIds();
  EXPECT_EQ(ids, std::set<std::string>(all.begin(), all.end()));
}

TEST(SetupSymmetryTest, EverySetupIsPointSymmetric) {
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(std::string(info.id));
    const absl::StatusOr<Position> pos = SetupPosition(info.id);
    ASSERT_TRUE(pos.ok()) << pos.status();
    const Position mirrored = MirrorPosition(*pos);
    for (Square s = 0; s < kSquares; ++s) {
      EXPECT_TRUE(mirrored.at(s) == pos->at(s))
          << ref::SquareName(s) << " is not the mirror of "
          << ref::SquareName(MirrorSquare(s));
    }
    // So Red's laser is Silver's turned half round, on the setup itself.
    EXPECT_EQ(
        ref::TraceToText(
            ref::ToReference(MirrorTrace(TraceLaser(*pos, Color::kSilver)))),
        ref::TraceToText(ref::ToReference(TraceLaser(*pos, Color::kRed))));
    EXPECT_TRUE(CheckMirrorSymmetry(*pos));
  }
}

TEST(SetupSymmetryTest, RandomPositionsAreSymmetricToo) {
  const auto setups = AllSetups();
  for (int game = 0; game < kRandomGames; ++game) {
    const SetupInfo& info = setups[game % setups.size()];
    absl::StatusOr<Position> pos = SetupPosition(info.id);
    ASSERT_TRUE(pos.ok()) << pos.status();
    std::mt19937_64 rng(static_cast<uint64_t>(game) + 7);
    for (int ply = 0; ply < kMaxPlies; ++ply) {
      const testing::AssertionResult symmetric = CheckMirrorSymmetry(*pos);
      ASSERT_TRUE(symmetric)
          << info.id << " game " << game << " ply " << ply << ": "
          << ref::BoardToText(ref::ToReference(*pos));
      MoveList list;
      GenerateMoves(*pos, &list);
      if (list.size == 0) break;
      const Move move = list.moves[rng() % static_cast<uint64_t>(list.size)];
      // The mirrored move in the mirrored position leads to the mirror.
      Position mirrored = MirrorPosition(*pos);
      const PharaohsHit hit = MakeMove(&*pos, move);
      const PharaohsHit mirrored_hit = MakeMove(&mirrored, MirrorMove(move));
      ASSERT_TRUE(MirrorPosition(*pos) == mirrored)
          << info.id << " game " << game << " ply " << ply;
      ASSERT_EQ(int{hit}, ((mirrored_hit & 1) << 1) | (mirrored_hit >> 1));
      if (hit != 0) break;
    }
  }
}

// Section 4: "at the start of Classic, Silver's beam goes j1 north, turns west
// at j4 (SW pyramid), north at h4 (NE), east at h5 (SE), north at j5 (NW) and
// leaves the board beyond j8, hitting nothing." The same holds for Classic
// 2b (its Eyes are off the path) and Classic 1.0, whose beam starts off the
// board south of j1.
TEST(SetupSymmetryTest, ClassicStartTraceOfTheRules) {
  for (const char* id :
       {"classic-2", "classic-2b", "classic-1", "classic-1b"}) {
    SCOPED_TRACE(id);
    const absl::StatusOr<Position> pos = SetupPosition(id);
    ASSERT_TRUE(pos.ok()) << pos.status();
    const bool khet1 = pos->edition() == Edition::kKhet1;
    const BeamTrace trace = TraceLaser(*pos, Color::kSilver);
    ASSERT_EQ(trace.beams.size(), 1u);
    EXPECT_EQ(trace.beams[0].end, BeamEnd::kLeftBoard);
    EXPECT_EQ(trace.beams[0].end_square, -1);
    EXPECT_EQ(trace.hit, Bitboard{0});
    EXPECT_EQ(LaserHits(*pos, Color::kSilver), Bitboard{0});
    const std::vector<ref::Segment> expected = {
        {0, {9, khet1 ? -1 : 0}, {9, 3}, ref::kNorth},  // j1 north to j4
        {0, {9, 3}, {7, 3}, ref::kWest},                // west to h4
        {0, {7, 3}, {7, 4}, ref::kNorth},               // north to h5
        {0, {7, 4}, {9, 4}, ref::kEast},                // east to j5
        {0, {9, 4}, {9, 8}, ref::kNorth},               // off beyond j8
    };
    EXPECT_EQ(ref::ToReference(trace).segments, expected);
    // And Red's is the same turned half round.
    const BeamTrace red = TraceLaser(*pos, Color::kRed);
    EXPECT_TRUE(ref::SameTrace(ref::ToReference(MirrorTrace(trace)),
                               ref::ToReference(red)))
        << ref::TraceToText(ref::ToReference(red));
  }
}

}  // namespace
}  // namespace khet
