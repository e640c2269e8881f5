// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The French catalogue (fr); terms from the Khet 1.0 booklet's French
// (service/i18n/README.md).
#include "service/i18n/catalog.h"

namespace khet::i18n_internal {
namespace {

constexpr CatalogEntry kFrench[] = {
    {Message::kSilver, "Argent"},
    {Message::kRed, "Rouge"},
    {Message::kSilverOwner, "d'Argent"},
    {Message::kRedOwner, "de Rouge"},
    {Message::kSilverAdjective, "argent"},
    {Message::kRedAdjective, "rouge"},
    {Message::kPharaoh, "le pharaon {color}"},
    {Message::kPyramid, "la pyramide {color}"},
    {Message::kScarab, "le scarabée {color}"},
    {Message::kDjed, "le djed {color}"},
    {Message::kAnubis, "l'Anubis {color}"},
    {Message::kSphinx, "le sphinx {color}"},
    {Message::kObelisk, "l'obélisque {color}"},
    {Message::kObeliskStack, "la pile d'obélisques {color}"},
    {Message::kEyeOfHorus, "l'Œil d'Horus {color}"},
    {Message::kPlayerLabel, "{color} ({name})"},
    {Message::kComputerPlayer, "ordinateur, niveau {level}"},
    {Message::kListAnd, "{list} et {last}"},
    {Message::kSeatTaken, "{name} prend place côté {color}."},
    {Message::kSeatLeft, "{name} quitte sa place côté {color}."},
    {Message::kComputerSeatTaken,
     "L'ordinateur (niveau {level}, {level_name}) prend place côté {color}."},
    {Message::kComputerSeatLeft,
     "L'ordinateur (niveau {level}, {level_name}) quitte sa place côté "
     "{color}."},
    {Message::kGameStart,
     "Une nouvelle partie en configuration {setup} commence : {silver} contre "
     "{red}."},
    {Message::kGameStartCustom,
     "Une nouvelle partie commence depuis une disposition personnalisée : "
     "{silver} contre {red}."},
    {Message::kRedMovesFirst, "Rouge commence."},
    {Message::kMovePlayed, "{player} joue {move}."},
    {Message::kHitOn, "{piece} en {square}"},
    {Message::kHitStackOn, "{piece} en {square} (l'obélisque du haut tombe)"},
    {Message::kLaserHits, "Le rayon frappe {hits}."},
    {Message::kSilverWins, "Argent gagne"},
    {Message::kRedWins, "Rouge gagne"},
    {Message::kGameDrawn, "la partie est nulle"},
    {Message::kGameGoesOn, "la partie continue"},
    {Message::kPharaohHit, "Le pharaon {owner} est frappé : {result}."},
    {Message::kBothPharaohsHit,
     "Les deux pharaons sont frappés par le rayon {owner} : {result}."},
    {Message::kResigns, "{player} abandonne : {result}."},
    {Message::kAgreedDraw, "{silver} et {red} conviennent d'une partie nulle."},
    {Message::kRepetitionClaimed,
     "{player} demande la partie nulle : la disposition est apparue trois "
     "fois."},
    {Message::kRepetition,
     "La disposition est apparue trois fois : la partie est nulle."},
    {Message::kPlyLimit,
     "{plies} demi-coups sans résultat : la partie est nulle."},
    {Message::kTimeForfeit, "{player} n'a plus de temps : {result}."},
    {Message::kRemovedFromSeat,
     "Le propriétaire du plateau retire {name} de sa place côté {color}."},
    {Message::kRematch, "Revanche, couleurs inversées."},
    {Message::kDrawOffer, "{player} propose la partie nulle."},
    {Message::kTakebackAsked, "{player} demande à reprendre {count} coup(s)."},
    {Message::kTakebackDone, "{player} reprend {count} coup(s)."},
    {Message::kTakebackDeclined,
     "La demande de reprise de {player} est refusée."},
    {Message::kSetupChosen, "La configuration est maintenant {setup}."},
    {Message::kRuleBothPharaohsDraw,
     "Les deux pharaons frappés : partie nulle."},
    {Message::kRuleRepetitionDraws,
     "Une troisième répétition donne aussitôt partie nulle."},
    {Message::kRulePlyLimit, "Partie nulle après {plies} demi-coups."},
    {Message::kSettings,
     "Réglages : {timeout}, {quiet}, couleurs {scheme}, échelle {scale} m."},
    {Message::kTimeoutAfter, "réinitialisation après {duration} d'inactivité"},
    {Message::kNoTimeout, "pas de réinitialisation"},
    {Message::kQuiet, "discret"},
    {Message::kNotQuiet, "pas discret"},
    {Message::kResetTimedOut,
     "Aucun coup depuis {duration} : la partie est réinitialisée ; les deux "
     "places sont libres."},
    {Message::kResetByOwner,
     "Le propriétaire a réinitialisé la partie ; les deux places sont libres."},
    {Message::kBoardDeleted, "Le plateau « {board} » est fermé."},
    {Message::kDays, "{count} j"},
    {Message::kHours, "{count} h"},
    {Message::kMinutes, "{count} min"},
    {Message::kSeconds, "{count} s"},
};

}  // namespace

absl::Span<const CatalogEntry> FrenchCatalog() { return kFrench; }

}  // namespace khet::i18n_internal
