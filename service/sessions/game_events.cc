// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/game_events.h"

#include "service/sessions/announcements.h"
#include "service/wire/convert.h"

namespace khet {

v1::Event GameStartedEvent(const Session& s) {
  v1::Event e;
  e.set_announcement(GameStartAnnouncement(
      s.state().setup_id() == kCustomSetupId ? "" : s.SetupName(),
      s.SeatLabel(Color::kSilver), s.SeatLabel(Color::kRed),
      s.game().position().side_to_move(), s.language()));
  v1::GameStarted* started = e.mutable_game_started();
  *started->mutable_board() = BoardToProto(s.game().position());
  *started->add_seats() = s.SeatToProto(Color::kSilver);
  *started->add_seats() = s.SeatToProto(Color::kRed);
  return e;
}

v1::Event GameOverEvent(const Session& s) {
  v1::Event e;
  e.set_announcement(GameOverAnnouncement(s.game(), s.SeatLabel(Color::kSilver),
                                          s.SeatLabel(Color::kRed),
                                          s.language()));
  *e.mutable_game_over()->mutable_result() = ResultToProto(s.game());
  return e;
}

}  // namespace khet
