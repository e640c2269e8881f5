// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Sentences for people (chat, logs, khetctl) describing what happened on a
// board, e.g. "Silver (alice) plays e4-e5. The laser hits Red Pyramid NE on
// h5." A quiet board keeps every announcement except plain moves: moves
// whose laser hit nothing announce nothing.
//
// Each announcement is made in a Language (service/i18n/messages.h),
// English unless asked; the examples below are the English texts. Names,
// setup names, level names, squares and moves are written as given.
#ifndef KHET_SERVICE_SESSIONS_ANNOUNCEMENTS_H_
#define KHET_SERVICE_SESSIONS_ANNOUNCEMENTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/game.h"
#include "engine/play.h"
#include "engine/types.h"
#include "khet/v1/khet_service.pb.h"
#include "service/i18n/messages.h"

namespace khet {

// "Silver (alice)", or "Silver" when the name is empty.
std::string PlayerLabel(Color color, std::string_view name,
                        Language language = Language::kEnglish);

// "alice takes the Silver seat." / "alice leaves the Silver seat."
std::string SeatAnnouncement(Color color, std::string_view name, bool joined,
                             Language language = Language::kEnglish);

// "The board's owner removes alice from the Silver seat."
std::string RemovedFromSeatAnnouncement(Color color, std::string_view name,
                                        Language language = Language::kEnglish);

// "Rematch, colours swapped.", said before a rematch's game start.
std::string RematchAnnouncement(Language language = Language::kEnglish);

// "The computer (level 3, A'NOOB'IS) takes the Red seat." / "... leaves
// the Red seat."
std::string ComputerSeatAnnouncement(Color color, int level,
                                     std::string_view level_name, bool joined,
                                     Language language = Language::kEnglish);

// "A new game of Classic 2 begins: Silver (alice) against Red (bob)."; an
// empty setup name reads "A new game from a custom position begins: ...".
// A game that starts with Red to move says so.
std::string GameStartAnnouncement(std::string_view setup_name,
                                  std::string_view silver_name,
                                  std::string_view red_name, Color side_to_move,
                                  Language language = Language::kEnglish);

// "Silver (alice) plays e4-e5." plus, when the laser hit something, " The
// laser hits Red Pyramid NE on h5." (several hits joined with commas and
// "and"; a hit Obelisk stack says it loses its top). Empty for a move
// without hits on a quiet board.
std::string MoveAnnouncement(Color mover, std::string_view name,
                             std::string_view notation,
                             const std::vector<Removal>& removals,
                             Edition edition, bool quiet,
                             Language language = Language::kEnglish);

// How the game ended, e.g. "Red's Pharaoh is hit: Silver wins.",
// "Red (bob) resigns: Silver wins.", "Silver (alice) and Red (bob) agree to
// a draw." `silver_name` and `red_name` may be empty.
std::string GameOverAnnouncement(const Game& game, std::string_view silver_name,
                                 std::string_view red_name,
                                 Language language = Language::kEnglish);

// "Silver (alice) offers a draw."
std::string DrawOfferAnnouncement(Color by, std::string_view name,
                                  Language language = Language::kEnglish);
// "Silver (Ann) asks to take back 2 move(s)." and the like: a takeback
// asked for, done or declined, `plies` plies.
std::string TakebackAskedAnnouncement(Color by, std::string_view name,
                                      int plies, Language language);
std::string TakebackDoneAnnouncement(Color by, std::string_view name, int plies,
                                     Language language);
std::string TakebackDeclinedAnnouncement(Color by, std::string_view name,
                                         Language language);

// "The setup is now Classic 2." with the rule options that differ from the
// defaults, e.g. " Both Pharaohs hit: a draw. Draw after 222 plies."
std::string SetupAnnouncement(std::string_view setup_name,
                              const RuleOptions& options,
                              Language language = Language::kEnglish);

// "Settings: timeout after 60 min, not quiet, colours Classic (silver and
// ruby), scale 3 m." (German, French and Dutch write "2,5 m").
std::string SettingsAnnouncement(const v1::Settings& settings,
                                 std::string_view scheme_name,
                                 Language language = Language::kEnglish);

// "The owner reset the game; both seats are free." or, timed out, "No move
// for 60 min: the game is reset; both seats are free."
std::string ResetAnnouncement(bool timed_out, int64_t timeout_seconds,
                              Language language = Language::kEnglish);

// "The board \"name\" is closed."
std::string DeletedAnnouncement(std::string_view session_name,
                                Language language = Language::kEnglish);

// "1 h", "90 min", "45 s", "2 d" (the largest unit that divides evenly;
// French "2 j").
std::string DurationText(int64_t seconds,
                         Language language = Language::kEnglish);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_ANNOUNCEMENTS_H_
