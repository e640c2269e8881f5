// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Fuzzes the text notation of engine/notation.h and engine/game_record.h:
// squares, moves, positions, beam traces and game records. The first byte picks
// the format, the rest is the text. Checks, for each format that is read:
// - errors are INVALID_ARGUMENT statuses, never crashes;
// - whatever parses prints back to canonical text that parses again to the
//   same value and prints to the same text (canonical text is a fixed
//   point), and text that already was canonical prints back unchanged;
// for beam traces (written, never read) that the trace of any valid
// position prints one line per beam; and for game records (files of
// several) that every error names a line of the text, and that the games
// and comments read back the same.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/laser.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "fuzz/fuzz_check.h"

namespace khet {
namespace {

void CheckError(const absl::Status& status, std::string_view text) {
  KHET_FUZZ_CHECK(
      status.code() == absl::StatusCode::kInvalidArgument,
      absl::StrCat("input ", QuotedText(text), " gave ", status.ToString()));
  KHET_FUZZ_CHECK(!status.message().empty(), std::string(text));
}

void FuzzSquare(std::string_view text) {
  const absl::StatusOr<Square> square = ParseSquare(text);
  if (!square.ok()) return CheckError(square.status(), text);
  const std::string printed = SquareName(*square);
  KHET_FUZZ_CHECK(printed == text, printed);
}

// The position a move is read in: one of the setups, picked by `selector`.
const Position& SetupFor(uint8_t selector) {
  static const auto* const positions = [] {
    auto* list = new std::vector<Position>;
    for (const SetupInfo& setup : AllSetups()) {
      list->push_back(*SetupPosition(setup.id));
      Position red = list->back();
      red.FlipSideToMove();
      list->push_back(red);
    }
    return list;
  }();
  return (*positions)[selector % positions->size()];
}

void FuzzMove(std::string_view data) {
  if (data.empty()) return;
  const Position& pos = SetupFor(static_cast<uint8_t>(data[0]));
  const std::string_view text = data.substr(1);
  const absl::StatusOr<Move> move = ParseMove(pos, text);
  if (!move.ok()) return CheckError(move.status(), text);
  const std::string printed = FormatMove(pos, *move);
  const absl::StatusOr<Move> again = ParseMove(pos, printed);
  KHET_FUZZ_CHECK(again.ok() && *again == *move,
                  absl::StrCat(QuotedText(text), " printed as ", printed));
  KHET_FUZZ_CHECK(FormatMove(pos, *again) == printed, printed);
}

void CheckTrace(const Position& pos, Color shooter) {
  const BeamTrace trace = TraceLaser(pos, shooter);
  const std::string text = FormatTrace(trace);
  size_t newlines = 0;
  for (char c : text) newlines += c == '\n';
  KHET_FUZZ_CHECK(newlines == trace.beams.size(),
                  absl::StrCat(FormatPosition(pos), "\n", text));
  KHET_FUZZ_CHECK(trace.hit == LaserHits(pos, shooter), FormatPosition(pos));
}

void FuzzPosition(std::string_view text) {
  const absl::StatusOr<Position> pos = ParsePosition(text);
  if (!pos.ok()) return CheckError(pos.status(), text);
  const std::string printed = FormatPosition(*pos);
  const absl::StatusOr<Position> again = ParsePosition(printed);
  KHET_FUZZ_CHECK(again.ok() && *again == *pos && again->hash() == pos->hash(),
                  absl::StrCat(QuotedText(text), " printed as ", printed));
  KHET_FUZZ_CHECK(FormatPosition(*again) == printed, printed);
  // The reader's only freedoms are spacing and leading zeros in a run of
  // empty squares ("03"): without those, the text was canonical.
  const std::string spaced = absl::StrJoin(
      absl::StrSplit(absl::string_view(text.data(), text.size()),
                     absl::ByAnyChar(" \t\n\v\f\r"), absl::SkipEmpty()),
      " ");
  std::string expected;
  for (size_t i = 0; i < spaced.size();) {
    const char c = spaced[i];
    if (c == 'O' || c == 'o') {  // an Obelisk and its height digit
      expected.append(spaced, i, 2);
      i += 2;
    } else if (c >= '0' && c <= '9') {
      size_t j = i;
      while (j < spaced.size() && spaced[j] >= '0' && spaced[j] <= '9') ++j;
      while (i + 1 < j && spaced[i] == '0') ++i;
      expected.append(spaced, i, j - i);
      i = j;
    } else {
      expected.push_back(c);
      ++i;
    }
  }
  KHET_FUZZ_CHECK(expected == printed,
                  absl::StrCat(QuotedText(text), " printed as ", printed));
}

void FuzzTrace(std::string_view text) {
  const absl::StatusOr<Position> pos = ParsePosition(text);
  if (!pos.ok()) return CheckError(pos.status(), text);
  CheckTrace(*pos, Color::kSilver);
  CheckTrace(*pos, Color::kRed);
}

// A record's error starts "line N: " with N a line of the text.
void CheckRecordError(const absl::Status& status, std::string_view text) {
  CheckError(status, text);
  const absl::string_view message = status.message();
  const size_t colon = message.find(": ");
  int line = 0;
  const bool named = absl::StartsWith(message, "line ") &&
                     colon != absl::string_view::npos &&
                     absl::SimpleAtoi(message.substr(5, colon - 5), &line);
  const int lines =
      1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  KHET_FUZZ_CHECK(
      named && line >= 1 && line <= lines,
      absl::StrCat("input ", QuotedText(text), " gave ", status.ToString()));
}

bool SameRecord(const GameRecord& a, const GameRecord& b) {
  return a.game.start() == b.game.start() && a.game.moves() == b.game.moves() &&
         a.game.options() == b.game.options() &&
         a.game.result() == b.game.result() &&
         a.game.position() == b.game.position() && a.comments == b.comments;
}

// Whatever reads formats to text that reads again to the same games and
// comments and formats to the same text; ParseGameRecord reads exactly the
// texts of one record.
void FuzzGameRecords(std::string_view text) {
  const absl::StatusOr<std::vector<GameRecord>> records =
      ParseGameRecords(text);
  const absl::StatusOr<GameRecord> one = ParseGameRecord(text);
  if (!records.ok()) {
    CheckRecordError(records.status(), text);
    KHET_FUZZ_CHECK(!one.ok(), QuotedText(text));
    return;
  }
  KHET_FUZZ_CHECK(one.ok() == (records->size() == 1), QuotedText(text));
  if (!one.ok()) CheckRecordError(one.status(), text);
  const std::string printed = FormatGameRecords(*records);
  const absl::StatusOr<std::vector<GameRecord>> again =
      ParseGameRecords(printed);
  KHET_FUZZ_CHECK(
      again.ok() && again->size() == records->size(),
      absl::StrCat(QuotedText(text), " printed as\n", printed,
                   "\nwhich reads as ",
                   again.ok() ? absl::StrCat(again->size(), " records")
                              : again.status().ToString()));
  for (size_t i = 0; i < records->size(); ++i) {
    KHET_FUZZ_CHECK(SameRecord((*records)[i], (*again)[i]), printed);
  }
  KHET_FUZZ_CHECK(FormatGameRecords(*again) == printed, printed);
  if (one.ok()) {
    KHET_FUZZ_CHECK(
        SameRecord(*one, records->front()) && FormatGameRecord(*one) == printed,
        printed);
  }
}

}  // namespace
}  // namespace khet

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1,
                              size - 1);
  switch (data[0] % 5) {
    case 0:
      khet::FuzzSquare(text);
      break;
    case 1:
      khet::FuzzMove(text);
      break;
    case 2:
      khet::FuzzPosition(text);
      break;
    case 3:
      khet::FuzzTrace(text);
      break;
    case 4:
      khet::FuzzGameRecords(text);
      break;
  }
  return 0;
}
