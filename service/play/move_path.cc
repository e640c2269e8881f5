// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/play/move_path.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/movegen.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "google/protobuf/unknown_field_set.h"
#include "service/base/status_macros.h"
#include "service/sessions/announcements.h"
#include "service/sessions/game_events.h"
#include "service/sessions/session_access.h"
#include "service/wire/convert.h"
#include "service/wire/enum_fields.h"

namespace khet {
namespace {

// v1::MoveMade.board (proto/khet/v1/khet_service.proto).
constexpr int kMoveMadeBoard = 6;

// A MakeMove's answer: a kept reply (a retry), or the parts of the move
// just played.
struct MoveAnswer {
  std::optional<v1::MakeMoveResponse> kept;
  bool kept_found = false;  // Commit::kLater's: a kept answer exists
  PlayedMoveReply played;
};

// The typed reply of a move played: the MoveMade's parts taken by pointer
// (the published event is its written bytes), and its board parsed from
// the bytes the event holds.
v1::MakeMoveResponse ReplyOf(PlayedMoveReply played) {
  v1::MakeMoveResponse reply;
  v1::MoveMade* mm = played.events[0].mutable_move_made();
  reply.set_allocated_move(mm->release_move());
  reply.set_allocated_shot(mm->release_shot());
  reply.mutable_removals()->Swap(mm->mutable_removals());
  reply.set_allocated_result(mm->release_result());
  reply.set_version(played.version);
  reply.set_announcement(std::move(played.announcement));
  if (played.events[0].has_clocks()) {
    reply.set_allocated_clocks(played.events[0].release_clocks());
  }
  // The board's bytes (PlayInPlace), parsed.
  const google::protobuf::UnknownFieldSet& unknown =
      mm->GetReflection()->GetUnknownFields(*mm);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& field = unknown.field(i);
    if (field.number() == kMoveMadeBoard &&
        field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      // BoardWire's bytes are a Board's serialization, so they parse.
      reply.mutable_board()->ParseFromString(field.length_delimited());
    }
  }
  return reply;
}

// How MakeMoveIn ends a move: committed (waiting for the store), or
// played in place with its events left to commit, where a kept answer is
// not looked up (it may need a store read) but reported as `kept_found`.
enum class Commit { kNow, kLater };

absl::StatusOr<MoveAnswer> MakeMoveIn(const ServiceCore& core,
                                      SessionEntry& entry,
                                      const v1::MakeMoveRequest& request,
                                      const Caller& caller,
                                      Commit commit = Commit::kNow)
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
    if (kept.has_value() && commit == Commit::kLater) {
      MoveAnswer answer;
      answer.kept_found = true;
      return answer;
    }
    if (kept.has_value()) {
      v1::Event made;
      if (kept->response().empty()) {
        absl::StatusOr<v1::Event> stored =
            core.registry->StoredEvent(s.id(), kept->move_event_version());
        if (absl::IsNotFound(stored.status())) {
          // Dropped with the session's old events (kEventDropStep).
          return absl::FailedPreconditionError(absl::StrCat(
              "the move of request \"", request.request_id(),
              "\" was made (version ", kept->version(),
              "), but its details are no longer kept; read the session"));
        }
        KHET_ASSIGN_OR_RETURN(made, std::move(stored));
      }
      KHET_ASSIGN_OR_RETURN(v1::MakeMoveResponse reply, KeptReply(*kept, made));
      MoveAnswer answer;
      answer.kept = std::move(reply);
      return answer;
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
  KHET_ASSIGN_OR_RETURN(PlayedMoveReply played,
                        commit == Commit::kNow
                            ? PlayMoveParts(core, entry, color, move, key)
                            : PlayInPlace(core, entry, color, move, key));
  MoveAnswer answer;
  answer.played = std::move(played);
  return answer;
}

// The checks of a MakeMoveRequest that need no session.
absl::Status CheckMoveRequest(const ServiceCore& core,
                              const v1::MakeMoveRequest& request) {
  KHET_RETURN_IF_ERROR(CheckEnumFields(request));
  if (static_cast<int>(request.request_id().size()) >
      core.limits->max_request_id_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "request_id has ", request.request_id().size(), " characters; at most ",
        core.limits->max_request_id_length, " are allowed"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::MakeMoveResponse> MakeMove(
    const ServiceCore& core, const v1::MakeMoveRequest& request,
    const Caller& caller) {
  KHET_RETURN_IF_ERROR(CheckMoveRequest(core, request));
  KHET_ASSIGN_OR_RETURN(MoveAnswer answer,
                        core.registry->ChangeByWriting(
                            request.session_id(), [&](SessionEntry& entry) {
                              return MakeMoveIn(core, entry, request, caller);
                            }));
  if (answer.kept.has_value()) return *std::move(answer.kept);
  return ReplyOf(std::move(answer.played));
}

bool MakeMoveLater(
    const ServiceCore& core, const v1::MakeMoveRequest& request,
    const Caller& caller,
    absl::AnyInvocable<void(absl::StatusOr<v1::MakeMoveResponse>) &&> done,
    absl::AnyInvocable<void() &&> redo) {
  SessionRegistry& registry = *core.registry;
  if (!registry.store()->updates_later()) return false;
  if (absl::Status checked = CheckMoveRequest(core, request); !checked.ok()) {
    std::move(done)(std::move(checked));
    return true;
  }
  // A session not held yet is read from the store first; a busy one is
  // left to a thread that may wait.
  std::shared_ptr<SessionEntry> entry = registry.Known(request.session_id());
  if (entry == nullptr || !entry->mu.TryLock()) return false;
  // As ChangeByWriting's first try: the copy held, without asking the
  // store; anything but a move played is left to MakeMove, which asks
  // again where a shared store's copy may have been behind. A rated game's
  // end writes ratings, which must not wait on the store's thread.
  if (entry->writing || entry->deleted || entry->lost ||
      entry->session.game_rated()) {
    entry->mu.Unlock();
    return false;
  }
  absl::StatusOr<MoveAnswer> answer =
      MakeMoveIn(core, *entry, request, caller, Commit::kLater);
  if (!answer.ok() || answer->kept_found) {
    entry->mu.Unlock();
    return false;
  }
  // The events are serialized for the store before CommitInPlaceLater
  // returns; the reply is made of them once the write is committed.
  auto played = std::make_shared<PlayedMoveReply>(std::move(answer->played));
  registry.CommitInPlaceLater(
      entry, played->events,
      [played, done = std::move(done),
       redo = std::move(redo)](absl::Status written) mutable {
        if (!written.ok()) {
          // Read back and tried again where waiting is allowed.
          std::move(redo)();
          return;
        }
        std::move(done)(ReplyOf(std::move(*played)));
      });
  entry->mu.Unlock();
  return true;
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

absl::StatusOr<PlayedMoveReply> PlayInPlace(const ServiceCore& core,
                                            SessionEntry& entry, Color color,
                                            Move move, const ReplyKey& key) {
  const int64_t version = entry.session.version();
  // Played in place (no copy of the session): an illegal move changes
  // nothing, and a failed write reads the session back (CommitInPlace,
  // CommitInPlaceLater).
  Session& next = entry.session;
  KHET_ASSIGN_OR_RETURN(PlayedMove played,
                        next.Play(move, core.registry->clock()->Now()));

  const Edition edition = played.before.edition();
  const Game& game = next.game();
  // The MoveMade event is built once and written; the reply is then made
  // of its parts.
  PlayedMoveReply out;
  std::vector<v1::Event>& events = out.events;
  events.resize(1);
  events.reserve(2);
  v1::MoveMade* mm = events[0].mutable_move_made();
  mm->set_mover(ToProto(color));
  *mm->mutable_move() = MoveToProto(played.before, played.effects.move);
  *mm->mutable_shot() = ShotToProto(played.trace, edition);
  for (const Removal& r : played.effects.removals) {
    *mm->add_removals() = RemovalToProto(r, edition);
  }
  *mm->mutable_result() = ResultToProto(game);
  // The board as its bytes, in the MoveMade's place for its field 6
  // (board): unknown fields are written after the known ones, and the
  // board is the last of them, so the event's bytes are those of a typed
  // board (BoardWire), without its 26 piece messages built and freed.
  *mm->GetReflection()->MutableUnknownFields(mm)->AddLengthDelimited(
      kMoveMadeBoard) = BoardWire(game.position());
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
  out.announcement = std::move(announcement);
  out.version = version + static_cast<int64_t>(events.size());
  if (!key.request_id.empty()) {
    // MoveMade is the first of the events: version + 1. What is kept of a
    // reply is its version and announcement (the rest is the event's).
    v1::MakeMoveResponse kept;
    kept.set_announcement(out.announcement);
    kept.set_version(out.version);
    next.KeepReply(key, kept, version + 1, core.limits->max_replies_kept);
  }
  return out;
}

absl::StatusOr<PlayedMoveReply> PlayMoveParts(const ServiceCore& core,
                                              SessionEntry& entry, Color color,
                                              Move move, const ReplyKey& key) {
  KHET_ASSIGN_OR_RETURN(PlayedMoveReply out,
                        PlayInPlace(core, entry, color, move, key));
  KHET_RETURN_IF_ERROR(core.registry->CommitInPlace(entry, out.events));
  return out;
}

absl::StatusOr<v1::MakeMoveResponse> PlayMove(const ServiceCore& core,
                                              SessionEntry& entry, Color color,
                                              Move move, const ReplyKey& key) {
  KHET_ASSIGN_OR_RETURN(PlayedMoveReply played,
                        PlayMoveParts(core, entry, color, move, key));
  return ReplyOf(std::move(played));
}

}  // namespace khet
