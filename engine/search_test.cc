// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/search.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::Sq;

constexpr Color kSilver = Color::kSilver;
constexpr Color kRed = Color::kRed;

// One piece from its letter (Silver upper case, Red lower case) and its
// orientation: K Pharaoh; P Pyramid NE|SE|SW|NW; S Scarab/Djed and E Eye,
// / or \; A Anubis and X Sphinx N|E|S|W; O Obelisk 1|2.
Piece PieceFrom(char letter, const std::string& o) {
  const Color c =
      std::isupper(static_cast<unsigned char>(letter)) ? kSilver : kRed;
  const auto index = [&](std::string_view names) {
    for (size_t i = 0, k = 0; i < names.size(); ++k) {
      const size_t end = names.find(' ', i);
      const std::string_view name =
          names.substr(i, end == std::string_view::npos ? end : end - i);
      if (name == o) return static_cast<int>(k);
      if (end == std::string_view::npos) break;
      i = end + 1;
    }
    ADD_FAILURE() << "orientation " << o << " of " << letter;
    return 0;
  };
  switch (std::toupper(static_cast<unsigned char>(letter))) {
    case 'K':
      return Piece(c, PieceType::kPharaoh);
    case 'P':
      return Piece(c, PieceType::kPyramid, index("NE SE SW NW"));
    case 'S':
      return Piece(c, PieceType::kScarab, index("/ \\"));
    case 'E':
      return Piece(c, PieceType::kEye, index("/ \\"));
    case 'A':
      return Piece(c, PieceType::kAnubis, index("N E S W"));
    case 'X':
      return Piece(c, PieceType::kSphinx, index("N E S W"));
    case 'O':
      return Piece(c, PieceType::kObelisk, index("1 2"));
  }
  ADD_FAILURE() << "piece letter " << letter;
  return Piece();
}

// "<letter> <square> [<orientation>]; ...", checked with Validate.
Position Board(Edition edition, std::string_view pieces, Color to_move) {
  Position pos;
  pos.set_edition(edition);
  pos.set_side_to_move(to_move);
  size_t i = 0;
  while (i < pieces.size()) {
    size_t end = pieces.find(';', i);
    if (end == std::string_view::npos) end = pieces.size();
    std::vector<std::string> words;
    std::string word;
    for (const char ch : pieces.substr(i, end - i)) {
      if (ch == ' ') {
        if (!word.empty()) words.push_back(word);
        word.clear();
      } else {
        word += ch;
      }
    }
    if (!word.empty()) words.push_back(word);
    if (!words.empty()) {
      EXPECT_GE(words.size(), 2u);
      pos.Set(Sq(words[1]),
              PieceFrom(words[0][0], words.size() > 2 ? words[2] : ""));
    }
    i = end + 1;
  }
  EXPECT_TRUE(pos.Validate().ok()) << pos.Validate();
  return pos;
}

SearchLimits Depth(int depth) {
  SearchLimits limits;
  limits.max_depth = depth;
  return limits;
}

bool IsLegal(const Position& pos, Move m) {
  MoveList moves;
  GenerateMoves(pos, &moves);
  for (const Move legal : moves) {
    if (legal == m) return true;
  }
  return false;
}

// Whether the side to move has a move that hits the other Pharaoh and not
// its own.
bool HasWinInOne(const Position& pos) {
  MoveList moves;
  GenerateMoves(pos, &moves);
  const Color us = pos.side_to_move();
  for (const Move m : moves) {
    Position child = pos;
    const PharaohsHit hit = MakeMove(&child, m);
    if (PharaohWasHit(hit, Opponent(us)) && !PharaohWasHit(hit, us)) {
      return true;
    }
  }
  return false;
}

// Plays m and reports the Pharaohs hit.
PharaohsHit Play(const Position& pos, Move m, Position* after = nullptr) {
  Position child = pos;
  const PharaohsHit hit = MakeMove(&child, m);
  if (after != nullptr) *after = child;
  return hit;
}

// ---- wins in one ------------------------------------------------------------

struct MateCase {
  const char* name;
  Edition edition;
  const char* pieces;
  const char* winning_move;
};

// In each, exactly one turn sends Silver's beam into Red's Pharaoh.
const MateCase kMates[] = {
    // The beam runs up the j-file and off the board past j5's mirror;
    // turned south-west, the mirror sends it along rank 5 into e5.
    {"Khet2", Edition::kKhet2,
     "X j1 N; K e1; P j5 SE; A d2 N; x a8 S; k e5; p c7 SW; a f6 S", "j5R"},
    // The same with the fixed Khet 1.0 laser below j1.
    {"Khet1", Edition::kKhet1, "K e1; P j5 SE; O d2 2; k e5; o f6 1", "j5R"},
    // The Eye on j3 splits the beam: its reflection goes east off the
    // board, its straight half north. Turned, the reflection goes west
    // along rank 3 into c3 while the straight half still runs north.
    {"BeamSplitter", Edition::kKhet2,
     "X j1 N; K e1; E j3 /; x a8 S; k c3; a c4 S", "j3R"},
};

class WinInOneTest : public ::testing::TestWithParam<MateCase> {};

TEST_P(WinInOneTest, FindsTheMoveWhoseShotHitsThePharaoh) {
  const MateCase& c = GetParam();
  const Position pos = Board(c.edition, c.pieces, kSilver);
  ASSERT_FALSE(PharaohWasHit(LaserHits(pos, kSilver) != 0, kRed));
  for (const int depth : {1, 2, 4}) {
    const SearchResult result = Search(pos, Depth(depth));
    EXPECT_EQ(FormatMove(pos, result.best_move), c.winning_move)
        << "depth " << depth;
    EXPECT_EQ(result.score, kMateScore - 1);
    EXPECT_EQ(Play(pos, result.best_move), 1 << static_cast<int>(kRed));
  }
  // Every level from 2 up takes a win in one; the beginner overlooks it on
  // some seeds (this one needs a turn of a mirror in its beam).
  int taken = 0, missed = 0;
  for (const Level& level : AllLevels()) {
    SearchLimits limits = level.limits;
    limits.max_time = absl::ZeroDuration();
    limits.max_nodes = std::min<uint64_t>(limits.max_nodes, 100000);
    for (uint64_t seed = 0; seed < 16; ++seed) {
      SearchStyle style = level.style;
      style.seed = seed;
      const SearchResult result = Search(pos, limits, style);
      const bool wins = FormatMove(pos, result.best_move) == c.winning_move;
      if (level.number > 1) {
        EXPECT_TRUE(wins) << level.name << " seed " << seed;
      } else {
        ++(wins ? taken : missed);
      }
    }
  }
  EXPECT_GT(taken, 0);
  EXPECT_GT(missed, 0);
}

TEST(SearchTest, AnOverlookedWinIsLeftOutButABeamOnThePharaohIsFired) {
  SearchStyle blind;
  blind.overlook_win_chance = 1.0;
  // Only a turn of j5 wins: a style that overlooks every such win plays
  // something else.
  const Position turn =
      Board(Edition::kKhet2,
            "X j1 N; K e1; P j5 SE; A d2 N; x a8 S; k e5; a f6 S", kSilver);
  for (uint64_t seed = 0; seed < 4; ++seed) {
    blind.seed = seed;
    const SearchResult result = Search(turn, Depth(2), blind);
    EXPECT_NE(FormatMove(turn, result.best_move), "j5R");
    EXPECT_LT(result.score, kMateThreshold);
  }
  // Beam already on Red's Pharaoh (j5 faces south-west): every move that
  // leaves it alone wins, and the style still wins.
  const Position aimed =
      Board(Edition::kKhet2,
            "X j1 N; K e1; P j5 SW; A d2 N; x a8 S; k e5; a f6 S", kSilver);
  const SearchResult result = Search(aimed, Depth(2), blind);
  EXPECT_EQ(Play(aimed, result.best_move), 1 << static_cast<int>(kRed));
}

INSTANTIATE_TEST_SUITE_P(Editions, WinInOneTest, ::testing::ValuesIn(kMates),
                         [](const auto& test) { return test.param.name; });

// ---- own Pharaoh ------------------------------------------------------------

TEST(SearchTest, NeverShootsItsOwnPharaoh) {
  // Silver's beam turns west at j4 and runs into its own Pharaoh on e4:
  // every move that leaves the beam alone loses at once.
  const Position pos = Board(
      Edition::kKhet2, "X j1 N; K e4; P j4 SW; x a8 S; k f8; P c3 NE", kSilver);
  ASSERT_TRUE(Contains(LaserHits(pos, kSilver), Sq("e4")));
  for (const Level& level : AllLevels()) {
    SearchLimits limits = level.limits;
    limits.max_time = absl::ZeroDuration();
    limits.max_nodes = std::min<uint64_t>(limits.max_nodes, 100000);
    for (uint64_t seed = 0; seed < 10; ++seed) {
      SearchStyle style = level.style;
      style.seed = seed;
      const SearchResult result = Search(pos, limits, style);
      ASSERT_TRUE(IsLegal(pos, result.best_move));
      EXPECT_FALSE(PharaohWasHit(Play(pos, result.best_move), kSilver))
          << level.name << " seed " << seed << " played "
          << FormatMove(pos, result.best_move);
    }
  }
}

TEST(SearchTest, BothPharaohsHitLosesForTheMoverOrDrawsByOption) {
  // Silver's Sphinx fires west along the empty rank 1. Turned north, its
  // beam splits on the Eye at j3: the reflection runs west into Red's
  // Pharaoh on c3, the straight half north into Silver's own on j7.
  const Position pos = Board(
      Edition::kKhet2, "X j1 W; E j3 \\; K j7; x a8 S; k c3; a c5 S", kSilver);
  const Move turn = Move::Rotate(Sq("j1"), true);
  ASSERT_TRUE(IsLegal(pos, turn));
  ASSERT_EQ(Play(pos, turn), 3);
  for (const int depth : {1, 3}) {
    const SearchResult result = Search(pos, Depth(depth));
    EXPECT_NE(result.best_move, turn);
    EXPECT_FALSE(PharaohWasHit(Play(pos, result.best_move), kSilver));
  }
  SearchStyle draws;
  draws.both_pharaohs_hit_draws = true;
  const SearchResult result = Search(pos, Depth(3), draws);
  EXPECT_TRUE(IsLegal(pos, result.best_move));
}

// ---- threats ----------------------------------------------------------------

TEST(SearchTest, DefendsAgainstAThreatToHitItsPharaohNextMove) {
  // Red's beam runs down the a-file and turns off the board at a3; turning
  // a3 clockwise (NW to NE) would send it along rank 3 into Silver's
  // Pharaoh on e3. Silver has no win of its own and must defend.
  const Position pos = Board(
      Edition::kKhet2,
      "X j1 N; K e3; P g2 NW; A d1 N; x a8 S; k f8; p a3 NW; a e7 S", kSilver);
  ASSERT_FALSE(HasWinInOne(pos));
  Position threatened = pos;
  threatened.FlipSideToMove();
  ASSERT_TRUE(HasWinInOne(threatened));
  for (const int depth : {2, 3, 4}) {
    const SearchResult result = Search(pos, Depth(depth));
    Position after;
    ASSERT_FALSE(PharaohWasHit(Play(pos, result.best_move, &after), kSilver));
    EXPECT_FALSE(HasWinInOne(after))
        << "depth " << depth << ": " << FormatMove(pos, result.best_move)
        << " leaves Red a win";
    EXPECT_GT(result.score, -kMateThreshold);
  }
  // The levels from SCARAB'S APPRENTICE up always see it.
  for (const Level& level : AllLevels()) {
    if (level.number < 2) continue;
    SearchLimits limits = level.limits;
    limits.max_time = absl::ZeroDuration();
    limits.max_nodes = std::min<uint64_t>(limits.max_nodes, 100000);
    const SearchResult result = Search(pos, limits, level.style);
    Position after;
    Play(pos, result.best_move, &after);
    EXPECT_FALSE(HasWinInOne(after)) << level.name;
  }
}

TEST(SearchTest, TheBeginnerSometimesWalksIntoABeam) {
  // A'NOOB'IS's careless moves do not look at the reply: over many seeds
  // it leaves the threat of the last test standing at least once, and
  // parries it at least once.
  const Position pos = Board(
      Edition::kKhet2,
      "X j1 N; K e3; P g2 NW; A d1 N; x a8 S; k f8; p a3 NW; a e7 S", kSilver);
  const Level beginner = *FindLevel(1);
  int blunders = 0, parries = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    SearchStyle style = beginner.style;
    style.seed = seed;
    const SearchResult result = Search(pos, beginner.limits, style);
    Position after;
    Play(pos, result.best_move, &after);
    ++(HasWinInOne(after) ? blunders : parries);
  }
  EXPECT_GT(blunders, 0);
  EXPECT_GT(parries, 0);
}

// ---- determinism, limits, cancellation --------------------------------------

TEST(SearchTest, FixedNodeLimitAndSeedGiveTheSameMoveAndNodeCount) {
  for (const char* id : {"classic-2", "dynasty-1", "osiris"}) {
    const Position pos = *SetupPosition(id);
    SearchLimits limits;
    limits.max_nodes = 60000;
    for (const int noise : {0, 30}) {
      SearchStyle style;
      style.score_noise = noise;
      style.seed = 42;
      const SearchResult a = Search(pos, limits, style);
      const SearchResult b = Search(pos, limits, style);
      EXPECT_EQ(a.best_move, b.best_move) << id;
      EXPECT_EQ(a.nodes, b.nodes) << id;
      EXPECT_EQ(a.score, b.score) << id;
      EXPECT_EQ(a.depth, b.depth) << id;
      EXPECT_EQ(a.principal_variation, b.principal_variation) << id;
      EXPECT_LE(a.nodes, limits.max_nodes);
      EXPECT_TRUE(IsLegal(pos, a.best_move));
    }
  }
}

TEST(SearchTest, DepthLimitedSearchIsDeterministicToo) {
  const Position pos = *SetupPosition("imhotep-2");
  const SearchResult a = Search(pos, Depth(4));
  const SearchResult b = Search(pos, Depth(4));
  EXPECT_EQ(a.best_move, b.best_move);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.depth, 4);
}

// A kept table, full of an earlier search's entries, changes nothing.
TEST(SearchTest, AReusedTableSearchesAsANewOneDoes) {
  SearchTable table;
  SearchLimits nodes;
  nodes.max_nodes = 60000;
  SearchLimits filler;
  filler.max_nodes = 200000;
  Search(*SetupPosition("osiris"), filler, {}, nullptr, &table);
  for (const char* id : {"classic-2", "dynasty-1", "imhotep-2"}) {
    const Position pos = *SetupPosition(id);
    for (const SearchLimits& limits : {nodes, Depth(4)}) {
      const SearchResult fresh = Search(pos, limits);
      const SearchResult reused = Search(pos, limits, {}, nullptr, &table);
      EXPECT_EQ(fresh.best_move, reused.best_move) << id;
      EXPECT_EQ(fresh.nodes, reused.nodes) << id;
      EXPECT_EQ(fresh.score, reused.score) << id;
      EXPECT_EQ(fresh.depth, reused.depth) << id;
      EXPECT_EQ(fresh.principal_variation, reused.principal_variation) << id;
    }
  }
}

// max_time runs from `started`: time spent before the call counts.
TEST(SearchTest, TheClockRunsFromStarted) {
  const Position pos = *SetupPosition("classic-2");
  SearchLimits limits;
  limits.max_time = absl::Milliseconds(100);
  limits.started = absl::Now() - absl::Seconds(5);
  const SearchResult result = Search(pos, limits);
  EXPECT_TRUE(IsLegal(pos, result.best_move));
  EXPECT_GE(result.elapsed, absl::Seconds(5));
  EXPECT_LE(result.depth, 1);  // out of time at its first look at the clock
}

TEST(SearchTest, StopsPromptlyWhenCancelledFromAnotherThread) {
  const Position pos = *SetupPosition("classic-2");
  SearchLimits limits;
  limits.max_depth = 60;  // far beyond reach: only the flag stops it
  std::atomic<bool> stop{false};
  std::thread canceller([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop.store(true);
  });
  const auto start = std::chrono::steady_clock::now();
  const SearchResult result = Search(pos, limits, {}, &stop);
  const auto took = std::chrono::steady_clock::now() - start;
  canceller.join();
  // Depth 60 unstopped would run for ages; 10 s bounds a stop that works
  // on a machine as loaded as CI's (how promptly is a benchmark's matter:
  // 1 s was once missed by 35 ms beside the in-world tests).
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_TRUE(IsLegal(pos, result.best_move));
  EXPECT_GE(result.depth, 1);
}

TEST(SearchTest, AlreadyStoppedStillReturnsALegalMove) {
  const Position pos = *SetupPosition("isis");
  std::atomic<bool> stop{true};
  SearchLimits limits;
  limits.max_depth = 60;
  const SearchResult result = Search(pos, limits, {}, &stop);
  EXPECT_TRUE(IsLegal(pos, result.best_move));
}

TEST(SearchTest, TimeLimitIsKept) {
  const Position pos = *SetupPosition("dynasty-2");
  SearchLimits limits;
  limits.max_time = absl::Milliseconds(300);
  limits.max_depth = 60;  // far beyond reach: only the time limit stops it
  const SearchResult result = Search(pos, limits);
  EXPECT_TRUE(IsLegal(pos, result.best_move));
  EXPECT_LT(result.elapsed, absl::Seconds(10));  // a loaded machine's slack
  // At least its first iteration finished. How deep it got in the time
  // is the machine's speed, which a unit test does not judge (a CI run
  // with two OpenSimulator regions beside it reached depth 1 only).
  EXPECT_GE(result.depth, 1);
}

TEST(SearchTest, TinyNodeLimitStillReturnsALegalMove) {
  for (const uint64_t nodes : {1, 2, 10, 100}) {
    const Position pos = *SetupPosition("classic-1b");
    SearchLimits limits;
    limits.max_nodes = nodes;
    const SearchResult result = Search(pos, limits);
    EXPECT_TRUE(IsLegal(pos, result.best_move)) << nodes;
    EXPECT_LE(result.nodes, nodes);
  }
}

// ---- levels -----------------------------------------------------------------

TEST(SearchTest, LevelsAreNumberedOneToFiveWithNamesAndLimits) {
  const std::vector<Level>& levels = AllLevels();
  ASSERT_EQ(levels.size(), 5u);
  EXPECT_EQ(levels[0].name, "A'NOOB'IS");
  EXPECT_EQ(levels[4].name, "KHET GRANDMASTER");
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(levels[i].number, i + 1);
    EXPECT_FALSE(levels[i].description.empty());
    // Every level ends by itself: a node cap at least.
    EXPECT_GT(levels[i].limits.max_nodes, 0u);
    EXPECT_EQ(FindLevel(i + 1)->name, levels[i].name);
  }
  EXPECT_GT(levels[4].limits.max_time, absl::ZeroDuration());
  EXPECT_FALSE(FindLevel(0).ok());
  EXPECT_FALSE(FindLevel(6).ok());
}

TEST(SearchTest, EveryLevelReturnsALegalMoveFromEverySetup) {
  for (const Level& level : AllLevels()) {
    SearchLimits limits = level.limits;
    // The strong levels' budgets, thirteen times over, are too slow for a
    // unit test: the same searches, cut short.
    limits.max_nodes = std::min<uint64_t>(limits.max_nodes, 100000);
    if (limits.max_time > absl::Milliseconds(100)) {
      limits.max_time = absl::Milliseconds(100);
    }
    for (const SetupInfo& setup : AllSetups()) {
      const Position pos = *SetupPosition(setup.id);
      SearchStyle style = level.style;
      style.seed = 3;
      const SearchResult result = Search(pos, limits, style);
      EXPECT_TRUE(IsLegal(pos, result.best_move))
          << level.name << " " << setup.id;
      ASSERT_FALSE(result.principal_variation.empty());
      EXPECT_EQ(result.principal_variation[0], result.best_move);
    }
  }
}

// ---- principal variation ----------------------------------------------------

TEST(SearchTest, PrincipalVariationIsALegalSequence) {
  for (const SetupInfo& setup : AllSetups()) {
    const Position start = *SetupPosition(setup.id);
    const SearchResult result = Search(start, Depth(5));
    ASSERT_FALSE(result.principal_variation.empty()) << setup.id;
    EXPECT_EQ(result.principal_variation[0], result.best_move);
    EXPECT_GE(result.principal_variation.size(), 2u) << setup.id;
    Position pos = start;
    for (const Move m : result.principal_variation) {
      ASSERT_TRUE(IsLegal(pos, m)) << setup.id << " " << FormatMove(pos, m);
      ASSERT_EQ(MakeMove(&pos, m), 0) << "the game ended inside the PV";
    }
  }
}

TEST(SearchTest, WinningLinePrincipalVariationEndsWithTheWin) {
  const Position pos = Board(
      Edition::kKhet2, "X j1 N; K e1; P j5 SE; x a8 S; k e5; a f6 S", kSilver);
  const SearchResult result = Search(pos, Depth(3));
  ASSERT_EQ(result.principal_variation.size(), 1u);
  EXPECT_EQ(Play(pos, result.principal_variation[0]),
            1 << static_cast<int>(kRed));
}

// ---- evaluation -------------------------------------------------------------

// The board turned 180 degrees with the colours swapped.
Position Mirrored(const Position& pos) {
  Position m;
  m.set_edition(pos.edition());
  for (Square s = 0; s < kSquares; ++s) {
    Piece p = pos.at(s);
    if (!p.empty()) {
      int o = p.orientation();
      if (p.type() == PieceType::kPyramid || p.type() == PieceType::kAnubis ||
          p.type() == PieceType::kSphinx) {
        o = (o + 2) & 3;
      }
      p = Piece(Opponent(p.color()), p.type(), o);
    }
    m.Set(kSquares - 1 - s, p);
  }
  m.set_side_to_move(Opponent(pos.side_to_move()));
  return m;
}

TEST(EvaluateTest, IsTheSameForEitherColourOfTheSameSituation) {
  for (const SetupInfo& setup : AllSetups()) {
    Position pos = *SetupPosition(setup.id);
    // A few moves in, so that the position is no longer symmetric.
    for (int ply = 0; ply < 6; ++ply) {
      EXPECT_EQ(Evaluate(pos), Evaluate(Mirrored(pos)))
          << setup.id << " ply " << ply << ": " << FormatPosition(pos);
      const SearchResult r = Search(pos, Depth(1));
      MakeMove(&pos, r.best_move);
    }
  }
}

TEST(EvaluateTest, MaterialCounts) {
  const Position even = Board(
      Edition::kKhet2, "X j1 N; K e1; P c3 NE; x a8 S; k f8; p h6 SW", kSilver);
  const Position up = Board(Edition::kKhet2,
                            "X j1 N; K e1; P c3 NE; P d3 NE; x a8 S; k f8; "
                            "p h6 SW",
                            kSilver);
  EXPECT_GT(Evaluate(up), Evaluate(even) + 50);
}

TEST(EvaluateTest, AnEnemyBeamAimedAtThePharaohIsBad) {
  // Red's beam turns east at a3 and runs along rank 3 into Silver's
  // Pharaoh: Silver, to move, is in check.
  const Position check =
      Board(Edition::kKhet2, "X j1 N; K e3; x a8 S; k f8; p a3 NE", kSilver);
  const Position quiet =
      Board(Edition::kKhet2, "X j1 N; K e2; x a8 S; k f8; p a3 NE", kSilver);
  EXPECT_LT(Evaluate(check), Evaluate(quiet) - 100);
}

}  // namespace
}  // namespace khet
