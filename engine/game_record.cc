// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Writing game records: the headers in their fixed order, then the moves
// with their comments wrapped at 80 columns (FormatGameRecord and
// FormatGameRecords of game_record.h). Reading is in game_record_parse.cc.
#include "engine/game_record.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "engine/game.h"
#include "engine/game_record_headers.h"
#include "engine/game_record_movetext.h"
#include "engine/move.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/types.h"

namespace khet {

using game_record_internal::EditionName;
using game_record_internal::EscapeComment;
using game_record_internal::EscapeHeaderValue;
using game_record_internal::IsGameHeader;
using game_record_internal::IsRosterHeader;
using game_record_internal::kBothPharaohsHeader;
using game_record_internal::kEditionHeader;
using game_record_internal::kFacingsHeader;
using game_record_internal::kPlyLimitHeader;
using game_record_internal::kPositionHeader;
using game_record_internal::kRepetitionHeader;
using game_record_internal::kResultHeader;
using game_record_internal::kRosterHeaders;
using game_record_internal::kSetupHeader;
using game_record_internal::kTerminationHeader;
using game_record_internal::kTimeControlHeader;
using game_record_internal::MoveLabel;

namespace {

// Appends `token` to `text`, wrapping lines at 80 columns.
void AppendWrapped(std::string_view token, size_t* line_length,
                   std::string* text) {
  constexpr size_t kWidth = 80;
  if (*line_length > 0 && *line_length + 1 + token.size() > kWidth) {
    text->push_back('\n');
    *line_length = 0;
  } else if (*line_length > 0) {
    text->push_back(' ');
    ++*line_length;
  }
  text->append(token);
  const size_t newline = token.rfind('\n');
  *line_length = newline == std::string_view::npos ? *line_length + token.size()
                                                   : token.size() - newline - 1;
}

}  // namespace

std::string FormatGameRecord(const Game& game, const GameHeaders& headers,
                             const GameComments& comments) {
  // The caller's headers, first of each name, the game's own left out.
  GameHeaders given;
  for (const auto& header : headers) {
    if (IsGameHeader(header.first)) continue;
    bool seen = false;
    for (const auto& kept : given) seen = seen || kept.first == header.first;
    if (!seen) given.push_back(header);
  }
  auto given_value = [&](std::string_view name) -> const std::string* {
    for (const auto& [key, value] : given) {
      if (key == name) return &value;
    }
    return nullptr;
  };

  GameHeaders all;
  for (std::string_view name : kRosterHeaders) {
    if (const std::string* value = given_value(name)) {
      all.emplace_back(name, *value);
    }
  }
  const Position& start = game.start();
  std::string setup_id;
  for (const SetupInfo& info : AllSetups()) {
    absl::StatusOr<Position> setup = SetupPosition(info.id);
    if (setup.ok()) setup->SetPhysicalFacings(start.physical_facings());
    if (setup.ok() && *setup == start) {
      setup_id = std::string(info.id);
      break;
    }
  }
  if (!setup_id.empty()) {
    all.emplace_back(kSetupHeader, setup_id);
  } else {
    all.emplace_back(kPositionHeader, FormatPosition(start));
  }
  const RuleOptions& options = game.options();
  all.emplace_back(kEditionHeader, EditionName(start.edition()));
  all.emplace_back(kBothPharaohsHeader,
                   options.both_pharaohs_hit_draws ? "draw" : "mover loses");
  all.emplace_back(kRepetitionHeader,
                   options.automatic_repetition_draw ? "automatic" : "claim");
  all.emplace_back(kPlyLimitHeader, absl::StrCat(options.ply_limit));
  if (options.physical_facings) all.emplace_back(kFacingsHeader, "physical");
  if (const std::string* value = given_value(kTimeControlHeader)) {
    all.emplace_back(kTimeControlHeader, *value);
  }
  for (const auto& header : given) {
    if (!IsRosterHeader(header.first) && header.first != kTimeControlHeader) {
      all.push_back(header);
    }
  }
  const GameResult& result = game.result();
  all.emplace_back(kResultHeader, ResultToken(result.outcome));
  if (game.over()) {
    all.emplace_back(kTerminationHeader, ResultReasonName(result.reason));
  }

  std::string out;
  for (const auto& [name, value] : all) {
    absl::StrAppend(&out, "[", name, " \"", EscapeHeaderValue(value), "\"]\n");
  }
  out.push_back('\n');

  size_t line_length = 0;
  // Writes comments[n]; returns whether there were any.
  auto write_comments = [&](size_t n) {
    if (n >= comments.size()) return false;
    for (const std::string& comment : comments[n]) {
      AppendWrapped(absl::StrCat("{", EscapeComment(comment), "}"),
                    &line_length, &out);
    }
    return !comments[n].empty();
  };
  bool after_comment = write_comments(0);
  Position pos = start;
  const Color first_mover = start.side_to_move();
  for (int ply = 0; ply < game.ply(); ++ply) {
    const Move move = game.moves()[ply];
    const Color mover = pos.side_to_move();
    // A move number stays on the line of its move.
    const std::string label =
        mover == Color::kSilver || ply == 0 || after_comment
            ? MoveLabel(ply, first_mover, mover) + " "
            : std::string();
    AppendWrapped(label + FormatMove(pos, move), &line_length, &out);
    const std::string hit = HitComment(pos, move);
    if (!hit.empty()) AppendWrapped("{" + hit + "}", &line_length, &out);
    after_comment = write_comments(ply + 1) || !hit.empty();
    MakeMove(&pos, move);
  }
  AppendWrapped(ResultToken(result.outcome), &line_length, &out);
  out.push_back('\n');
  return out;
}

std::string FormatGameRecord(const GameRecord& record) {
  return FormatGameRecord(record.game, record.headers, record.comments);
}

std::string FormatGameRecords(absl::Span<const GameRecord> records) {
  std::string out;
  for (const GameRecord& record : records) {
    if (!out.empty()) out.push_back('\n');
    out += FormatGameRecord(record);
  }
  return out;
}

}  // namespace khet
