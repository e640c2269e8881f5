// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/presets.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "service/text/quoted_input.h"

namespace khet {
namespace {

std::vector<v1::Preset> MakePresets() {
  std::vector<v1::Preset> out;

  v1::Preset casual;
  casual.set_id("casual");
  casual.set_name("Casual");
  casual.set_description(
      "Classic 2 with the usual rules: a third repetition may be claimed as a "
      "draw, no move limit, no clocks, hints and takebacks on.");
  casual.set_setup_id("classic-2");
  casual.mutable_settings()->set_hints(true);
  casual.mutable_settings()->set_takebacks(true);
  out.push_back(casual);

  v1::Preset tournament;
  tournament.set_id("tournament-2009");
  tournament.set_name("Tournament 2009");
  tournament.set_description(
      "The 2009 tournament's rules: the Classic setup, an automatic draw on "
      "the third repetition, a draw after 222 moves, four facings for the "
      "Pharaoh and the Scarab (a Pharaoh may turn), no hints, no takebacks.");
  tournament.set_setup_id("classic-2");
  v1::RuleOptions* t = tournament.mutable_rules();
  t->set_automatic_repetition_draw(true);
  t->set_ply_limit(222);
  t->set_physical_facings(true);
  tournament.mutable_settings()->set_hints(false);
  tournament.mutable_settings()->set_takebacks(false);
  out.push_back(tournament);

  v1::Preset club;
  club.set_id("club");
  club.set_name("Club");
  club.set_description(
      "Club play: Classic 2, a claimable repetition, 15 minutes each and 10 "
      "seconds more a move, hints off.");
  club.set_setup_id("classic-2");
  v1::TimeControl* tc = club.mutable_rules()->mutable_time_control();
  tc->set_kind(v1::TimeControl::FISCHER);
  tc->set_base_ms(15 * 60 * 1000);
  tc->set_increment_ms(10 * 1000);
  club.mutable_settings()->set_hints(false);
  out.push_back(club);
  return out;
}

}  // namespace

const std::vector<v1::Preset>& AllPresets() {
  static const auto* const kPresets =
      new std::vector<v1::Preset>(MakePresets());
  return *kPresets;
}

absl::StatusOr<v1::Preset> FindPreset(std::string_view id) {
  std::string known;
  for (const v1::Preset& p : AllPresets()) {
    if (p.id() == id) return p;
    absl::StrAppend(&known, known.empty() ? "" : ", ", p.id());
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown preset ", QuoteInput(id),
                   " (ListPresets names them: ", known, ")"));
}

}  // namespace khet
