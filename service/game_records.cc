#include "service/game_records.h"

#include "absl/time/time.h"
#include "service/time_control.h"

namespace khet {

GameHeaders RecordHeaders(const Session& s) {
  GameHeaders headers;
  headers.emplace_back("Event", s.state().name());
  headers.emplace_back("Date", absl::FormatTime("%Y.%m.%d", s.game_started_at(),
                                                absl::UTCTimeZone()));
  for (Color c : {Color::kSilver, Color::kRed}) {
    const store::StoredSeat& seat = s.seat(c);
    if (seat.occupied()) {
      headers.emplace_back(c == Color::kSilver ? "Silver" : "Red",
                           seat.player_name());
    }
  }
  if (const std::string tc = TimeControlText(s.state().rules().time_control());
      !tc.empty()) {
    headers.emplace_back("TimeControl", tc);
  }
  headers.emplace_back("Session", s.id());
  headers.emplace_back("Game", s.GameId());
  return headers;
}

ArchivedGame ArchiveOf(const Session& s, absl::Time ended_at) {
  const Game& game = s.game();
  ArchivedGame out;
  out.id = s.GameId();
  out.session_id = s.id();
  out.record = FormatGameRecord(game, RecordHeaders(s));
  out.silver = s.seat(Color::kSilver).player_name();
  out.red = s.seat(Color::kRed).player_name();
  out.setup_id = s.state().setup_id();
  out.result = std::string(ResultToken(game.result().outcome));
  out.ending = game.over() ? std::string(ResultReasonName(game.result().reason))
                           : "abandoned";
  out.started_at = s.game_started_at();
  out.ended_at = ended_at;
  out.plies = game.ply();
  if (game.over() && s.game_rated()) {
    out.silver_id = s.state().rated_silver_id();
    out.red_id = s.state().rated_red_id();
  }
  return out;
}

}  // namespace khet
