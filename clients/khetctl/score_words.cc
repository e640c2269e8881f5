// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A search's score in words: who is ahead and by about how much, or who
// wins and in how many of their own moves.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/khetctl/khetctl.h"
#include "engine/search.h"

namespace khet::ctl {

std::string ScoreInWords(int score, v1::Color side_to_move) {
  const std::string mover = SideName(side_to_move);
  const std::string other = SideName(OtherColor(side_to_move));
  auto moves = [](int n) {
    return absl::StrCat(n, n == 1 ? " move" : " moves");
  };
  if (score > kMateThreshold) {
    const int plies = kMateScore - score;
    if (plies <= 1) return absl::StrCat(mover, " wins with this move");
    return absl::StrCat(mover, " wins in ", moves((plies + 1) / 2));
  }
  if (score < -kMateThreshold) {
    const int plies = kMateScore + score;
    return absl::StrCat(other, " wins in ", moves(std::max(plies / 2, 1)),
                        ", whatever ", mover, " plays");
  }
  const std::string number = absl::StrFormat("%+.2f", score / 100.0);
  const int size = std::abs(score);
  const std::string ahead = score > 0 ? mover : other;
  if (size < 25) return absl::StrCat(number, " (about even)");
  if (size < 75) return absl::StrCat(number, " (", ahead, " slightly ahead)");
  if (size < 150) {
    return absl::StrCat(number, " (", ahead, " ahead by about a Pyramid)");
  }
  return absl::StrCat(number, " (", ahead, " ahead by about ",
                      std::lround(size / 100.0), " Pyramids)");
}

}  // namespace khet::ctl
