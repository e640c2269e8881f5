// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The words of what a board says, in English, German, French and Dutch.
//
// Each language has a catalogue (catalog_<code>.cc) mapping every Message to
// a template: text with named placeholders such as "{player} plays
// {move}.". Every language's template for a message has exactly the same
// placeholders (i18n_test checks it); a placeholder is `{` + lower-case
// letters and underscores + `}`, and templates hold no other braces.
#ifndef KHET_SERVICE_I18N_MESSAGES_H_
#define KHET_SERVICE_I18N_MESSAGES_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace khet {

enum class Language : uint8_t { kEnglish, kGerman, kFrench, kDutch };

inline constexpr std::array<Language, 4> kLanguages = {
    Language::kEnglish, Language::kGerman, Language::kFrench, Language::kDutch};

// "en", "de", "fr" or "nl".
std::string_view LanguageCode(Language language);

// The language of a code ("en", "de", "fr", "nl"; ASCII case ignored).
// InvalidArgument naming the code and the ones known otherwise.
absl::StatusOr<Language> ParseLanguage(std::string_view code);

// Every sentence and phrase the announcements use; the comment gives the
// placeholders.
enum class Message : uint8_t {
  // Colours: the side as a noun ("Silver"); the possessive ("Silver's");
  // the adjective a piece phrase puts in {color}.
  kSilver,
  kRed,
  kSilverOwner,
  kRedOwner,
  kSilverAdjective,
  kRedAdjective,
  // Pieces, each with {color} (an adjective above).
  kPharaoh,
  kPyramid,
  kScarab,
  kDjed,
  kAnubis,
  kSphinx,
  kObelisk,
  kObeliskStack,
  kEyeOfHorus,
  // {color} ({name})
  kPlayerLabel,
  // The computer as a seat's player: {level}.
  kComputerPlayer,
  // Lists: {list} and {last}.
  kListAnd,
  // Seats: {name} {color}; the computer's: {level} {level_name} {color}.
  kSeatTaken,
  kSeatLeft,
  kComputerSeatTaken,
  kComputerSeatLeft,
  // Game start: {setup} {silver} {red}; {silver} {red}; none.
  kGameStart,
  kGameStartCustom,
  kRedMovesFirst,
  // Moves: {player} {move}; {piece} {square}; {hits}.
  kMovePlayed,
  kHitOn,
  kHitStackOn,
  kLaserHits,
  // Results (no placeholders).
  kSilverWins,
  kRedWins,
  kGameDrawn,
  kGameGoesOn,
  // Endings: {owner} {result}; {player} {result}; {silver} {red};
  // {player}; none; {plies}.
  kPharaohHit,
  kBothPharaohsHit,
  kResigns,
  kAgreedDraw,
  kRepetitionClaimed,
  kRepetition,
  kPlyLimit,
  // {player} {result}
  kTimeForfeit,
  // {name} {color}: the owner frees a player's seat.
  kRemovedFromSeat,
  // Before a rematch's game-start sentence; none.
  kRematch,
  // {player}
  kDrawOffer,
  // Takebacks: {player} {count}; {player} {count}; {player}.
  kTakebackAsked,
  kTakebackDone,
  kTakebackDeclined,
  // Setup: {setup}; none; none; {plies}.
  kSetupChosen,
  kRuleBothPharaohsDraw,
  kRuleRepetitionDraws,
  kRulePlyLimit,
  // Settings: {timeout} {quiet} {scheme} {scale}; {duration}; none x3.
  kSettings,
  kTimeoutAfter,
  kNoTimeout,
  kQuiet,
  kNotQuiet,
  // Reset: {duration}; none. Deleted: {board}.
  kResetTimedOut,
  kResetByOwner,
  kBoardDeleted,
  // Durations: {count}.
  kDays,
  kHours,
  kMinutes,
  kSeconds,  // keep last: kMessageCount counts from it
};

inline constexpr int kMessageCount = static_cast<int>(Message::kSeconds) + 1;

// A placeholder's value for Format.
struct MessageArg {
  std::string_view name;
  std::string_view value;
};

// The template of `message` in `language`.
std::string_view MessageTemplate(Language language, Message message);

// The template with each placeholder replaced by its argument's value; a
// placeholder without an argument stays as written, arguments the template
// does not name are ignored. Values are not searched for placeholders.
std::string Format(Language language, Message message,
                   absl::Span<const MessageArg> args = {});

// The placeholder names of a template in order of appearance ("{a} {b}":
// "a", "b"). InvalidArgument for a brace outside a well-formed placeholder.
absl::StatusOr<std::vector<std::string>> Placeholders(std::string_view text);

}  // namespace khet

#endif  // KHET_SERVICE_I18N_MESSAGES_H_
