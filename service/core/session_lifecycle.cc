// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/core/session_lifecycle.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/notation.h"
#include "engine/setups.h"
#include "service/archive/game_archive.h"
#include "service/base/status_macros.h"
#include "service/fair_use/archive_budget.h"
#include "service/fair_use/unclaimed_sessions.h"
#include "service/sessions/announcements.h"
#include "service/sessions/game_events.h"
#include "service/sessions/game_records.h"
#include "service/sessions/presets.h"
#include "service/sessions/session_access.h"
#include "service/sessions/session_settings.h"
#include "service/sessions/time_control.h"
#include "service/text/quoted_input.h"
#include "service/text/unicode_text.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

constexpr std::string_view kDefaultSetup = "classic-2";

struct ChosenSetup {
  std::string id;
  Position start;
  RuleOptions options;
  v1::TimeControl time_control;
  std::optional<v1::Preset> preset;  // the request's, if it named one
};

// A named setup (default classic-2) or a custom position, and rule options.
absl::StatusOr<ChosenSetup> ResolveSetup(std::string_view setup_id,
                                         std::string_view position,
                                         const v1::RuleOptions& rules,
                                         const ServiceLimits& limits) {
  ChosenSetup chosen;
  KHET_ASSIGN_OR_RETURN(chosen.options, OptionsFromProto(rules));
  KHET_RETURN_IF_ERROR(CheckTimeControl(rules.time_control()));
  chosen.time_control = rules.time_control();
  if (!position.empty()) {
    if (!setup_id.empty() && setup_id != kCustomSetupId) {
      return absl::InvalidArgumentError(absl::StrCat(
          "give setup_id (", QuoteInput(setup_id), ") or position, not both"));
    }
    if (static_cast<int>(position.size()) > limits.max_position_length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "position has ", position.size(), " characters; at most ",
          limits.max_position_length, " are allowed"));
    }
    absl::StatusOr<Position> start = ParsePosition(position);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad position: ", start.status().message()));
    }
    chosen.id = std::string(kCustomSetupId);
    chosen.start = *start;
    return chosen;
  }
  chosen.id =
      setup_id.empty() ? std::string(kDefaultSetup) : std::string(setup_id);
  absl::StatusOr<Position> start = SetupPosition(chosen.id);
  if (!start.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown setup ", QuoteInput(chosen.id), " (ListSetups names them)"));
  }
  chosen.start = *start;
  return chosen;
}

// ResolveSetup for a CreateSession or ChooseSetup request, which may name
// a preset instead of rules: the preset's rules, and its setup unless the
// request gives one; setup.preset is the preset, if any.
template <typename Request>
absl::StatusOr<ChosenSetup> ResolveRequestSetup(const Request& request,
                                                const ServiceLimits& limits) {
  std::string setup_id = request.setup_id();
  v1::RuleOptions rules = request.rules();
  std::optional<v1::Preset> preset;
  if (!request.preset().empty()) {
    if (request.has_rules()) {
      return absl::InvalidArgumentError(
          "give a preset or rules, not both: the preset sets the rules");
    }
    KHET_ASSIGN_OR_RETURN(preset, FindPreset(request.preset()));
    rules = preset->rules();
    if (setup_id.empty() && request.position().empty()) {
      setup_id = preset->setup_id();
    }
  }
  KHET_ASSIGN_OR_RETURN(
      ChosenSetup setup,
      ResolveSetup(setup_id, request.position(), rules, limits));
  setup.preset = std::move(preset);
  return setup;
}

absl::StatusOr<v1::Session> ChooseSetupIn(const ServiceCore& core,
                                          SessionEntry& entry,
                                          const v1::ChooseSetupRequest& request,
                                          const Caller& caller)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  const Session& s = entry.session;
  KHET_RETURN_IF_ERROR(
      RequireOwnerOrPlayer(s, caller, "ChooseSetup", "choose the setup"));
  if (s.status() == v1::IN_PROGRESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("a game is in progress in session \"", s.id(),
                     "\"; reset the game first"));
  }
  KHET_RETURN_IF_ERROR(CheckNewGameBudget(core, s));
  KHET_ASSIGN_OR_RETURN(ChosenSetup setup,
                        ResolveRequestSetup(request, *core.limits));
  const std::optional<v1::Preset>& preset = setup.preset;
  v1::Settings settings = s.state().settings();
  if (preset.has_value() && s.IsOwner(caller.token)) {
    KHET_RETURN_IF_ERROR(ApplySettings(preset->settings(), &settings,
                                       core.limits->min_timeout_seconds));
  }
  Session next = s;
  next.ChooseSetup(setup.id, setup.start, setup.options);
  next.set_time_control(setup.time_control);
  next.set_preset(preset.has_value() ? preset->id() : "");
  next.set_settings(settings);
  std::vector<v1::Event> events;
  v1::Event chosen;
  chosen.set_announcement(
      SetupAnnouncement(next.SetupName(), setup.options, next.language()));
  v1::SetupChosen* sc = chosen.mutable_setup_chosen();
  sc->set_setup_id(setup.id);
  *sc->mutable_rules() = next.state().rules();
  // The start as the game has it: with the facings of its rules.
  Position start = setup.start;
  start.SetPhysicalFacings(setup.options.physical_facings);
  *sc->mutable_board() = BoardToProto(start);
  events.push_back(std::move(chosen));
  if (settings.SerializeAsString() !=
      s.state().settings().SerializeAsString()) {
    events.push_back(SettingsChangedEvent(next));  // the preset's settings
  }
  if (next.BothSeatsTaken()) {
    next.StartGame(core.registry->clock()->Now());
    events.push_back(GameStartedEvent(next));
  }
  KHET_RETURN_IF_ERROR(
      core.registry->Commit(entry, std::move(next), std::move(events)));
  return entry.session.ToProto();
}

}  // namespace

namespace {

absl::StatusOr<v1::CreateSessionResponse> CreateNewSession(
    const ServiceCore& core, const v1::CreateSessionRequest& request,
    const Caller& caller) {
  KHET_ASSIGN_OR_RETURN(ChosenSetup setup,
                        ResolveRequestSetup(request, *core.limits));
  KHET_ASSIGN_OR_RETURN(
      std::string name,
      request.name().empty()
          ? absl::StatusOr<std::string>(DefaultSessionName(setup.id))
          : CheckDisplayName("name", request.name(),
                             core.limits->max_name_length));
  const std::optional<v1::Preset>& preset = setup.preset;
  v1::Settings settings = DefaultSettings();
  if (preset.has_value()) {
    KHET_RETURN_IF_ERROR(ApplySettings(preset->settings(), &settings,
                                       core.limits->min_timeout_seconds));
  }
  KHET_RETURN_IF_ERROR(ApplySettings(request.settings(), &settings,
                                     core.limits->min_timeout_seconds));
  const std::string owner_token = core.random->NewToken();
  const absl::Time now = core.registry->clock()->Now();
  KHET_ASSIGN_OR_RETURN(
      std::shared_ptr<SessionEntry> entry,
      core.registry->Create(
          [&](const std::string& id) {
            Session s = Session::New(id, name, TokenHash(owner_token), setup.id,
                                     setup.start, setup.options, settings, now);
            s.set_creator(caller.address, caller.object_key);
            s.set_time_control(setup.time_control);
            s.set_preset(preset.has_value() ? preset->id() : "");
            return s;
          },
          [&] { return core.random->NewSessionId(); }));
  v1::CreateSessionResponse out;
  {
    SessionLock lock(*entry);
    *out.mutable_session() = entry->session.ToProto();
  }
  out.set_owner_token(owner_token);
  return out;
}

}  // namespace

absl::StatusOr<v1::CreateSessionResponse> CreateSession(
    const ServiceCore& core, const v1::CreateSessionRequest& request,
    const Caller& caller) {
  // Counted toward the caller's budget while it is made.
  KHET_ASSIGN_OR_RETURN(
      UnclaimedSessions::Place place,
      core.unclaimed->Reserve(caller, core.registry->clock()->Now()));
  absl::StatusOr<v1::CreateSessionResponse> created =
      !request.record().empty() || request.ply() != 0
          ? CreateSessionFromRecord(core, request, caller)
          : CreateNewSession(core, request, caller);
  if (!created.ok()) return created;
  // Counted as made, unless a seat was taken meanwhile.
  if (std::shared_ptr<SessionEntry> entry =
          core.registry->Known(created->session().id())) {
    SessionLock lock(*entry);
    core.unclaimed->Note(*entry);
  }
  return created;
}

absl::StatusOr<v1::Session> GetSession(const ServiceCore& core,
                                       const v1::GetSessionRequest& request) {
  return core.registry->Read(
      request.session_id(),
      [](SessionEntry& entry) -> absl::StatusOr<v1::Session> {
        return entry.session.ToProto();
      });
}

absl::Status DeleteSession(const ServiceCore& core,
                           const v1::DeleteSessionRequest& request,
                           const Caller& caller) {
  return core.registry->Read(
      request.session_id(), [&](SessionEntry& entry) -> absl::Status {
        KHET_RETURN_IF_ERROR(RequireOwner(entry.session, caller));
        return core.registry->Delete(entry);
      });
}

absl::StatusOr<v1::Session> ChooseSetup(const ServiceCore& core,
                                        const v1::ChooseSetupRequest& request,
                                        const Caller& caller) {
  return core.registry->Change(request.session_id(), [&](SessionEntry& entry) {
    return ChooseSetupIn(core, entry, request, caller);
  });
}

absl::StatusOr<v1::RenderBoardResponse> RenderBoard(
    const ServiceCore& core, const v1::RenderBoardRequest& request) {
  return core.registry->Read(
      request.session_id(),
      [&](SessionEntry& entry) -> absl::StatusOr<v1::RenderBoardResponse> {
        v1::RenderBoardResponse out;
        out.set_text(entry.session.Render(!request.without_laser()));
        return out;
      });
}

}  // namespace khet
