// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The named strengths of search.h (AllLevels, FindLevel): the limits and
// style of each level. docs/PERFORMANCE.md has the figures behind them.
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "engine/search.h"

namespace khet {

const std::vector<Level>& AllLevels() {
  static const std::vector<Level>* const kLevels = [] {
    auto* levels = new std::vector<Level>;
    Level l1{1, "A'NOOB'IS", {}, {}, ""};
    l1.limits.max_depth = 2;
    l1.limits.max_nodes = 20000;
    l1.style.score_noise = 60;
    l1.style.blunder_chance = 0.30;
    l1.style.overlook_win_chance = 0.5;
    l1.description =
        "A beginner: looks two plies ahead with a lot of noise, on about a "
        "third of its moves sees only its own shot and forgets your laser, "
        "and misses half of the Pharaoh hits that need a turn or a step.";
    Level l2{2, "SCARAB'S APPRENTICE", {}, {}, ""};
    l2.limits.max_depth = 2;
    l2.limits.max_nodes = 50000;
    l2.style.score_noise = 15;
    l2.description =
        "Sees every shot of its move and your answer to it, and takes what "
        "you leave in its beam; a little noise.";
    Level l3{3, "PYRAMID SCHEMER", {}, {}, ""};
    l3.limits.max_depth = 4;
    l3.limits.max_nodes = 150000;
    l3.description = "Four plies ahead: sets up its own mirrors for a kill.";
    Level l4{4, "SPHINX VIZIER", {}, {}, ""};
    l4.limits.max_nodes = 300000;
    l4.description =
        "Deep and careful: 300,000 positions a move, five or six plies.";
    Level l5{5, "KHET GRANDMASTER", {}, {}, ""};
    l5.limits.max_time = absl::Seconds(1);
    l5.limits.max_nodes = 4000000;
    l5.description =
        "The engine at its best: a second a move, as deep as it gets.";
    levels->push_back(l1);
    levels->push_back(l2);
    levels->push_back(l3);
    levels->push_back(l4);
    levels->push_back(l5);
    return levels;
  }();
  return *kLevels;
}

absl::StatusOr<Level> FindLevel(int number) {
  for (const Level& level : AllLevels()) {
    if (level.number == number) return level;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("level ", number, ": levels are 1 to 5"));
}

}  // namespace khet
