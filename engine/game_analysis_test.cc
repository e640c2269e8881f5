// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/game_analysis.h"

#include <atomic>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/notation.h"
#include "engine/search.h"
#include "engine/setups.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

Game Played(std::string_view setup,
            std::initializer_list<std::string_view> moves) {
  absl::StatusOr<Position> start = SetupPosition(setup);
  EXPECT_TRUE(start.ok()) << start.status();
  Game game(*start);
  for (std::string_view text : moves) {
    absl::StatusOr<Move> move = ParseMove(game.position(), text);
    EXPECT_TRUE(move.ok()) << text << ": " << move.status();
    if (!move.ok()) break;
    absl::StatusOr<MoveEffects> effects = game.Play(*move);
    EXPECT_TRUE(effects.ok()) << text << ": " << effects.status();
  }
  return game;
}

// A fixed-depth search: the same answer every run.
PositionSearch DepthSearch(int depth) {
  return [depth](const Position& pos, const SearchStyle& style) {
    SearchLimits limits;
    limits.max_depth = depth;
    return Search(pos, limits, style);
  };
}

// Classic 2: Silver turns j5 and shoots its own Pyramid on j4; Red steps
// its Scarab e5-f6 and opens a path to its Pharaoh; Silver's j5-j6 hits
// the Red Pharaoh on f8.
Game ShortLostGame() { return Played("classic-2", {"j5L", "e5-f6", "j5-j6"}); }

TEST(JudgeTest, ThresholdsOfTheLoss) {
  EXPECT_EQ(Judge(100, 100), Judgement::kGood);
  EXPECT_EQ(Judge(100, 100 - kInaccuracyLoss + 1), Judgement::kGood);
  EXPECT_EQ(Judge(100, 100 - kInaccuracyLoss), Judgement::kInaccuracy);
  EXPECT_EQ(Judge(100, 100 - kMistakeLoss + 1), Judgement::kInaccuracy);
  EXPECT_EQ(Judge(100, 100 - kMistakeLoss), Judgement::kMistake);
  EXPECT_EQ(Judge(100, 100 - kBlunderLoss + 1), Judgement::kMistake);
  EXPECT_EQ(Judge(100, 100 - kBlunderLoss), Judgement::kBlunder);
}

TEST(JudgeTest, WinsAndLosses) {
  const int win = kMateScore - 3;
  const int loss = -(kMateScore - 2);
  // Into a forced loss from a position that was not lost: a blunder, even
  // from a small disadvantage.
  EXPECT_EQ(Judge(-40, loss), Judgement::kBlunder);
  // Already lost: whichever loss is played, it is no worse.
  EXPECT_EQ(Judge(-(kMateScore - 8), loss), Judgement::kGood);
  // A forced win let go, the game not lost: a mistake.
  EXPECT_EQ(Judge(win, 200), Judgement::kMistake);
  EXPECT_EQ(Judge(win, kMateScore - 9), Judgement::kGood);  // a slower win
  // A forced win thrown into a forced loss: a blunder.
  EXPECT_EQ(Judge(win, loss), Judgement::kBlunder);
}

TEST(ScoreTextTest, PyramidsAndForcedEnds) {
  EXPECT_EQ(ScoreText(0), "0.00");
  EXPECT_EQ(ScoreText(125), "+1.25");
  EXPECT_EQ(ScoreText(-50), "-0.50");
  EXPECT_EQ(ScoreText(kMateScore - 3), "wins in 3");
  EXPECT_EQ(ScoreText(-(kMateScore - 1)), "loses in 1");
}

TEST(AnalyzeGameTest, ScoresEveryPlyOfAShortGame) {
  const Game game = ShortLostGame();
  ASSERT_TRUE(game.over());
  std::vector<int> seen;
  const std::vector<PlyAnalysis> plies =
      AnalyzeGame(game, DepthSearch(3),
                  [&](const PlyAnalysis& p) { seen.push_back(p.ply); });
  ASSERT_EQ(plies.size(), 3u);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(plies[i].ply, i + 1);
    EXPECT_EQ(plies[i].played, game.moves()[i]);
    EXPECT_GE(plies[i].loss(), 0);
    EXPECT_EQ(plies[i].judgement,
              Judge(plies[i].best_score, plies[i].played_score));
  }
  EXPECT_EQ(plies[0].mover, Color::kSilver);
  EXPECT_EQ(plies[1].mover, Color::kRed);

  // Shooting its own Pyramid for nothing costs Silver at least a Pyramid.
  EXPECT_NE(plies[0].judgement, Judgement::kGood);
  EXPECT_FALSE(plies[0].best == plies[0].played);

  // Red's step lets Silver win at once: a blunder, and the search names a
  // move that does not lose.
  EXPECT_EQ(plies[1].judgement, Judgement::kBlunder);
  EXPECT_EQ(plies[1].played_score, -(kMateScore - 1));
  EXPECT_FALSE(plies[1].best == plies[1].played);
  EXPECT_GT(plies[1].best_score, -kMateThreshold);

  // The winning shot is the best move there is.
  EXPECT_EQ(plies[2].judgement, Judgement::kGood);
  EXPECT_EQ(plies[2].played_score, kMateScore - 1);
  EXPECT_EQ(plies[2].best, plies[2].played);
  EXPECT_EQ(plies[2].loss(), 0);
}

TEST(AnalyzeGameTest, SameAnswerEveryRunWithAFixedDepth) {
  const Game game = Played("dynasty-2", {"d1-d2", "g8-g7", "e2-f2", "f7-e7"});
  const std::vector<PlyAnalysis> a = AnalyzeGame(game, DepthSearch(3));
  const std::vector<PlyAnalysis> b = AnalyzeGame(game, DepthSearch(3));
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(a[i].best, b[i].best);
    EXPECT_EQ(a[i].best_score, b[i].best_score);
    EXPECT_EQ(a[i].played_score, b[i].played_score);
  }
}

TEST(AnalyzeGameTest, AGameWithoutMovesHasNoPlies) {
  absl::StatusOr<Position> start = SetupPosition("classic-2");
  ASSERT_TRUE(start.ok());
  int searches = 0;
  const std::vector<PlyAnalysis> plies =
      AnalyzeGame(Game(*start), [&](const Position& pos, const SearchStyle&) {
        ++searches;
        return Search(pos, SearchLimits{.max_depth = 1});
      });
  EXPECT_TRUE(plies.empty());
  EXPECT_EQ(searches, 0);
}

TEST(AnalyzeGameTest, EachPositionIsSearchedOnceWithTheHistoryBeforeIt) {
  const Game game = Played("classic-2", {"e4-e3", "f5-f6", "e3-e4"});
  std::vector<size_t> history_sizes;
  std::vector<Position> searched;
  AnalyzeGame(game, [&](const Position& pos, const SearchStyle& style) {
    history_sizes.push_back(style.history.size());
    searched.push_back(pos);
    return Search(pos, SearchLimits{.max_depth = 1}, style);
  });
  // The start, then the position after each of the three moves.
  EXPECT_EQ(history_sizes, (std::vector<size_t>{0, 1, 2, 3}));
  ASSERT_EQ(searched.size(), 4u);
  EXPECT_EQ(searched[0], game.start());
  EXPECT_EQ(searched[3], game.position());
}

TEST(AnalyzeGameTest, StopsWhenAsked) {
  const Game game = Played("classic-2", {"e4-e3", "f5-f6", "e3-e4", "f6-f5"});
  std::atomic<bool> stop{false};
  const std::vector<PlyAnalysis> plies = AnalyzeGame(
      game, DepthSearch(1),
      [&](const PlyAnalysis& p) {
        if (p.ply == 2) stop = true;
      },
      &stop);
  EXPECT_EQ(plies.size(), 2u);
}

TEST(AnalysisCommentTest, NamesTheJudgementAndTheBetterMove) {
  const Game game = ShortLostGame();
  const std::vector<PlyAnalysis> plies = AnalyzeGame(game, DepthSearch(3));
  ASSERT_EQ(plies.size(), 3u);
  Game replay(game.start());
  ASSERT_TRUE(replay.Play(game.moves()[0]).ok());
  const std::string better = FormatMove(replay.position(), plies[1].best);
  EXPECT_EQ(AnalysisComment(plies[1].judgement, plies[1].played_score, better,
                            plies[1].best_score),
            absl::StrCat("?? blunder: loses in 1; better ", better, ", ",
                         ScoreText(plies[1].best_score)));
  EXPECT_EQ(AnalysisComment(Judgement::kMistake, -130, "", 0),
            "? mistake: -1.30");
  EXPECT_EQ(AnalysisComment(Judgement::kGood, 10, "a1-a2", 20), "");
  EXPECT_EQ(AnalysisHeading(200),
            "computer analysis, 200 ms a ply: ?! inaccuracy, ? mistake, ?? "
            "blunder (0.50, 1.00, 3.00 Pyramids or more lost; scores for the "
            "mover)");
}

TEST(AnalysisCommentTest, CommentsReadBackFromARecord) {
  const Game game = ShortLostGame();
  const std::vector<PlyAnalysis> plies = AnalyzeGame(game, DepthSearch(3));
  GameComments comments(game.ply() + 1);
  comments[0].push_back(AnalysisHeading(50));
  Game replay(game.start());
  for (const PlyAnalysis& p : plies) {
    const std::string c = AnalysisComment(
        p.judgement, p.played_score,
        p.best == p.played ? "" : FormatMove(replay.position(), p.best),
        p.best_score);
    if (!c.empty()) comments[p.ply].push_back(c);
    ASSERT_TRUE(replay.Play(p.played).ok());
  }
  const std::string text = FormatGameRecord(game, {}, comments);
  absl::StatusOr<GameRecord> read = ParseGameRecord(text);
  ASSERT_TRUE(read.ok()) << read.status() << "\n" << text;
  EXPECT_EQ(read->comments, comments) << text;
  EXPECT_EQ(FormatGameRecord(*read), text);
}

}  // namespace
}  // namespace khet
