// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Perft: the number of leaf positions after exactly `depth` moves, counting
// the distinct moves of GenerateMoves. A position whose Pharaoh was hit has
// no children; repetitions are ignored.
#ifndef KHET_ENGINE_PERFT_H_
#define KHET_ENGINE_PERFT_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/move.h"
#include "engine/position.h"

namespace khet {

// With bulk_count, the last ply is counted from CountMoves instead of playing
// each move; the result is the same.
uint64_t Perft(const Position& pos, int depth, bool bulk_count = true);

// Perft of each root move's child, in GenerateMoves order. REQUIRES: depth>=1.
std::vector<std::pair<Move, uint64_t>> PerftDivide(const Position& pos,
                                                   int depth);

}  // namespace khet

#endif  // KHET_ENGINE_PERFT_H_
