// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/laser.h"

#include "engine/notation.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::Sq;

BeamPoint P(const char* name) {
  return {static_cast<int8_t>(name[0] - 'a'),
          static_cast<int8_t>(name[1] - '1')};
}

Position WithPharaohs(Edition edition = Edition::kKhet2) {
  Position pos;
  pos.set_edition(edition);
  pos.Set(Sq("e1"), Piece(Color::kSilver, PieceType::kPharaoh));
  pos.Set(Sq("f8"), Piece(Color::kRed, PieceType::kPharaoh));
  if (edition == Edition::kKhet2) {
    pos.Set(Sq("j1"), Piece(Color::kSilver, PieceType::kSphinx, 0));
    pos.Set(Sq("a8"), Piece(Color::kRed, PieceType::kSphinx, 2));
  }
  return pos;
}

TEST(LaserTest, ClassicStartBeamMatchesTheRulesCheck) {
  const Position pos = *SetupPosition("classic-2");
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  ASSERT_EQ(trace.beams.size(), 1u);
  EXPECT_EQ(trace.beams[0].end, BeamEnd::kLeftBoard);
  EXPECT_EQ(trace.hit, 0);
  ASSERT_EQ(trace.segments.size(), 5u);
  const BeamPoint expected[] = {P("j1"), P("j4"), P("h4"), P("h5"), P("j5")};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(trace.segments[i].from, expected[i]);
  EXPECT_EQ(trace.segments[4].to, (BeamPoint{9, 8}));  // beyond j8
  EXPECT_EQ(LaserHits(pos, Color::kSilver), 0);
}

TEST(LaserTest, PyramidHitFromBehindIsRemovedTarget) {
  Position pos = WithPharaohs();
  pos.Set(Sq("j5"), Piece(Color::kRed, PieceType::kPyramid, kSE));
  // Travelling north the beam strikes the south face: SE reflects east,
  // off the board.
  EXPECT_EQ(LaserHits(pos, Color::kSilver), 0);
  pos.Set(Sq("j5"), Piece(Color::kRed, PieceType::kPyramid, kNE));
  EXPECT_EQ(LaserHits(pos, Color::kSilver), SquareBit(Sq("j5")));
  EXPECT_EQ(TraceLaser(pos, Color::kSilver).beams[0].end, BeamEnd::kHit);
}

TEST(LaserTest, Khet1FixedLaserReachesTheHomeCornerFirst) {
  Position pos = WithPharaohs(Edition::kKhet1);
  pos.Set(Sq("j1"), Piece(Color::kSilver, PieceType::kPyramid, kSW));
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  // From below j1 north into j1, whose SW mirror turns it west along rank 1
  // to the Silver Pharaoh on e1.
  ASSERT_EQ(trace.segments.size(), 2u);
  EXPECT_EQ(trace.segments[0].from, (BeamPoint{9, -1}));
  EXPECT_EQ(trace.segments[0].to, P("j1"));
  EXPECT_EQ(trace.segments[1].to, P("e1"));
  EXPECT_EQ(trace.hit, SquareBit(Sq("e1")));
}

TEST(LaserTest, EyeSplitsAndChildrenKnowTheirParent) {
  Position pos = WithPharaohs();
  pos.Set(Sq("j4"), Piece(Color::kSilver, PieceType::kEye, kBackslash));
  pos.Set(Sq("c4"), Piece(Color::kRed, PieceType::kAnubis, 0));
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  ASSERT_EQ(trace.beams.size(), 3u);
  EXPECT_EQ(trace.beams[0].end, BeamEnd::kSplit);
  EXPECT_EQ(trace.beams[1].parent, 0);
  EXPECT_EQ(trace.beams[1].end, BeamEnd::kHit);  // west into c4's east side
  EXPECT_EQ(trace.beams[1].end_square, Sq("c4"));
  EXPECT_EQ(trace.beams[2].parent, 0);
  EXPECT_EQ(trace.beams[2].end, BeamEnd::kLeftBoard);
  EXPECT_EQ(LaserHits(pos, Color::kSilver), trace.hit);
}

// A board crowded with Eyes splits the beam more than 160 times, so more
// beams wait to be traced than there are (square, direction) states.
TEST(LaserTest, ManySplitsFitTheTracersQueue) {
  const Position pos =
      ParsePosition(
          R"(xsS/e/E\Pswke/e\1Aw/psePsee/e/e\e/E\E\PseAn/s\e/e\e\e\E\E\s\S\1/)"
          R"(e/E/PswE/S\s\E\E\E\Psw/pneE\E\E/e\E/e\E\e\E//e/s/e\e/E\s\E/e/)"
          R"(E/Psw/1s/e/e\E\e/e/s/e\1/pneS/e\AsKE\e/e/e/Xn s 2)")
          .value();
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  int splits = 0;
  for (const Beam& b : trace.beams) splits += b.end == BeamEnd::kSplit;
  EXPECT_GT(splits, 160);
  EXPECT_EQ(trace.beams.size(), static_cast<size_t>(1 + 2 * splits));
  EXPECT_EQ(LaserHits(pos, Color::kSilver), trace.hit);
}

TEST(LaserTest, LoopsThroughAnEyeAreCut) {
  // The Sphinx fires west; e1 turns the beam north into the Eye on e3, whose
  // reflected beam runs round the ring c3-h3-h6-c6 and back through e3 into
  // h3 travelling east a second time.
  Position pos = WithPharaohs();
  pos.Set(Sq("e1"), Piece(Color::kSilver, PieceType::kScarab, kBackslash));
  pos.Set(Sq("d1"), Piece(Color::kSilver, PieceType::kPharaoh));
  pos.Set(Sq("j1"), Piece(Color::kSilver, PieceType::kSphinx, 3));
  pos.Set(Sq("e3"), Piece(Color::kSilver, PieceType::kEye, kSlash));
  pos.Set(Sq("h3"), Piece(Color::kSilver, PieceType::kScarab, kSlash));
  pos.Set(Sq("h6"), Piece(Color::kSilver, PieceType::kScarab, kBackslash));
  pos.Set(Sq("c6"), Piece(Color::kSilver, PieceType::kScarab, kSlash));
  pos.Set(Sq("c3"), Piece(Color::kSilver, PieceType::kScarab, kBackslash));
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  int looped = 0;
  for (const Beam& b : trace.beams) {
    if (b.end == BeamEnd::kLooped) {
      ++looped;
      EXPECT_EQ(b.end_square, Sq("h3"));
    }
  }
  EXPECT_EQ(looped, 1);
  // 0 splits on e3; 1 (reflected east) rounds the ring back into e3 and
  // splits; 2 (straight north) leaves; 3 (north) leaves; 4 (east) loops.
  EXPECT_EQ(trace.beams.size(), 5u);
  EXPECT_EQ(LaserHits(pos, Color::kSilver), trace.hit);
}

}  // namespace
}  // namespace khet
