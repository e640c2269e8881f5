// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// SearchTable (search.h) and the sizing of a search's transposition table
// (search_table.h): a table of its own gets as many entries as the limits
// can fill, a kept SearchTable is used up to the same number.
#include "engine/search_table.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/time/time.h"
#include "engine/search.h"

namespace khet {

SearchTable::SearchTable()
    : SearchTable(size_t{1} << search_internal::kMostTableBits) {}
SearchTable::SearchTable(size_t entries)
    : storage_(std::make_unique<Storage>(entries)) {}
SearchTable::~SearchTable() = default;

namespace search_internal {

size_t TableEntries(const SearchLimits& limits) {
  int bits = kMostTableBits;
  if (limits.max_time == absl::ZeroDuration()) {
    if (limits.max_depth > 0) bits = std::min(bits, 8 + 2 * limits.max_depth);
    if (limits.max_nodes > 0) {
      int node_bits = 10;
      while (node_bits < kMostTableBits &&
             (uint64_t{1} << node_bits) < limits.max_nodes / 4) {
        ++node_bits;
      }
      bits = std::min(bits, node_bits);
    }
  }
  return size_t{1} << std::max(bits, 10);
}

}  // namespace search_internal
}  // namespace khet
