// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/announcements.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "engine/names.h"
#include "service/i18n/names.h"

namespace khet {
namespace {

// "a", "a and b", "a, b and c" (the language's "and").
std::string JoinWithAnd(const std::vector<std::string>& parts,
                        Language language) {
  if (parts.empty()) return "";
  std::string list = parts[0];
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    absl::StrAppend(&list, ", ", parts[i]);
  }
  if (parts.size() == 1) return list;
  return Format(language, Message::kListAnd,
                {{"list", list}, {"last", parts.back()}});
}

std::string Winner(Outcome outcome, Language language) {
  switch (outcome) {
    case Outcome::kSilverWins:
      return Format(language, Message::kSilverWins);
    case Outcome::kRedWins:
      return Format(language, Message::kRedWins);
    case Outcome::kDraw:
      return Format(language, Message::kGameDrawn);
    case Outcome::kOngoing:
      break;
  }
  return Format(language, Message::kGameGoesOn);
}

}  // namespace

std::string PlayerLabel(Color color, std::string_view name, Language language) {
  const std::string side = ColorText(language, color);
  if (name.empty()) return side;
  return Format(language, Message::kPlayerLabel,
                {{"color", side}, {"name", name}});
}

std::string SeatAnnouncement(Color color, std::string_view name, bool joined,
                             Language language) {
  return Format(language, joined ? Message::kSeatTaken : Message::kSeatLeft,
                {{"name", name}, {"color", ColorText(language, color)}});
}

std::string RemovedFromSeatAnnouncement(Color color, std::string_view name,
                                        Language language) {
  return Format(language, Message::kRemovedFromSeat,
                {{"name", name}, {"color", ColorText(language, color)}});
}

std::string RematchAnnouncement(Language language) {
  return Format(language, Message::kRematch);
}

std::string ComputerSeatAnnouncement(Color color, int level,
                                     std::string_view level_name, bool joined,
                                     Language language) {
  return Format(
      language,
      joined ? Message::kComputerSeatTaken : Message::kComputerSeatLeft,
      {{"level", absl::StrCat(level)},
       {"level_name", level_name},
       {"color", ColorText(language, color)}});
}

std::string GameStartAnnouncement(std::string_view setup_name,
                                  std::string_view silver_name,
                                  std::string_view red_name, Color side_to_move,
                                  Language language) {
  const std::string silver = PlayerLabel(Color::kSilver, silver_name, language);
  const std::string red = PlayerLabel(Color::kRed, red_name, language);
  std::string out =
      setup_name.empty()
          ? Format(language, Message::kGameStartCustom,
                   {{"silver", silver}, {"red", red}})
          : Format(language, Message::kGameStart,
                   {{"setup", setup_name}, {"silver", silver}, {"red", red}});
  if (side_to_move == Color::kRed) {
    absl::StrAppend(&out, " ", Format(language, Message::kRedMovesFirst));
  }
  return out;
}

std::string MoveAnnouncement(Color mover, std::string_view name,
                             std::string_view notation,
                             const std::vector<Removal>& removals,
                             Edition edition, bool quiet, Language language) {
  if (removals.empty() && quiet) return "";
  std::string out = Format(
      language, Message::kMovePlayed,
      {{"player", PlayerLabel(mover, name, language)}, {"move", notation}});
  if (removals.empty()) return out;
  std::vector<std::string> hits;
  for (const Removal& r : removals) {
    hits.push_back(Format(
        language, r.after.empty() ? Message::kHitOn : Message::kHitStackOn,
        {{"piece", PieceText(language, r.before, edition)},
         {"square", SquareName(r.square)}}));
  }
  absl::StrAppend(&out, " ",
                  Format(language, Message::kLaserHits,
                         {{"hits", JoinWithAnd(hits, language)}}));
  return out;
}

std::string GameOverAnnouncement(const Game& game, std::string_view silver_name,
                                 std::string_view red_name, Language language) {
  const GameResult& r = game.result();
  const Color to_move = game.position().side_to_move();
  const Color last_mover = Opponent(to_move);
  auto label = [&](Color c) {
    return PlayerLabel(c, c == Color::kSilver ? silver_name : red_name,
                       language);
  };
  const Color loser =
      r.outcome == Outcome::kSilverWins ? Color::kRed : Color::kSilver;
  const std::string result = Winner(r.outcome, language);
  switch (r.reason) {
    case ResultReason::kPharaohHit:
      return Format(
          language, Message::kPharaohHit,
          {{"owner", ColorOwnerText(language, loser)}, {"result", result}});
    case ResultReason::kBothPharaohsHit:
      return Format(language, Message::kBothPharaohsHit,
                    {{"owner", ColorOwnerText(language, last_mover)},
                     {"result", result}});
    case ResultReason::kResignation:
      return Format(language, Message::kResigns,
                    {{"player", label(loser)}, {"result", result}});
    case ResultReason::kAgreedDraw:
      return Format(
          language, Message::kAgreedDraw,
          {{"silver", label(Color::kSilver)}, {"red", label(Color::kRed)}});
    case ResultReason::kRepetitionClaimed:
      return Format(language, Message::kRepetitionClaimed,
                    {{"player", label(to_move)}});
    case ResultReason::kRepetition:
      return Format(language, Message::kRepetition);
    case ResultReason::kPlyLimit:
      return Format(language, Message::kPlyLimit,
                    {{"plies", absl::StrCat(game.options().ply_limit)}});
    case ResultReason::kTimeForfeit:
      return Format(language, Message::kTimeForfeit,
                    {{"player", label(loser)}, {"result", result}});
    case ResultReason::kNone:
      break;
  }
  return "";
}

std::string DrawOfferAnnouncement(Color by, std::string_view name,
                                  Language language) {
  return Format(language, Message::kDrawOffer,
                {{"player", PlayerLabel(by, name, language)}});
}

std::string TakebackAskedAnnouncement(Color by, std::string_view name,
                                      int plies, Language language) {
  const std::string count = absl::StrCat(plies);
  return Format(
      language, Message::kTakebackAsked,
      {{"player", PlayerLabel(by, name, language)}, {"count", count}});
}

std::string TakebackDoneAnnouncement(Color by, std::string_view name, int plies,
                                     Language language) {
  const std::string count = absl::StrCat(plies);
  return Format(
      language, Message::kTakebackDone,
      {{"player", PlayerLabel(by, name, language)}, {"count", count}});
}

std::string TakebackDeclinedAnnouncement(Color by, std::string_view name,
                                         Language language) {
  return Format(language, Message::kTakebackDeclined,
                {{"player", PlayerLabel(by, name, language)}});
}

std::string SetupAnnouncement(std::string_view setup_name,
                              const RuleOptions& options, Language language) {
  std::string out =
      Format(language, Message::kSetupChosen, {{"setup", setup_name}});
  if (options.both_pharaohs_hit_draws) {
    absl::StrAppend(&out, " ",
                    Format(language, Message::kRuleBothPharaohsDraw));
  }
  if (options.automatic_repetition_draw) {
    absl::StrAppend(&out, " ", Format(language, Message::kRuleRepetitionDraws));
  }
  if (options.ply_limit > 0) {
    absl::StrAppend(&out, " ",
                    Format(language, Message::kRulePlyLimit,
                           {{"plies", absl::StrCat(options.ply_limit)}}));
  }
  return out;
}

std::string SettingsAnnouncement(const v1::Settings& settings,
                                 std::string_view scheme_name,
                                 Language language) {
  std::string scale = absl::StrFormat("%g", settings.scale_meters());
  // A decimal comma outside English.
  if (language != Language::kEnglish) absl::StrReplaceAll({{".", ","}}, &scale);
  return Format(
      language, Message::kSettings,
      {{"timeout",
        settings.timeout_enabled()
            ? Format(language, Message::kTimeoutAfter,
                     {{"duration",
                       DurationText(settings.timeout_seconds(), language)}})
            : Format(language, Message::kNoTimeout)},
       {"quiet", Format(language, settings.quiet() ? Message::kQuiet
                                                   : Message::kNotQuiet)},
       {"scheme", scheme_name},
       {"scale", scale}});
}

std::string ResetAnnouncement(bool timed_out, int64_t timeout_seconds,
                              Language language) {
  if (timed_out) {
    return Format(language, Message::kResetTimedOut,
                  {{"duration", DurationText(timeout_seconds, language)}});
  }
  return Format(language, Message::kResetByOwner);
}

std::string DeletedAnnouncement(std::string_view session_name,
                                Language language) {
  return Format(language, Message::kBoardDeleted, {{"board", session_name}});
}

std::string DurationText(int64_t seconds, Language language) {
  Message unit = Message::kSeconds;
  int64_t count = seconds;
  if (seconds > 0 && seconds % 86400 == 0) {
    unit = Message::kDays;
    count = seconds / 86400;
  } else if (seconds > 0 && seconds % 3600 == 0) {
    unit = Message::kHours;
    count = seconds / 3600;
  } else if (seconds > 0 && seconds % 60 == 0) {
    unit = Message::kMinutes;
    count = seconds / 60;
  }
  return Format(language, unit, {{"count", absl::StrCat(count)}});
}

}  // namespace khet
