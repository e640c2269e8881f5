// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/play/seats.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/names.h"
#include "service/archive/player_ratings.h"
#include "service/base/status_macros.h"
#include "service/fair_use/archive_budget.h"
#include "service/search/search_setup.h"
#include "service/sessions/announcements.h"
#include "service/sessions/game_events.h"
#include "service/sessions/session_access.h"
#include "service/text/unicode_text.h"
#include "service/wire/convert.h"
#include "service/wire/enum_fields.h"

namespace khet {
namespace {

// The seat a JoinSeat or SeatComputer asks for: `wanted`, or the first
// free one; FAILED_PRECONDITION if it is taken.
absl::StatusOr<Color> FreeSeat(const Session& s, v1::Color wanted) {
  Color color = Color::kSilver;
  if (wanted == v1::COLOR_UNSPECIFIED) {
    if (s.seat(Color::kSilver).occupied()) color = Color::kRed;
    if (s.seat(color).occupied()) {
      return absl::FailedPreconditionError(
          absl::StrCat("both seats of session \"", s.id(), "\" are taken"));
    }
    return color;
  }
  KHET_ASSIGN_OR_RETURN(color, FromProto(wanted));
  if (s.seat(color).occupied()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", ColorName(color), " seat is taken by ",
        s.seat(color).computer() ? absl::StrCat("the ", s.SeatLabel(color))
                                 : s.seat(color).player_name()));
  }
  return color;
}

// Which seat a LeaveSeat frees (see the decisions in session_service.h).
absl::StatusOr<Color> SeatToLeave(const Session& s, v1::Color wanted,
                                  const Caller& caller) {
  if (caller.token.empty()) return RequirePlayer(s, caller).status();
  const std::optional<Color> own = s.SeatOf(caller.token);
  const bool owner = s.IsOwner(caller.token);
  if (wanted == v1::COLOR_UNSPECIFIED) {
    if (own.has_value()) return *own;
    if (owner) {
      std::vector<Color> computers;
      for (Color c : {Color::kSilver, Color::kRed}) {
        if (s.seat(c).computer()) computers.push_back(c);
      }
      if (computers.size() == 1) return computers.front();
      if (computers.size() == 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("both seats of session \"", s.id(),
                         "\" are the computer's: name the color to free"));
      }
    }
    return RequirePlayer(s, caller);
  }
  KHET_ASSIGN_OR_RETURN(Color color, FromProto(wanted));
  if (own == color) return color;
  if (!owner && !own.has_value()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the token is neither the owner's nor that of a player seated in "
        "session \"",
        s.id(), "\""));
  }
  if (!s.seat(color).occupied()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", ColorName(color), " seat of session \"", s.id(), "\" is free"));
  }
  if (!s.seat(color).computer() && !owner) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the ", ColorName(color), " seat is ", s.seat(color).player_name(),
        "'s: only its player or the board's owner may free it"));
  }
  return color;
}

// The budget of archived games (archive_budget.h), if the seat taken in
// `next` completes the pair and so starts the game after `s`'s.
absl::Status CheckNextGameBudget(const ServiceCore& core, const Session& s,
                                 const Session& next) {
  if (!next.BothSeatsTaken() || next.status() == v1::IN_PROGRESS) {
    return absl::OkStatus();
  }
  return CheckNewGameBudget(core, s);
}

// SeatChanged for a seat just taken, then GameStarted if that completes the
// pair with no game in progress; the game is started on `next`.
std::vector<v1::Event> SeatTakenEvents(Session& next, Color color,
                                       std::string announcement,
                                       absl::Time now) {
  std::vector<v1::Event> events;
  v1::Event joined;
  joined.set_announcement(std::move(announcement));
  *joined.mutable_seat_changed()->mutable_seat() = next.SeatToProto(color);
  joined.mutable_seat_changed()->set_joined(true);
  events.push_back(std::move(joined));
  if (next.BothSeatsTaken() && next.status() != v1::IN_PROGRESS) {
    next.StartGame(now);
    events.push_back(GameStartedEvent(next));
  }
  return events;
}

absl::StatusOr<v1::JoinSeatResponse> JoinSeatIn(const ServiceCore& core,
                                                SessionEntry& entry,
                                                const std::string& name,
                                                const std::string& player_id,
                                                v1::Color wanted)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  KHET_ASSIGN_OR_RETURN(Color color, FreeSeat(entry.session, wanted));
  Session next = entry.session;
  const std::string token = core.random->NewToken();
  next.TakeSeat(color, name, TokenHash(token), player_id);
  KHET_RETURN_IF_ERROR(CheckNextGameBudget(core, entry.session, next));
  std::vector<v1::Event> events = SeatTakenEvents(
      next, color, SeatAnnouncement(color, name, true, next.language()),
      core.registry->clock()->Now());
  KHET_RETURN_IF_ERROR(
      core.registry->Commit(entry, std::move(next), std::move(events)));
  v1::JoinSeatResponse out;
  *out.mutable_session() = entry.session.ToProto();
  out.set_color(ToProto(color));
  out.set_player_token(token);
  return out;
}

absl::StatusOr<v1::Session> LeaveSeatIn(const ServiceCore& core,
                                        SessionEntry& entry, v1::Color wanted,
                                        const Caller& caller)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  KHET_ASSIGN_OR_RETURN(Color color,
                        SeatToLeave(entry.session, wanted, caller));
  Session next = entry.session;
  const store::StoredSeat seat = next.seat(color);
  const bool removed = !seat.computer() && next.SeatOf(caller.token) != color;
  next.LeaveSeat(color);
  v1::Event left;
  left.set_announcement(
      seat.computer()
          ? ComputerSeatAnnouncement(color, seat.computer_level(),
                                     seat.player_name(), false, next.language())
      : removed ? RemovedFromSeatAnnouncement(color, seat.player_name(),
                                              next.language())
                : SeatAnnouncement(color, seat.player_name(), false,
                                   next.language()));
  *left.mutable_seat_changed()->mutable_seat() = next.SeatToProto(color);
  left.mutable_seat_changed()->set_joined(false);
  KHET_RETURN_IF_ERROR(
      core.registry->Commit(entry, std::move(next), {std::move(left)}));
  return entry.session.ToProto();
}

absl::StatusOr<v1::Session> SeatComputerIn(const ServiceCore& core,
                                           SessionEntry& entry,
                                           const Level& level, v1::Color wanted,
                                           const Caller& caller)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  const Session& s = entry.session;
  KHET_RETURN_IF_ERROR(
      RequireOwnerOrPlayer(s, caller, "SeatComputer", "seat the computer"));
  KHET_ASSIGN_OR_RETURN(Color color, FreeSeat(s, wanted));
  Session next = s;
  next.TakeComputerSeat(color, level.number, std::string(level.name));
  KHET_RETURN_IF_ERROR(CheckNextGameBudget(core, s, next));
  std::vector<v1::Event> events =
      SeatTakenEvents(next, color,
                      ComputerSeatAnnouncement(color, level.number, level.name,
                                               true, next.language()),
                      core.registry->clock()->Now());
  KHET_RETURN_IF_ERROR(
      core.registry->Commit(entry, std::move(next), std::move(events)));
  return entry.session.ToProto();
}

}  // namespace

absl::StatusOr<v1::JoinSeatResponse> JoinSeat(
    const ServiceCore& core, const v1::JoinSeatRequest& request) {
  KHET_RETURN_IF_ERROR(CheckEnumFields(request));
  KHET_ASSIGN_OR_RETURN(std::string name,
                        CheckDisplayName("player_name", request.player_name(),
                                         core.limits->max_name_length));
  if (!request.player_id().empty()) {
    KHET_RETURN_IF_ERROR(CheckPlayerId(request.player_id()));
  }
  return core.registry->Change(request.session_id(), [&](SessionEntry& entry) {
    return JoinSeatIn(core, entry, name, request.player_id(), request.color());
  });
}

absl::StatusOr<v1::Session> LeaveSeat(const ServiceCore& core,
                                      const v1::LeaveSeatRequest& request,
                                      const Caller& caller) {
  KHET_RETURN_IF_ERROR(CheckEnumFields(request));
  return core.registry->Change(request.session_id(), [&](SessionEntry& entry) {
    return LeaveSeatIn(core, entry, request.color(), caller);
  });
}

absl::StatusOr<v1::Session> SeatComputer(const ServiceCore& core,
                                         const v1::SeatComputerRequest& request,
                                         const Caller& caller) {
  KHET_RETURN_IF_ERROR(CheckEnumFields(request));
  KHET_ASSIGN_OR_RETURN(Level level, LevelOf(request.level()));
  return core.registry->Change(request.session_id(), [&](SessionEntry& entry) {
    return SeatComputerIn(core, entry, level, request.color(), caller);
  });
}

}  // namespace khet
