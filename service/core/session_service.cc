// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// SessionService as one object over its parts: the registry of sessions
// (with the shared-store catch-up), the computer seats, the suggestions and
// the watcher count; each request goes to the handler of its group.

#include "service/core/session_service.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/setups.h"
#include "service/archive/game_analyses.h"
#include "service/archive/game_archive.h"
#include "service/archive/player_ratings.h"
#include "service/base/status_macros.h"
#include "service/computer/computer_seats.h"
#include "service/computer/suggestions.h"
#include "service/core/session_lifecycle.h"
#include "service/core/session_listing.h"
#include "service/events/watcher_limit.h"
#include "service/fair_use/unclaimed_sessions.h"
#include "service/play/game_endings.h"
#include "service/play/move_path.h"
#include "service/play/seats.h"
#include "service/play/takebacks.h"
#include "service/play/timeouts.h"
#include "service/search/search_tables.h"
#include "service/sessions/color_schemes.h"
#include "service/sessions/presets.h"
#include "service/sessions/service_core.h"
#include "service/sessions/session_access.h"
#include "service/sessions/session_registry.h"
#include "service/sessions/session_settings.h"
#include "service/sessions/watching.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

class SessionServiceImpl final : public SessionService {
 public:
  explicit SessionServiceImpl(const ServiceOptions& options)
      : store_(options.store),
        limits_(options.limits),
        log_(options.log),
        registry_(options.store, options.clock, limits_.max_sessions,
                  limits_.watcher_buffer),
        core_{&registry_, &limits_, options.random, &unclaimed_},
        search_(SearchOrDefault(options.search, limits_.kept_search_tables)),
        suggestions_(core_, search_),
        computers_(core_, search_, options.log, options.computer_search_done) {
    registry_.SetRatedGameHook([this] { ApplyRatings(); });
    registry_.SetChangeHook(
        [this](SessionEntry& entry) ABSL_NO_THREAD_SAFETY_ANALYSIS {
          computers_.Schedule(entry);
          flags_.Note(entry.id, entry.deleted ? std::nullopt
                                              : entry.session.FlagFallsAt());
          unclaimed_.Note(entry);
        });
  }

  // Stops hearing the store's changes, then the computer's searches: both
  // use everything else.
  ~SessionServiceImpl() override {
    registry_.StopListening();
    computers_.Shutdown();
  }

  // Loads the sessions, then applies the ratings of rated games a process
  // archived but did not get to rate.
  absl::Status Load() {
    KHET_RETURN_IF_ERROR(registry_.Load());
    ApplyRatings();
    return absl::OkStatus();
  }

  v1::ListSetupsResponse ListSetups() override {
    v1::ListSetupsResponse out;
    for (const SetupInfo& info : AllSetups()) {
      *out.add_setups() = SetupToProto(info);
    }
    return out;
  }

  v1::ListColorSchemesResponse ListColorSchemes() override {
    v1::ListColorSchemesResponse out;
    for (const v1::ColorScheme& s : AllColorSchemes()) *out.add_schemes() = s;
    return out;
  }

  v1::ListPresetsResponse ListPresets() override {
    v1::ListPresetsResponse out;
    for (const v1::Preset& p : AllPresets()) *out.add_presets() = p;
    return out;
  }

  v1::ListLevelsResponse ListLevels() override {
    v1::ListLevelsResponse out;
    for (const Level& level : AllLevels()) {
      *out.add_levels() = LevelToProto(level);
    }
    return out;
  }

  using SessionService::CreateSession;
  absl::StatusOr<v1::CreateSessionResponse> CreateSession(
      const v1::CreateSessionRequest& request, const Caller& caller) override {
    return khet::CreateSession(core_, request, caller);
  }
  absl::StatusOr<v1::Session> GetSession(
      const v1::GetSessionRequest& request) override {
    return khet::GetSession(core_, request);
  }
  absl::StatusOr<v1::ListSessionsResponse> ListSessions(
      const v1::ListSessionsRequest& request) override {
    return khet::ListSessions(core_, request);
  }
  absl::Status DeleteSession(const v1::DeleteSessionRequest& request,
                             const Caller& caller) override {
    return khet::DeleteSession(core_, request, caller);
  }

  absl::StatusOr<v1::JoinSeatResponse> JoinSeat(
      const v1::JoinSeatRequest& request) override {
    return khet::JoinSeat(core_, request);
  }
  absl::StatusOr<v1::Session> LeaveSeat(const v1::LeaveSeatRequest& request,
                                        const Caller& caller) override {
    return khet::LeaveSeat(core_, request, caller);
  }
  absl::StatusOr<v1::Session> ChooseSetup(const v1::ChooseSetupRequest& request,
                                          const Caller& caller) override {
    return khet::ChooseSetup(core_, request, caller);
  }

  absl::StatusOr<v1::MakeMoveResponse> MakeMove(
      const v1::MakeMoveRequest& request, const Caller& caller) override {
    return khet::MakeMove(core_, request, caller);
  }
  bool MakeMoveLater(
      const v1::MakeMoveRequest& request, const Caller& caller,
      absl::AnyInvocable<void(absl::StatusOr<v1::MakeMoveResponse>) &&> done,
      absl::AnyInvocable<void() &&> redo) override {
    return khet::MakeMoveLater(core_, request, caller, std::move(done),
                               std::move(redo));
  }
  absl::StatusOr<v1::ListLegalMovesResponse> ListLegalMoves(
      const v1::ListLegalMovesRequest& request) override {
    return khet::ListLegalMoves(core_, request);
  }
  absl::StatusOr<v1::SuggestMoveResponse> SuggestMove(
      const v1::SuggestMoveRequest& request,
      const CallControl& control) override {
    return suggestions_.SuggestMove(request, control);
  }
  absl::StatusOr<v1::Session> SeatComputer(
      const v1::SeatComputerRequest& request, const Caller& caller) override {
    return khet::SeatComputer(core_, request, caller);
  }

  absl::StatusOr<v1::Session> Resign(const v1::ResignRequest& request,
                                     const Caller& caller) override {
    return khet::Resign(core_, request, caller);
  }
  absl::StatusOr<v1::Session> OfferDraw(const v1::OfferDrawRequest& request,
                                        const Caller& caller) override {
    return khet::OfferDraw(core_, request, caller);
  }
  absl::StatusOr<v1::Session> AcceptDraw(const v1::AcceptDrawRequest& request,
                                         const Caller& caller) override {
    return khet::AcceptDraw(core_, request, caller);
  }
  absl::StatusOr<v1::Session> ClaimRepetitionDraw(
      const v1::ClaimRepetitionDrawRequest& request,
      const Caller& caller) override {
    return khet::ClaimRepetitionDraw(core_, request, caller);
  }
  absl::StatusOr<v1::Session> RequestTakeback(
      const v1::RequestTakebackRequest& request,
      const Caller& caller) override {
    return khet::RequestTakeback(core_, request, caller);
  }
  absl::StatusOr<v1::Session> AcceptTakeback(
      const v1::AcceptTakebackRequest& request, const Caller& caller) override {
    return khet::AcceptTakeback(core_, request, caller);
  }
  absl::StatusOr<v1::Session> DeclineTakeback(
      const v1::DeclineTakebackRequest& request,
      const Caller& caller) override {
    return khet::DeclineTakeback(core_, request, caller);
  }

  absl::StatusOr<int64_t> AuthorizeOwner(const std::string& session_id,
                                         const Caller& caller) override {
    return core_.registry->Read(
        session_id, [&](SessionEntry& entry) -> absl::StatusOr<int64_t> {
          KHET_RETURN_IF_ERROR(RequireOwner(entry.session, caller));
          return entry.session.version();
        });
  }
  absl::StatusOr<v1::Session> UpdateSettings(
      const v1::UpdateSettingsRequest& request, const Caller& caller) override {
    return khet::UpdateSettings(core_, request, caller);
  }
  absl::StatusOr<v1::Session> ResetGame(const v1::ResetGameRequest& request,
                                        const Caller& caller) override {
    return khet::ResetGame(core_, request, caller);
  }
  absl::StatusOr<v1::Session> Rematch(const v1::RematchRequest& request,
                                      const Caller& caller) override {
    return khet::Rematch(core_, request, caller);
  }

  absl::StatusOr<std::unique_ptr<EventStream>> Watch(
      const v1::WatchRequest& request) override {
    return khet::Watch(core_, store_, watchers_, request);
  }
  NoticeBacklog notice_backlog() override { return registry_.Backlog(); }
  int watcher_count() override { return watchers_.count(); }

  absl::StatusOr<v1::RenderBoardResponse> RenderBoard(
      const v1::RenderBoardRequest& request) override {
    return khet::RenderBoard(core_, request);
  }

  absl::StatusOr<v1::GetGameRecordResponse> GetGameRecord(
      const v1::GetGameRecordRequest& request) override {
    return khet::GetGameRecord(core_, request);
  }
  absl::StatusOr<v1::ListGamesResponse> ListGames(
      const v1::ListGamesRequest& request) override {
    return khet::ListGames(core_, request);
  }
  absl::StatusOr<v1::GetPositionResponse> GetPosition(
      const v1::GetPositionRequest& request) override {
    return khet::GetPosition(core_, request);
  }
  using SessionService::AnalyzeGame;
  absl::StatusOr<v1::GameAnalysis> AnalyzeGame(
      const v1::AnalyzeGameRequest& request, const Caller& caller) override {
    return analyses_.Analyze(request, caller.address);
  }

  absl::StatusOr<v1::Player> GetPlayer(
      const v1::GetPlayerRequest& request) override {
    return ratings_.GetPlayer(request);
  }
  absl::StatusOr<v1::ListPlayersResponse> ListPlayers(
      const v1::ListPlayersRequest& request) override {
    return ratings_.ListPlayers(request);
  }

  int SweepTimeouts() override {
    return khet::SweepTimeouts(registry_, &flags_);
  }
  absl::Time NextFlagFall() override { return flags_.Next(); }
  int SweepFlags() override {
    return khet::SweepFlags(registry_, flags_,
                            flags_.Due(registry_.clock()->Now()));
  }
  int SweepUnclaimed() override {
    return khet::SweepUnclaimed(registry_, unclaimed_,
                                limits_.unclaimed_session_timeout);
  }

 private:
  // Applies pending ratings; a failure is logged and left for the next
  // rated game or start-up (a store without ratings is left alone).
  void ApplyRatings() {
    absl::StatusOr<int> applied = ratings_.ApplyPending();
    if (!applied.ok() && !absl::IsUnimplemented(applied.status()) && log_) {
      log_(absl::StrCat("ratings: ", applied.status().ToString()));
    }
  }

  SessionStore* const store_;
  const ServiceLimits limits_;
  const std::function<void(const std::string& line)> log_;
  WatcherLimit watchers_{limits_.max_watchers};  // live EventStreams
  FlagTimes flags_;  // before the registry, whose change hook notes flags
  UnclaimedSessions unclaimed_{&limits_};  // noted by the change hook too
  SessionRegistry registry_;
  const ServiceCore core_;
  const SearchFunction search_;
  Suggestions suggestions_;
  // After the registry and the search, so that their threads are joined
  // before either goes.
  GameAnalyses analyses_{core_, search_};
  PlayerRatings ratings_{store_};
  // Last, so that its threads are joined before anything else goes.
  ComputerSeats computers_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SessionService>> SessionService::Create(
    const ServiceOptions& options) {
  if (options.store == nullptr || options.clock == nullptr ||
      options.random == nullptr) {
    return absl::InvalidArgumentError(
        "ServiceOptions needs a store, a clock and a random source");
  }
  auto service = std::make_unique<SessionServiceImpl>(options);
  KHET_RETURN_IF_ERROR(service->Load());
  return service;
}

}  // namespace khet
