// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The computer opponent: iterative-deepening alpha-beta over copy-make
// positions with a transposition table, move ordering and a quiescence step
// for laser captures, and an evaluation that knows Khet (engine/evaluate.h).
//
// How it searches (engine/search.cc and the search_*.cc files beside it):
//   - Negamax alpha-beta with principal variation search, iterative
//     deepening from depth 1, mate-distance pruning and a repetition check
//     (a position seen before on the path or in SearchStyle::history scores
//     as a draw).
//   - A transposition table keyed by Position::hash(): a fixed array of
//     two-entry buckets (key, move, score, depth, bound), one entry kept by
//     depth, the other always replaced. Sized by the limits (a quarter of
//     max_nodes, or by max_depth), at most 32 MiB. Every search starts with
//     an empty table, so searches do not depend on each other: a new one,
//     or a SearchTable the caller keeps, emptied by a new generation.
//   - Every move that touches the mover's beam is played before the search
//     to see what its shot takes (engine/laser.h's BeamPath: other moves
//     all fire the unchanged beam). A move that hits the enemy Pharaoh wins
//     at once and ends the node; one that hits the own Pharaoh (both
//     Pharaohs: the mover loses, unless both_pharaohs_hit_draws) is never
//     searched. When the enemy beam already hits the own Pharaoh (a check),
//     only moves that change that beam are searched: the others lose.
//   - Ordering: the transposition table's move and the two killer moves of
//     the ply are tried before the other moves are even listed (a cut there
//     saves playing every move that touches the beam); then moves whose
//     shot takes more than it loses (most first), then the history
//     heuristic. Late quiet moves at depth >= 3 are searched one ply (two,
//     from the 12th move at depth >= 5) shallower first (late move
//     reductions), and again at full depth if they beat alpha.
//   - Quiescence at depth 0: a win in one (the side to move's shot can hit
//     the enemy Pharaoh) is found exactly; otherwise stand pat on the
//     evaluation, then at most 6 captures a node, 4 plies deep; a side in
//     check answers with its evasions for the first 2 of those plies.
//   - Scores are from the side to move's view, in hundredths of a Pyramid;
//     a win is kMateScore minus the plies to it, so faster wins score more.
//   - Limits: nodes are counted exactly and checked at every node; the stop
//     flag and the clock are read every 1024 nodes. The clock starts at
//     SearchLimits::started, or when Search is called, before any set-up
//     (the table, the searcher's state). Without max_time the search
//     depends on nothing but its arguments: same move, same score, same
//     node count every run, with a new table or a reused one.
#ifndef KHET_ENGINE_SEARCH_H_
#define KHET_ENGINE_SEARCH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/move.h"
#include "engine/position.h"

namespace khet {

// A won position scores kMateScore minus the plies to the win; a lost one
// the negative.
inline constexpr int kMateScore = 30000;
// Scores beyond this (in absolute value) are wins or losses.
inline constexpr int kMateThreshold = kMateScore - 200;

// Limits of one search; the search stops at whichever comes first. A zero
// field means "no limit" for that field; at least one must be set.
struct SearchLimits {
  int max_depth = 0;                               // plies of full-width search
  uint64_t max_nodes = 0;                          // positions visited
  absl::Duration max_time = absl::ZeroDuration();  // wall time
  // When max_time began to run: a caller that works before the search (a
  // thread, a table to find) sets it first so that the work counts.
  // InfinitePast: when Search is called.
  absl::Time started = absl::InfinitePast();
};

// A transposition table kept between searches, for one search at a time
// (not thread-safe: one per searching thread). Making one allocates and
// zeroes kBytes; each search that uses it starts a new generation, in which
// the entries of earlier searches count as empty, so it finds exactly what
// it would in a new table, without touching memory to clear it.
class SearchTable {
 public:
  static constexpr size_t kBytes = size_t{32} << 20;  // room for any limits

  SearchTable();
  ~SearchTable();
  SearchTable(const SearchTable&) = delete;
  SearchTable& operator=(const SearchTable&) = delete;

  struct Storage;  // engine/search_table.h's

 private:
  friend struct TableAccess;
  explicit SearchTable(size_t entries);
  std::unique_ptr<Storage> storage_;
};

// How a search plays, beyond its limits.
struct SearchStyle {
  // Centipawn-like noise added to root move scores, and the chance of
  // playing a clearly worse move, for the weaker levels; 0 = best play.
  // With noise every root move is searched with a full window, so each has
  // an exact score to add the noise to. A blunder picks a move by its own
  // shot alone (what it takes and loses, plus noise), blind to the reply:
  // it never shoots its own Pharaoh and takes a win in one, but walks into
  // the opponent's beam.
  int score_noise = 0;
  double blunder_chance = 0.0;
  // The chance that a one-move Pharaoh hit is overlooked at the root, each
  // winning move on its own: one that needs the move to change the own
  // beam (a mirror turned or moved into it, a blocker moved out of it). A
  // beam that hits the enemy Pharaoh as it lies is always fired.
  double overlook_win_chance = 0.0;
  uint64_t seed = 0;  // for the noise; fixed seeds give fixed games
  // The rule option of the game being played (RuleOptions).
  bool both_pharaohs_hit_draws = false;
  // Position::hash() of the game's earlier positions, in any order; moving
  // back into one of them scores as a draw. Empty: only repetitions within
  // the search are seen.
  std::vector<uint64_t> history;
};

struct SearchResult {
  Move best_move;  // null only if the position has no moves
  int score = 0;   // from the side to move's view
  std::vector<Move> principal_variation;  // starts with best_move
  uint64_t nodes = 0;
  int depth = 0;  // last fully searched depth
  absl::Duration elapsed;
};

// A named strength, A'NOOB'IS (1) to KHET GRANDMASTER (5). The limits of
// each level (docs/PERFORMANCE.md has the figures behind them):
//   1 A'NOOB'IS            depth 2, 20,000 nodes; noise +-60, and on 30% of
//                          its moves it looks only at its own shot, blind
//                          to the reply (it takes what is offered and
//                          walks into beams); it overlooks half of the
//                          Pharaoh hits in one that need a turn or a step
//                          in its beam: a beginner's mistakes
//   2 SCARAB'S APPRENTICE  depth 2, 50,000 nodes; noise +-15
//   3 PYRAMID SCHEMER      depth 4, 150,000 nodes
//   4 SPHINX VIZIER        300,000 nodes (five plies and part of the sixth
//                          from a setup)
//   5 KHET GRANDMASTER     1 s, and at most 4,000,000 nodes (about a
//                          second at this machine's 3-4 M nodes/s) so that
//                          it always ends; seven plies from a setup
// Levels 1 and 2 take their noise seed from SearchStyle::seed (set it per
// game for varied games).
struct Level {
  int number;
  std::string_view name;
  SearchLimits limits;
  SearchStyle style;
  std::string_view description;
};
// The five levels, weakest first.
const std::vector<Level>& AllLevels();
// INVALID_ARGUMENT for a number outside 1..5.
absl::StatusOr<Level> FindLevel(int number);

// Searches `pos` for the side to move. Deterministic for the same position,
// limits without max_time, style and seed: same move, same node count.
// Returns early, with the best move found so far, once *stop becomes true
// (stop may be null). Always returns a legal move if there is one.
// With `table` null the search makes a table of its own, sized by the
// limits; else it uses `table`, which nothing else may use meanwhile.
// REQUIRES: some limit is set (without any, the search stops at depth 4).
SearchResult Search(const Position& pos, const SearchLimits& limits,
                    const SearchStyle& style = {},
                    const std::atomic<bool>* stop = nullptr,
                    SearchTable* table = nullptr);

// The static evaluation from the side to move's view.
int Evaluate(const Position& pos);

}  // namespace khet

#endif  // KHET_ENGINE_SEARCH_H_
