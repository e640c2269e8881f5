// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/compact_moves.h"

#include <vector>

#include "absl/status/statusor.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/position.h"

namespace khet {

std::string CompactMoveList(absl::string_view position) {
  const absl::StatusOr<Position> pos =
      ParsePosition(std::string_view(position.data(), position.size()));
  if (!pos.ok()) return "";
  MoveList moves;
  GenerateMoves(*pos, &moves);
  // Each piece's moves, in the order its first move came.
  std::vector<Square> froms;
  std::vector<std::string> entries;
  for (const Move move : moves) {
    const std::string text = FormatMove(*pos, move);  // "e4-e5", "e4R"
    size_t i = 0;
    while (i < froms.size() && froms[i] != move.from()) ++i;
    if (i == froms.size()) {
      froms.push_back(move.from());
      entries.push_back(text.substr(0, 2));
    }
    entries[i] += text.substr(2);
  }
  std::string out;
  for (const std::string& entry : entries) {
    if (!out.empty()) out += ' ';
    out += entry;
  }
  return out;
}

}  // namespace khet
