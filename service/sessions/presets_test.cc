// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Rule presets through SessionService: each preset's rules and settings,
// and a behaviour of each (a Pharaoh's turn under tournament-2009, the
// club's clock and hints), presets with rules or unknown ids refused, and
// ChooseSetup with a preset.
#include "service/sessions/presets.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "service/base/status_or_matchers.h"
#include "service/core/service_test_fixture.h"
#include "service/core/session_service.h"

namespace khet {
namespace {

class PresetsTest : public ServiceTest {
 protected:
  absl::StatusOr<v1::CreateSessionResponse> Create(
      const std::string& preset, const std::string& setup_id = "") {
    v1::CreateSessionRequest create;
    create.set_name("preset board");
    create.set_preset(preset);
    create.set_setup_id(setup_id);
    return service_->CreateSession(create);
  }

  // Both seats taken on `id`: Silver's and Red's tokens.
  std::pair<std::string, std::string> Seat(const std::string& id) {
    std::string tokens[2];
    int i = 0;
    for (v1::Color c : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(id);
      join.set_color(c);
      join.set_player_name(c == v1::SILVER ? "Ann" : "Bob");
      absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
      EXPECT_TRUE(joined.ok()) << joined.status();
      if (joined.ok()) tokens[i] = joined->player_token();
      ++i;
    }
    return {tokens[0], tokens[1]};
  }

  absl::StatusOr<v1::MakeMoveResponse> Move(const std::string& id,
                                            const std::string& token,
                                            const std::string& notation) {
    v1::MakeMoveRequest move;
    move.set_session_id(id);
    move.mutable_move()->set_notation(notation);
    return service_->MakeMove(move, Caller{token});
  }

  absl::StatusOr<v1::SuggestMoveResponse> Suggest(const std::string& id) {
    v1::SuggestMoveRequest request;
    request.set_session_id(id);
    request.set_level(1);
    return service_->SuggestMove(request, CallControl());
  }
};

TEST_F(PresetsTest, ListsTheThreePresets) {
  const v1::ListPresetsResponse list = service_->ListPresets();
  ASSERT_EQ(list.presets_size(), 3);
  EXPECT_EQ(list.presets(0).id(), "casual");
  EXPECT_EQ(list.presets(1).id(), "tournament-2009");
  EXPECT_EQ(list.presets(2).id(), "club");
  for (const v1::Preset& p : list.presets()) {
    EXPECT_FALSE(p.name().empty());
    EXPECT_FALSE(p.description().empty());
    EXPECT_EQ(p.setup_id(), "classic-2");
  }
}

TEST_F(PresetsTest, CasualIsTodaysDefaults) {
  absl::StatusOr<v1::CreateSessionResponse> created = Create("casual");
  ASSERT_OK(created);
  const v1::Session& s = created->session();
  EXPECT_EQ(s.preset(), "casual");
  EXPECT_EQ(s.setup_id(), "classic-2");
  EXPECT_EQ(s.rules().SerializeAsString(),
            v1::RuleOptions().SerializeAsString());
  EXPECT_FALSE(s.settings().hints_off());
  EXPECT_FALSE(s.settings().takebacks_off());
  EXPECT_FALSE(s.has_clocks());
}

TEST_F(PresetsTest, Tournament2009HasSeed003sRules) {
  absl::StatusOr<v1::CreateSessionResponse> created = Create("tournament-2009");
  ASSERT_OK(created);
  const v1::Session& s = created->session();
  EXPECT_EQ(s.preset(), "tournament-2009");
  EXPECT_EQ(s.setup_id(), "classic-2");
  EXPECT_TRUE(s.rules().automatic_repetition_draw());
  EXPECT_EQ(s.rules().ply_limit(), 222);
  EXPECT_TRUE(s.rules().physical_facings());
  EXPECT_FALSE(s.rules().both_pharaohs_hit_draws());
  EXPECT_TRUE(s.settings().hints_off());
  const auto [silver, red] = Seat(s.id());
  // Turning the Pharaoh is a move here (a waiting move), as the tournament's
  // rule 4 has it; and no hints during the game.
  ASSERT_OK(Move(s.id(), silver, "e1R"));
  EXPECT_ERROR(Suggest(s.id()), kFailedPrecondition, "hints are off");
  // Nor takebacks.
  EXPECT_TRUE(s.settings().takebacks_off());
  v1::RequestTakebackRequest takeback;
  takeback.set_session_id(s.id());
  EXPECT_ERROR(service_->RequestTakeback(takeback, Caller{silver}),
               kFailedPrecondition, "setting takebacks");
  // Under the casual rules a Pharaoh does not turn.
  absl::StatusOr<v1::CreateSessionResponse> casual = Create("casual");
  ASSERT_OK(casual);
  const auto [casual_silver, casual_red] = Seat(casual->session().id());
  EXPECT_ERROR(Move(casual->session().id(), casual_silver, "e1R"),
               kInvalidArgument, "Pharaoh");
}

TEST_F(PresetsTest, ClubHasAFischerClockAndNoHints) {
  absl::StatusOr<v1::CreateSessionResponse> created = Create("club");
  ASSERT_OK(created);
  const v1::Session& s = created->session();
  EXPECT_FALSE(s.rules().automatic_repetition_draw());
  EXPECT_EQ(s.rules().time_control().kind(), v1::TimeControl::FISCHER);
  EXPECT_EQ(s.rules().time_control().base_ms(), 15 * 60 * 1000);
  EXPECT_EQ(s.rules().time_control().increment_ms(), 10 * 1000);
  EXPECT_TRUE(s.settings().hints_off());
  Seat(s.id());
  v1::GetSessionRequest get;
  get.set_session_id(s.id());
  absl::StatusOr<v1::Session> now = service_->GetSession(get);
  ASSERT_OK(now);
  EXPECT_EQ(now->clocks().running(), v1::SILVER);
  EXPECT_ERROR(Suggest(s.id()), kFailedPrecondition, "setting hints");
}

TEST_F(PresetsTest, APresetMayTakeAnotherSetupAndTheRequestsSettings) {
  v1::CreateSessionRequest create;
  create.set_name("dynasty club");
  create.set_preset("club");
  create.set_setup_id("dynasty-2");
  create.mutable_settings()->set_hints(true);
  absl::StatusOr<v1::CreateSessionResponse> created =
      service_->CreateSession(create);
  ASSERT_OK(created);
  EXPECT_EQ(created->session().setup_id(), "dynasty-2");
  EXPECT_FALSE(created->session().settings().hints_off());  // the request's
  EXPECT_TRUE(created->session().has_clocks());             // the preset's
}

TEST_F(PresetsTest, APresetWithRulesOrAnUnknownOneIsRefused) {
  v1::CreateSessionRequest create;
  create.set_name("both");
  create.set_preset("club");
  create.mutable_rules()->set_ply_limit(10);
  EXPECT_ERROR(service_->CreateSession(create), kInvalidArgument,
               "give a preset or rules, not both");
  EXPECT_ERROR(Create("blitz"), kInvalidArgument,
               "unknown preset \"blitz\" (ListPresets names them: casual, "
               "tournament-2009, club)");
  create.clear_rules();
  create.set_preset("");
  create.set_record("[Setup \"classic-2\"]\n\n*\n");
  create.set_preset("club");
  EXPECT_ERROR(service_->CreateSession(create), kInvalidArgument,
               "give a record or");
}

TEST_F(PresetsTest, ChooseSetupWithAPreset) {
  absl::StatusOr<v1::CreateSessionResponse> created = Create("");
  ASSERT_OK(created);
  const std::string id = created->session().id();
  EXPECT_EQ(created->session().preset(), "");
  v1::JoinSeatRequest join;
  join.set_session_id(id);
  join.set_player_name("Ann");
  absl::StatusOr<v1::JoinSeatResponse> ann = service_->JoinSeat(join);
  ASSERT_OK(ann);
  v1::ChooseSetupRequest choose;
  choose.set_session_id(id);
  choose.set_preset("tournament-2009");
  // A player's choice takes the preset's setup and rules, not its settings.
  absl::StatusOr<v1::Session> chosen =
      service_->ChooseSetup(choose, Caller{ann->player_token()});
  ASSERT_OK(chosen);
  EXPECT_EQ(chosen->preset(), "tournament-2009");
  EXPECT_TRUE(chosen->rules().physical_facings());
  EXPECT_FALSE(chosen->settings().hints_off());
  // The owner's takes the settings too, and says so with SettingsChanged.
  const int64_t before = chosen->version();
  chosen = service_->ChooseSetup(choose, Caller{created->owner_token()});
  ASSERT_OK(chosen);
  EXPECT_TRUE(chosen->settings().hints_off());
  EXPECT_TRUE(chosen->settings().takebacks_off());
  const std::vector<v1::Event> events = EventsAfter(id, before);
  ASSERT_EQ(events.size(), 2u);
  ASSERT_TRUE(events[0].has_setup_chosen());
  // The event's start is the game's: with the preset's facings.
  EXPECT_EQ(events[0].setup_chosen().board().position(),
            chosen->board().position());
  EXPECT_TRUE(
      absl::EndsWith(events[0].setup_chosen().board().position(), " f"));
  ASSERT_TRUE(events[1].has_settings_changed());
  EXPECT_TRUE(events[1].settings_changed().settings().hints_off());
  // Chosen again, the same settings: no SettingsChanged.
  const int64_t again = chosen->version();
  chosen = service_->ChooseSetup(choose, Caller{created->owner_token()});
  ASSERT_OK(chosen);
  EXPECT_EQ(EventsAfter(id, again).size(), 1u);
  // Rules without a preset: the preset is gone.
  choose.clear_preset();
  choose.set_setup_id("classic-2");
  chosen = service_->ChooseSetup(choose, Caller{created->owner_token()});
  ASSERT_OK(chosen);
  EXPECT_EQ(chosen->preset(), "");
  EXPECT_FALSE(chosen->rules().physical_facings());
}

}  // namespace
}  // namespace khet
