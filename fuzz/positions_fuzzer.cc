// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Fuzzes the rules on positions built from fuzz bytes: a setup (byte 0),
// then up to 15 edits (byte 1 says how many; its bit 0x40 turns on the rule
// option physical_facings, 0x80 gives Red the move) of a square and a piece
// code, then move choices. A position counts only if its canonical text parses
// and validates (ParsePosition). On it, and after each move chosen, checks:
// - GenerateMoves lists exactly the moves of the tests' independent
//   reference (tests/reference/), and CountMoves agrees;
// - every listed move applies (ApplyMove and CheckMove accept it), the fast
//   MakeMove gives the same position, and the reference's ApplyMove gives
//   the same board;
// - both colours' laser traces end (at most 320 beam states: 4 directions
//   on 80 squares) and equal the reference's;
// - every hash, incremental or after a move, equals the hash computed from
//   scratch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "fuzz/fuzz_check.h"
#include "tests/reference/engine_conversion.h"
#include "tests/reference/reference_rules.h"

namespace khet {
namespace {

namespace ref = ::khet::reference;

// Plies played from the fuzzed position at most, each checked in full.
constexpr int kMaxPlies = 4;

void CheckTraces(const Position& pos, const std::string& where) {
  const ref::Board board = ref::ToReference(pos);
  for (const Color shooter : {Color::kSilver, Color::kRed}) {
    const BeamTrace trace = TraceLaser(pos, shooter);
    KHET_FUZZ_CHECK(trace.beams.size() + trace.segments.size() <= 2 * 320,
                    where);
    const ref::Trace expected = ref::TraceLaser(board, shooter == Color::kRed);
    KHET_FUZZ_CHECK(ref::SameTrace(ref::ToReference(trace), expected),
                    absl::StrCat(where, "\nengine:\n",
                                 ref::TraceToText(ref::ToReference(trace)),
                                 "\nreference:\n", ref::TraceToText(expected)));
    KHET_FUZZ_CHECK(LaserHits(pos, shooter) == trace.hit, where);
  }
}

// Checks `pos` in full; returns its legal moves.
MoveList CheckPosition(const Position& pos) {
  const std::string where = FormatPosition(pos);
  KHET_FUZZ_CHECK(pos.hash() == pos.ComputeHash(), where);
  CheckTraces(pos, where);

  MoveList list;
  GenerateMoves(pos, &list);
  KHET_FUZZ_CHECK(CountMoves(pos) == list.size, where);
  const ref::Board board = ref::ToReference(pos);
  std::vector<ref::Move> expected = ref::LegalMoves(board);
  std::sort(expected.begin(), expected.end());
  KHET_FUZZ_CHECK(ref::SortedReferenceMoves(list) == expected,
                  absl::StrCat(where, ": engine lists ", list.size,
                               " moves, the reference ", expected.size()));

  for (const Move move : list) {
    const std::string label =
        absl::StrCat(where, " move ", FormatMove(pos, move));
    const absl::StatusOr<Move> checked = CheckMove(pos, move);
    KHET_FUZZ_CHECK(checked.ok() && *checked == move, label);
    Position applied = pos;
    const absl::StatusOr<MoveEffects> effects = ApplyMove(&applied, move);
    KHET_FUZZ_CHECK(effects.ok(),
                    absl::StrCat(label, ": ", effects.status().ToString()));
    KHET_FUZZ_CHECK(applied.hash() == applied.ComputeHash(), label);
    Position fast = pos;
    const PharaohsHit hit = MakeMove(&fast, move);
    KHET_FUZZ_CHECK(fast == applied && fast.hash() == applied.hash() &&
                        hit == effects->pharaohs_hit,
                    label);
    const ref::MoveResult result =
        ref::ApplyMove(board, ref::ToReference(move));
    KHET_FUZZ_CHECK(
        result.after == ref::ToReference(applied),
        absl::StrCat(label, ": engine gives ", FormatPosition(applied),
                     ", the reference ", ref::BoardToText(result.after)));
  }
  return list;
}

}  // namespace
}  // namespace khet

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace khet;
  if (size < 2) return 0;
  const auto setups = AllSetups();
  Position pos = *SetupPosition(setups[data[0] % setups.size()].id);
  if (data[1] & 0x80) pos.FlipSideToMove();
  if (data[1] & 0x40) pos.SetPhysicalFacings(true);
  size_t at = 2;
  for (int edits = data[1] & 15; edits > 0 && at + 1 < size; --edits) {
    pos.Set(data[at] % kSquares, Piece::FromCode(data[at + 1]));
    at += 2;
  }
  // Only what the notation reads and validates.
  const absl::StatusOr<Position> parsed = ParsePosition(FormatPosition(pos));
  if (!parsed.ok()) return 0;
  pos = *parsed;
  for (int ply = 0;; ++ply) {
    const MoveList list = CheckPosition(pos);
    if (ply == kMaxPlies || list.size == 0 || at >= size) break;
    const PharaohsHit hit = MakeMove(&pos, list.moves[data[at++] % list.size]);
    if (hit != 0) break;  // the game is over
  }
  return 0;
}
