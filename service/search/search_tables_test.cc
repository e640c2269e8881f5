// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/search/search_tables.h"

#include <memory>
#include <utility>
#include <vector>

#include "engine/setups.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

TEST(SearchTablesTest, LendsKeptTablesAndMakesNoMoreThanMaxKept) {
  SearchTables tables(2);
  SearchTable* first = nullptr;
  {
    const SearchTables::Lease a = tables.Take();
    const SearchTables::Lease b = tables.Take();
    const SearchTables::Lease c = tables.Take();  // beyond max_kept
    ASSERT_NE(a.table(), nullptr);
    ASSERT_NE(b.table(), nullptr);
    EXPECT_NE(a.table(), b.table());
    EXPECT_EQ(c.table(), nullptr);
    EXPECT_EQ(tables.made(), 2);
    EXPECT_EQ(tables.idle(), 0);
    first = a.table();
  }
  EXPECT_EQ(tables.idle(), 2);
  std::vector<SearchTables::Lease> again;
  again.push_back(tables.Take());
  again.push_back(tables.Take());
  EXPECT_TRUE(again[0].table() == first || again[1].table() == first);
  EXPECT_EQ(tables.made(), 2);
}

TEST(SearchTablesTest, NoneKeptMeansEverySearchMakesItsOwn) {
  SearchTables tables(0);
  EXPECT_EQ(tables.Take().table(), nullptr);
  EXPECT_EQ(tables.made(), 0);
}

TEST(SearchTablesTest, PooledSearchFindsWhatAFreshTableFinds) {
  auto tables = std::make_shared<SearchTables>(1);
  const SearchFunction search = PooledSearch(tables);
  SearchLimits limits;
  limits.max_nodes = 40000;
  for (const char* id : {"classic-2", "dynasty-1", "classic-2"}) {
    const Position pos = *SetupPosition(id);
    const SearchResult fresh = Search(pos, limits);
    const SearchResult pooled = search(pos, limits, {}, nullptr);
    EXPECT_EQ(pooled.best_move, fresh.best_move) << id;
    EXPECT_EQ(pooled.nodes, fresh.nodes) << id;
    EXPECT_EQ(pooled.score, fresh.score) << id;
    EXPECT_EQ(pooled.principal_variation, fresh.principal_variation) << id;
  }
  EXPECT_EQ(tables->made(), 1);
  EXPECT_EQ(tables->idle(), 1);
}

TEST(SearchTablesTest, SearchOrDefaultKeepsAGivenFunction) {
  int calls = 0;
  const SearchFunction mine = [&calls](const Position&, const SearchLimits&,
                                       const SearchStyle&,
                                       const std::atomic<bool>*) {
    ++calls;
    return SearchResult{};
  };
  SearchOrDefault(mine, 1)(Position(), SearchLimits{}, {}, nullptr);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace khet
