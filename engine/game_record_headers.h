// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The header lines of a game record, `[Name "value"]`: the names the record
// gives meaning to, how a line is written and read, and what the headers
// read say about the game (its start, its rule options, how it ended).
// Internal to the game_record*.cc files.
#ifndef KHET_ENGINE_GAME_RECORD_HEADERS_H_
#define KHET_ENGINE_GAME_RECORD_HEADERS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/names.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {
namespace game_record_internal {

inline constexpr std::string_view kSetupHeader = "Setup";
inline constexpr std::string_view kPositionHeader = "Position";
inline constexpr std::string_view kEditionHeader = "Edition";
inline constexpr std::string_view kBothPharaohsHeader = "BothPharaohsHit";
inline constexpr std::string_view kRepetitionHeader = "Repetition";
inline constexpr std::string_view kPlyLimitHeader = "PlyLimit";
inline constexpr std::string_view kFacingsHeader = "Facings";
inline constexpr std::string_view kTimeControlHeader = "TimeControl";
inline constexpr std::string_view kResultHeader = "Result";
inline constexpr std::string_view kTerminationHeader = "Termination";

// Written first, in this order, when the caller gives them.
inline constexpr std::string_view kRosterHeaders[] = {"Event", "Site", "Date",
                                                      "Silver", "Red"};

// Whether `name` is a header the record writes from the game itself
// (Setup, Position, Edition, ..., Result, Termination), not the caller's.
bool IsGameHeader(std::string_view name);

// Whether `name` is one of kRosterHeaders.
bool IsRosterHeader(std::string_view name);

// The Edition header's value: "Khet 1.0" or "Khet 2.0".
std::string_view EditionName(Edition e);

// `value` as written between the quotes of a header line: `"` and `\`
// escaped with a backslash, a line break written as a space.
std::string EscapeHeaderValue(std::string_view value);

// Parses one `[Name "value"]` line (already trimmed) into its name and
// unescaped value; errors name `line_number`.
absl::StatusOr<std::pair<std::string, std::string>> ParseHeaderLine(
    std::string_view line, int line_number);

// The headers of one record as read, with the line of each.
struct ReadHeaders {
  GameHeaders headers;
  std::vector<int> lines;

  // The index of the header called `name`, or -1.
  int Find(std::string_view name) const {
    for (size_t i = 0; i < headers.size(); ++i) {
      if (headers[i].first == name) return static_cast<int>(i);
    }
    return -1;
  }
  // "line 3: header Name "value": ", the start of a message about it.
  std::string Where(int index) const {
    return absl::StrCat("line ", lines[index], ": header ",
                        headers[index].first, " ",
                        QuotedText(headers[index].second), ": ");
  }
};

// The rule options of the BothPharaohsHit, Repetition, PlyLimit and
// Facings headers, defaults for those absent.
absl::StatusOr<RuleOptions> RuleOptionsFromHeaders(const ReadHeaders& read);

// The start of the Setup or the Position header (exactly one must be
// given; errors about a missing one name `record_line`), checked against
// any Edition header. Its facings are not yet matched to the Facings
// header.
absl::StatusOr<Position> StartFromHeaders(const ReadHeaders& read,
                                          int record_line);

// Applies the Termination header's resignation, time forfeit, agreed draw
// or claimed repetition to the replayed game, and checks any other reason
// against it. `claimed` is the record's result, which says who resigned or
// lost on time. OK when there is no Termination header.
absl::Status ApplyTermination(const ReadHeaders& read,
                              std::optional<Outcome> claimed, Game* game);

}  // namespace game_record_internal
}  // namespace khet

#endif  // KHET_ENGINE_GAME_RECORD_HEADERS_H_
