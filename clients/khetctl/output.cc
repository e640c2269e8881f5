// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Texts for people: the names of sides, editions and states, and sessions,
// suggestions, levels, moves and events as khetctl prints them.
#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "clients/khetctl/khetctl.h"
#include "google/protobuf/util/json_util.h"

namespace khet::ctl {

// ---- Names for people ----------------------------------------------------

std::string SideName(v1::Color color) {
  switch (color) {
    case v1::SILVER:
      return "Silver";
    case v1::RED:
      return "Red";
    default:
      return "nobody";
  }
}

std::string EditionName(v1::Edition edition) {
  switch (edition) {
    case v1::KHET_1:
      return "Khet 1.0";
    case v1::KHET_2:
      return "Khet 2.0";
    default:
      return "unknown edition";
  }
}

std::string StatusName(v1::GameStatus status) {
  switch (status) {
    case v1::WAITING_FOR_PLAYERS:
      return "waiting for players";
    case v1::IN_PROGRESS:
      return "in progress";
    case v1::FINISHED:
      return "finished";
    default:
      return "unknown";
  }
}

bool GameOver(const v1::GameResult& result) {
  return result.outcome() != v1::OUTCOME_UNSPECIFIED &&
         result.outcome() != v1::ONGOING;
}

namespace {

// A shot's text (one line per beam) on one line.
std::string OneLine(absl::string_view text) {
  std::vector<absl::string_view> lines =
      absl::StrSplit(text, '\n', absl::SkipEmpty());
  return absl::StrJoin(lines, " | ");
}

}  // namespace

// "alice", or "the computer (level 3, PYRAMID SCHEMER)".
std::string SeatHolder(const v1::Seat& seat) {
  if (seat.computer()) {
    return absl::StrCat("the computer (level ", seat.computer_level(), ", ",
                        seat.player_name(), ")");
  }
  return seat.player_name();
}

v1::Color OtherColor(v1::Color color) {
  return color == v1::SILVER ? v1::RED : v1::SILVER;
}

absl::StatusOr<v1::Color> ParseColor(const std::string& text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "silver" || lower == "s") return v1::SILVER;
  if (lower == "red" || lower == "r") return v1::RED;
  return absl::InvalidArgumentError(
      absl::StrCat("--color=", text, ": must be silver or red"));
}

std::string ToJson(const google::protobuf::Message& message, bool multiline) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = multiline;
  std::string json;
  const auto status =
      google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::StrCat("{\"error\": \"", std::string(status.message()), "\"}");
  }
  if (multiline && !json.empty() && json.back() == '\n') json.pop_back();
  return json;
}

namespace {

// Milliseconds as a clock shows them: "4:52", "1:02:03", "2d 03:00:00".
std::string ClockTime(int64_t ms) {
  const int64_t total = std::max<int64_t>(ms, 0) / 1000;
  const int64_t days = total / 86400, hours = total / 3600 % 24,
                minutes = total / 60 % 60, seconds = total % 60;
  if (days > 0) {
    return absl::StrFormat("%dd %02d:%02d:%02d", days, hours, minutes, seconds);
  }
  if (hours > 0)
    return absl::StrFormat("%d:%02d:%02d", hours, minutes, seconds);
  return absl::StrFormat("%d:%02d", minutes, seconds);
}

// "Silver 4:52 (running), Red 5:00": the running clock read now.
std::string ClocksText(const v1::Clocks& c) {
  auto side = [&](v1::Color color, int64_t ms) {
    if (c.running() != color) {
      return absl::StrCat(SideName(color), " ", ClockTime(ms));
    }
    const absl::Time flag = absl::FromUnixSeconds(c.flag_at().seconds()) +
                            absl::Nanoseconds(c.flag_at().nanos());
    return absl::StrCat(
        SideName(color), " ",
        ClockTime(absl::ToInt64Milliseconds(flag - absl::Now())), " (running)");
  };
  return absl::StrCat(side(v1::SILVER, c.silver_ms()), ", ",
                      side(v1::RED, c.red_ms()));
}

}  // namespace

std::string SessionText(const v1::Session& s) {
  std::string out = absl::StrFormat("session %s \"%s\", version %d\n", s.id(),
                                    s.name(), s.version());
  absl::StrAppend(&out, "setup ", s.setup_id(), ", ",
                  EditionName(s.board().edition()), ", ",
                  StatusName(s.status()));
  if (s.status() == v1::IN_PROGRESS) {
    absl::StrAppend(&out, ", ", SideName(s.board().side_to_move()), " to move");
  }
  absl::StrAppend(&out, "\n");
  std::vector<std::string> seats;
  for (const v1::Seat& seat : s.seats()) {
    seats.push_back(absl::StrCat(
        SideName(seat.color()), ": ",
        seat.occupied() ? SeatHolder(seat) : std::string("(free)")));
  }
  absl::StrAppend(&out, "seats: ", absl::StrJoin(seats, ", "), "\n");
  if (s.moves_size() > 0) {
    absl::StrAppend(&out, "moves: ", absl::StrJoin(s.moves(), " "), "\n");
  }
  if (GameOver(s.result()))
    absl::StrAppend(&out, "result: ", s.result().text(), "\n");
  if (s.draw_offered_by() != v1::COLOR_UNSPECIFIED) {
    absl::StrAppend(&out, "draw offered by ", SideName(s.draw_offered_by()),
                    "\n");
  }
  if (s.takeback_requested_by() != v1::COLOR_UNSPECIFIED) {
    absl::StrAppend(&out, "takeback asked by ",
                    SideName(s.takeback_requested_by()), "\n");
  }
  if (s.game_rated()) absl::StrAppend(&out, "this game is rated\n");
  if (s.has_clocks()) {
    absl::StrAppend(&out, "clocks: ", ClocksText(s.clocks()), "\n");
  }
  const v1::Settings& settings = s.settings();
  absl::StrAppend(
      &out,
      absl::StrFormat(
          "settings: timeout %s, quiet %s, hints %s, takebacks %s, rated %s, "
          "colours %s, scale %g m\n",
          settings.timeout_enabled()
              ? absl::StrCat(settings.timeout_seconds(), " s")
              : std::string("off"),
          settings.quiet() ? "on" : "off", settings.hints_off() ? "off" : "on",
          settings.takebacks_off() ? "off" : "on",
          settings.rated() ? "on" : "off", settings.color_scheme(),
          settings.scale_meters()));
  absl::StrAppend(&out, "position: ", s.board().position(), "\n");
  return out;
}

namespace {

// The moves of a line in notation, separated by spaces.
std::string LineText(const google::protobuf::RepeatedPtrField<v1::Move>& line) {
  std::vector<std::string> moves;
  for (const v1::Move& m : line) moves.push_back(m.notation());
  return absl::StrJoin(moves, " ");
}

}  // namespace

std::string SuggestionText(const v1::SuggestMoveResponse& r) {
  std::string out = absl::StrCat("suggestion for ", SideName(r.side_to_move()),
                                 ": ", r.move().notation());
  if (r.level() > 0) {
    absl::StrAppend(&out, " (level ", r.level(), ", ", r.level_name(), ")");
  }
  absl::StrAppend(
      &out, "\n", "outlook: ", ScoreInWords(r.score(), r.side_to_move()), "\n",
      absl::StrFormat("searched %d plies ahead, %d positions, %d ms%s\n",
                      r.depth(), r.nodes(), r.elapsed_ms(),
                      r.cut_short() ? ", cut short by time" : ""),
      "line: ", LineText(r.principal_variation()), "\n");
  return out;
}

std::string LevelsText(const v1::ListLevelsResponse& r) {
  std::string out;
  for (const v1::Level& level : r.levels()) {
    std::vector<std::string> limits;
    if (level.limits().max_depth() > 0) {
      limits.push_back(absl::StrCat("depth ", level.limits().max_depth()));
    }
    if (level.limits().max_nodes() > 0) {
      limits.push_back(absl::StrCat(level.limits().max_nodes(), " nodes"));
    }
    if (level.limits().max_time_ms() > 0) {
      limits.push_back(absl::StrCat(level.limits().max_time_ms(), " ms"));
    }
    absl::StrAppend(
        &out,
        absl::StrFormat("%d  %-20s %-24s %s\n", level.number(), level.name(),
                        absl::StrJoin(limits, ", "), level.description()));
  }
  return out;
}

std::string MoveText(const v1::MakeMoveResponse& r) {
  std::string out = r.announcement().empty()
                        ? absl::StrCat("played ", r.move().notation())
                        : r.announcement();
  absl::StrAppend(&out, "\nlaser: ", OneLine(r.shot().text()), "\n");
  if (GameOver(r.result()))
    absl::StrAppend(&out, "result: ", r.result().text(), "\n");
  if (r.has_clocks()) {
    absl::StrAppend(&out, "clocks: ", ClocksText(r.clocks()), "\n");
  }
  absl::StrAppend(&out, "version ", r.version(), "\n");
  return out;
}

// One event on one line: the version, what happened, and for a move its
// laser.
std::string EventLine(const v1::Event& e) {
  std::string what;
  switch (e.kind_case()) {
    case v1::Event::kSeatChanged:
      what = absl::StrCat(
          "seat: ", SideName(e.seat_changed().seat().color()),
          e.seat_changed().joined()
              ? absl::StrCat(" taken by ", SeatHolder(e.seat_changed().seat()))
              : std::string(" left"));
      break;
    case v1::Event::kSetupChosen:
      what = absl::StrCat("setup: ", e.setup_chosen().setup_id());
      break;
    case v1::Event::kGameStarted:
      what = "game started";
      break;
    case v1::Event::kMoveMade:
      what = absl::StrCat("move: ", SideName(e.move_made().mover()), " ",
                          e.move_made().move().notation());
      break;
    case v1::Event::kGameOver:
      what = absl::StrCat("game over: ", e.game_over().result().text());
      break;
    case v1::Event::kGameReset:
      what =
          e.game_reset().timed_out() ? "game reset (timed out)" : "game reset";
      break;
    case v1::Event::kDrawOffered:
      what = absl::StrCat("draw offered by ", SideName(e.draw_offered().by()));
      break;
    case v1::Event::kTakebackRequested:
      what = absl::StrCat("takeback asked by ",
                          SideName(e.takeback_requested().by()));
      break;
    case v1::Event::kTakebackAnswered:
      what = e.takeback_answered().accepted()
                 ? absl::StrCat("takeback: ", e.takeback_answered().plies(),
                                " move(s) taken back")
                 : std::string("takeback declined");
      break;
    case v1::Event::kSettingsChanged:
      what = "settings changed";
      break;
    case v1::Event::kSessionDeleted:
      what = "session deleted";
      break;
    default:
      what = "event";
      break;
  }
  std::string line = absl::StrCat("v", e.version(), " ", what);
  if (!e.announcement().empty())
    absl::StrAppend(&line, " -- ", e.announcement());
  if (e.has_clocks()) {
    absl::StrAppend(&line, " -- clocks: Silver ",
                    ClockTime(e.clocks().silver_ms()), ", Red ",
                    ClockTime(e.clocks().red_ms()));
  }
  if (e.kind_case() == v1::Event::kMoveMade) {
    absl::StrAppend(&line, " -- laser: ", OneLine(e.move_made().shot().text()));
    if (GameOver(e.move_made().result())) {
      absl::StrAppend(&line, " -- ", e.move_made().result().text());
    }
  }
  return line;
}

}  // namespace khet::ctl
