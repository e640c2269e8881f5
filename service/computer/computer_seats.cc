// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/computer/computer_seats.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/play/move_path.h"
#include "service/search/search_setup.h"
#include "service/sessions/game_events.h"
#include "service/text/quoted_input.h"

namespace khet {

ComputerSeats::ComputerSeats(const ServiceCore& core, SearchFunction search,
                             std::function<void(const std::string& line)> log,
                             DoneHook done)
    : core_(core),
      log_(std::move(log)),
      done_(std::move(done)),
      holder_(core.random->NewToken()),
      players_(std::make_unique<ComputerPlayers>(
          ComputerPlayers::Options{core.limits->computer_threads,
                                   std::move(search)},
          [this](const ComputerTurn& turn, const SearchResult& result,
                 bool stopped) { SearchDone(turn, result, stopped); },
          ComputerPlayers::Gate{
              [this](const ComputerTurn& turn) { return MaySearch(turn); },
              core.limits->computer_lease_recheck})) {}

void ComputerSeats::Shutdown() { players_->Shutdown(); }

bool ComputerSeats::MaySearch(const ComputerTurn& turn) {
  SessionRegistry& registry = *core_.registry;
  if (!registry.shared()) return true;
  // An error (the store unreachable) is a refusal: asked again later.
  absl::StatusOr<bool> leased = registry.store()->TryLease(
      turn.session_id, holder_, registry.clock()->Now(),
      core_.limits->computer_lease_ttl);
  return leased.ok() && *leased;
}

void ComputerSeats::Schedule(SessionEntry& entry, absl::Duration delay) {
  const Session& s = entry.session;
  const Position& pos = s.game().position();
  const store::StoredSeat& seat = s.seat(pos.side_to_move());
  absl::StatusOr<Level> level =
      seat.computer() ? FindLevel(seat.computer_level())
                      : absl::StatusOr<Level>(absl::NotFoundError("human"));
  if (entry.deleted || s.status() != v1::IN_PROGRESS || !level.ok()) {
    players_->Cancel(entry.id);
    return;
  }
  ComputerTurn turn;
  turn.session_id = entry.id;
  turn.version = s.version();
  turn.position = pos;
  turn.level = level->number;
  turn.limits = CapTime(level->limits, core_.limits->computer_move_budget);
  turn.style = StyleForGame(s.game(), level->style);
  // Games differ from board to board and move to move, yet replay alike.
  turn.style.seed ^= std::hash<std::string>()(entry.id) * 31 +
                     static_cast<uint64_t>(s.game().ply());
  players_->Schedule(std::move(turn), delay);
}

void ComputerSeats::SearchDone(const ComputerTurn& turn,
                               const SearchResult& result, bool stopped) {
  std::string move;
  const std::string outcome = stopped ? "cancelled" : Play(turn, result, &move);
  if (done_) {
    done_(std::string_view(outcome).substr(0, outcome.find(' ')),
          result.elapsed);
  }
  if (!log_) return;
  log_(absl::StrFormat(
      "computer session=%s level=%d outcome=%s%s depth=%d nodes=%d ms=%d",
      absl::CEscape(turn.session_id), turn.level, outcome,
      move.empty() ? "" : absl::StrCat(" move=", move), result.depth,
      result.nodes, absl::ToInt64Milliseconds(result.elapsed)));
}

std::string ComputerSeats::Play(const ComputerTurn& turn,
                                const SearchResult& result, std::string* move) {
  SessionRegistry& registry = *core_.registry;
  absl::StatusOr<std::shared_ptr<SessionEntry>> found =
      registry.Find(turn.session_id);
  if (!found.ok()) return "gone";
  SessionEntry& entry = **found;
  SessionLock lock(entry);
  if (absl::Status fresh = registry.Fresh(entry); !fresh.ok()) {
    if (entry.deleted) return "gone";
    Schedule(entry, core_.limits->computer_retry_delay);
    return absl::StrCat("retrying message=\"", LoggedMessage(fresh.message()),
                        "\"");
  }
  const Session& s = entry.session;
  if (s.version() != turn.version) {
    Schedule(entry);  // once more if it is still its turn
    return "stale";
  }
  const Color color = s.game().position().side_to_move();
  absl::Status failed;
  if (result.score <= 0 && !s.options().automatic_repetition_draw &&
      s.game().RepetitionCount() >= 3) {
    Session next = s;
    if (next.ClaimRepetitionDraw(color).ok()) {
      v1::Event over = GameOverEvent(next);
      failed = registry.Commit(entry, std::move(next), {std::move(over)});
      if (failed.ok()) return "claimed-draw";
    }
  }
  if (failed.ok()) {
    if (result.best_move.is_null()) {
      failed = absl::FailedPreconditionError("the search found no move");
    } else {
      // Its parts only (no typed reply): the notation is all it needs.
      absl::StatusOr<PlayedMoveReply> played =
          PlayMoveParts(core_, entry, color, result.best_move, ReplyKey());
      if (played.ok()) {
        *move = played->events[0].move_made().move().notation();
        return "played";
      }
      failed = played.status();
    }
  }
  const std::string message =
      absl::StrCat(" message=\"", LoggedMessage(failed.message()), "\"");
  if (absl::IsInvalidArgument(failed) || absl::IsFailedPrecondition(failed)) {
    return absl::StrCat("failed", message);  // trying again would not help
  }
  if (registry.shared() && absl::IsAborted(failed)) {
    // Another replica moved first; catching up schedules the next search.
    registry.Refresh(entry).IgnoreError();
    return "stale";
  }
  Schedule(entry, core_.limits->computer_retry_delay);
  return absl::StrCat("retrying", message);
}

}  // namespace khet
