#include "service/move_path.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine//movegen.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "service/announcements.h"
#include "service/convert.h"
#include "service/enum_fields.h"
#include "service/game_events.h"
#include "service/session_access.h"
#include "service/status_macros.h"

namespace khet {
namespace {

absl::StatusOr<v1::MakeMoveResponse> MakeMoveIn(
    const ServiceCore& core, SessionEntry& entry,
    const v1::MakeMoveRequest& request, const Caller& caller)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  const Session& s = entry.session;
  if (caller.token.empty()) {
    return absl::UnauthenticatedError(
        "MakeMove needs a player's token (authorization: Bearer <token>)");
  }
  KHET_ASSIGN_OR_RETURN(Color color, RequirePlayer(s, caller));
  // A retry of a request answered before gets that answer back, whatever
  // happened since; a request_id reused for anything else is refused.
  ReplyKey key;
  if (!request.request_id().empty()) {
    key = ReplyKey{request.request_id(), TokenHash(caller.token),
                   MoveRequestHash(request)};
    KHET_ASSIGN_OR_RETURN(std::optional<store::StoredReply> kept,
                          s.FindReply(key));
    if (kept.has_value()) {
      v1::Event made;
      if (kept->response().empty()) {
        KHET_ASSIGN_OR_RETURN(made, core.registry->StoredEvent(
                                        s.id(), kept->move_event_version()));
      }
      return KeptReply(*kept, made.move_made());
    }
  }
  if (request.has_expected_version() &&
      request.expected_version() != s.version()) {
    return absl::AbortedError(
        absl::StrCat("session \"", s.id(), "\" is at version ", s.version(),
                     ", not the expected ", request.expected_version()));
  }
  KHET_RETURN_IF_ERROR(RequireGameInProgress(s));
  const Color to_move = s.game().position().side_to_move();
  if (color != to_move) {
    return absl::FailedPreconditionError(
        absl::StrCat("it is ", ColorName(to_move), "'s turn"));
  }
  KHET_ASSIGN_OR_RETURN(Move move,
                        MoveFromProto(s.game().position(), request.move()));
  return PlayMove(core, entry, color, move, key);
}

}  // namespace

absl::StatusOr<v1::MakeMoveResponse> MakeMove(
    const ServiceCore& core, const v1::MakeMoveRequest& request,
    const Caller& caller) {
  KHET_RETURN_IF_ERROR(CheckEnumFields(request));
  if (static_cast<int>(request.request_id().size()) >
      core.limits->max_request_id_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "request_id has ", request.request_id().size(), " characters; at most ",
        core.limits->max_request_id_length, " are allowed"));
  }
  return core.registry->ChangeByWriting(
      request.session_id(), [&](SessionEntry& entry) {
        return MakeMoveIn(core, entry, request, caller);
      });
}

absl::StatusOr<v1::ListLegalMovesResponse> ListLegalMoves(
    const ServiceCore& core, const v1::ListLegalMovesRequest& request) {
  return core.registry->Read(
      request.session_id(),
      [&](SessionEntry& entry) -> absl::StatusOr<v1::ListLegalMovesResponse> {
        const Position& pos = entry.session.game().position();
        v1::ListLegalMovesResponse out;
        MoveList moves;
        if (!request.square().empty()) {
          KHET_ASSIGN_OR_RETURN(Square from, ParseSquare(request.square()));
          GenerateMovesFrom(pos, from, &moves);
        } else {
          GenerateMoves(pos, &moves);
        }
        if (entry.session.status() == v1::FINISHED) return out;
        for (Move m : moves) *out.add_moves() = MoveToProto(pos, m);
        return out;
      });
}

absl::StatusOr<v1::MakeMoveResponse> PlayMove(const ServiceCore& core,
                                              SessionEntry& entry, Color color,
                                              Move move, const ReplyKey& key) {
  const int64_t version = entry.session.version();
  // Played in place (no copy of the session): an illegal move changes
  // nothing, and a failed write reads the session back (CommitInPlace).
  Session& next = entry.session;
  KHET_ASSIGN_OR_RETURN(PlayedMove played,
                        next.Play(move, core.registry->clock()->Now()));

  const Edition edition = played.before.edition();
  const Game& game = next.game();
  // The MoveMade event is built once and written; the reply then takes its
  // parts (the published event is its written bytes), so the board is
  // neither built twice nor copied.
  std::vector<v1::Event> events(1);
  events.reserve(2);
  v1::MoveMade* mm = events[0].mutable_move_made();
  mm->set_mover(ToProto(color));
  *mm->mutable_move() = MoveToProto(played.before, played.effects.move);
  *mm->mutable_shot() = ShotToProto(played.trace, edition);
  for (const Removal& r : played.effects.removals) {
    *mm->add_removals() = RemovalToProto(r, edition);
  }
  *mm->mutable_result() = ResultToProto(game);
  *mm->mutable_board() = BoardToProto(game.position());
  events[0].set_announcement(
      MoveAnnouncement(color, next.SeatLabel(color), mm->move().notation(),
                       played.effects.removals, edition,
                       next.state().settings().quiet(), next.language()));
  std::string announcement = MoveAnnouncement(
      color, next.SeatLabel(color), mm->move().notation(),
      played.effects.removals, edition, /*quiet=*/false, next.language());
  if (game.over()) {
    events.push_back(GameOverEvent(next));
    absl::StrAppend(&announcement, " ", events.back().announcement());
  }
  v1::MakeMoveResponse reply;
  reply.set_announcement(std::move(announcement));
  reply.set_version(version + static_cast<int64_t>(events.size()));
  if (!key.request_id.empty()) {
    // MoveMade is the first of the events: version + 1.
    next.KeepReply(key, reply, version + 1, core.limits->max_replies_kept);
  }
  KHET_RETURN_IF_ERROR(core.registry->CommitInPlace(entry, events));
  mm = events[0].mutable_move_made();
  reply.set_allocated_move(mm->release_move());
  reply.set_allocated_shot(mm->release_shot());
  reply.mutable_removals()->Swap(mm->mutable_removals());
  reply.set_allocated_result(mm->release_result());
  reply.set_allocated_board(mm->release_board());
  return reply;
}

}  // namespace khet
