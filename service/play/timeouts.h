// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Inactivity timeouts and clocks. A game in progress without clocks whose
// last move (or start) is older than its session's timeout is reset; a
// game with clocks is never reset for inactivity: its side to move loses
// when its time runs out (TIME_FORFEIT). On a shared store every replica
// sweeps: each first catches up with the store, re-reads a game that looks
// timed out or flagged, and ends it with a write conditional on the version
// it read, so one replica ends it and the others' writes are ABORTED and
// change nothing.
#ifndef KHET_SERVICE_PLAY_TIMEOUTS_H_
#define KHET_SERVICE_PLAY_TIMEOUTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/sessions/session_registry.h"

namespace khet {

// When the running clock of each clocked game runs out, as last noted:
// what khetd's flag timer waits for. Thread-safe.
class FlagTimes {
 public:
  // The session's flag time now (nullopt: no clock runs).
  void Note(const std::string& session_id, std::optional<absl::Time> flag_at);
  // The earliest noted flag time; InfiniteFuture when none.
  absl::Time Next();
  // The sessions whose noted flag time is at or before `now`.
  std::vector<std::string> Due(absl::Time now);

 private:
  Mutex mu_;
  absl::flat_hash_map<std::string, absl::Time> flags_ ABSL_GUARDED_BY(mu_);
};

// Resets every timed-out game and ends every game whose flag fell, by the
// registry's clock, noting every clocked game's flag in `flags` (may be
// null); returns how many games it reset or ended.
int SweepTimeouts(SessionRegistry& registry, FlagTimes* flags);

// Ends the games of `session_ids` whose flag fell by the registry's clock;
// returns how many.
int SweepFlags(SessionRegistry& registry, FlagTimes& flags,
               const std::vector<std::string>& session_ids);

}  // namespace khet

#endif  // KHET_SERVICE_PLAY_TIMEOUTS_H_
