// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The movetext shared by writing and reading game records: move numbers,
// result tokens, comment escaping and the laser's hit comments
// (game_record_movetext.h, and ResultToken and HitComment of
// game_record.h).
#include "engine/game_record_movetext.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/absl_view.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/names.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {
namespace game_record_internal {
namespace {

// "A", "A and B", "A, B and C".
std::string JoinedList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

int MoveNumber(int ply, Color first_mover) {
  return 1 + (ply + (first_mover == Color::kRed ? 1 : 0)) / 2;
}
std::string MoveLabel(int ply, Color first_mover, Color mover) {
  return absl::StrCat(MoveNumber(ply, first_mover),
                      mover == Color::kSilver ? "." : "...");
}

std::optional<Outcome> OutcomeFromToken(std::string_view token) {
  for (Outcome o : {Outcome::kOngoing, Outcome::kSilverWins, Outcome::kRedWins,
                    Outcome::kDraw}) {
    if (ResultToken(o) == token) return o;
  }
  return std::nullopt;
}

bool IsHitClaim(std::string_view raw) {
  return absl::EndsWith(Av(raw), " hit") && raw.front() != '\\';
}

std::string EscapeComment(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '}' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  if (IsHitClaim(out)) out.insert(out.begin(), '\\');
  return out;
}

std::string UnescapeComment(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
    out.push_back(raw[i]);
  }
  return out;
}

std::string HitText(const Position& before, const MoveEffects& effects) {
  if (effects.removals.empty()) return "";
  const Edition edition = before.edition();
  std::vector<std::string> hits;
  for (const Removal& r : effects.removals) {
    const Piece p = r.before;
    const std::string name = absl::StrCat(ColorName(p.color()), " ",
                                          PieceTypeName(p.type(), edition));
    hits.push_back(absl::StrCat(r.after.empty() ? "" : "top of the ", name,
                                r.after.empty() ? "" : " stack", " on ",
                                SquareName(r.square)));
  }
  // The board as the laser saw it: the move made, nothing removed yet.
  Position shot = before;
  MakeMove(&shot, effects.move);
  for (const Removal& r : effects.removals) shot.Set(r.square, r.before);
  std::vector<std::string> squares;
  for (const Beam& beam : TraceLaser(shot, before.side_to_move()).beams) {
    if (beam.end != BeamEnd::kSplit) continue;
    const std::string square = SquareName(beam.end_square);
    bool seen = false;
    for (const std::string& s : squares) seen = seen || s == square;
    if (!seen) squares.push_back(square);
  }
  const std::string splits =
      squares.empty()
          ? std::string()
          : absl::StrCat("beam split on ", JoinedList(squares), "; ");
  return absl::StrCat(splits, JoinedList(hits), " hit");
}

}  // namespace game_record_internal

std::string_view ResultToken(Outcome o) {
  switch (o) {
    case Outcome::kSilverWins:
      return "1-0";
    case Outcome::kRedWins:
      return "0-1";
    case Outcome::kDraw:
      return "1/2-1/2";
    case Outcome::kOngoing:
      break;
  }
  return "*";
}

std::string HitComment(const Position& before, Move move) {
  Position after = before;
  const absl::StatusOr<MoveEffects> effects = ApplyMove(&after, move);
  return effects.ok() ? game_record_internal::HitText(before, *effects)
                      : std::string();
}

}  // namespace khet
