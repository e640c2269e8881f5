// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Test cases for the compact view's size bound, shared by the compact view's
// and the gateway's tests: the longest names and boards crowded with Eyes of
// Horus whose lasers split into hundreds of beams.
#ifndef KHET_SERVICE_HTTP_COMPACT_SIZE_CASES_H_
#define KHET_SERVICE_HTTP_COMPACT_SIZE_CASES_H_

#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/laser.h"
#include "engine/notation.h"

namespace khet {

// Khet 2.0 positions with Eyes of Horus whose Silver laser is as long as
// a hill climb from random boards finds: the longest paths, the most
// splits. Each square is a token of the notation or "".
class LongLaserSearch {
 public:
  explicit LongLaserSearch(uint32_t seed) : random_(seed) {}

  // The best position after `steps` changes of one square each.
  std::string Climb(int steps) {
    std::vector<std::string> squares(80);
    squares[9] = "Xn";
    squares[70] = "xs";
    squares[4] = "K";
    squares[75] = "k";
    std::string best = Text(squares);
    size_t best_length = LaserLength(best);
    for (int i = 0; i < steps; ++i) {
      const int square = Pick(80);
      if (square == 9 || square == 70 || square == 4 || square == 75) continue;
      std::vector<std::string> changed = squares;
      changed[square] = RandomToken();
      const std::string text = Text(changed);
      const size_t length = LaserLength(text);
      if (length >= best_length) {
        squares = std::move(changed);
        best = text;
        best_length = length;
      }
    }
    return best;
  }

  // How long Silver's path is (its segments and beams), 0 for an invalid
  // text.
  static size_t LaserLength(const std::string& text) {
    absl::StatusOr<Position> pos = ParsePosition(text);
    if (!pos.ok()) return 0;
    const BeamTrace trace = TraceLaser(*pos, Color::kSilver);
    return trace.segments.size() + trace.beams.size();
  }

 private:
  int Pick(int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(random_);
  }

  std::string RandomToken() {
    static const char* const kTokens[] = {
        "",    "",    "",   "Pne", "Pse", "Psw", "Pnw", "pne", "pse",
        "psw", "pnw", "S/", "S\\", "s/",  "s\\", "E/",  "E\\", "e/",
        "e\\", "An",  "Ae", "As",  "Aw",  "an",  "ae",  "as",  "aw"};
    return kTokens[Pick(static_cast<int>(std::size(kTokens)))];
  }

  static std::string Text(const std::vector<std::string>& squares) {
    std::string text;
    for (int rank = 7; rank >= 0; --rank) {
      int empty = 0;
      for (int file = 0; file < 10; ++file) {
        const std::string& token = squares[rank * 10 + file];
        if (token.empty()) {
          ++empty;
          continue;
        }
        if (empty > 0) text += std::to_string(empty);
        empty = 0;
        text += token;
      }
      if (empty > 0) text += std::to_string(empty);
      if (rank > 0) text += '/';
    }
    return text + " s 2";
  }

  std::mt19937 random_;
};

// Two max-length names of 4-byte characters and quotes: the most bytes a
// name can take in JSON.
inline std::string LongName(const std::string& unit) {
  std::string name;
  for (int i = 0; i < 32; ++i) name += unit;
  return name;
}

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_COMPACT_SIZE_CASES_H_
