// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Short random openings for the tools that play the engine against itself
// (khet-match, khet-convert), and the seed mixing they share.
#ifndef KHET_TOOLS_RANDOM_OPENING_H_
#define KHET_TOOLS_RANDOM_OPENING_H_

#include <cstdint>
#include <vector>

#include "engine/move.h"
#include "engine/position.h"

namespace khet {

// A well-mixed 64-bit value of a and b (splitmix64's finaliser).
uint64_t Mix(uint64_t a, uint64_t b);

// Up to `plies` random moves from `start`, the same for the same seed: each
// leaves every piece standing and nothing of the mover's in the opponent's
// beam. Shorter if no such move is left.
std::vector<Move> RandomOpening(const Position& start, int plies,
                                uint64_t seed);

}  // namespace khet

#endif  // KHET_TOOLS_RANDOM_OPENING_H_
