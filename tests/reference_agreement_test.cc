// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The engine against the reference implementation (tests/reference/), which
// was written from the rules text alone: over many seeded random games from
// every setup, at every ply, the legal moves, the move count, both colours'
// laser traces, the laser hits, the effects of the move played and the hash
// must agree; and perft counts must agree for the first plies. The same
// again with the rule option physical_facings (four facings for Pharaohs,
// Scarabs and Eyes), where the repetition counts must agree too.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/perft.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "gtest/gtest.h"
#include "tests/reference/engine_conversion.h"
#include "tests/reference/reference_rules.h"
#include "tests/reference/reference_setups.h"

namespace khet {
namespace {

namespace ref = ::khet::reference;

// Random games in all, spread over kShards tests (game i plays setup
// i % AllSetups().size() with seed i).
constexpr int kGames = 10000;
constexpr int kShards = 10;
// Plies per game at most; a game also ends when a Pharaoh is hit.
constexpr int kMaxPlies = 120;
// Every this many plies, every legal move (not only the one played) is
// applied by both implementations and compared, and the per-square move
// lists are checked.
constexpr int kFullCheckEvery = 8;
// At plies with this remainder modulo 32, CheckMove is asked about every
// move shape of every piece of the side to move (each neighbour and each
// kind), legal or not.
constexpr int kCheckMoveShapesAt = 16;
// A shard stops after this many failing games, to keep the output readable.
constexpr int kMaxFailingGames = 3;
// Random games with physical facings, over kPhysicalShards tests. A third of
// their moves, when the side to move can, turn its Pharaoh: waiting moves
// that make positions repeat.
constexpr int kPhysicalGames = 2800;
constexpr int kPhysicalShards = 5;

// What the checked games exercised, so that a change that makes random play
// miss a rule (say, no Eye loop any more) does not go unnoticed.
struct Coverage {
  int plies = 0;
  int beam_ends[6] = {};  // by BeamEnd, over both colours' traces
  int swaps = 0;
  int top_obelisk_moves = 0;
  int stackings = 0;
  int sphinx_turns = 0;
  int stack_hits = 0;    // a hit stack kept its bottom obelisk
  int pharaoh_hits = 0;  // games ended by a hit Pharaoh
  int both_pharaohs_hit = 0;
  int own_pieces_hit = 0;  // the mover hit one of its own pieces
  int games_at_ply_limit = 0;
  // Physical facings only.
  int pharaoh_turns = 0;
  int anticlockwise_scarab_turns = 0;  // Scarab or Eye
  int repetitions = 0;                 // plies whose position occurred before
  // Pairs of positions of one game that differ only in facings.
  int facing_only_differences = 0;
};
Coverage coverage;

std::string Describe(const Position& pos) {
  return ref::BoardToText(ref::ToReference(pos));
}

std::string MovesToText(const std::vector<ref::Move>& moves) {
  std::string text;
  for (const ref::Move& m : moves) text += " " + ref::MoveToText(m);
  return text.empty() ? " (none)" : text;
}

// Legal moves, their count and the per-square lists.
testing::AssertionResult CheckMoves(const Position& pos, bool full) {
  const ref::Board board = ref::ToReference(pos);
  MoveList list;
  GenerateMoves(pos, &list);
  const std::vector<ref::Move> engine = ref::SortedReferenceMoves(list);
  std::vector<ref::Move> expected = ref::LegalMoves(board);
  std::sort(expected.begin(), expected.end());
  if (std::adjacent_find(engine.begin(), engine.end()) != engine.end()) {
    return testing::AssertionFailure()
           << "GenerateMoves lists a move twice:" << MovesToText(engine);
  }
  if (engine != expected) {
    std::vector<ref::Move> only_engine, only_reference;
    std::set_difference(engine.begin(), engine.end(), expected.begin(),
                        expected.end(), std::back_inserter(only_engine));
    std::set_difference(expected.begin(), expected.end(), engine.begin(),
                        engine.end(), std::back_inserter(only_reference));
    return testing::AssertionFailure()
           << "legal moves differ\n  engine only:" << MovesToText(only_engine)
           << "\n  reference only:" << MovesToText(only_reference);
  }
  if (CountMoves(pos) != list.size) {
    return testing::AssertionFailure()
           << "CountMoves " << CountMoves(pos) << " but GenerateMoves lists "
           << list.size;
  }
  if (full) {
    std::vector<ref::Move> from_squares;
    for (Square s = 0; s < kSquares; ++s) {
      MoveList one;
      GenerateMovesFrom(pos, s, &one);
      for (Move m : one) {
        if (m.from() != s) {
          return testing::AssertionFailure()
                 << "GenerateMovesFrom(" << ref::SquareName(s) << ") lists "
                 << ref::MoveToText(ref::ToReference(m));
        }
        from_squares.push_back(ref::ToReference(m));
      }
    }
    std::sort(from_squares.begin(), from_squares.end());
    if (from_squares != expected) {
      return testing::AssertionFailure()
             << "GenerateMovesFrom over all squares:"
             << MovesToText(from_squares);
    }
  }
  return testing::AssertionSuccess();
}

// Both colours' traces, and LaserHits.
testing::AssertionResult CheckTraces(const Position& pos) {
  const ref::Board board = ref::ToReference(pos);
  for (Color shooter : {Color::kSilver, Color::kRed}) {
    const bool red = shooter == Color::kRed;
    const BeamTrace engine_trace = TraceLaser(pos, shooter);
    const ref::Trace engine = ref::ToReference(engine_trace);
    const ref::Trace expected = ref::TraceLaser(board, red);
    if (!ref::SameTrace(engine, expected)) {
      return testing::AssertionFailure()
             << (red ? "Red" : "Silver") << "'s trace differs\n  engine:\n"
             << ref::TraceToText(engine) << "\n  reference:\n"
             << ref::TraceToText(expected);
    }
    for (const khet::Beam& beam : engine_trace.beams) {
      ++coverage.beam_ends[static_cast<int>(beam.end)];
    }
    if (LaserHits(pos, shooter) != engine_trace.hit) {
      return testing::AssertionFailure()
             << (red ? "Red" : "Silver")
             << "'s LaserHits differs from TraceLaser().hit";
    }
  }
  return testing::AssertionSuccess();
}

void CountMove(const Position& pos, Move move, const MoveEffects& effects) {
  const Piece mover = pos.at(move.from());
  if (move.kind() == MoveKind::kMoveTop) ++coverage.top_obelisk_moves;
  if (move.kind() == MoveKind::kMove && !pos.at(move.to()).empty()) {
    if (mover.type() == PieceType::kObelisk) {
      ++coverage.stackings;
    } else {
      ++coverage.swaps;
    }
  }
  if (move.is_rotation() && mover.type() == PieceType::kSphinx) {
    ++coverage.sphinx_turns;
  }
  if (move.is_rotation() && mover.type() == PieceType::kPharaoh) {
    ++coverage.pharaoh_turns;
  }
  if (move.kind() == MoveKind::kRotateAnticlockwise &&
      (mover.type() == PieceType::kScarab || mover.type() == PieceType::kEye)) {
    ++coverage.anticlockwise_scarab_turns;
  }
  for (const Removal& r : effects.removals) {
    if (!r.after.empty()) ++coverage.stack_hits;
    if (r.before.color() == pos.side_to_move()) ++coverage.own_pieces_hit;
  }
  if (effects.pharaohs_hit != 0) ++coverage.pharaoh_hits;
  if (effects.pharaohs_hit == 3) ++coverage.both_pharaohs_hit;
}

// One move played by both: ApplyMove's effects, MakeMove, the position after
// it and its hash. *after receives the engine's position. With count, the
// move is added to the coverage.
testing::AssertionResult CheckPlayedMove(const Position& pos, Move move,
                                         Position* after, bool* pharaoh_hit,
                                         bool count = false) {
  const ref::Board board = ref::ToReference(pos);
  const ref::MoveResult expected =
      ref::ApplyMove(board, ref::ToReference(move));
  *after = pos;
  const absl::StatusOr<MoveEffects> effects = ApplyMove(after, move);
  if (!effects.ok()) {
    return testing::AssertionFailure()
           << "ApplyMove rejects a listed move: " << effects.status();
  }
  if (!(effects->move == move)) {
    return testing::AssertionFailure()
           << "ApplyMove reports the move as "
           << ref::MoveToText(ref::ToReference(effects->move));
  }
  std::vector<ref::Removal> removals;
  Bitboard removed = 0;
  for (const Removal& r : effects->removals) {
    removals.push_back(ref::Removal{r.square, ref::ToReference(r.before),
                                    ref::ToReference(r.after)});
    removed |= SquareBit(r.square);
  }
  std::string expected_removals, engine_removals;
  for (const ref::Removal& r : expected.removals) {
    expected_removals += " " + ref::SquareName(r.square);
  }
  for (const ref::Removal& r : removals) {
    engine_removals += " " + ref::SquareName(r.square);
  }
  if (removals != expected.removals) {
    return testing::AssertionFailure()
           << "removals differ: engine" << engine_removals << ", reference"
           << expected_removals;
  }
  if (effects->hit != removed) {
    return testing::AssertionFailure()
           << "MoveEffects::hit differs from the removed squares";
  }
  const PharaohsHit expected_pharaohs = (expected.silver_pharaoh_hit ? 1 : 0) |
                                        (expected.red_pharaoh_hit ? 2 : 0);
  if (effects->pharaohs_hit != expected_pharaohs) {
    return testing::AssertionFailure()
           << "pharaohs hit: engine " << int{effects->pharaohs_hit}
           << ", reference " << expected_pharaohs;
  }
  if (!(ref::ToReference(*after) == expected.after)) {
    return testing::AssertionFailure()
           << "positions after the move differ\n  engine:    "
           << Describe(*after)
           << "\n  reference: " << ref::BoardToText(expected.after);
  }
  if (after->hash() != after->ComputeHash()) {
    return testing::AssertionFailure()
           << "incremental hash differs from ComputeHash() after the move";
  }
  Position made = pos;
  const PharaohsHit made_pharaohs = MakeMove(&made, move);
  if (!(made == *after) || made.hash() != after->hash() ||
      made_pharaohs != effects->pharaohs_hit) {
    return testing::AssertionFailure() << "MakeMove differs from ApplyMove";
  }
  *pharaoh_hit = expected_pharaohs != 0;
  if (count) CountMove(pos, move, *effects);
  return testing::AssertionSuccess();
}

// khet::CheckMove accepts exactly the legal moves (a Scarab's or Eye's
// anticlockwise turn standing for its listed clockwise one) and rejects
// every other move shape from the side to move's squares.
testing::AssertionResult CheckMoveShapes(const Position& pos) {
  const ref::Board board = ref::ToReference(pos);
  std::vector<ref::Move> legal = ref::LegalMoves(board);
  std::sort(legal.begin(), legal.end());
  for (Square from = 0; from < kSquares; ++from) {
    const Piece piece = pos.at(from);
    if (piece.empty() || piece.color() != pos.side_to_move()) continue;
    for (int df = -1; df <= 1; ++df) {
      for (int dr = -1; dr <= 1; ++dr) {
        const int file = FileOf(from) + df, rank = RankOf(from) + dr;
        if (!IsOnBoard(file, rank)) continue;
        const Square to = MakeSquare(file, rank);
        for (int kind = 0; kind < 4; ++kind) {
          const Move move(from, to, static_cast<MoveKind>(kind));
          ref::Move listed = ref::ToReference(move);
          const bool two_state =
              !pos.physical_facings() && (piece.type() == PieceType::kScarab ||
                                          piece.type() == PieceType::kEye);
          if (two_state && kind == 3) listed.kind = 2;
          const bool expected =
              std::binary_search(legal.begin(), legal.end(), listed);
          const absl::StatusOr<Move> checked = khet::CheckMove(pos, move);
          if (checked.ok() != expected ||
              (expected && !(ref::ToReference(*checked) == listed))) {
            return testing::AssertionFailure()
                   << "CheckMove(" << ref::MoveToText(ref::ToReference(move))
                   << ") returns "
                   << (checked.ok()
                           ? ref::MoveToText(ref::ToReference(*checked))
                           : checked.status().ToString())
                   << ", reference: " << (expected ? "legal" : "illegal");
          }
        }
      }
    }
  }
  return testing::AssertionSuccess();
}

// Every check of one ply.
testing::AssertionResult CheckPly(const Position& pos, bool full) {
  if (pos.hash() != pos.ComputeHash()) {
    return testing::AssertionFailure()
           << "incremental hash differs from ComputeHash()";
  }
  if (testing::AssertionResult r = CheckMoves(pos, full); !r) return r;
  if (testing::AssertionResult r = CheckTraces(pos); !r) return r;
  if (full) {
    MoveList list;
    GenerateMoves(pos, &list);
    for (Move m : list) {
      // CheckMove accepts every listed move as it is, and a Scarab's or
      // Eye's anticlockwise turn as the listed clockwise one.
      const absl::StatusOr<Move> checked = khet::CheckMove(pos, m);
      if (!checked.ok() || !(*checked == m)) {
        return testing::AssertionFailure()
               << "CheckMove does not return the listed move "
               << ref::MoveToText(ref::ToReference(m));
      }
      const PieceType type = pos.at(m.from()).type();
      if (m.kind() == MoveKind::kRotateClockwise && !pos.physical_facings() &&
          (type == PieceType::kScarab || type == PieceType::kEye)) {
        const absl::StatusOr<Move> turned =
            khet::CheckMove(pos, Move::Rotate(m.from(), /*clockwise=*/false));
        if (!turned.ok() || !(*turned == m)) {
          return testing::AssertionFailure()
                 << "CheckMove does not take the anticlockwise turn for "
                 << ref::MoveToText(ref::ToReference(m));
        }
      }
      Position after;
      bool pharaoh_hit = false;
      if (testing::AssertionResult r =
              CheckPlayedMove(pos, m, &after, &pharaoh_hit);
          !r) {
        return r << "\n  move: " << ref::MoveToText(ref::ToReference(m));
      }
    }
  }
  return testing::AssertionSuccess();
}

// The reference board with its facings reduced to two-state ones, for the
// coverage count of positions that differ only in facings.
ref::Board WithoutFacings(ref::Board board) {
  if (!board.physical_facings) return board;
  board.physical_facings = false;
  for (auto& rank : board.cells) {
    for (ref::Cell& cell : rank) {
      if (cell.type == 'K') cell.facing = 0;
      if (cell.type == 'S' || cell.type == 'E') cell.facing = cell.facing & 1;
    }
  }
  return board;
}

// Repetition with physical facings: the engine's positions of a game so far
// (history.back() the current one, also game.position()) are equal, and
// hash alike, exactly when the reference's boards are equal, and
// Game::RepetitionCount counts the reference's equal boards.
testing::AssertionResult CheckRepetition(const std::vector<Position>& history,
                                         const std::vector<ref::Board>& boards,
                                         const Game& game) {
  const Position& now = history.back();
  if (!(game.position() == now)) {
    return testing::AssertionFailure() << "Game's position differs";
  }
  int occurrences = 0;
  for (size_t i = 0; i < history.size(); ++i) {
    const bool same = boards[i] == boards.back();
    if (same) ++occurrences;
    if ((history[i] == now) != same) {
      return testing::AssertionFailure()
             << "position of ply " << i << " is " << (same ? "" : "not ")
             << "the reference's same, but " << (same ? "not " : "")
             << "the engine's";
    }
    if (same != (history[i].hash() == now.hash())) {
      return testing::AssertionFailure()
             << "hash of ply " << i << " is " << (same ? "not " : "")
             << "the current one's";
    }
    if (!same && WithoutFacings(boards[i]) == WithoutFacings(boards.back())) {
      ++coverage.facing_only_differences;
    }
  }
  if (occurrences > 1) ++coverage.repetitions;
  if (game.RepetitionCount() != occurrences) {
    return testing::AssertionFailure()
           << "RepetitionCount " << game.RepetitionCount()
           << ", the reference's board occurred " << occurrences << " times";
  }
  return testing::AssertionSuccess();
}

// A random move of `list`; with physical facings, a third of the time a turn
// of the Pharaoh if it may turn.
Move PickMove(const Position& pos, const MoveList& list, std::mt19937_64& rng) {
  if (pos.physical_facings() && rng() % 3 == 0) {
    std::vector<Move> turns;
    for (Move m : list) {
      if (m.is_rotation() && pos.at(m.from()).type() == PieceType::kPharaoh) {
        turns.push_back(m);
      }
    }
    if (!turns.empty()) return turns[rng() % turns.size()];
  }
  return list.moves[rng() % static_cast<uint64_t>(list.size)];
}

// Plays one seeded random game and checks every ply. Returns false on the
// first disagreement, having reported it. With physical_facings the game
// starts from the setup with the option's starting facings, and repetition
// is checked too.
bool PlayAndCheckGame(int game, bool physical_facings = false) {
  const auto setups = AllSetups();
  const SetupInfo& setup = setups[game % setups.size()];
  const absl::StatusOr<Position> start = SetupPosition(setup.id);
  if (!start.ok()) {
    ADD_FAILURE() << start.status();
    return false;
  }
  std::mt19937_64 rng(static_cast<uint64_t>(game) * 0x9e3779b97f4a7c15ULL + 1 +
                      (physical_facings ? 2 : 0));
  Position pos = *start;
  pos.SetPhysicalFacings(physical_facings);
  RuleOptions options;
  options.physical_facings = physical_facings;
  Game record(*start, options);
  std::vector<Position> history = {pos};
  std::vector<ref::Board> boards = {ref::ToReference(pos)};
  for (int ply = 0;; ++ply) {
    const bool full = ply % kFullCheckEvery == 0;
    testing::AssertionResult checked = CheckPly(pos, full);
    if (checked && ply % 32 == kCheckMoveShapesAt) {
      checked = CheckMoveShapes(pos);
    }
    if (checked && physical_facings) {
      checked = CheckRepetition(history, boards, record);
    }
    if (!checked) {
      ADD_FAILURE() << "game " << game << " (" << setup.id << "), ply " << ply
                    << "\n  position: " << Describe(pos) << "\n  "
                    << checked.message();
      return false;
    }
    ++coverage.plies;
    if (ply == kMaxPlies) {
      ++coverage.games_at_ply_limit;
      break;
    }
    MoveList list;
    GenerateMoves(pos, &list);
    if (list.size == 0) break;
    const Move move = PickMove(pos, list, rng);
    Position after;
    bool pharaoh_hit = false;
    const testing::AssertionResult played =
        CheckPlayedMove(pos, move, &after, &pharaoh_hit, /*count=*/true);
    if (!played) {
      ADD_FAILURE() << "game " << game << " (" << setup.id << "), ply " << ply
                    << "\n  position: " << Describe(pos)
                    << "\n  move: " << ref::MoveToText(ref::ToReference(move))
                    << "\n  " << played.message();
      return false;
    }
    pos = after;
    if (physical_facings) {
      if (const absl::StatusOr<MoveEffects> played_in_game = record.Play(move);
          !played_in_game.ok()) {
        ADD_FAILURE() << "game " << game << " (" << setup.id << "), ply " << ply
                      << ": Game refuses "
                      << ref::MoveToText(ref::ToReference(move)) << ": "
                      << played_in_game.status();
        return false;
      }
      history.push_back(pos);
      boards.push_back(ref::ToReference(pos));
    }
    if (pharaoh_hit) {
      // The game is over; the final position is still checked once.
      const testing::AssertionResult last = CheckPly(pos, /*full=*/false);
      if (!last) {
        ADD_FAILURE() << "game " << game << " (" << setup.id
                      << "), after the last ply\n  position: " << Describe(pos)
                      << "\n  " << last.message();
        return false;
      }
      break;
    }
  }
  return true;
}

class RandomGamesTest : public testing::TestWithParam<int> {};

TEST_P(RandomGamesTest, EngineAgreesWithReference) {
  coverage = Coverage{};
  int failing = 0;
  for (int game = GetParam(); game < kGames; game += kShards) {
    if (!PlayAndCheckGame(game) && ++failing == kMaxFailingGames) {
      GTEST_SKIP() << "stopped after " << failing << " failing games";
    }
  }
  const Coverage& c = coverage;
  std::printf(
      "plies %d; beams: left board %d, hit %d, absorbed %d, blocked %d, "
      "split %d, looped %d; swaps %d, top obelisk moves %d, stackings %d, "
      "sphinx turns %d, stack hits %d, own pieces hit %d; games: pharaoh hit "
      "%d, both %d, at the ply limit %d\n",
      c.plies, c.beam_ends[0], c.beam_ends[1], c.beam_ends[2], c.beam_ends[3],
      c.beam_ends[4], c.beam_ends[5], c.swaps, c.top_obelisk_moves, c.stackings,
      c.sphinx_turns, c.stack_hits, c.own_pieces_hit, c.pharaoh_hits,
      c.both_pharaohs_hit, c.games_at_ply_limit);
  // Every shard meets every kind of beam end and of move. (Both Pharaohs
  // hit by one shot is rarer: about one game in 600.)
  for (int end = 0; end < 6; ++end) EXPECT_GT(c.beam_ends[end], 0) << end;
  EXPECT_GT(c.swaps, 0);
  EXPECT_GT(c.top_obelisk_moves, 0);
  EXPECT_GT(c.stackings, 0);
  EXPECT_GT(c.sphinx_turns, 0);
  EXPECT_GT(c.stack_hits, 0);
  EXPECT_GT(c.own_pieces_hit, 0);
  EXPECT_GT(c.pharaoh_hits, 0);
  EXPECT_GT(c.games_at_ply_limit, 0);
}

INSTANTIATE_TEST_SUITE_P(Shards, RandomGamesTest, testing::Range(0, kShards));

class PhysicalFacingsGamesTest : public testing::TestWithParam<int> {};

TEST_P(PhysicalFacingsGamesTest, EngineAgreesWithReference) {
  coverage = Coverage{};
  int failing = 0;
  for (int game = GetParam(); game < kPhysicalGames; game += kPhysicalShards) {
    if (!PlayAndCheckGame(game, /*physical_facings=*/true) &&
        ++failing == kMaxFailingGames) {
      GTEST_SKIP() << "stopped after " << failing << " failing games";
    }
  }
  const Coverage& c = coverage;
  std::printf(
      "plies %d; beams: left board %d, hit %d, absorbed %d, blocked %d, "
      "split %d, looped %d; swaps %d, stackings %d, pharaoh turns %d, "
      "anticlockwise scarab turns %d; repetitions %d, facing-only "
      "differences %d; games: pharaoh hit %d\n",
      c.plies, c.beam_ends[0], c.beam_ends[1], c.beam_ends[2], c.beam_ends[3],
      c.beam_ends[4], c.beam_ends[5], c.swaps, c.stackings, c.pharaoh_turns,
      c.anticlockwise_scarab_turns, c.repetitions, c.facing_only_differences,
      c.pharaoh_hits);
  for (int end = 0; end < 6; ++end) EXPECT_GT(c.beam_ends[end], 0) << end;
  EXPECT_GT(c.swaps, 0);
  EXPECT_GT(c.stackings, 0);
  EXPECT_GT(c.pharaoh_turns, 0);
  EXPECT_GT(c.anticlockwise_scarab_turns, 0);
  EXPECT_GT(c.repetitions, 0);
  EXPECT_GT(c.facing_only_differences, 0);
  EXPECT_GT(c.pharaoh_hits, 0);
}

INSTANTIATE_TEST_SUITE_P(Shards, PhysicalFacingsGamesTest,
                         testing::Range(0, kPhysicalShards));

// The option's starting facings are the ones docs/notation.md decides, as
// the reference gives them to its own transcription of section 7.
TEST(PhysicalFacingsSetups, EngineGivesTheReferencesStartingFacings) {
  for (const SetupInfo& info : AllSetups()) {
    absl::StatusOr<Position> pos = SetupPosition(info.id);
    ASSERT_TRUE(pos.ok()) << pos.status();
    pos->SetPhysicalFacings(true);
    EXPECT_TRUE(pos->Validate().ok()) << info.id << ": " << pos->Validate();
    ref::Board expected;
    ASSERT_TRUE(ref::RulesSetup(std::string(info.id), &expected)) << info.id;
    ref::GivePhysicalFacings(&expected);
    EXPECT_EQ(ref::BoardToText(ref::ToReference(*pos)),
              ref::BoardToText(expected));
    // And in the engine's own notation, read back by the reference.
    ref::Board read;
    ASSERT_TRUE(ref::BoardFromText(FormatPosition(*pos), &read))
        << FormatPosition(*pos);
    EXPECT_TRUE(read == expected) << FormatPosition(*pos);
  }
}

// Disagreements found by the random games, kept as small named cases.

// laser.h: Beam::end_square is "-1 if it left the board" (and end_piece then
// empty). Silver's beam turns W at the Scarab on j4 and leaves the board
// beyond a4.
TEST(ReferenceAgreementCases, BeamThatLeftTheBoardHasNoEndSquare) {
  ref::Board board;
  ASSERT_TRUE(
      ref::BoardFromText("xs4k4/10/10/10/9S\\/10/10/4K4Xn s 2", &board));
  const Position pos = ref::ToEngine(board);
  ASSERT_TRUE(pos.Validate().ok()) << pos.Validate();
  const BeamTrace trace = TraceLaser(pos, Color::kSilver);
  ASSERT_EQ(trace.beams.size(), 1u);
  EXPECT_EQ(trace.beams[0].end, BeamEnd::kLeftBoard);
  EXPECT_EQ(trace.beams[0].end_square, -1);
  EXPECT_TRUE(trace.beams[0].end_piece.empty());
  EXPECT_TRUE(
      ref::SameTrace(ref::ToReference(trace), ref::TraceLaser(board, false)))
      << ref::TraceToText(ref::ToReference(trace));
}

std::string SetupTestName(const testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// Engine perft against reference perft at `depth`; on a difference, names
// the root moves whose subtrees differ.
void ExpectPerftAgrees(const char* setup, int depth,
                       bool physical_facings = false) {
  absl::StatusOr<Position> start = SetupPosition(setup);
  ASSERT_TRUE(start.ok()) << start.status();
  start->SetPhysicalFacings(physical_facings);
  const ref::Board board = ref::ToReference(*start);
  const uint64_t expected = ref::Perft(board, depth);
  const uint64_t engine = Perft(*start, depth);
  EXPECT_EQ(engine, expected) << setup << " depth " << depth;
  if (depth <= 2) {
    EXPECT_EQ(Perft(*start, depth, /*bulk_count=*/false), expected)
        << setup << " depth " << depth << " without bulk counting";
  }
  if (engine == expected) return;
  for (const auto& [move, count] : PerftDivide(*start, depth)) {
    const ref::MoveResult child = ref::ApplyMove(board, ref::ToReference(move));
    const bool over = child.silver_pharaoh_hit || child.red_pharaoh_hit;
    const uint64_t want =
        depth == 1 ? 1 : (over ? 0 : ref::Perft(child.after, depth - 1));
    EXPECT_EQ(count, want) << "root move "
                           << ref::MoveToText(ref::ToReference(move));
  }
}

// Depths 1-3 of every setup.
class PerftAgreementTest : public testing::TestWithParam<const char*> {};

TEST_P(PerftAgreementTest, DepthsOneToThree) {
  for (int depth = 1; depth <= 3; ++depth) {
    ExpectPerftAgrees(GetParam(), depth);
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Setups, PerftAgreementTest,
                         testing::Values("classic-2", "imhotep-2", "dynasty-2",
                                         "classic-1", "classic-2b", "imhotep-1",
                                         "dynasty-1", "classic-1b",
                                         "imhotep-2b", "dynasty-2b",
                                         "imhotep-1b", "dynasty-1b", "osiris",
                                         "isis"),
                         SetupTestName);

// Depth 4 of the setups whose counts perft_test freezes: a few seconds in a
// Debug build, so under the ctest label `slow` with perft_test's PerftSlow.
class PerftAgreementSlow : public testing::TestWithParam<const char*> {};

TEST_P(PerftAgreementSlow, DepthFour) { ExpectPerftAgrees(GetParam(), 4); }

// With physical facings: depths 1-3 of every setup, and depth 4 of the
// setups whose counts perft_test freezes for the option.
class PhysicalFacingsPerftAgreementTest
    : public testing::TestWithParam<const char*> {};

TEST_P(PhysicalFacingsPerftAgreementTest, DepthsOneToThree) {
  for (int depth = 1; depth <= 3; ++depth) {
    ExpectPerftAgrees(GetParam(), depth, /*physical_facings=*/true);
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Setups, PhysicalFacingsPerftAgreementTest,
                         testing::Values("classic-2", "imhotep-2", "dynasty-2",
                                         "classic-1", "classic-2b", "imhotep-1",
                                         "dynasty-1", "classic-1b",
                                         "imhotep-2b", "dynasty-2b",
                                         "imhotep-1b", "dynasty-1b", "osiris",
                                         "isis"),
                         SetupTestName);

class PhysicalFacingsPerftAgreementSlow
    : public testing::TestWithParam<const char*> {};

TEST_P(PhysicalFacingsPerftAgreementSlow, DepthFour) {
  ExpectPerftAgrees(GetParam(), 4, /*physical_facings=*/true);
}

INSTANTIATE_TEST_SUITE_P(Setups, PhysicalFacingsPerftAgreementSlow,
                         testing::Values("classic-2", "classic-1", "osiris"),
                         SetupTestName);

INSTANTIATE_TEST_SUITE_P(Setups, PerftAgreementSlow,
                         testing::Values("classic-2", "imhotep-2", "dynasty-2",
                                         "classic-1", "classic-2b", "osiris",
                                         "isis", "dynasty-1b"),
                         SetupTestName);

}  // namespace
}  // namespace khet
