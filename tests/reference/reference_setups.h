// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The starting setups of section 7 of the rules, transcribed from the rules
// text and built on the reference's own Board, independently of engine/.
#ifndef KHET_TESTS_REFERENCE_REFERENCE_SETUPS_H_
#define KHET_TESTS_REFERENCE_REFERENCE_SETUPS_H_

#include <string>
#include <vector>

#include "tests/reference/reference_rules.h"

namespace khet::reference {

// The ids this file knows: "classic-2", "classic-2b", "classic-1",
// "classic-1b", the same four for "imhotep" and "dynasty", "osiris", "isis".
std::vector<std::string> RulesSetupIds();

// The starting position of a setup, Silver to move, or false for an id this
// file does not know.
bool RulesSetup(const std::string& id, Board* board);

// Gives a setup's pieces the starting facings of physical facings
// (docs/notation.md, "Physical facings"): every Pharaoh faces the opponent,
// Silver's north and Red's south, and every Scarab, Djed or Eye keeps its
// diagonal with its front mirror towards the opponent: Silver's '/' NW and
// '\' NE, Red's '/' SE and '\' SW.
void GivePhysicalFacings(Board* board);

}  // namespace khet::reference

#endif  // KHET_TESTS_REFERENCE_REFERENCE_SETUPS_H_
