// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/random_opening.h"

#include <cstdint>
#include <vector>

#include "engine/bitboard.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/play.h"

namespace khet {

uint64_t Mix(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ULL + b + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<Move> RandomOpening(const Position& start, int plies,
                                uint64_t seed) {
  std::vector<Move> opening;
  Position pos = start;
  for (int ply = 0; ply < plies; ++ply) {
    MoveList moves;
    GenerateMoves(pos, &moves);
    std::vector<Move> quiet;
    const Color us = pos.side_to_move();
    const int pieces = PopCount(pos.occupied());
    for (const Move m : moves) {
      Position child = pos;
      if (MakeMove(&child, m) != 0 || PopCount(child.occupied()) != pieces) {
        continue;
      }
      if ((LaserHits(child, Opponent(us)) & child.occupied()) != 0) continue;
      quiet.push_back(m);
    }
    if (quiet.empty()) break;
    const Move m = quiet[Mix(seed, ply) % quiet.size()];
    MakeMove(&pos, m);
    opening.push_back(m);
  }
  return opening;
}

}  // namespace khet
