// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What the engine's tests share: squares by name, positions from a setup
// or from text (a failure reported to the test, an empty position
// returned), and the message of an INVALID_ARGUMENT. Tests only.
#ifndef KHET_ENGINE_TEST_POSITIONS_H_
#define KHET_ENGINE_TEST_POSITIONS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/notation.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/types.h"
#include "gtest/gtest.h"

namespace khet::testing_positions {

// "e4" as a Square. REQUIRES: a file a..j and a rank 1..8.
constexpr Square Sq(std::string_view name) {
  return MakeSquare(name[0] - 'a', name[1] - '1');
}

inline Position Start(std::string_view setup_id) {
  absl::StatusOr<Position> pos = SetupPosition(setup_id);
  EXPECT_TRUE(pos.ok()) << pos.status();
  return pos.ok() ? *pos : Position();
}

inline Position Parsed(std::string_view text) {
  absl::StatusOr<Position> pos = ParsePosition(text);
  EXPECT_TRUE(pos.ok()) << text << ": " << pos.status();
  return pos.ok() ? *pos : Position();
}

// "OK", or the message of the INVALID_ARGUMENT `result` holds.
template <typename T>
std::string ErrorOf(const absl::StatusOr<T>& result) {
  if (result.ok()) return "OK";
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument)
      << result.status();
  return std::string(result.status().message());
}

}  // namespace khet::testing_positions

#endif  // KHET_ENGINE_TEST_POSITIONS_H_
