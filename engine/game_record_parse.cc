// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Reading game records: the headers, then the movetext replayed move by
// move with its comments, up to the result token (ParseGameRecord and
// ParseGameRecords of game_record.h).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/absl_view.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/game_record_headers.h"
#include "engine/game_record_movetext.h"
#include "engine/game_record_reader.h"
#include "engine/move.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {

using game_record_internal::ApplyTermination;
using game_record_internal::HitText;
using game_record_internal::IsHitClaim;
using game_record_internal::kPositionHeader;
using game_record_internal::kResultHeader;
using game_record_internal::LineError;
using game_record_internal::MoveLabel;
using game_record_internal::MoveNumber;
using game_record_internal::OutcomeFromToken;
using game_record_internal::ParseHeaderLine;
using game_record_internal::Reader;
using game_record_internal::ReadHeaders;
using game_record_internal::RuleOptionsFromHeaders;
using game_record_internal::Shown;
using game_record_internal::StartFromHeaders;
using game_record_internal::TrimWhitespace;
using game_record_internal::UnescapeComment;

namespace {

bool IsDigit(char c) {
  return absl::ascii_isdigit(static_cast<unsigned char>(c));
}

// Reads the record that starts at the reader's next character, which is
// not whitespace, up to its result token or the end of the text.
absl::StatusOr<GameRecord> ReadRecord(Reader* reader) {
  const int record_line = reader->line();
  ReadHeaders read;
  for (reader->SkipWhitespace(); !reader->AtEnd() && reader->Peek() == '[';
       reader->SkipWhitespace()) {
    const int line = reader->line();
    absl::StatusOr<std::pair<std::string, std::string>> header =
        ParseHeaderLine(TrimWhitespace(reader->RestOfLine()), line);
    if (!header.ok()) return header.status();
    if (read.Find(header->first) >= 0) {
      return LineError(line, absl::StrCat("header ", Shown(header->first),
                                          " appears twice"));
    }
    read.headers.push_back(*std::move(header));
    read.lines.push_back(line);
  }

  absl::StatusOr<Position> start = StartFromHeaders(read, record_line);
  if (!start.ok()) return start.status();
  absl::StatusOr<RuleOptions> options = RuleOptionsFromHeaders(read);
  if (!options.ok()) return options.status();
  if (start->physical_facings() != options->physical_facings) {
    // A named setup takes the option's facings; a written position has its
    // own and must agree.
    if (const int i = read.Find(kPositionHeader); i >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i),
          options->physical_facings
              ? "has two-state facings, but the Facings header is \"physical\""
              : "has physical facings (\"f\"), but there is no Facings "
                "header"));
    }
    start->SetPhysicalFacings(options->physical_facings);
  }
  std::optional<Outcome> claimed;
  int claimed_line = 0;
  if (const int i = read.Find(kResultHeader); i >= 0) {
    claimed = OutcomeFromToken(read.headers[i].second);
    claimed_line = read.lines[i];
    if (!claimed.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i), "must be \"1-0\", \"0-1\", \"1/2-1/2\" or \"*\""));
    }
  }

  GameRecord record{read.headers, Game(*start, *options), GameComments(1),
                    record_line};
  Game& game = record.game;
  const Color first_mover = start->side_to_move();
  std::string last_move;     // "move 3. e4-e3", for messages
  std::string expected_hit;  // the last move's hit comment
  bool hit_seen = false;     // whether the record gave it
  std::string pending_number;
  int pending_line = 0;
  bool ended = false;
  for (reader->SkipWhitespace(); !reader->AtEnd() && !ended;
       reader->SkipWhitespace()) {
    const int line = reader->line();
    const char c = reader->Peek();
    if (c == '[') {
      return LineError(
          line, absl::StrCat("header ",
                             QuotedText(TrimWhitespace(reader->RestOfLine())),
                             " comes after the moves; a record ends with its "
                             "result token before the next one's headers"));
    }
    if (c == '}') return LineError(line, "\"}\" without a \"{\" before it");
    if (c == '{') {
      const std::optional<std::string_view> raw = reader->Comment();
      if (!raw.has_value()) {
        return LineError(
            line, absl::StrCat("the comment ", QuotedText(reader->Rest()),
                               " is not closed with \"}\""));
      }
      std::vector<std::string>& after = record.comments.back();
      if (!IsHitClaim(*raw)) {
        after.push_back(UnescapeComment(*raw));
        continue;
      }
      const std::string said = QuotedText(UnescapeComment(*raw));
      if (game.ply() == 0) {
        return LineError(line, absl::StrCat("the comment ", said,
                                            " reads as a hit comment, but "
                                            "no move has been played"));
      }
      const std::string where = absl::StrCat(last_move, ": the comment ", said);
      if (hit_seen || !after.empty()) {
        return LineError(line, absl::StrCat(where,
                                            " reads as a hit comment, which "
                                            "comes first after its move"));
      }
      if (UnescapeComment(*raw) != expected_hit) {
        return LineError(
            line, absl::StrCat(where, " disagrees with the replay: ",
                               expected_hit.empty()
                                   ? std::string("the laser hit nothing")
                                   : absl::StrCat("\"", expected_hit, "\"")));
      }
      hit_seen = true;
      continue;
    }
    std::string_view token = reader->Token();
    if (const std::optional<Outcome> outcome = OutcomeFromToken(token)) {
      if (!pending_number.empty()) {
        return LineError(pending_line, absl::StrCat("move number ",
                                                    QuotedText(pending_number),
                                                    " has no move after it"));
      }
      if (claimed.has_value() && *claimed != *outcome) {
        return LineError(line,
                         absl::StrCat("the moves end in ", QuotedText(token),
                                      " but header Result is ",
                                      QuotedText(ResultToken(*claimed))));
      }
      claimed = outcome;
      claimed_line = line;
      ended = true;
      continue;
    }
    if (IsDigit(token[0])) {
      if (!pending_number.empty()) {
        return LineError(pending_line, absl::StrCat("move number ",
                                                    QuotedText(pending_number),
                                                    " has no move after it"));
      }
      size_t digits = 0;
      while (digits < token.size() && IsDigit(token[digits])) ++digits;
      size_t dots = digits;
      while (dots < token.size() && token[dots] == '.') ++dots;
      int number = 0;
      if (dots == digits ||
          !absl::SimpleAtoi(Av(token.substr(0, digits)), &number)) {
        return LineError(
            line,
            absl::StrCat(QuotedText(token), " after move ", game.ply(),
                         " is neither a move number (\"3.\"), a move nor a "
                         "result"));
      }
      const int expected = MoveNumber(game.ply(), first_mover);
      if (number != expected) {
        return LineError(
            line,
            absl::StrCat("move number ", QuotedText(token.substr(0, dots)),
                         " where ", expected, " was expected"));
      }
      token.remove_prefix(dots);  // "1.j1L" also reads as "1. j1L"
      if (token.empty()) {
        pending_number = absl::StrCat(number, std::string(dots - digits, '.'));
        pending_line = line;
        continue;
      }
    }
    pending_number.clear();
    const Position before = game.position();
    last_move = absl::StrCat(
        "move ", MoveLabel(game.ply(), first_mover, before.side_to_move()), " ",
        Shown(token));
    absl::StatusOr<Move> move = ParseMove(before, token);
    if (!move.ok()) {
      return LineError(line,
                       absl::StrCat(last_move, ": ", move.status().message()));
    }
    absl::StatusOr<MoveEffects> played = game.Play(*move);
    if (!played.ok()) {
      return LineError(
          line, absl::StrCat(last_move, ": ", game.over() ? "" : "illegal: ",
                             played.status().message()));
    }
    expected_hit = HitText(before, *played);
    hit_seen = false;
    record.comments.emplace_back();
  }
  if (!pending_number.empty()) {
    return LineError(pending_line,
                     absl::StrCat("move number ", QuotedText(pending_number),
                                  " has no move after it"));
  }

  if (absl::Status status = ApplyTermination(read, claimed, &game);
      !status.ok()) {
    return status;
  }
  const Outcome replayed = game.result().outcome;
  if (claimed.has_value() && *claimed != replayed) {
    return LineError(
        claimed_line,
        absl::StrCat(
            "the record gives the result ", QuotedText(ResultToken(*claimed)),
            " but replaying it gives ", QuotedText(ResultToken(replayed)),
            game.over()
                ? absl::StrCat(" (", Av(ResultReasonName(game.result().reason)),
                               ")")
                : std::string(" (the game is still going)")));
  }
  if (ended) {
    reader->SkipWhitespace();
    if (!reader->AtEnd() && reader->Peek() != '[') {
      const int line = reader->line();
      return LineError(line, absl::StrCat(QuotedText(reader->Word()),
                                          " after the result: a record ends "
                                          "with its result token, the next "
                                          "one starts with its headers"));
    }
  }
  return record;
}

// Reads up to `limit` records (0: any number).
absl::StatusOr<std::vector<GameRecord>> ReadRecords(std::string_view text,
                                                    size_t limit) {
  Reader reader(text);
  std::vector<GameRecord> records;
  for (reader.SkipWhitespace(); !reader.AtEnd(); reader.SkipWhitespace()) {
    if (limit > 0 && records.size() == limit) {
      return LineError(reader.line(),
                       "a second game record starts here; "
                       "ParseGameRecords reads several");
    }
    absl::StatusOr<GameRecord> record = ReadRecord(&reader);
    if (!record.ok()) return record.status();
    records.push_back(*std::move(record));
  }
  return records;
}

}  // namespace

absl::StatusOr<GameRecord> ParseGameRecord(std::string_view text) {
  absl::StatusOr<std::vector<GameRecord>> records = ReadRecords(text, 1);
  if (!records.ok()) return records.status();
  if (records->empty()) {
    return LineError(1, "no game record: a record starts with its headers");
  }
  return std::move(records->front());
}

absl::StatusOr<std::vector<GameRecord>> ParseGameRecords(
    std::string_view text) {
  return ReadRecords(text, 0);
}

}  // namespace khet
