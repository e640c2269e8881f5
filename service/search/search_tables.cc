// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/search/search_tables.h"

#include <utility>

namespace khet {

SearchTables::Lease::Lease(SearchTables* pool,
                           std::unique_ptr<SearchTable> table)
    : pool_(pool), table_(std::move(table)) {}

SearchTables::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), table_(std::move(other.table_)) {}

SearchTables::Lease::~Lease() {
  if (table_ != nullptr) pool_->Return(std::move(table_));
}

SearchTables::SearchTables(int max_kept) : max_kept_(max_kept) {}

SearchTables::Lease SearchTables::Take() {
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      std::unique_ptr<SearchTable> table = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(table));
    }
    if (made_ >= max_kept_) return Lease(this, nullptr);
    ++made_;
  }
  return Lease(this, std::make_unique<SearchTable>());  // zeroed unlocked
}

void SearchTables::Return(std::unique_ptr<SearchTable> table) {
  MutexLock lock(&mu_);
  idle_.push_back(std::move(table));
}

int SearchTables::made() {
  MutexLock lock(&mu_);
  return made_;
}

int SearchTables::idle() {
  MutexLock lock(&mu_);
  return static_cast<int>(idle_.size());
}

SearchFunction PooledSearch(std::shared_ptr<SearchTables> tables) {
  return [tables = std::move(tables)](
             const Position& pos, const SearchLimits& limits,
             const SearchStyle& style, const std::atomic<bool>* stop) {
    SearchLimits timed = limits;
    // Taking (or making) the table counts against the search's time.
    if (timed.started == absl::InfinitePast()) timed.started = absl::Now();
    const SearchTables::Lease lease = tables->Take();
    return Search(pos, timed, style, stop, lease.table());
  };
}

SearchFunction SearchOrDefault(SearchFunction search, int kept_tables) {
  if (search) return search;
  return PooledSearch(std::make_shared<SearchTables>(kept_tables));
}

}  // namespace khet
