// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Events that more than one request handler adds: a game starting and a
// game ending. The registry numbers and stamps them when it commits.
#ifndef KHET_SERVICE_SESSIONS_GAME_EVENTS_H_
#define KHET_SERVICE_SESSIONS_GAME_EVENTS_H_

#include "khet/v1/khet_service.pb.h"
#include "service/sessions/session.h"

namespace khet {

// GameStarted: the start position and both seats, announced.
v1::Event GameStartedEvent(const Session& s);

// GameOver: the game's result, announced. REQUIRES: the game is over.
v1::Event GameOverEvent(const Session& s);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_GAME_EVENTS_H_
