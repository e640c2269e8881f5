// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/game_records.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "engine/setups.h"
#include "service/sessions/time_control.h"
#include "service/text/unicode_text.h"

namespace khet {

std::string DefaultSessionName(std::string_view setup_id) {
  absl::StatusOr<SetupInfo> info = FindSetup(setup_id);
  return absl::StrCat(
      info.ok() ? std::string(info->name) : std::string("Custom position"),
      " game");
}

std::string DefaultSessionName(const GameRecord& record,
                               std::string_view setup_id, int max_characters) {
  for (std::string_view header : {"Board", "Event"}) {
    for (const auto& [name, value] : record.headers) {
      if (name != header) continue;
      absl::StatusOr<std::string> valid =
          CheckDisplayName("name", value, max_characters);
      if (valid.ok()) return *std::move(valid);
    }
  }
  return absl::StrCat(DefaultSessionName(setup_id), " from a record");
}

namespace {

// Headers an export writes itself: the game's (FormatGameRecord) and the
// session's.
bool IsOwnHeader(std::string_view name) {
  for (std::string_view own :
       {"Setup", "Position", "Edition", "BothPharaohsHit", "Repetition",
        "PlyLimit", "Facings", "Result", "Termination", "Board", "Session",
        "Game"}) {
    if (name == own) return true;
  }
  return false;
}

bool Imported(const Session& s) {
  return s.state().record_game_number() != 0 &&
         s.state().record_game_number() == s.game_number();
}

}  // namespace

GameHeaders RecordHeaders(const Session& s) {
  GameHeaders headers;
  for (Color c : {Color::kSilver, Color::kRed}) {
    const store::StoredSeat& seat = s.seat(c);
    if (seat.occupied()) {
      headers.emplace_back(c == Color::kSilver ? "Silver" : "Red",
                           seat.player_name());
    }
  }
  if (const std::string tc = TimeControlText(s.state().rules().time_control());
      !tc.empty()) {
    headers.emplace_back("TimeControl", tc);
  }
  if (Imported(s)) {
    for (const v1::RecordHeader& h : s.state().record_headers()) {
      headers.emplace_back(h.name(), h.value());
    }
  }
  headers.emplace_back("Date", absl::FormatTime("%Y.%m.%d", s.game_started_at(),
                                                absl::UTCTimeZone()));
  headers.emplace_back("Board", s.state().name());
  headers.emplace_back("Session", s.id());
  headers.emplace_back("Game", s.GameId());
  return headers;
}

GameComments RecordComments(const Session& s) {
  if (!Imported(s)) return {};
  const store::SessionState& state = s.state();
  // The record's moves the game still follows.
  int followed = 0;
  while (followed < state.record_moves_size() &&
         followed < state.moves_size() &&
         state.record_moves(followed) == state.moves(followed)) {
    ++followed;
  }
  GameComments comments;
  for (int n = 0; n <= followed && n < state.record_comments_size(); ++n) {
    const auto& texts = state.record_comments(n).texts();
    comments.emplace_back(texts.begin(), texts.end());
  }
  return comments;
}

void KeepImportedRecord(const GameRecord& record, int plies,
                        int64_t game_number, store::SessionState* state) {
  state->set_record_game_number(game_number);
  state->clear_record_headers();
  for (const auto& [name, value] : record.headers) {
    if (IsOwnHeader(name)) continue;
    v1::RecordHeader* kept = state->add_record_headers();
    kept->set_name(name);
    kept->set_value(value);
  }
  state->clear_record_moves();
  for (int i = 0; i < plies && i < state->moves_size(); ++i) {
    state->add_record_moves(state->moves(i));
  }
  state->clear_record_comments();
  for (int n = 0; n <= plies && n < static_cast<int>(record.comments.size());
       ++n) {
    store::RecordComments* kept = state->add_record_comments();
    for (const std::string& text : record.comments[n]) kept->add_texts(text);
  }
}

ArchivedGame ArchiveOf(const Session& s, absl::Time ended_at) {
  const Game& game = s.game();
  ArchivedGame out;
  out.id = s.GameId();
  out.session_id = s.id();
  out.record = FormatGameRecord(game, RecordHeaders(s), RecordComments(s));
  out.silver = s.seat(Color::kSilver).player_name();
  out.red = s.seat(Color::kRed).player_name();
  out.setup_id = s.state().setup_id();
  out.result = std::string(ResultToken(game.result().outcome));
  out.ending = game.over() ? std::string(ResultReasonName(game.result().reason))
                           : "abandoned";
  out.started_at = s.game_started_at();
  out.ended_at = ended_at;
  out.plies = game.ply();
  if (game.over() && s.game_rated()) {
    out.silver_id = s.state().rated_silver_id();
    out.red_id = s.state().rated_red_id();
  }
  return out;
}

}  // namespace khet
