// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Golden beam traces: both lasers of every setup's start, and of the
// positions along one fixed random game per setup, as readable text in
// tests/golden/traces.txt, so a change in tracing reads like a diff.
// Regenerate after a deliberate change with KHET_UPDATE_GOLDEN=1 and say
// why in the commit.
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/setups.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

constexpr char kGoldenPath[] = KHET_SOURCE_DIR "/tests/golden/traces.txt";
constexpr int kPliesPerSetup = 12;

void AppendTraces(const Position& pos, std::string* out) {
  *out += FormatPosition(pos) + "\n";
  for (Color c : {Color::kSilver, Color::kRed}) {
    *out += FormatTrace(TraceLaser(pos, c));
  }
}

std::string CurrentTraces() {
  std::string out;
  std::mt19937 rng(2026);
  for (const SetupInfo& info : AllSetups()) {
    out += "== " + std::string(info.id) + "\n";
    Position pos = *SetupPosition(info.id);
    AppendTraces(pos, &out);
    for (int ply = 0; ply < kPliesPerSetup; ++ply) {
      MoveList moves;
      GenerateMoves(pos, &moves);
      const Move m = moves.moves[rng() % moves.size];
      out += "-- after " + FormatMove(pos, m) + "\n";
      if (MakeMove(&pos, m) != 0) break;
      AppendTraces(pos, &out);
    }
  }
  return out;
}

TEST(GoldenTraceTest, TracesMatchTheGoldenFile) {
  const std::string current = CurrentTraces();
  if (std::getenv("KHET_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kGoldenPath) << current;
    GTEST_SKIP() << "rewrote " << kGoldenPath;
  }
  std::ifstream in(kGoldenPath);
  ASSERT_TRUE(in.good()) << "missing " << kGoldenPath;
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(current, golden.str());
}

}  // namespace
}  // namespace khet
