// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The computer's analysis of a game: every ply scored by the search, the
// move played against the search's best, and a judgement of how much it
// gave away. docs/notation.md ("Computer analysis") states the thresholds
// and the record comments; this header is the contract.
//
// How a ply is scored: the position before it is searched for the mover
// (the best move and its score), and the position after it for the
// opponent (the played move's score is the negative of the opponent's best;
// a move that ends the game scores the end itself: a win in one ply, the
// loss, or 0 for a draw). So a game of n plies takes n + 1 searches, each
// position searched once. Both scores are from the mover's view; the best
// score is never below the played one (a deeper look at the played move
// may find it better than the first search thought; it was then the best).
#ifndef KHET_ENGINE_GAME_ANALYSIS_H_
#define KHET_ENGINE_GAME_ANALYSIS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/game.h"
#include "engine/move.h"
#include "engine/position.h"
#include "engine/search.h"

namespace khet {

enum class Judgement : uint8_t { kGood, kInaccuracy, kMistake, kBlunder };

// "good", "inaccuracy", "mistake", "blunder".
std::string_view JudgementName(Judgement j);
// The record's mark: "", "?!", "?", "??".
std::string_view JudgementMark(Judgement j);

// A move that loses this much against the best (in the search's units,
// hundredths of a Pyramid) is at least an inaccuracy, a mistake, a blunder.
inline constexpr int kInaccuracyLoss = 50;
inline constexpr int kMistakeLoss = 100;
inline constexpr int kBlunderLoss = 300;

// The judgement of a move scored `played_score` where the best scored
// `best_score` (both from the mover's view; REQUIRES best >= played):
//   - a move into a forced loss from a position that was not lost is a
//     blunder; one that lets a forced win go (and does not lose) a mistake;
//   - between two wins, or two losses, a move is good;
//   - otherwise by the loss best - played and the thresholds above.
Judgement Judge(int best_score, int played_score);

struct PlyAnalysis {
  int ply = 0;  // from 1
  Color mover = Color::kSilver;
  Move played;
  Move best;  // the search's choice; equal to `played` when it was as good
  int best_score = 0;
  int played_score = 0;
  Judgement judgement = Judgement::kGood;

  int loss() const { return best_score - played_score; }
};

// Searches one position of the game for its side to move. `style` holds
// the game's rule option and the positions before this one (a return to
// one of them scores as a draw); the function adds its own limits.
using PositionSearch =
    std::function<SearchResult(const Position&, const SearchStyle&)>;

// Scores every ply of `game` in order, calling `on_ply` (may be empty) as
// each is done. Stops early, returning the plies done, once *stop is true
// (stop may be null).
std::vector<PlyAnalysis> AnalyzeGame(
    const Game& game, const PositionSearch& search,
    const std::function<void(const PlyAnalysis&)>& on_ply = {},
    const std::atomic<bool>* stop = nullptr);

// A score in words, from the mover's view: "+1.25" or "-0.50" Pyramids,
// "0.00"; a win or loss the search sees as "wins in 3" or "loses in 1"
// (plies).
std::string ScoreText(int score);

// The record's comment on a move judged worse than good, e.g.
// "?? blunder: loses in 1; better e5-e6, +0.40", from its judgement, the
// played move's score, the better move in notation ("" when the played
// move was the best) and its score; "" for a good move.
std::string AnalysisComment(Judgement judgement, int played_score,
                            std::string_view better_move, int best_score);

// The record's opening comment of an analysis searched `ms_per_ply` a ply:
// the marks and the thresholds.
std::string AnalysisHeading(int ms_per_ply);

}  // namespace khet

#endif  // KHET_ENGINE_GAME_ANALYSIS_H_
