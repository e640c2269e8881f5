// Inactivity timeouts: a game in progress whose last move (or start) is
// older than its session's timeout is reset. On a shared store every
// replica sweeps: each first catches up with the store, re-reads a game
// that looks timed out, and resets it with a write conditional on the
// version it read, so one replica resets it and the others' writes are
// ABORTED and change nothing.
#ifndef KHET_SERVICE_TIMEOUTS_H_
#define KHET_SERVICE_TIMEOUTS_H_

#include "service/session_registry.h"

namespace khet {

// Resets every timed-out game by the registry's clock; returns how many.
int SweepTimeouts(SessionRegistry& registry);

}  // namespace khet

#endif  // KHET_SERVICE_TIMEOUTS_H_
