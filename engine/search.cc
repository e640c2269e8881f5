#include "engine/search.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "engine/bitboard.h"
#include "engine/evaluate.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/play.h"

namespace khet {
namespace {

constexpr int kInfinity = 32000;
constexpr int kMaxPly = 100;
constexpr int kDefaultDepth = 4;  // when no limit is set
constexpr int kMaxQuiescePlies = 4;
constexpr int kMaxQuiesceMoves = 6;
constexpr int kCheckEvasionPlies = 2;
constexpr uint64_t kCheckEvery = 1024;  // nodes between clock/flag reads

constexpr int Index(Color c) { return static_cast<int>(c); }
inline Bitboard Bit(Square s) { return s >= 0 ? SquareBit(s) : Bitboard{0}; }

// Mate scores are stored relative to the node, read back relative to root.
int ToTable(int score, int ply) {
  if (score >= kMateThreshold) return score + ply;
  if (score <= -kMateThreshold) return score - ply;
  return score;
}
int FromTable(int score, int ply) {
  if (score >= kMateThreshold) return score - ply;
  if (score <= -kMateThreshold) return score + ply;
  return score;
}

// ---- transposition table ----------------------------------------------------

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

constexpr int kMostTableBits = 21;
static_assert(sizeof(TableEntry) << kMostTableBits == SearchTable::kBytes);

}  // namespace

struct SearchTable::Storage {
  explicit Storage(size_t size) : entries(size) {}
  std::vector<TableEntry> entries;
  uint16_t generation = 0;  // of the last search
};

SearchTable::SearchTable() : SearchTable(size_t{1} << kMostTableBits) {}
SearchTable::SearchTable(size_t entries)
    : storage_(std::make_unique<Storage>(entries)) {}
SearchTable::~SearchTable() = default;

namespace {

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

// ---- random numbers (deterministic, independent of the library) -------------

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-n, n].
  int Noise(int n) {
    return n <= 0 ? 0 : static_cast<int>(Next() % (2 * n + 1)) - n;
  }
  // Uniform in [0, 1).
  double Fraction() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

// ---- what a move's shot does ------------------------------------------------

// The mover's Pharaoh's square after move m.
Square PharaohAfter(const EvalState& st, Color mover, Move m) {
  const Square k = st.pharaoh[Index(mover)];
  return !m.is_rotation() && m.from() == k ? m.to() : k;
}

enum class ShotKind : uint8_t {
  kNormal,  // no Pharaoh hit
  kWins,    // the enemy Pharaoh only
  kLoses,   // the own Pharaoh (both, under the default rules)
  kDraws,   // both, with both_pharaohs_hit_draws
};

struct Shot {
  ShotKind kind = ShotKind::kNormal;
  int gain = 0;  // value taken from the enemy minus value lost
};

Shot ShotOf(const Position& pos, Move m, Bitboard hits, const EvalState& st,
            bool both_draw) {
  Shot shot;
  const Color mover = pos.side_to_move();
  const bool theirs = (hits & Bit(st.pharaoh[Index(Opponent(mover))])) != 0;
  const bool mine = (hits & Bit(PharaohAfter(st, mover, m))) != 0;
  if (mine || theirs) {
    shot.kind = mine && theirs
                    ? (both_draw ? ShotKind::kDraws : ShotKind::kLoses)
                : mine ? ShotKind::kLoses
                       : ShotKind::kWins;
    return shot;
  }
  while (hits != 0) {
    const Piece p = PieceAfterMove(pos, m, PopLowest(hits));
    shot.gain += p.color() == mover ? -HitValue(p) : HitValue(p);
  }
  return shot;
}

// ---- the searcher -----------------------------------------------------------

// Move ordering keys.
constexpr int kOrderCapture = 1 << 26;  // plus the gain
constexpr int kOrderKiller = 1 << 25;
constexpr int kOrderHistoryCap = (1 << 24) - 1;
constexpr int kOrderKnown = -(1 << 30);  // decided without search: last

int HistoryIndex(Move m) {
  if (m.is_rotation()) {
    return m.from() * 82 + 80 + (m.kind() == MoveKind::kRotateAnticlockwise);
  }
  return m.from() * 82 + m.to();
}
constexpr int kHistorySize = kSquares * 82;

// Children played to see their shot, kept for when they are searched.
constexpr int kMaxProbed = 128;

struct ScoredMove {
  Move move;
  int16_t probe = -1;  // index of the played child, -1 if not played
  bool capture = false;
  bool known_score = false;
  int order = 0;
  int known = 0;  // the score, when known_score
};

struct ProbedChild {
  Position pos;
  Bitboard hits = 0;
};

// Room for N values of T, left uninitialised: the per-ply move lists are
// megabytes, and a search touches only the plies it reaches.
template <typename T, int N>
struct Scratch {
  Scratch() {}
  ~Scratch() {}
  union {
    T items[N];
  };
};

// Which moves ScoreMoves lists.
enum class Listing : uint8_t {
  kAll,       // every move (full-width search)
  kCaptures,  // moves whose shot takes more than it loses; one of the moves
              // that leave the beam alone stands for all of them
  kEvasions,  // in check: the moves that change the enemy beam
};

class Searcher {
 public:
  // `start`: when the clock started.
  Searcher(const SearchLimits& limits, const SearchStyle& style,
           const std::atomic<bool>* stop, SearchTable::Storage& table,
           std::chrono::steady_clock::time_point start)
      : limits_(limits),
        style_(style),
        stop_(stop),
        table_(table, TableEntries(limits)),
        history_(2 * kHistorySize, 0),
        history_keys_(style.history),
        start_(start) {
    std::sort(history_keys_.begin(), history_keys_.end());
    if (limits_.max_time > absl::ZeroDuration()) {
      deadline_ = start_ + absl::ToChronoNanoseconds(limits_.max_time);
    }
  }

  SearchResult Run(const Position& root);

 private:
  struct RootMove {
    Move move;
    int score = -kInfinity;
    int last_score = -kInfinity;  // of the last completed iteration
    bool known_score = false;
    int known = 0;
    int gain = 0;
  };

  // Counts a node; true once the search must stop.
  bool Abort() {
    if (aborted_) return true;
    if (limits_.max_nodes != 0 && nodes_ >= limits_.max_nodes) {
      aborted_ = true;
      return true;
    }
    ++nodes_;
    if (nodes_ % kCheckEvery == 0) {
      if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
        aborted_ = true;
      } else if (deadline_.has_value() &&
                 std::chrono::steady_clock::now() >= *deadline_) {
        aborted_ = true;
      }
    }
    return aborted_;
  }

  bool IsRepetition(int ply) const {
    const uint64_t key = path_[ply];
    for (int i = ply - 2; i >= 0; i -= 2) {
      if (path_[i] == key) return true;
    }
    return !history_keys_.empty() &&
           std::binary_search(history_keys_.begin(), history_keys_.end(), key);
  }

  // Lists and orders the moves of `pos` (see Listing), playing those that
  // touch the mover's beam to see what their shot does. Moves decided
  // without search (they hit the own Pharaoh, or leave it in check) get
  // known scores; *best_known is the best of those. Returns true with *win
  // set if a move wins at once.
  // Moves in `skip` (null moves in it match nothing) are left out.
  bool ScoreMoves(const Position& pos, const EvalState& st, bool in_check,
                  Listing listing, const Move* skip, int ply, int* count,
                  int* best_known, Move* win);

  int Negamax(const Position& pos, EvalState& st, int depth, int alpha,
              int beta, int ply, bool pv_node);
  int Quiesce(const Position& pos, EvalState& st, int alpha, int beta, int ply,
              int qply);

  // Plays sm in pos into *child with its state (reusing the child played
  // by ScoreMoves).
  void Play(const Position& pos, const EvalState& st, const ScoredMove& sm,
            int ply, Position* child, EvalState* child_state) {
    Bitboard hits = 0;
    if (sm.probe >= 0) {
      const ProbedChild& probed = probed_[ply].items[sm.probe];
      *child = probed.pos;
      hits = probed.hits;
    } else {
      *child = pos;
      MakeMove(child, sm.move, st.beam[Index(pos.side_to_move())], &hits);
    }
    UpdateEvalState(pos, st, sm.move, hits, *child, child_state);
  }

  void UpdatePv(int ply, Move m) {
    pv_[ply][ply] = m;
    for (int i = ply + 1; i < pv_len_[ply + 1]; ++i) {
      pv_[ply][i] = pv_[ply + 1][i];
    }
    pv_len_[ply] = std::max(pv_len_[ply + 1], ply + 1);
  }

  int& History(Color c, Move m) {
    return history_[Index(c) * kHistorySize + HistoryIndex(m)];
  }

  SearchResult Careless(const std::vector<RootMove>& moves, Random& random);

  const SearchLimits& limits_;
  const SearchStyle& style_;
  const std::atomic<bool>* stop_;
  TranspositionTable table_;
  std::vector<int> history_;
  std::vector<uint64_t> history_keys_;
  std::chrono::steady_clock::time_point start_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  uint64_t nodes_ = 0;
  bool aborted_ = false;
  uint64_t path_[kMaxPly + 1] = {};
  Move killers_[kMaxPly + 1][2] = {};
  Move pv_[kMaxPly + 1][kMaxPly + 1] = {};
  int pv_len_[kMaxPly + 2] = {};
  Scratch<MoveList, 1> move_lists_[kMaxPly + 1];
  Scratch<ScoredMove, kMaxMoves> scored_[kMaxPly + 1];
  Scratch<ProbedChild, kMaxProbed> probed_[kMaxPly + 1];
};

bool Searcher::ScoreMoves(const Position& pos, const EvalState& st,
                          bool in_check, Listing listing, const Move* skip,
                          int ply, int* count, int* best_known, Move* win) {
  const Color us = pos.side_to_move();
  const BeamPath& own = st.beam[Index(us)];
  const BeamPath& other = st.beam[Index(Opponent(us))];
  MoveList& moves = move_lists_[ply].items[0];
  GenerateMoves(pos, &moves);
  ScoredMove* out = scored_[ply].items;
  ProbedChild* probed = probed_[ply].items;
  // Every move that leaves the beam alone fires the same shot.
  const Shot untouched =
      ShotOf(pos, Move(), own.hits, st, style_.both_pharaohs_hit_draws);
  const bool untouched_evades = (own.hits & other.squares) != 0;
  bool untouched_listed = false;
  const int lose_now = -(kMateScore - (ply + 1));
  const int lose_next = -(kMateScore - (ply + 2));
  int n = 0, probes = 0;
  *best_known = -kInfinity;
  for (const Move m : moves) {
    if (skip != nullptr && (m == skip[0] || m == skip[1] || m == skip[2])) {
      continue;
    }
    const Bitboard touched = SquareBit(m.from()) | SquareBit(m.to());
    const bool touches_own = (touched & own.squares) != 0;
    // Moves the listing leaves out whatever their shot: cheap tests first.
    if (!touches_own) {
      if (listing == Listing::kCaptures &&
          (untouched.kind == ShotKind::kNormal &&
           (untouched.gain <= 0 || untouched_listed))) {
        continue;
      }
      if (listing == Listing::kEvasions &&
          untouched.kind == ShotKind::kNormal &&
          (touched & other.squares) == 0 &&
          (!untouched_evades || untouched_listed)) {
        continue;
      }
    }
    Shot shot = untouched;
    Bitboard hits = own.hits;
    int16_t probe = -1;
    if (touches_own) {
      if (probes < kMaxProbed) {
        ProbedChild& c = probed[probes];
        c.pos = pos;
        MakeMove(&c.pos, m, own, &c.hits);
        hits = c.hits;
        probe = static_cast<int16_t>(probes++);
      } else {
        Position child = pos;
        MakeMove(&child, m, own, &hits);
      }
      shot = ShotOf(pos, m, hits, st, style_.both_pharaohs_hit_draws);
    }
    switch (shot.kind) {
      case ShotKind::kWins:
        *win = m;
        *count = n;
        return true;
      case ShotKind::kLoses:
        *best_known = std::max(*best_known, lose_now);
        if (listing == Listing::kAll) {
          out[n++] = ScoredMove{m, probe, false, true, kOrderKnown, lose_now};
        }
        continue;
      case ShotKind::kDraws:
        *best_known = std::max(*best_known, 0);
        if (listing == Listing::kAll) {
          out[n++] = ScoredMove{m, probe, false, true, kOrderKnown + 2, 0};
        }
        continue;
      case ShotKind::kNormal:
        break;
    }
    // In check, a move that neither changes the enemy beam nor takes a
    // piece from it leaves the Pharaoh in the beam: the enemy wins next.
    if (in_check && (touched & other.squares) == 0 &&
        (hits & other.squares) == 0) {
      *best_known = std::max(*best_known, lose_next);
      if (listing == Listing::kAll) {
        out[n++] =
            ScoredMove{m, probe, false, true, kOrderKnown + 1, lose_next};
      }
      continue;
    }
    const bool capture = shot.gain > 0;
    if (listing == Listing::kCaptures && !capture) continue;
    if (!touches_own) {
      if (listing != Listing::kAll && untouched_listed) continue;
      untouched_listed = true;
    }
    int order;
    if (capture) {
      order = kOrderCapture + shot.gain;
    } else if (m == killers_[ply][0] || m == killers_[ply][1]) {
      order = kOrderKiller + (m == killers_[ply][0]);
    } else {
      order = std::min(History(us, m), kOrderHistoryCap) + shot.gain;
    }
    out[n++] = ScoredMove{m, probe, capture, false, order, 0};
  }
  *count = n;
  return false;
}

// Orders list[i..n): selection for the first few picks (a cut usually
// comes early), then one sort of the rest.
inline void PickNext(ScoredMove* list, int i, int n) {
  constexpr int kSelections = 4;
  if (i > kSelections) return;
  if (i == kSelections) {
    std::sort(list + i, list + n, [](const ScoredMove& a, const ScoredMove& b) {
      return a.order > b.order;
    });
    return;
  }
  int best = i;
  for (int j = i + 1; j < n; ++j) {
    if (list[j].order > list[best].order) best = j;
  }
  if (best != i) std::swap(list[i], list[best]);
}

int Searcher::Negamax(const Position& pos, EvalState& st, int depth, int alpha,
                      int beta, int ply, bool pv_node) {
  if (depth <= 0) return Quiesce(pos, st, alpha, beta, ply, 0);
  pv_len_[ply] = ply;
  if (Abort()) return 0;
  path_[ply] = pos.hash();
  if (ply > 0 && IsRepetition(ply)) return 0;
  if (ply >= kMaxPly - 1) return EvaluateState(pos, &st);
  // Neither side can do better than winning now or worse than losing now.
  alpha = std::max(alpha, -kMateScore + ply);
  beta = std::min(beta, kMateScore - ply - 1);
  if (alpha >= beta) return alpha;

  const uint64_t key = pos.hash();
  Move table_move;
  if (const TableEntry* e = table_.Probe(key)) {
    table_move = Move::FromBits(e->move);
    if (!pv_node && e->depth >= depth) {
      const int s = FromTable(e->score, ply);
      if (e->bound == kExact || (e->bound == kLower && s >= beta) ||
          (e->bound == kUpper && s <= alpha)) {
        return s;
      }
    }
  }

  const Color us = pos.side_to_move();
  const bool in_check =
      (st.beam[Index(Opponent(us))].hits & Bit(st.pharaoh[Index(us)])) != 0;
  if (depth == 1) ComputeLines(pos, &st);  // for the children to inherit

  const int alpha_start = alpha;
  int best = -kInfinity;
  Move best_move;
  int searched = 0;

  // Searches one move; true on a cut.
  auto search = [&](const ScoredMove& sm, int score_if_known) {
    const Move m = sm.move;
    int score = score_if_known;
    if (sm.known_score) {
      pv_len_[ply + 1] = ply + 1;
    } else {
      Position child;
      EvalState cs;
      Play(pos, st, sm, ply, &child, &cs);
      if (depth > 1) table_.Prefetch(child.hash());
      if (searched == 0) {
        score = -Negamax(child, cs, depth - 1, -beta, -alpha, ply + 1, pv_node);
      } else {
        // Late quiet moves are tried a ply shallower first.
        int reduction = 0;
        if (depth >= 3 && searched >= 4 && !sm.capture && !in_check &&
            sm.order < kOrderKiller) {
          reduction = searched >= 12 && depth >= 5 ? 2 : 1;
        }
        score = -Negamax(child, cs, depth - 1 - reduction, -alpha - 1, -alpha,
                         ply + 1, false);
        if (score > alpha && reduction > 0 && !aborted_) {
          score = -Negamax(child, cs, depth - 1, -alpha - 1, -alpha, ply + 1,
                           false);
        }
        if (score > alpha && score < beta && !aborted_) {
          score = -Negamax(child, cs, depth - 1, -beta, -alpha, ply + 1, true);
        }
      }
      ++searched;
      if (aborted_) return true;
    }
    if (score > best) {
      best = score;
      best_move = m;
      if (score > alpha) {
        alpha = score;
        UpdatePv(ply, m);
        if (score >= beta) {
          if (!sm.capture && !sm.known_score) {
            if (killers_[ply][0] != m) {
              killers_[ply][1] = killers_[ply][0];
              killers_[ply][0] = m;
            }
            int& h = History(us, m);
            h = std::min(h + depth * depth, kOrderHistoryCap);
          }
          return true;
        }
      }
    }
    return false;
  };

  // The table's move and the killers first, before the others are even
  // listed: a cut here saves playing every move that touches the beam.
  bool cut = false;
  Move early[3] = {table_move, killers_[ply][0], killers_[ply][1]};
  for (int i = 0; i < 3 && !cut; ++i) {
    const Move m = early[i];
    bool legal = !m.is_null() && (i == 0 || m != early[0]) &&
                 (i < 2 || m != early[1]) && pos.at(m.from()).color() == us &&
                 !pos.at(m.from()).empty();
    if (legal) {
      MoveList& mine = move_lists_[ply].items[0];
      GenerateMovesFrom(pos, m.from(), &mine);
      legal = std::find(mine.begin(), mine.end(), m) != mine.end();
    }
    if (!legal) {
      early[i] = Move();
      continue;
    }
    Position child = pos;
    Bitboard hits = 0;
    MakeMove(&child, m, st.beam[Index(us)], &hits);
    const Shot shot = ShotOf(pos, m, hits, st, style_.both_pharaohs_hit_draws);
    if (shot.kind == ShotKind::kWins) {
      const int score = kMateScore - (ply + 1);
      table_.Store(key, m, ToTable(score, ply), depth, kExact);
      pv_[ply][ply] = m;
      pv_len_[ply] = ply + 1;
      return score;
    }
    if (shot.kind != ShotKind::kNormal) {
      early[i] = Move();  // decided without search: left to the listing
      continue;
    }
    // Play replays the move: cheap next to listing every move.
    const int order = i == 0 ? kOrderCapture << 2 : kOrderKiller;
    cut = search(ScoredMove{m, -1, shot.gain > 0, false, order, 0}, 0);
    if (aborted_) return 0;
  }

  if (!cut) {
    int n = 0, best_known = -kInfinity;
    Move win;
    if (ScoreMoves(pos, st, in_check, Listing::kAll, early, ply, &n,
                   &best_known, &win)) {
      const int score = kMateScore - (ply + 1);
      table_.Store(key, win, ToTable(score, ply), depth, kExact);
      pv_[ply][ply] = win;
      pv_len_[ply] = ply + 1;
      return score;
    }
    if (n == 0 && searched == 0) return 0;  // no move: call it a draw
    ScoredMove* list = scored_[ply].items;
    for (int i = 0; i < n; ++i) {
      PickNext(list, i, n);
      if (search(list[i], list[i].known)) break;
    }
    if (aborted_) return 0;
  }
  const Bound bound = best >= beta         ? kLower
                      : best > alpha_start ? kExact
                                           : kUpper;
  table_.Store(key, best_move, ToTable(best, ply), depth, bound);
  return best;
}

int Searcher::Quiesce(const Position& pos, EvalState& st, int alpha, int beta,
                      int ply, int qply) {
  pv_len_[ply] = ply;
  if (Abort()) return 0;
  const Color us = pos.side_to_move();
  const Color them = Opponent(us);
  const BeamPath& own = st.beam[Index(us)];
  const BeamPath& other = st.beam[Index(them)];
  const Bitboard our_k = Bit(st.pharaoh[Index(us)]);
  const Bitboard their_k = Bit(st.pharaoh[Index(them)]);
  // Our beam already hits their Pharaoh: almost every move wins.
  if ((own.hits & their_k) != 0 && (own.hits & our_k) == 0) {
    MoveList& moves = move_lists_[ply].items[0];
    GenerateMoves(pos, &moves);
    for (const Move m : moves) {
      const Bitboard touched = SquareBit(m.from()) | SquareBit(m.to());
      if ((touched & own.squares) == 0) return kMateScore - (ply + 1);
    }
  }
  const bool in_check = (other.hits & our_k) != 0;
  const int stand = EvaluateState(pos, &st);
  int best = stand;
  if (in_check) {
    if (qply >= kCheckEvasionPlies || ply >= kMaxPly - 2) return stand;
    best = -(kMateScore - (ply + 2));  // unless an evasion works
  } else {
    if (stand >= beta) return stand;
    if (qply >= kMaxQuiescePlies || ply >= kMaxPly - 2) return stand;
    alpha = std::max(alpha, stand);
  }

  // Wins in one, captures, and in check the evasions.
  int n = 0, best_known = -kInfinity;
  Move win;
  if (ScoreMoves(pos, st, in_check,
                 in_check ? Listing::kEvasions : Listing::kCaptures, nullptr,
                 ply, &n, &best_known, &win)) {
    return kMateScore - (ply + 1);
  }
  best = std::max(best, best_known);
  ScoredMove* list = scored_[ply].items;
  const int limit = in_check ? n : std::min(n, kMaxQuiesceMoves);
  for (int i = 0; i < limit; ++i) {
    PickNext(list, i, n);
    Position child;
    EvalState cs;
    Play(pos, st, list[i], ply, &child, &cs);
    const int score = -Quiesce(child, cs, -beta, -alpha, ply + 1, qply + 1);
    if (aborted_) return 0;
    if (score > best) {
      best = score;
      if (score > alpha) {
        alpha = score;
        if (score >= beta) break;
      }
    }
  }
  return best;
}

// A beginner's move: its own shot judged (a win, a loss, what it takes and
// loses), the opponent's reply not looked at, and plenty of noise.
SearchResult Searcher::Careless(const std::vector<RootMove>& moves,
                                Random& random) {
  SearchResult result;
  int best = -kInfinity;
  const int noise = std::max(style_.score_noise, 50);
  for (const RootMove& rm : moves) {
    int score = rm.known_score ? rm.known : rm.gain + random.Noise(noise);
    if (score > best) {
      best = score;
      result.best_move = rm.move;
      result.score = score;
    }
  }
  result.principal_variation = {result.best_move};
  result.depth = 1;
  result.nodes = moves.size();
  return result;
}

SearchResult Searcher::Run(const Position& root) {
  SearchResult result;
  EvalState st = ComputeEvalState(root);
  const Color us = root.side_to_move();
  Random random(style_.seed ^ (root.hash() * 0x2545f4914f6cdd1dULL));

  const bool in_check =
      (st.beam[Index(Opponent(us))].hits & Bit(st.pharaoh[Index(us)])) != 0;
  ScoredMove* list = scored_[0].items;
  int n = 0, best_known = 0;
  Move win;
  ++nodes_;
  path_[0] = root.hash();
  if (ScoreMoves(root, st, in_check, Listing::kAll, nullptr, 0, &n, &best_known,
                 &win)) {
    result.best_move = win;
    result.score = kMateScore - 1;
    result.principal_variation = {win};
    result.depth = 1;
    result.nodes = nodes_;
    return result;
  }
  if (n == 0) {
    result.nodes = nodes_;
    return result;
  }
  std::vector<RootMove> moves;
  for (int i = 0; i < n; ++i) {
    PickNext(list, i, n);
    RootMove rm;
    rm.move = list[i].move;
    rm.known_score = list[i].known_score;
    rm.known = list[i].known;
    rm.gain = list[i].capture ? list[i].order - kOrderCapture : 0;
    moves.push_back(rm);
  }
  result.best_move = moves[0].move;
  result.principal_variation = {moves[0].move};
  result.score = moves[0].known_score ? moves[0].known : 0;

  if (style_.blunder_chance > 0 && random.Fraction() < style_.blunder_chance) {
    SearchResult careless = Careless(moves, random);
    careless.elapsed =
        absl::FromChrono(std::chrono::steady_clock::now() - start_);
    return careless;
  }

  const bool exact_all = style_.score_noise > 0;
  int max_depth = limits_.max_depth;
  if (max_depth <= 0 || max_depth > kMaxPly - 10) {
    max_depth = (limits_.max_nodes == 0 &&
                 limits_.max_time == absl::ZeroDuration() && stop_ == nullptr)
                    ? kDefaultDepth
                    : kMaxPly - 10;
  }
  const bool timed = deadline_.has_value();
  for (int depth = 1; depth <= max_depth; ++depth) {
    int alpha = -kInfinity;
    const int beta = kInfinity;
    int best = -kInfinity;
    int best_index = -1;
    int completed = 0;
    for (size_t i = 0; i < moves.size(); ++i) {
      RootMove& rm = moves[i];
      int score;
      if (rm.known_score) {
        score = rm.known;
      } else {
        Position child;
        EvalState ck;
        Play(root, st, ScoredMove{rm.move, -1, false, false, 0, 0}, 0, &child,
             &ck);
        if (best_index < 0 || exact_all) {
          score = -Negamax(child, ck, depth - 1, -beta,
                           exact_all ? kInfinity : -alpha, 1, true);
        } else {
          score = -Negamax(child, ck, depth - 1, -alpha - 1, -alpha, 1, false);
          if (!aborted_ && score > alpha) {
            score = -Negamax(child, ck, depth - 1, -beta, -alpha, 1, true);
          }
        }
        if (aborted_) break;
      }
      ++completed;
      rm.score = score;
      if (score > best) {
        best = score;
        best_index = static_cast<int>(i);
        if (!rm.known_score) {
          UpdatePv(0, rm.move);
        } else {
          pv_len_[0] = 1;
          pv_[0][0] = rm.move;
        }
        if (!exact_all) alpha = std::max(alpha, score);
      }
    }
    // Stopped during this iteration: the moves searched so far started
    // with the last iteration's best, so the best of them is worth playing
    // (with noise, every score of the iteration is needed: keep the last).
    if (completed == 0 || best_index < 0) break;
    if (aborted_ && exact_all) break;
    result.best_move = moves[best_index].move;
    result.score = best;
    result.principal_variation.assign(pv_[0], pv_[0] + pv_len_[0]);
    if (result.principal_variation.empty() ||
        result.principal_variation[0] != result.best_move) {
      result.principal_variation = {result.best_move};
    }
    if (aborted_) break;
    result.depth = depth;
    for (RootMove& rm : moves) rm.last_score = rm.score;
    // Best first for the next iteration, the rest by score.
    std::stable_sort(
        moves.begin(), moves.end(),
        [](const RootMove& a, const RootMove& b) { return a.score > b.score; });
    if (best >= kMateThreshold && kMateScore - best <= depth) {
      break;  // a forced win within the horizon: none can be faster
    }
    if (timed) {
      const auto spent = std::chrono::steady_clock::now() - start_;
      if (spent * 2 > *deadline_ - start_) break;  // the next would not end
    }
  }

  if (exact_all && result.depth > 0) {
    int best = -kInfinity * 2;
    const RootMove* chosen = nullptr;
    for (const RootMove& rm : moves) {
      const bool decided = std::abs(rm.last_score) >= kMateThreshold;
      const int noisy =
          rm.last_score + (decided ? 0 : random.Noise(style_.score_noise));
      if (noisy > best) {
        best = noisy;
        chosen = &rm;
      }
    }
    if (chosen != nullptr && chosen->move != result.best_move) {
      result.best_move = chosen->move;
      result.score = chosen->last_score;
      result.principal_variation = {chosen->move};
    }
  }
  result.nodes = nodes_;
  result.elapsed = absl::FromChrono(std::chrono::steady_clock::now() - start_);
  return result;
}

}  // namespace

const std::vector<Level>& AllLevels() {
  static const std::vector<Level>* const kLevels = [] {
    auto* levels = new std::vector<Level>;
    Level l1{1, "A'NOOB'IS", {}, {}, ""};
    l1.limits.max_depth = 2;
    l1.limits.max_nodes = 20000;
    l1.style.score_noise = 60;
    l1.style.blunder_chance = 0.30;
    l1.description =
        "A beginner: looks two plies ahead with a lot of noise, and on about "
        "a third of its moves sees only its own shot and forgets your laser.";
    Level l2{2, "SCARAB'S APPRENTICE", {}, {}, ""};
    l2.limits.max_depth = 2;
    l2.limits.max_nodes = 50000;
    l2.style.score_noise = 15;
    l2.description =
        "Sees every shot of its move and your answer to it, and takes what "
        "you leave in its beam; a little noise.";
    Level l3{3, "PYRAMID SCHEMER", {}, {}, ""};
    l3.limits.max_depth = 4;
    l3.limits.max_nodes = 150000;
    l3.description = "Four plies ahead: sets up its own mirrors for a kill.";
    Level l4{4, "SPHINX VIZIER", {}, {}, ""};
    l4.limits.max_nodes = 300000;
    l4.description =
        "Deep and careful: 300,000 positions a move, five or six plies.";
    Level l5{5, "KHET GRANDMASTER", {}, {}, ""};
    l5.limits.max_time = absl::Seconds(1);
    l5.limits.max_nodes = 4000000;
    l5.description =
        "The engine at its best: a second a move, as deep as it gets.";
    levels->push_back(l1);
    levels->push_back(l2);
    levels->push_back(l3);
    levels->push_back(l4);
    levels->push_back(l5);
    return levels;
  }();
  return *kLevels;
}

absl::StatusOr<Level> FindLevel(int number) {
  for (const Level& level : AllLevels()) {
    if (level.number == number) return level;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("level ", number, ": levels are 1 to 5"));
}

struct TableAccess {
  static std::unique_ptr<SearchTable> Make(size_t entries) {
    return std::unique_ptr<SearchTable>(new SearchTable(entries));
  }
  static SearchTable::Storage& StorageOf(SearchTable& table) {
    return *table.storage_;
  }
};

SearchResult Search(const Position& pos, const SearchLimits& limits,
                    const SearchStyle& style, const std::atomic<bool>* stop,
                    SearchTable* table) {
  // The clock first: everything below counts against max_time.
  auto start = std::chrono::steady_clock::now();
  if (limits.started != absl::InfinitePast()) {
    const absl::Duration before = absl::Now() - limits.started;
    if (before > absl::ZeroDuration()) {
      start -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          absl::ToChronoNanoseconds(before));
    }
  }
  std::unique_ptr<SearchTable> own;
  if (table == nullptr) {
    own = TableAccess::Make(TableEntries(limits));
    table = own.get();
  }
  auto searcher = std::make_unique<Searcher>(
      limits, style, stop, TableAccess::StorageOf(*table), start);
  return searcher->Run(pos);
}

int Evaluate(const Position& pos) {
  EvalState st = ComputeEvalState(pos);
  return EvaluateState(pos, &st);
}

}  // namespace khet
