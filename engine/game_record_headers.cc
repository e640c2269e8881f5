// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The header lines of game records: escaping and parsing a line, and the
// start, rule options and termination a record's headers give
// (game_record_headers.h).
#include "engine/game_record_headers.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/absl_view.h"
#include "engine/game.h"
#include "engine/game_record_reader.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/types.h"

namespace khet {
namespace game_record_internal {
namespace {

constexpr ResultReason kAllReasons[] = {
    ResultReason::kNone,
    ResultReason::kPharaohHit,
    ResultReason::kBothPharaohsHit,
    ResultReason::kResignation,
    ResultReason::kAgreedDraw,
    ResultReason::kRepetitionClaimed,
    ResultReason::kRepetition,
    ResultReason::kPlyLimit,
    ResultReason::kTimeForfeit,
};

bool IsHeaderNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '-';
}

}  // namespace

bool IsGameHeader(std::string_view name) {
  for (std::string_view reserved :
       {kSetupHeader, kPositionHeader, kEditionHeader, kBothPharaohsHeader,
        kRepetitionHeader, kPlyLimitHeader, kFacingsHeader, kResultHeader,
        kTerminationHeader}) {
    if (name == reserved) return true;
  }
  return false;
}

bool IsRosterHeader(std::string_view name) {
  for (std::string_view roster : kRosterHeaders) {
    if (name == roster) return true;
  }
  return false;
}

std::string_view EditionName(Edition e) {
  return e == Edition::kKhet1 ? "Khet 1.0" : "Khet 2.0";
}

std::string EscapeHeaderValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '"' || c == '\\') out.push_back('\\');
    // A header is one line: a line break in a value becomes a space.
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  }
  return out;
}

absl::StatusOr<std::pair<std::string, std::string>> ParseHeaderLine(
    std::string_view line, int line_number) {
  auto error = [&](std::string_view why) {
    return LineError(line_number,
                     absl::StrCat("header ", QuotedText(line), ": ", Av(why)));
  };
  if (line.size() < 2 || line.front() != '[' || line.back() != ']') {
    return error("a header is written [Name \"value\"] on a line of its own");
  }
  std::string_view inner = TrimWhitespace(line.substr(1, line.size() - 2));
  size_t i = 0;
  while (i < inner.size() && IsHeaderNameChar(inner[i])) ++i;
  if (i == 0) return error("the header has no name");
  std::string name(inner.substr(0, i));
  std::string_view rest = TrimWhitespace(inner.substr(i));
  if (rest.size() < 2 || rest.front() != '"' || rest.back() != '"') {
    return error("the value must be in double quotes");
  }
  rest = rest.substr(1, rest.size() - 2);
  std::string value;
  for (size_t j = 0; j < rest.size(); ++j) {
    char c = rest[j];
    if (c == '\\') {
      if (j + 1 == rest.size()) return error("the value ends with a lone \\");
      c = rest[++j];
    } else if (c == '"') {
      return error("a \" inside the value must be written \\\"");
    }
    value.push_back(c);
  }
  return std::make_pair(std::move(name), std::move(value));
}

absl::StatusOr<RuleOptions> RuleOptionsFromHeaders(const ReadHeaders& read) {
  RuleOptions options;
  if (const int i = read.Find(kBothPharaohsHeader); i >= 0) {
    const std::string& v = read.headers[i].second;
    if (v == "mover loses" || v == "draw") {
      options.both_pharaohs_hit_draws = v == "draw";
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "must be \"mover loses\" or \"draw\""));
    }
  }
  if (const int i = read.Find(kRepetitionHeader); i >= 0) {
    const std::string& v = read.headers[i].second;
    if (v == "claim" || v == "automatic") {
      options.automatic_repetition_draw = v == "automatic";
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "must be \"claim\" or \"automatic\""));
    }
  }
  if (const int i = read.Find(kPlyLimitHeader); i >= 0) {
    int limit = 0;
    if (!absl::SimpleAtoi(read.headers[i].second, &limit) || limit < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i), "must be a whole number, 0 for no limit"));
    }
    options.ply_limit = limit;
  }
  if (const int i = read.Find(kFacingsHeader); i >= 0) {
    if (read.headers[i].second != "physical") {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i), "must be \"physical\" (left out: two-state facings)"));
    }
    options.physical_facings = true;
  }
  return options;
}

absl::StatusOr<Position> StartFromHeaders(const ReadHeaders& read,
                                          int record_line) {
  const int setup = read.Find(kSetupHeader);
  const int position = read.Find(kPositionHeader);
  if (setup >= 0 && position >= 0) {
    return LineError(
        read.lines[std::max(setup, position)],
        "a game record has either a Setup or a Position header, not both");
  }
  absl::StatusOr<Position> start;
  if (setup >= 0) {
    start = SetupPosition(read.headers[setup].second);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(setup), start.status().message()));
    }
  } else if (position >= 0) {
    start = ParsePosition(read.headers[position].second);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(position), start.status().message()));
    }
  } else {
    return LineError(
        record_line,
        "a game record needs a Setup or a Position header for its start");
  }
  if (const int i = read.Find(kEditionHeader); i >= 0) {
    const std::string& v = read.headers[i].second;
    std::optional<Edition> edition;
    if (v == "Khet 1.0" || v == "1") edition = Edition::kKhet1;
    if (v == "Khet 2.0" || v == "2") edition = Edition::kKhet2;
    if (!edition.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "must be \"Khet 1.0\" or \"Khet 2.0\""));
    }
    if (*edition != start->edition()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "disagrees with the start, which is ",
                       Av(EditionName(start->edition()))));
    }
  }
  return start;
}

absl::Status ApplyTermination(const ReadHeaders& read,
                              std::optional<Outcome> claimed, Game* game) {
  const int index = read.Find(kTerminationHeader);
  if (index < 0) return absl::OkStatus();
  const std::string& termination = read.headers[index].second;
  const std::string where = read.Where(index);
  std::optional<ResultReason> reason;
  for (ResultReason r : kAllReasons) {
    if (ResultReasonName(r) == termination) reason = r;
  }
  if (!reason.has_value()) {
    std::string known;
    for (ResultReason r : kAllReasons) {
      absl::StrAppend(&known, known.empty() ? "" : ", ",
                      QuotedText(ResultReasonName(r)));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(where, "not a known reason (", known, ")"));
  }
  absl::Status status;
  switch (*reason) {
    case ResultReason::kResignation:
      if (claimed == Outcome::kSilverWins) {
        status = game->Resign(Color::kRed);
      } else if (claimed == Outcome::kRedWins) {
        status = game->Resign(Color::kSilver);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "needs a result of \"1-0\" or \"0-1\" to say who resigned"));
      }
      break;
    case ResultReason::kTimeForfeit:
      if (claimed == Outcome::kSilverWins) {
        status = game->LoseOnTime(Color::kRed);
      } else if (claimed == Outcome::kRedWins) {
        status = game->LoseOnTime(Color::kSilver);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            where,
            "needs a result of \"1-0\" or \"0-1\" to say whose time ran out"));
      }
      break;
    case ResultReason::kAgreedDraw:
      status = game->AgreeDraw();
      break;
    case ResultReason::kRepetitionClaimed:
      status = game->ClaimRepetitionDraw(game->position().side_to_move());
      break;
    default:
      if (game->result().reason != *reason) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "the moves end with ",
            game->over() ? QuotedText(ResultReasonName(game->result().reason))
                         : std::string("the game still going")));
      }
      return absl::OkStatus();
  }
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "after the last move: ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace game_record_internal
}  // namespace khet
