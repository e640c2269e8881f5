// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The German catalogue (de); terms from the Khet 1.0 booklet's German
// (service/i18n/README.md).
#include "service/i18n/catalog.h"

namespace khet::i18n_internal {
namespace {

constexpr CatalogEntry kGerman[] = {
    {Message::kSilver, "Silber"},
    {Message::kRed, "Rot"},
    {Message::kSilverOwner, "von Silber"},
    {Message::kRedOwner, "von Rot"},
    {Message::kSilverAdjective, "silberne"},
    {Message::kRedAdjective, "rote"},
    {Message::kPharaoh, "der {color} Pharaon"},
    {Message::kPyramid, "die {color} Pyramide"},
    {Message::kScarab, "der {color} Skarabäus"},
    {Message::kDjed, "der {color} Djed"},
    {Message::kAnubis, "der {color} Anubis"},
    {Message::kSphinx, "die {color} Sphinx"},
    {Message::kObelisk, "der {color} Obelisk"},
    {Message::kObeliskStack, "der {color} Obeliskenstapel"},
    {Message::kEyeOfHorus, "das {color} Auge des Horus"},
    {Message::kPlayerLabel, "{color} ({name})"},
    {Message::kComputerPlayer, "Computer, Stufe {level}"},
    {Message::kListAnd, "{list} und {last}"},
    {Message::kSeatTaken, "{name} nimmt den Platz von {color} ein."},
    {Message::kSeatLeft, "{name} verlässt den Platz von {color}."},
    {Message::kComputerSeatTaken,
     "Der Computer (Stufe {level}, {level_name}) nimmt den Platz von {color} "
     "ein."},
    {Message::kComputerSeatLeft,
     "Der Computer (Stufe {level}, {level_name}) verlässt den Platz von "
     "{color}."},
    {Message::kGameStart,
     "Ein neues Spiel mit der Aufstellung {setup} beginnt: {silver} gegen "
     "{red}."},
    {Message::kGameStartCustom,
     "Ein neues Spiel aus einer eigenen Stellung beginnt: {silver} gegen "
     "{red}."},
    {Message::kRedMovesFirst, "Rot fängt an."},
    {Message::kMovePlayed, "{player} zieht {move}."},
    {Message::kHitOn, "{piece} auf {square}"},
    {Message::kHitStackOn, "{piece} auf {square} (der oberste Obelisk fällt)"},
    {Message::kLaserHits, "Vom Laser getroffen: {hits}."},
    {Message::kSilverWins, "Silber gewinnt"},
    {Message::kRedWins, "Rot gewinnt"},
    {Message::kGameDrawn, "das Spiel endet unentschieden"},
    {Message::kGameGoesOn, "das Spiel geht weiter"},
    {Message::kPharaohHit, "Der Pharaon {owner} ist getroffen: {result}."},
    {Message::kBothPharaohsHit,
     "Beide Pharaonen sind durch den Laser {owner} getroffen: {result}."},
    {Message::kResigns, "{player} gibt auf: {result}."},
    {Message::kAgreedDraw,
     "{silver} und {red} einigen sich auf ein Unentschieden."},
    {Message::kRepetitionClaimed,
     "{player} erklärt ein Unentschieden: die Stellung ist dreimal "
     "vorgekommen."},
    {Message::kRepetition,
     "Die Stellung ist dreimal vorgekommen: das Spiel endet unentschieden."},
    {Message::kPlyLimit,
     "{plies} Halbzüge ohne Ergebnis: das Spiel endet unentschieden."},
    {Message::kTimeForfeit, "{player} hat keine Zeit mehr: {result}."},
    {Message::kRemovedFromSeat,
     "Der Besitzer des Bretts entfernt {name} vom Platz von {color}."},
    {Message::kRematch, "Revanche mit getauschten Farben."},
    {Message::kDrawOffer, "{player} bietet ein Unentschieden an."},
    {Message::kTakebackAsked, "{player} möchte {count} Zug/Züge zurücknehmen."},
    {Message::kTakebackDone, "{player} nimmt {count} Zug/Züge zurück."},
    {Message::kTakebackDeclined,
     "Die Zugrücknahme von {player} wird abgelehnt."},
    {Message::kSetupChosen, "Die Aufstellung ist jetzt {setup}."},
    {Message::kRuleBothPharaohsDraw,
     "Beide Pharaonen getroffen: Unentschieden."},
    {Message::kRuleRepetitionDraws,
     "Eine dritte Wiederholung endet sofort unentschieden."},
    {Message::kRulePlyLimit, "Unentschieden nach {plies} Halbzügen."},
    {Message::kSettings,
     "Einstellungen: {timeout}, {quiet}, Farben {scheme}, Maßstab {scale} m."},
    {Message::kTimeoutAfter, "Zeitlimit {duration}"},
    {Message::kNoTimeout, "kein Zeitlimit"},
    {Message::kQuiet, "leise"},
    {Message::kNotQuiet, "nicht leise"},
    {Message::kResetTimedOut,
     "Kein Zug seit {duration}: das Spiel wird zurückgesetzt; beide Plätze "
     "sind frei."},
    {Message::kResetByOwner,
     "Der Besitzer hat das Spiel zurückgesetzt; beide Plätze sind frei."},
    {Message::kBoardDeleted, "Das Brett „{board}“ ist geschlossen."},
    {Message::kDays, "{count} d"},
    {Message::kHours, "{count} h"},
    {Message::kMinutes, "{count} min"},
    {Message::kSeconds, "{count} s"},
};

}  // namespace

absl::Span<const CatalogEntry> GermanCatalog() { return kGerman; }

}  // namespace khet::i18n_internal
