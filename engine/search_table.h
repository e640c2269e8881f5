// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The search's transposition table: SearchTable's storage (search.h) and
// one search's view of it. Internal to the search*.cc files.
//
// Contract: a fixed array of two-entry buckets keyed by Position::hash(),
// the first entry kept by depth, the second always replaced. Each search
// starts a new generation of the storage, in which entries of earlier
// generations count as empty, so a reused table finds exactly what a new
// one would. Mate scores are stored relative to the node (ToTable) and read
// back relative to the root (FromTable).
#ifndef KHET_ENGINE_SEARCH_TABLE_H_
#define KHET_ENGINE_SEARCH_TABLE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/move.h"
#include "engine/search.h"

namespace khet {
namespace search_internal {

// Mate scores are stored relative to the node, read back relative to root.
inline int ToTable(int score, int ply) {
  if (score >= kMateThreshold) return score + ply;
  if (score <= -kMateThreshold) return score - ply;
  return score;
}
inline int FromTable(int score, int ply) {
  if (score >= kMateThreshold) return score - ply;
  if (score <= -kMateThreshold) return score + ply;
  return score;
}

enum Bound : uint8_t { kNoBound = 0, kUpper = 1, kLower = 2, kExact = 3 };

struct TableEntry {
  uint64_t key = 0;
  uint16_t move = 0;
  int16_t score = 0;
  int8_t depth = 0;
  uint8_t bound = kNoBound;
  uint16_t generation = 0;  // of the search that stored it; 0: never used
};
static_assert(sizeof(TableEntry) == 16);

inline constexpr int kMostTableBits = 21;
static_assert(sizeof(TableEntry) << kMostTableBits == SearchTable::kBytes);

}  // namespace search_internal

struct SearchTable::Storage {
  explicit Storage(size_t size) : entries(size) {}
  std::vector<search_internal::TableEntry> entries;
  uint16_t generation = 0;  // of the last search
};

// Search's way past SearchTable's privacy: a table of a given size, and its
// storage.
struct TableAccess {
  static std::unique_ptr<SearchTable> Make(size_t entries) {
    return std::unique_ptr<SearchTable>(new SearchTable(entries));
  }
  static SearchTable::Storage& StorageOf(SearchTable& table) {
    return *table.storage_;
  }
};

namespace search_internal {

// One search's view of a SearchTable: its first `entries` entries, in
// buckets of two, the first kept by depth, the second always replaced.
// Entries of other generations count as empty.
class TranspositionTable {
 public:
  // Starts a new generation of `storage`. REQUIRES: entries is a power of
  // two >= 2, at most the storage's size.
  TranspositionTable(SearchTable::Storage& storage, size_t entries)
      : table_(storage.entries.data()), mask_((entries - 1) & ~size_t{1}) {
    if (++storage.generation == 0) {  // wrapped: old entries could look new
      std::fill(storage.entries.begin(), storage.entries.end(), TableEntry{});
      storage.generation = 1;
    }
    generation_ = storage.generation;
  }

  void Prefetch(uint64_t key) const {
    __builtin_prefetch(&table_[key & mask_]);
  }

  const TableEntry* Probe(uint64_t key) const {
    const TableEntry* bucket = &table_[key & mask_];
    if (Live(bucket[0]) && bucket[0].key == key) return &bucket[0];
    if (Live(bucket[1]) && bucket[1].key == key) return &bucket[1];
    return nullptr;
  }

  void Store(uint64_t key, Move move, int score, int depth, Bound bound) {
    TableEntry* bucket = &table_[key & mask_];
    TableEntry* e = &bucket[1];
    if (!Live(bucket[0]) || bucket[0].key == key || depth >= bucket[0].depth) {
      e = &bucket[0];
    }
    if (move.is_null() && Live(*e) && e->key == key) {
      move = Move::FromBits(e->move);
    }
    *e = {key,
          move.bits(),
          static_cast<int16_t>(score),
          static_cast<int8_t>(depth),
          bound,
          generation_};
  }

 private:
  bool Live(const TableEntry& e) const {
    return e.generation == generation_ && e.bound != kNoBound;
  }

  TableEntry* table_;
  size_t mask_;
  uint16_t generation_;
};

// Entries enough for the search the limits allow: positions of the
// full-width search are stored, about a quarter of the nodes.
size_t TableEntries(const SearchLimits& limits);

}  // namespace search_internal
}  // namespace khet

#endif  // KHET_ENGINE_SEARCH_TABLE_H_
