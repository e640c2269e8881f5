// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Rule presets: named bundles of a setup, rule options and owner settings
// a board may start from (ListPresets; CreateSession and ChooseSetup with
// `preset`). The bundles and the decisions behind them:
//   casual           Classic 2 with the default rules: a third repetition
//                    may be claimed, no move limit, no clocks, hints on.
//   tournament-2009  the tournament of seed 003: Khet 2.0 from the Classic
//                    setup, an automatic draw on a third repetition, a draw
//                    after the 222nd move (a move there, "kaik", is one
//                    player's turn: 222 plies), physical facings (four
//                    facings for the Pharaoh and the Scarab), no hints.
//   club             Classic 2, a claimable repetition, a Fischer clock of
//                    15 minutes and 10 s a move, hints off.
#ifndef KHET_SERVICE_SESSIONS_PRESETS_H_
#define KHET_SERVICE_SESSIONS_PRESETS_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"

namespace khet {

// Every preset, in the order above.
const std::vector<v1::Preset>& AllPresets();

// The preset with this id; INVALID_ARGUMENT naming it and the known ones.
absl::StatusOr<v1::Preset> FindPreset(std::string_view id);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_PRESETS_H_
