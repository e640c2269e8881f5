// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/game_analysis.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace khet {
namespace {

bool IsWin(int score) { return score >= kMateThreshold; }
bool IsLoss(int score) { return score <= -kMateThreshold; }

// The mover's score of a move that ended the game.
int EndScore(const GameResult& result, Color mover) {
  const Outcome mover_wins =
      mover == Color::kSilver ? Outcome::kSilverWins : Outcome::kRedWins;
  if (result.outcome == Outcome::kDraw) return 0;
  return result.outcome == mover_wins ? kMateScore - 1 : -(kMateScore - 1);
}

}  // namespace

std::string_view JudgementName(Judgement j) {
  switch (j) {
    case Judgement::kGood:
      return "good";
    case Judgement::kInaccuracy:
      return "inaccuracy";
    case Judgement::kMistake:
      return "mistake";
    case Judgement::kBlunder:
      return "blunder";
  }
  return "good";
}

std::string_view JudgementMark(Judgement j) {
  switch (j) {
    case Judgement::kGood:
      return "";
    case Judgement::kInaccuracy:
      return "?!";
    case Judgement::kMistake:
      return "?";
    case Judgement::kBlunder:
      return "??";
  }
  return "";
}

Judgement Judge(int best_score, int played_score) {
  if (IsLoss(played_score)) {
    return IsLoss(best_score) ? Judgement::kGood : Judgement::kBlunder;
  }
  if (IsWin(best_score)) {
    return IsWin(played_score) ? Judgement::kGood : Judgement::kMistake;
  }
  const int loss = best_score - played_score;
  if (loss >= kBlunderLoss) return Judgement::kBlunder;
  if (loss >= kMistakeLoss) return Judgement::kMistake;
  if (loss >= kInaccuracyLoss) return Judgement::kInaccuracy;
  return Judgement::kGood;
}

std::vector<PlyAnalysis> AnalyzeGame(
    const Game& game, const PositionSearch& search,
    const std::function<void(const PlyAnalysis&)>& on_ply,
    const std::atomic<bool>* stop) {
  auto stopped = [stop] {
    return stop != nullptr && stop->load(std::memory_order_relaxed);
  };
  std::vector<PlyAnalysis> out;
  const int plies = static_cast<int>(game.moves().size());
  if (plies == 0) return out;
  out.reserve(plies);

  Game replay(game.start(), game.options());
  SearchStyle style;
  style.both_pharaohs_hit_draws = game.options().both_pharaohs_hit_draws;
  SearchResult before = search(replay.position(), style);
  for (int i = 0; i < plies && !stopped(); ++i) {
    const Position position = replay.position();
    const Move played = game.moves()[i];
    style.history.push_back(position.hash());
    absl::StatusOr<MoveEffects> effects = replay.Play(played);
    if (!effects.ok()) break;  // a game's own moves always play

    PlyAnalysis ply;
    ply.ply = i + 1;
    ply.mover = position.side_to_move();
    ply.played = played;
    SearchResult after;
    if (replay.over()) {
      ply.played_score = EndScore(replay.result(), ply.mover);
    } else {
      after = search(replay.position(), style);
      ply.played_score = -after.score;
    }
    if (stopped()) break;
    if (before.best_move == played || before.best_move.is_null() ||
        ply.played_score >= before.score) {
      ply.best = played;
      ply.best_score = ply.played_score;
    } else {
      ply.best = before.best_move;
      ply.best_score = before.score;
    }
    ply.judgement = Judge(ply.best_score, ply.played_score);
    out.push_back(ply);
    if (on_ply) on_ply(ply);
    before = std::move(after);
  }
  return out;
}

std::string ScoreText(int score) {
  if (IsWin(score)) return absl::StrCat("wins in ", kMateScore - score);
  if (IsLoss(score)) return absl::StrCat("loses in ", kMateScore + score);
  if (score == 0) return "0.00";
  return absl::StrFormat("%+.2f", score / 100.0);
}

std::string AnalysisComment(Judgement judgement, int played_score,
                            std::string_view better_move, int best_score) {
  if (judgement == Judgement::kGood) return "";
  std::string out = absl::StrCat(std::string(JudgementMark(judgement)), " ",
                                 std::string(JudgementName(judgement)), ": ",
                                 ScoreText(played_score));
  if (!better_move.empty()) {
    absl::StrAppend(&out, "; better ", std::string(better_move), ", ",
                    ScoreText(best_score));
  }
  return out;
}

std::string AnalysisHeading(int ms_per_ply) {
  return absl::StrFormat(
      "computer analysis, %d ms a ply: ?! inaccuracy, ? mistake, ?? blunder "
      "(%.2f, %.2f, %.2f Pyramids or more lost; scores for the mover)",
      ms_per_ply, kInaccuracyLoss / 100.0, kMistakeLoss / 100.0,
      kBlunderLoss / 100.0);
}

}  // namespace khet
