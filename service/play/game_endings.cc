// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/play/game_endings.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/names.h"
#include "service/base/status_macros.h"
#include "service/fair_use/archive_budget.h"
#include "service/sessions/announcements.h"
#include "service/sessions/game_events.h"
#include "service/sessions/session_access.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

// A seated player ends the game in progress with `end` (resign, accept a
// draw, claim a repetition); GameOver.
template <typename EndFn>
absl::StatusOr<v1::Session> EndByPlayer(const ServiceCore& core,
                                        const std::string& session_id,
                                        const Caller& caller, EndFn end) {
  return core.registry->Change(
      session_id, [&](SessionEntry& entry) -> absl::StatusOr<v1::Session> {
        KHET_ASSIGN_OR_RETURN(Color color,
                              RequirePlayer(entry.session, caller));
        KHET_RETURN_IF_ERROR(RequireGameInProgress(entry.session));
        Session next = entry.session;
        next.StopClocks(core.registry->clock()->Now());
        KHET_RETURN_IF_ERROR(end(next, color));
        v1::Event over = GameOverEvent(next);
        KHET_RETURN_IF_ERROR(
            core.registry->Commit(entry, std::move(next), {std::move(over)}));
        return entry.session.ToProto();
      });
}

absl::StatusOr<v1::Session> OfferDrawIn(const ServiceCore& core,
                                        SessionEntry& entry,
                                        const Caller& caller)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  const Session& s = entry.session;
  KHET_ASSIGN_OR_RETURN(Color color, RequirePlayer(s, caller));
  KHET_RETURN_IF_ERROR(RequireGameInProgress(s));
  if (s.draw_offered_by() == color) {
    return absl::FailedPreconditionError(
        absl::StrCat(ColorName(color), " has already offered a draw"));
  }
  if (s.draw_offered_by() == Opponent(color)) {
    return absl::FailedPreconditionError(absl::StrCat(
        ColorName(Opponent(color)), "'s draw offer stands: accept it instead"));
  }
  Session next = s;
  next.OfferDraw(color);
  v1::Event offered;
  offered.set_announcement(
      DrawOfferAnnouncement(color, next.SeatLabel(color), next.language()));
  offered.mutable_draw_offered()->set_by(ToProto(color));
  KHET_RETURN_IF_ERROR(
      core.registry->Commit(entry, std::move(next), {std::move(offered)}));
  return entry.session.ToProto();
}

}  // namespace

absl::StatusOr<v1::Session> Resign(const ServiceCore& core,
                                   const v1::ResignRequest& request,
                                   const Caller& caller) {
  return EndByPlayer(core, request.session_id(), caller,
                     [](Session& next, Color color) -> absl::Status {
                       return next.Resign(color);
                     });
}

absl::StatusOr<v1::Session> OfferDraw(const ServiceCore& core,
                                      const v1::OfferDrawRequest& request,
                                      const Caller& caller) {
  return core.registry->Change(request.session_id(), [&](SessionEntry& entry) {
    return OfferDrawIn(core, entry, caller);
  });
}

absl::StatusOr<v1::Session> AcceptDraw(const ServiceCore& core,
                                       const v1::AcceptDrawRequest& request,
                                       const Caller& caller) {
  return EndByPlayer(
      core, request.session_id(), caller,
      [](Session& next, Color color) -> absl::Status {
        const std::optional<Color> by = next.draw_offered_by();
        if (!by.has_value()) {
          return absl::FailedPreconditionError("no draw offer stands");
        }
        if (*by == color) {
          return absl::FailedPreconditionError(absl::StrCat(
              ColorName(color), " cannot accept its own draw offer"));
        }
        return next.AgreeDraw();
      });
}

absl::StatusOr<v1::Session> ClaimRepetitionDraw(
    const ServiceCore& core, const v1::ClaimRepetitionDrawRequest& request,
    const Caller& caller) {
  return EndByPlayer(core, request.session_id(), caller,
                     [](Session& next, Color color) -> absl::Status {
                       return next.ClaimRepetitionDraw(color);
                     });
}

absl::StatusOr<v1::Session> ResetGame(const ServiceCore& core,
                                      const v1::ResetGameRequest& request,
                                      const Caller& caller) {
  return core.registry->Change(
      request.session_id(),
      [&](SessionEntry& entry) -> absl::StatusOr<v1::Session> {
        KHET_RETURN_IF_ERROR(RequireOwner(entry.session, caller));
        KHET_RETURN_IF_ERROR(CheckNewGameBudget(core, entry.session));
        KHET_RETURN_IF_ERROR(
            ResetSession(*core.registry, entry, /*timed_out=*/false));
        return entry.session.ToProto();
      });
}

absl::StatusOr<v1::Session> Rematch(const ServiceCore& core,
                                    const v1::RematchRequest& request,
                                    const Caller& caller) {
  return core.registry->Change(
      request.session_id(),
      [&](SessionEntry& entry) -> absl::StatusOr<v1::Session> {
        const Session& s = entry.session;
        KHET_RETURN_IF_ERROR(
            RequireOwnerOrPlayer(s, caller, "Rematch", "ask for a rematch"));
        if (s.status() != v1::FINISHED) {
          return absl::FailedPreconditionError(absl::StrCat(
              "a rematch follows a finished game; session \"", s.id(), "\" ",
              s.status() == v1::IN_PROGRESS ? "has a game in progress"
                                            : "has no game yet"));
        }
        if (!s.BothSeatsTaken()) {
          return absl::FailedPreconditionError(
              "a rematch needs both seats taken");
        }
        KHET_RETURN_IF_ERROR(CheckNewGameBudget(core, s));
        Session next = s;
        next.SwapSeats();
        next.StartGame(core.registry->clock()->Now());
        v1::Event started = GameStartedEvent(next);
        started.set_announcement(absl::StrCat(
            RematchAnnouncement(next.language()), " ", started.announcement()));
        KHET_RETURN_IF_ERROR(core.registry->Commit(entry, std::move(next),
                                                   {std::move(started)}));
        return entry.session.ToProto();
      });
}

absl::Status ResetSession(SessionRegistry& registry, SessionEntry& entry,
                          bool timed_out) {
  Session next = entry.session;
  next.EndGame(/*empty_seats=*/true);
  v1::Event reset;
  reset.set_announcement(ResetAnnouncement(
      timed_out, next.state().settings().timeout_seconds(), next.language()));
  reset.mutable_game_reset()->set_timed_out(timed_out);
  return registry.Commit(entry, std::move(next), {std::move(reset)});
}

absl::Status ForfeitOnTime(SessionRegistry& registry, SessionEntry& entry,
                           absl::Time now) {
  const Session& s = entry.session;
  if (s.status() != v1::IN_PROGRESS) return absl::OkStatus();
  const std::optional<absl::Time> flag = s.FlagFallsAt();
  if (!flag.has_value() || *flag > now) return absl::OkStatus();
  Session next = s;
  const Color loser = next.game().position().side_to_move();
  next.StopClocks(now);
  KHET_RETURN_IF_ERROR(next.LoseOnTime(loser));
  v1::Event over = GameOverEvent(next);
  return registry.Commit(entry, std::move(next), {std::move(over)});
}

}  // namespace khet
