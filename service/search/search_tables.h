// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The transposition tables of the service's searches (SuggestMove and the
// computer seats), kept and reused: making and zeroing a 32 MiB table took
// longer than a short search itself. A search takes an idle table, or makes
// one while fewer than `max_kept` exist; past that it searches with a table
// of its own that is freed after it (the engine's default, sized by the
// limits). So the tables kept hold at most max_kept * SearchTable::kBytes
// (32 MiB each), made when first needed and freed with the pool.
#ifndef KHET_SERVICE_SEARCH_SEARCH_TABLES_H_
#define KHET_SERVICE_SEARCH_SEARCH_TABLES_H_

#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "engine/search.h"
#include "service/base/mutex.h"
#include "service/search/computer_players.h"

namespace khet {

class SearchTables {
 public:
  // A table to one search alone; back in the pool when the lease ends.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    // Null when the pool had none to lend: the search makes its own.
    SearchTable* table() const { return table_.get(); }

   private:
    friend class SearchTables;
    Lease(SearchTables* pool, std::unique_ptr<SearchTable> table);
    SearchTables* pool_;
    std::unique_ptr<SearchTable> table_;
  };

  // REQUIRES: max_kept >= 0.
  explicit SearchTables(int max_kept);
  SearchTables(const SearchTables&) = delete;
  SearchTables& operator=(const SearchTables&) = delete;

  // An idle table, else a new one (zeroed here, on the caller's time) while
  // fewer than max_kept exist, else none. REQUIRES: the pool outlives the
  // lease.
  Lease Take();

  int made();  // tables made so far: at most max_kept
  int idle();  // of those, the ones not lent

 private:
  void Return(std::unique_ptr<SearchTable> table);

  const int max_kept_;
  Mutex mu_;
  int made_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::unique_ptr<SearchTable>> idle_ ABSL_GUARDED_BY(mu_);
};

// khet::Search, each search with a table from `tables`. The search's time
// starts before it takes the table, unless limits.started is set already.
SearchFunction PooledSearch(std::shared_ptr<SearchTables> tables);

// `search`, or if it is empty PooledSearch over a pool of its own keeping
// at most `kept_tables` tables.
SearchFunction SearchOrDefault(SearchFunction search, int kept_tables);

}  // namespace khet

#endif  // KHET_SERVICE_SEARCH_SEARCH_TABLES_H_
