// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/session_access.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace khet {

absl::Status RequireOwner(const Session& s, const Caller& caller) {
  if (caller.token.empty()) {
    return absl::UnauthenticatedError(
        "this call needs the owner's token (authorization: Bearer <token>)");
  }
  if (!s.IsOwner(caller.token)) {
    return absl::PermissionDeniedError(
        absl::StrCat("only the owner of session \"", s.id(), "\" may do this"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Color> RequirePlayer(const Session& s, const Caller& caller) {
  if (caller.token.empty()) {
    return absl::UnauthenticatedError(
        "this call needs a player's token (authorization: Bearer <token>)");
  }
  std::optional<Color> seat = s.SeatOf(caller.token);
  if (!seat.has_value()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the token is not that of a player seated in session \"",
                     s.id(), "\""));
  }
  return *seat;
}

absl::Status RequireOwnerOrPlayer(const Session& s, const Caller& caller,
                                  absl::string_view call,
                                  absl::string_view action) {
  if (caller.token.empty()) {
    return absl::UnauthenticatedError(
        absl::StrCat(call,
                     " needs the owner's or a seated player's token "
                     "(authorization: Bearer <token>)"));
  }
  if (!s.IsOwner(caller.token) && !s.SeatOf(caller.token).has_value()) {
    return absl::PermissionDeniedError(
        absl::StrCat("only the owner or a seated player of session \"", s.id(),
                     "\" may ", action));
  }
  return absl::OkStatus();
}

absl::Status RequireGameInProgress(const Session& s) {
  if (s.status() == v1::IN_PROGRESS) return absl::OkStatus();
  if (s.status() == v1::FINISHED) {
    return absl::FailedPreconditionError(
        absl::StrCat("the game in session \"", s.id(),
                     "\" is over: ", s.state().result().text()));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no game is in progress in session \"", s.id(),
                   "\": it is waiting for players"));
}

}  // namespace khet
