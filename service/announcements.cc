#include "service/announcements.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/names.h"
#include "engine/notation.h"

namespace khet {
namespace {

std::string JoinWithAnd(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

std::string Winner(Outcome outcome) {
  switch (outcome) {
    case Outcome::kSilverWins:
      return "Silver wins";
    case Outcome::kRedWins:
      return "Red wins";
    case Outcome::kDraw:
      return "the game is drawn";
    case Outcome::kOngoing:
      break;
  }
  return "the game goes on";
}

}  // namespace

std::string PlayerLabel(Color color, std::string_view name) {
  if (name.empty()) return ColorName(color);
  return absl::StrCat(ColorName(color), " (", std::string(name), ")");
}

std::string SeatAnnouncement(Color color, std::string_view name, bool joined) {
  return absl::StrCat(std::string(name), joined ? " takes" : " leaves", " the ",
                      ColorName(color), " seat.");
}

std::string RemovedFromSeatAnnouncement(Color color, std::string_view name) {
  return absl::StrCat("The board's owner removes ", std::string(name),
                      " from the ", ColorName(color), " seat.");
}

std::string ComputerSeatAnnouncement(Color color, int level,
                                     std::string_view level_name, bool joined) {
  return absl::StrCat(
      "The computer (level ", level, ", ", std::string(level_name), ")",
      joined ? " takes" : " leaves", " the ", ColorName(color), " seat.");
}

std::string GameStartAnnouncement(std::string_view setup_name,
                                  std::string_view silver_name,
                                  std::string_view red_name,
                                  Color side_to_move) {
  std::string out = absl::StrCat(
      setup_name.empty()
          ? std::string("A new game from a custom position")
          : absl::StrCat("A new game of ", std::string(setup_name)),
      " begins: ", PlayerLabel(Color::kSilver, silver_name), " against ",
      PlayerLabel(Color::kRed, red_name), ".");
  if (side_to_move == Color::kRed) out += " Red moves first.";
  return out;
}

std::string MoveAnnouncement(Color mover, std::string_view name,
                             std::string_view notation,
                             const std::vector<Removal>& removals,
                             Edition edition, bool quiet) {
  if (removals.empty() && quiet) return "";
  std::string out = absl::StrCat(PlayerLabel(mover, name), " plays ",
                                 std::string(notation), ".");
  if (removals.empty()) return out;
  std::vector<std::string> hits;
  for (const Removal& r : removals) {
    std::string hit = absl::StrCat(DescribePiece(r.before, edition), " on ",
                                   SquareName(r.square));
    if (!r.after.empty()) hit += " (its top Obelisk falls)";
    hits.push_back(std::move(hit));
  }
  absl::StrAppend(&out, " The laser hits ", JoinWithAnd(hits), ".");
  return out;
}

std::string GameOverAnnouncement(const Game& game, std::string_view silver_name,
                                 std::string_view red_name) {
  const GameResult& r = game.result();
  const Color to_move = game.position().side_to_move();
  const Color last_mover = Opponent(to_move);
  auto label = [&](Color c) {
    return PlayerLabel(c, c == Color::kSilver ? silver_name : red_name);
  };
  const Color loser =
      r.outcome == Outcome::kSilverWins ? Color::kRed : Color::kSilver;
  switch (r.reason) {
    case ResultReason::kPharaohHit:
      return absl::StrCat(ColorName(loser),
                          "'s Pharaoh is hit: ", Winner(r.outcome), ".");
    case ResultReason::kBothPharaohsHit:
      return absl::StrCat("Both Pharaohs are hit by ", ColorName(last_mover),
                          "'s laser: ", Winner(r.outcome), ".");
    case ResultReason::kResignation:
      return absl::StrCat(label(loser), " resigns: ", Winner(r.outcome), ".");
    case ResultReason::kAgreedDraw:
      return absl::StrCat(label(Color::kSilver), " and ", label(Color::kRed),
                          " agree to a draw.");
    case ResultReason::kRepetitionClaimed:
      return absl::StrCat(label(to_move),
                          " claims a draw: the position occurred three times.");
    case ResultReason::kRepetition:
      return "The position occurred three times: the game is drawn.";
    case ResultReason::kPlyLimit:
      return absl::StrCat(game.options().ply_limit,
                          " plies without a result: the game is drawn.");
    case ResultReason::kTimeForfeit:
      return absl::StrCat(label(loser),
                          " runs out of time: ", Winner(r.outcome), ".");
    case ResultReason::kNone:
      break;
  }
  return "";
}

std::string DrawOfferAnnouncement(Color by, std::string_view name) {
  return absl::StrCat(PlayerLabel(by, name), " offers a draw.");
}

std::string SetupAnnouncement(std::string_view setup_name,
                              const RuleOptions& options) {
  std::string out =
      absl::StrCat("The setup is now ", std::string(setup_name), ".");
  if (options.both_pharaohs_hit_draws) out += " Both Pharaohs hit: a draw.";
  if (options.automatic_repetition_draw) {
    out += " A third repetition draws at once.";
  }
  if (options.ply_limit > 0) {
    absl::StrAppend(&out, " Draw after ", options.ply_limit, " plies.");
  }
  return out;
}

std::string SettingsAnnouncement(const v1::Settings& settings,
                                 std::string_view scheme_name) {
  return absl::StrFormat(
      "Settings: %s, %s, colours %s, scale %g m.",
      settings.timeout_enabled()
          ? absl::StrCat("timeout after ",
                         DurationText(settings.timeout_seconds()))
          : std::string("no timeout"),
      settings.quiet() ? "quiet" : "not quiet", std::string(scheme_name),
      settings.scale_meters());
}

std::string ResetAnnouncement(bool timed_out, int64_t timeout_seconds) {
  if (timed_out) {
    return absl::StrCat("No move for ", DurationText(timeout_seconds),
                        ": the game is reset; both seats are free.");
  }
  return "The owner reset the game; both seats are free.";
}

std::string DeletedAnnouncement(std::string_view session_name) {
  return absl::StrCat("The board \"", std::string(session_name),
                      "\" is closed.");
}

std::string DurationText(int64_t seconds) {
  if (seconds > 0 && seconds % 86400 == 0) {
    return absl::StrCat(seconds / 86400, " d");
  }
  if (seconds > 0 && seconds % 3600 == 0) {
    return absl::StrCat(seconds / 3600, " h");
  }
  if (seconds > 0 && seconds % 60 == 0) {
    return absl::StrCat(seconds / 60, " min");
  }
  return absl::StrCat(seconds, " s");
}

}  // namespace khet
