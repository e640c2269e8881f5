// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Colours and pieces for people in each language, as announcements name
// them: "Red", "Red Pyramid NE" (English, as engine/notation.h's
// DescribePiece), "die rote Pyramide NE", "la pyramide rouge NE", "de rode
// piramide NE". Orientations stay in the notation's letters (NE, N, /, \)
// in every language, like squares and moves.
#ifndef KHET_SERVICE_I18N_NAMES_H_
#define KHET_SERVICE_I18N_NAMES_H_

#include <string>

#include "engine/types.h"
#include "service/i18n/messages.h"

namespace khet {

// The side: "Silver", "Silber", "Argent", "Zilver".
std::string ColorText(Language language, Color color);

// The side's possessive: "Silver's", "von Silber", "d'Argent", "van Zilver".
std::string ColorOwnerText(Language language, Color color);

// A piece with its colour and orientation (a Khet 1.0 Scarab is a Djed); an
// empty piece is DescribePiece's "nothing" in every language.
std::string PieceText(Language language, Piece piece, Edition edition);

}  // namespace khet

#endif  // KHET_SERVICE_I18N_NAMES_H_
