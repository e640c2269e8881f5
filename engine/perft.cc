// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/perft.h"

#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/play.h"

namespace khet {

uint64_t Perft(const Position& pos, int depth, bool bulk_count) {
  if (depth <= 0) return 1;
  if (bulk_count && depth == 1) return static_cast<uint64_t>(CountMoves(pos));
  MoveList moves;
  GenerateMoves(pos, &moves);
  const BeamPath beam = TraceBeamPath(pos, pos.side_to_move());
  if (depth == 1) {
    // Play every move, as a search would, and count the children.
    uint64_t leaves = 0;
    for (Move m : moves) {
      Position child = pos;
      MakeMove(&child, m, beam);
      ++leaves;
    }
    return leaves;
  }
  uint64_t leaves = 0;
  for (Move m : moves) {
    Position child = pos;
    if (MakeMove(&child, m, beam) != 0) continue;  // a Pharaoh fell
    leaves += Perft(child, depth - 1, bulk_count);
  }
  return leaves;
}

std::vector<std::pair<Move, uint64_t>> PerftDivide(const Position& pos,
                                                   int depth) {
  std::vector<std::pair<Move, uint64_t>> result;
  MoveList moves;
  GenerateMoves(pos, &moves);
  for (Move m : moves) {
    Position child = pos;
    const bool over = MakeMove(&child, m) != 0;
    result.emplace_back(m, depth == 1 ? 1 : over ? 0 : Perft(child, depth - 1));
  }
  return result;
}

}  // namespace khet
