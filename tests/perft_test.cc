// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Frozen perft counts of the named setups.
//
// These numbers were frozen after the engine agreed with the reference
// implementation (tests/reference/, written from the rules text alone) over
// 10,000 random games and on perft (reference_agreement_test); the reference
// gave the same counts at every depth here, depth 4 included.
// A change to any of them is a change of the rules as implemented: say why
// in the commit that makes it.
//
// Perft counts the leaf positions after exactly `depth` moves; a move that
// hits a Pharaoh ends the game, so its position is a leaf at the last ply and
// has no children before it.
//
// The counts with the rule option physical_facings (kFrozenPhysical: every
// quarter turn of a Pharaoh, Scarab or Eye a move of its own) were frozen
// the same way: reference_agreement_test's PhysicalFacingsGamesTest (2,800
// random games) and PhysicalFacingsPerftAgreement* (depths 1-3 of every
// setup, depth 4 of these three) passed first. The depth-4 suite, PerftSlow,
// carries the ctest label `slow` (leave it out with `ctest -LE slow`).
#include "engine/perft.h"

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

struct FrozenPerft {
  const char* setup;
  uint64_t nodes[5];  // by depth; nodes[0] is depth 0
};

const FrozenPerft kFrozen[] = {
    {"classic-2", {1, 77, 5920, 451859, 34065081}},
    {"imhotep-2", {1, 73, 5343, 387073, 27828428}},
    {"dynasty-2", {1, 70, 4854, 334850, 23091809}},
    {"classic-1", {1, 79, 6228, 489517, 38429531}},
    {"classic-2b", {1, 77, 5920, 434749, 31764674}},
    {"osiris", {1, 71, 5055, 360397, 25467818}},
    {"isis", {1, 72, 5190, 373680, 26523936}},
    {"dynasty-1b", {1, 70, 4849, 333721, 23063372}},
};

// Each setup with physical facings: one more move per Pharaoh, Scarab and
// Eye at depth 1 (a Scarab's or Eye's anticlockwise turn, a Pharaoh's two).
const FrozenPerft kFrozenPhysical[] = {
    {"classic-2", {1, 81, 6552, 526446, 41799614}},
    {"classic-1", {1, 83, 6876, 568010, 46865771}},
    {"osiris", {1, 76, 5790, 441113, 33318041}},
};

// For gtest's messages: the setup's id, not the struct's bytes.
void PrintTo(const FrozenPerft& frozen, std::ostream* os) {
  *os << frozen.setup;
}

std::string TestName(const testing::TestParamInfo<FrozenPerft>& info) {
  std::string name = info.param.setup;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

class PerftTest : public testing::TestWithParam<FrozenPerft> {};

TEST_P(PerftTest, DepthsZeroToThree) {
  const absl::StatusOr<Position> start = SetupPosition(GetParam().setup);
  ASSERT_TRUE(start.ok()) << start.status();
  for (int depth = 0; depth <= 3; ++depth) {
    EXPECT_EQ(Perft(*start, depth), GetParam().nodes[depth])
        << GetParam().setup << " depth " << depth;
  }
  // Bulk counting at the last ply changes nothing.
  EXPECT_EQ(Perft(*start, 2, /*bulk_count=*/false), GetParam().nodes[2]);
  // The divided counts add up.
  uint64_t total = 0;
  for (const auto& [move, count] : PerftDivide(*start, 3)) total += count;
  EXPECT_EQ(total, GetParam().nodes[3]);
}

INSTANTIATE_TEST_SUITE_P(Setups, PerftTest, testing::ValuesIn(kFrozen),
                         TestName);

class PerftSlow : public testing::TestWithParam<FrozenPerft> {};

TEST_P(PerftSlow, DepthFour) {
  const absl::StatusOr<Position> start = SetupPosition(GetParam().setup);
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(Perft(*start, 4), GetParam().nodes[4]) << GetParam().setup;
}

INSTANTIATE_TEST_SUITE_P(Setups, PerftSlow, testing::ValuesIn(kFrozen),
                         TestName);

absl::StatusOr<Position> PhysicalStart(const char* setup) {
  absl::StatusOr<Position> start = SetupPosition(setup);
  if (start.ok()) start->SetPhysicalFacings(true);
  return start;
}

class PhysicalFacingsPerftTest : public testing::TestWithParam<FrozenPerft> {};

TEST_P(PhysicalFacingsPerftTest, DepthsZeroToThree) {
  const absl::StatusOr<Position> start = PhysicalStart(GetParam().setup);
  ASSERT_TRUE(start.ok()) << start.status();
  for (int depth = 0; depth <= 3; ++depth) {
    EXPECT_EQ(Perft(*start, depth), GetParam().nodes[depth])
        << GetParam().setup << " depth " << depth;
  }
  EXPECT_EQ(Perft(*start, 2, /*bulk_count=*/false), GetParam().nodes[2]);
}

INSTANTIATE_TEST_SUITE_P(Setups, PhysicalFacingsPerftTest,
                         testing::ValuesIn(kFrozenPhysical), TestName);

class PhysicalFacingsPerftSlow : public testing::TestWithParam<FrozenPerft> {};

TEST_P(PhysicalFacingsPerftSlow, DepthFour) {
  const absl::StatusOr<Position> start = PhysicalStart(GetParam().setup);
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(Perft(*start, 4), GetParam().nodes[4]) << GetParam().setup;
}

INSTANTIATE_TEST_SUITE_P(Setups, PhysicalFacingsPerftSlow,
                         testing::ValuesIn(kFrozenPhysical), TestName);

}  // namespace
}  // namespace khet
