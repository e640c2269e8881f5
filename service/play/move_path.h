// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The move path: a player's MakeMove and the computer's moves end in
// PlayMove, which plays the move on the session in place, builds the
// MoveMade (and GameOver) events, keeps the reply for retries, commits and
// answers with the MoveMade's parts. Also ListLegalMoves, which reads the
// same position.
#ifndef KHET_SERVICE_PLAY_MOVE_PATH_H_
#define KHET_SERVICE_PLAY_MOVE_PATH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "engine/move.h"
#include "khet/v1/khet_service.pb.h"
#include "service/events/shared_event.h"
#include "service/sessions/service_core.h"
#include "service/sessions/session.h"
#include "service/sessions/session_registry.h"

namespace khet {

// See SessionService::MakeMove and the decisions on retries there.
absl::StatusOr<v1::MakeMoveResponse> MakeMove(
    const ServiceCore& core, const v1::MakeMoveRequest& request,
    const Caller& caller);

// MakeMove without waiting for the store, on a store that
// updates_later(): the move is played on the session held and its write
// handed to the store; `done` gets the reply once the write is committed,
// on the store's thread (it must not wait), or at once for a request that
// fails its first checks. When the write fails, `redo` is called instead
// (on the store's thread): the caller runs MakeMove where waiting is
// allowed, which reads the session back and answers. Returns false,
// having done nothing and called neither, when the move needs a thread
// that may wait: the store writes synchronously, the session must be read
// from the store or is locked or being written, the request is refused or
// a retry of a kept answer (MakeMove decides those as ChangeByWriting
// does), or the game is rated. Saves, measured on PostgreSQL at 200 games
// (docs/PERFORMANCE.md, "PostgreSQL moves without a waiting thread" and
// "One move path"): 1.38x the moves a second and 0.53x khetd's CPU a move
// against MakeMove on a store thread, since no thread waits for the commit.
bool MakeMoveLater(
    const ServiceCore& core, const v1::MakeMoveRequest& request,
    const Caller& caller,
    absl::AnyInvocable<void(absl::StatusOr<v1::MakeMoveResponse>) &&> done,
    absl::AnyInvocable<void() &&> redo);

absl::StatusOr<v1::ListLegalMovesResponse> ListLegalMoves(
    const ServiceCore& core, const v1::ListLegalMovesRequest& request);

// A move played, what its reply is made of: the events (MoveMade first,
// then GameOver if the game ended) and the reply's own fields. The
// MoveMade message holds its board as bytes (an unknown field 6, from
// BoardWire): its board() is empty, its serialization has the board.
struct PlayedMoveReply {
  std::vector<v1::Event> events;
  std::string announcement;
  int64_t version = 0;
};

// Plays `move` for `color`, the side to move: the reply, MoveMade (and
// GameOver), the reply kept under `key` unless its request_id is empty.
// INVALID_ARGUMENT for an illegal move; nothing changes on error.
absl::StatusOr<v1::MakeMoveResponse> PlayMove(const ServiceCore& core,
                                              SessionEntry& entry, Color color,
                                              Move move, const ReplyKey& key)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

// PlayMoveParts's move played in place, its events built and its reply
// kept, but not committed: the caller commits `events`.
absl::StatusOr<PlayedMoveReply> PlayInPlace(const ServiceCore& core,
                                            SessionEntry& entry, Color color,
                                            Move move, const ReplyKey& key)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

// PlayMove's work without the typed reply.
absl::StatusOr<PlayedMoveReply> PlayMoveParts(const ServiceCore& core,
                                              SessionEntry& entry, Color color,
                                              Move move, const ReplyKey& key)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

}  // namespace khet

#endif  // KHET_SERVICE_PLAY_MOVE_PATH_H_
