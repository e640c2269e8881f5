// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/play/timeouts.h"

#include <memory>
#include <vector>

#include "service/play/game_endings.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

bool TimedOut(const Session& s, absl::Time now) {
  if (s.status() != v1::IN_PROGRESS || s.has_clocks()) return false;
  const v1::Settings& settings = s.state().settings();
  if (!settings.timeout_enabled()) return false;
  const absl::Time last = TimeFromProto(s.state().last_move_at());
  return last + absl::Seconds(settings.timeout_seconds()) <= now;
}

bool Flagged(const Session& s, absl::Time now) {
  const std::optional<absl::Time> flag = s.FlagFallsAt();
  return flag.has_value() && *flag <= now;
}

// Ends the entry's game if it timed out or its flag fell; true if it did.
bool EndIfDue(SessionRegistry& registry, SessionEntry& entry, absl::Time now)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
  const bool timed_out = TimedOut(entry.session, now);
  if (entry.deleted || (!timed_out && !Flagged(entry.session, now))) {
    return false;
  }
  if (!registry.Fresh(entry).ok()) return false;
  absl::Status status;
  if (Flagged(entry.session, now)) {
    status = ForfeitOnTime(registry, entry, now);
  } else if (TimedOut(entry.session, now)) {
    status = ResetSession(registry, entry, /*timed_out=*/true);
  } else {
    return false;
  }
  // A failed write leaves the game for the next sweep; a lost race
  // (ABORTED) leaves it to the replica that won.
  if (!status.ok() && registry.shared() && absl::IsAborted(status)) {
    registry.Refresh(entry).IgnoreError();
  }
  return status.ok();
}

}  // namespace

void FlagTimes::Note(const std::string& session_id,
                     std::optional<absl::Time> flag_at) {
  MutexLock lock(&mu_);
  if (flag_at.has_value()) {
    flags_[session_id] = *flag_at;
  } else {
    flags_.erase(session_id);
  }
}

absl::Time FlagTimes::Next() {
  MutexLock lock(&mu_);
  absl::Time next = absl::InfiniteFuture();
  for (const auto& [id, at] : flags_) next = std::min(next, at);
  return next;
}

std::vector<std::string> FlagTimes::Due(absl::Time now) {
  MutexLock lock(&mu_);
  std::vector<std::string> due;
  for (const auto& [id, at] : flags_) {
    if (at <= now) due.push_back(id);
  }
  return due;
}

int SweepTimeouts(SessionRegistry& registry, FlagTimes* flags) {
  registry.SyncAll();
  const absl::Time now = registry.clock()->Now();
  int ended = 0;
  for (const std::shared_ptr<SessionEntry>& entry : registry.Entries()) {
    SessionLock lock(*entry);
    if (EndIfDue(registry, *entry, now)) ++ended;
    if (flags != nullptr) {
      flags->Note(entry->id,
                  entry->deleted ? std::nullopt : entry->session.FlagFallsAt());
    }
  }
  return ended;
}

int SweepFlags(SessionRegistry& registry, FlagTimes& flags,
               const std::vector<std::string>& session_ids) {
  const absl::Time now = registry.clock()->Now();
  int ended = 0;
  for (const std::string& id : session_ids) {
    absl::StatusOr<std::shared_ptr<SessionEntry>> entry = registry.Find(id);
    if (!entry.ok()) {
      flags.Note(id, std::nullopt);
      continue;
    }
    SessionLock lock(**entry);
    if (EndIfDue(registry, **entry, now)) ++ended;
    flags.Note(
        id, (*entry)->deleted ? std::nullopt : (*entry)->session.FlagFallsAt());
  }
  return ended;
}

}  // namespace khet
