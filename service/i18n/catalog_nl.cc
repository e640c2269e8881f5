// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The Dutch catalogue (nl); terms from the Khet 1.0 booklet's Dutch
// (service/i18n/README.md).
#include "service/i18n/catalog.h"

namespace khet::i18n_internal {
namespace {

constexpr CatalogEntry kDutch[] = {
    {Message::kSilver, "Zilver"},
    {Message::kRed, "Rood"},
    {Message::kSilverOwner, "van Zilver"},
    {Message::kRedOwner, "van Rood"},
    {Message::kSilverAdjective, "zilveren"},
    {Message::kRedAdjective, "rode"},
    {Message::kPharaoh, "de {color} farao"},
    {Message::kPyramid, "de {color} piramide"},
    {Message::kScarab, "de {color} scarabee"},
    {Message::kDjed, "de {color} djed"},
    {Message::kAnubis, "de {color} Anubis"},
    {Message::kSphinx, "de {color} sfinx"},
    {Message::kObelisk, "de {color} obelisk"},
    {Message::kObeliskStack, "de {color} stapel obelisken"},
    {Message::kEyeOfHorus, "het {color} Oog van Horus"},
    {Message::kPlayerLabel, "{color} ({name})"},
    {Message::kComputerPlayer, "computer, niveau {level}"},
    {Message::kListAnd, "{list} en {last}"},
    {Message::kSeatTaken, "{name} neemt de plaats van {color} in."},
    {Message::kSeatLeft, "{name} verlaat de plaats van {color}."},
    {Message::kComputerSeatTaken,
     "De computer (niveau {level}, {level_name}) neemt de plaats van {color} "
     "in."},
    {Message::kComputerSeatLeft,
     "De computer (niveau {level}, {level_name}) verlaat de plaats van "
     "{color}."},
    {Message::kGameStart,
     "Een nieuw spel met de opstelling {setup} begint: {silver} tegen {red}."},
    {Message::kGameStartCustom,
     "Een nieuw spel vanuit een eigen stelling begint: {silver} tegen {red}."},
    {Message::kRedMovesFirst, "Rood begint."},
    {Message::kMovePlayed, "{player} speelt {move}."},
    {Message::kHitOn, "{piece} op {square}"},
    {Message::kHitStackOn, "{piece} op {square} (de bovenste obelisk valt)"},
    {Message::kLaserHits, "De laser raakt {hits}."},
    {Message::kSilverWins, "Zilver wint"},
    {Message::kRedWins, "Rood wint"},
    {Message::kGameDrawn, "het spel eindigt in gelijkspel"},
    {Message::kGameGoesOn, "het spel gaat door"},
    {Message::kPharaohHit, "De farao {owner} is geraakt: {result}."},
    {Message::kBothPharaohsHit,
     "Beide farao's zijn geraakt door de laser {owner}: {result}."},
    {Message::kResigns, "{player} geeft op: {result}."},
    {Message::kAgreedDraw, "{silver} en {red} spreken gelijkspel af."},
    {Message::kRepetitionClaimed,
     "{player} eist gelijkspel op: de stelling kwam drie keer voor."},
    {Message::kRepetition,
     "De stelling kwam drie keer voor: het spel eindigt in gelijkspel."},
    {Message::kPlyLimit,
     "{plies} halve zetten zonder uitslag: het spel eindigt in gelijkspel."},
    {Message::kTimeForfeit, "{player} heeft geen tijd meer: {result}."},
    {Message::kRemovedFromSeat,
     "De eigenaar van het bord haalt {name} van de plaats van {color}."},
    {Message::kRematch, "Revanche, met verwisselde kleuren."},
    {Message::kDrawOffer, "{player} biedt gelijkspel aan."},
    {Message::kTakebackAsked,
     "{player} vraagt {count} zet(ten) terug te nemen."},
    {Message::kTakebackDone, "{player} neemt {count} zet(ten) terug."},
    {Message::kTakebackDeclined,
     "Het terugnameverzoek van {player} wordt geweigerd."},
    {Message::kSetupChosen, "De opstelling is nu {setup}."},
    {Message::kRuleBothPharaohsDraw, "Beide farao's geraakt: gelijkspel."},
    {Message::kRuleRepetitionDraws,
     "Een derde herhaling is meteen gelijkspel."},
    {Message::kRulePlyLimit, "Gelijkspel na {plies} halve zetten."},
    {Message::kSettings,
     "Instellingen: {timeout}, {quiet}, kleuren {scheme}, schaal {scale} m."},
    {Message::kTimeoutAfter, "time-out na {duration}"},
    {Message::kNoTimeout, "geen time-out"},
    {Message::kQuiet, "stil"},
    {Message::kNotQuiet, "niet stil"},
    {Message::kResetTimedOut,
     "Geen zet in {duration}: het spel begint opnieuw; beide plaatsen zijn "
     "vrij."},
    {Message::kResetByOwner,
     "De eigenaar heeft het spel opnieuw gestart; beide plaatsen zijn vrij."},
    {Message::kBoardDeleted, "Het bord ‘{board}’ is gesloten."},
    {Message::kDays, "{count} d"},
    {Message::kHours, "{count} h"},
    {Message::kMinutes, "{count} min"},
    {Message::kSeconds, "{count} s"},
};

}  // namespace

absl::Span<const CatalogEntry> DutchCatalog() { return kDutch; }

}  // namespace khet::i18n_internal
