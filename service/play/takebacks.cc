// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/play/takebacks.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/names.h"
#include "service/base/status_macros.h"
#include "service/sessions/announcements.h"
#include "service/sessions/session_access.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

// OK if the board lets players take moves back now.
absl::Status RequireTakebacksAllowed(const Session& s) {
  KHET_RETURN_IF_ERROR(RequireGameInProgress(s));
  if (s.state().settings().takebacks_off()) {
    return absl::FailedPreconditionError(
        absl::StrCat("takebacks are off on board \"", s.id(),
                     "\" (the owner's setting takebacks)"));
  }
  if (s.game_rated()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the game on board \"", s.id(),
                     "\" is rated, and rated games allow no takebacks"));
  }
  return absl::OkStatus();
}

// Undoes `by`'s takeback on `next`: TakebackAnswered, accepted.
absl::StatusOr<v1::Event> TakeBack(Session& next, Color by, absl::Time now) {
  const int plies = next.TakebackPlies(by);
  KHET_RETURN_IF_ERROR(next.TakeBack(plies, now));
  v1::Event answered;
  answered.set_announcement(
      TakebackDoneAnnouncement(by, next.SeatLabel(by), plies, next.language()));
  v1::TakebackAnswered* a = answered.mutable_takeback_answered();
  a->set_requested_by(ToProto(by));
  a->set_accepted(true);
  a->set_plies(plies);
  *a->mutable_board() = BoardToProto(next.game().position());
  return answered;
}

// The opponent of a standing request answers it; errors name the problem.
template <typename AnswerFn>
absl::StatusOr<v1::Session> Answer(const ServiceCore& core,
                                   const std::string& session_id,
                                   const Caller& caller, AnswerFn answer) {
  return core.registry->Change(
      session_id, [&](SessionEntry& entry) -> absl::StatusOr<v1::Session> {
        const Session& s = entry.session;
        KHET_ASSIGN_OR_RETURN(Color color, RequirePlayer(s, caller));
        KHET_RETURN_IF_ERROR(RequireGameInProgress(s));
        const std::optional<Color> by = s.takeback_requested_by();
        if (!by.has_value()) {
          return absl::FailedPreconditionError("no takeback request stands");
        }
        if (*by == color) {
          return absl::FailedPreconditionError(absl::StrCat(
              ColorName(color), " cannot answer its own takeback request"));
        }
        Session next = s;
        KHET_ASSIGN_OR_RETURN(v1::Event event, answer(next, *by));
        KHET_RETURN_IF_ERROR(
            core.registry->Commit(entry, std::move(next), {std::move(event)}));
        return entry.session.ToProto();
      });
}

}  // namespace

absl::StatusOr<v1::Session> RequestTakeback(
    const ServiceCore& core, const v1::RequestTakebackRequest& request,
    const Caller& caller) {
  return core.registry->Change(
      request.session_id(),
      [&](SessionEntry& entry) -> absl::StatusOr<v1::Session> {
        const Session& s = entry.session;
        KHET_ASSIGN_OR_RETURN(Color color, RequirePlayer(s, caller));
        KHET_RETURN_IF_ERROR(RequireTakebacksAllowed(s));
        const std::optional<Color> standing = s.takeback_requested_by();
        if (standing == color) {
          return absl::FailedPreconditionError(absl::StrCat(
              ColorName(color), " has already asked for a takeback"));
        }
        if (standing == Opponent(color)) {
          return absl::FailedPreconditionError(
              absl::StrCat(ColorName(Opponent(color)),
                           "'s takeback request stands: accept or decline it"));
        }
        const int plies = s.TakebackPlies(color);
        if (plies == 0) {
          return absl::FailedPreconditionError(absl::StrCat(
              ColorName(color), " has no move to take back in this game"));
        }
        Session next = s;
        std::vector<v1::Event> events(1);
        events[0].set_announcement(TakebackAskedAnnouncement(
            color, next.SeatLabel(color), plies, next.language()));
        events[0].mutable_takeback_requested()->set_by(ToProto(color));
        events[0].mutable_takeback_requested()->set_plies(plies);
        if (next.seat(Opponent(color)).computer()) {
          KHET_ASSIGN_OR_RETURN(
              v1::Event done,
              TakeBack(next, color, core.registry->clock()->Now()));
          events.push_back(std::move(done));
        } else {
          next.RequestTakeback(color);
        }
        KHET_RETURN_IF_ERROR(
            core.registry->Commit(entry, std::move(next), std::move(events)));
        return entry.session.ToProto();
      });
}

absl::StatusOr<v1::Session> AcceptTakeback(
    const ServiceCore& core, const v1::AcceptTakebackRequest& request,
    const Caller& caller) {
  return Answer(core, request.session_id(), caller,
                [&](Session& next, Color by) -> absl::StatusOr<v1::Event> {
                  return TakeBack(next, by, core.registry->clock()->Now());
                });
}

absl::StatusOr<v1::Session> DeclineTakeback(
    const ServiceCore& core, const v1::DeclineTakebackRequest& request,
    const Caller& caller) {
  return Answer(core, request.session_id(), caller,
                [](Session& next, Color by) -> absl::StatusOr<v1::Event> {
                  next.ClearTakebackRequest();
                  v1::Event answered;
                  answered.set_announcement(TakebackDeclinedAnnouncement(
                      by, next.SeatLabel(by), next.language()));
                  v1::TakebackAnswered* a =
                      answered.mutable_takeback_answered();
                  a->set_requested_by(ToProto(by));
                  a->set_accepted(false);
                  *a->mutable_board() = BoardToProto(next.game().position());
                  return answered;
                });
}

}  // namespace khet
