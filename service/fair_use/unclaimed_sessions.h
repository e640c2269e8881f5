// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Sessions on which no seat was ever taken (Session::unclaimed): the budget
// of them per creator, and their removal once they are older than
// ServiceLimits::unclaimed_session_timeout, so that a flood of sessions from
// one address is refused early and drains by itself.
//
// Who counts: a creation's client address (Caller::address); one that
// carries an in-world object key counts for that object (as a caller of
// its own, max_unclaimed_sessions_per_address) and for its address's
// in-world objects together (inworld_max_unclaimed_sessions_per_address).
// The count follows the sessions themselves, as every replica's registry
// sees them (creations, seats taken, deletions, sessions loaded at start
// or adopted from other replicas), since each unclaimed session's state
// names its creator.
#ifndef KHET_SERVICE_FAIR_USE_UNCLAIMED_SESSIONS_H_
#define KHET_SERVICE_FAIR_USE_UNCLAIMED_SESSIONS_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/sessions/caller.h"
#include "service/sessions/service_limits.h"
#include "service/sessions/session_registry.h"

namespace khet {

class UnclaimedSessions {
 public:
  // `limits` must outlive this.
  explicit UnclaimedSessions(const ServiceLimits* limits) : limits_(limits) {}
  UnclaimedSessions(const UnclaimedSessions&) = delete;
  UnclaimedSessions& operator=(const UnclaimedSessions&) = delete;

  // A creation under way, counted toward its creator's budget until the
  // place is destroyed (by then Note has counted the session, if made).
  class Place {
   public:
    Place(Place&& other) noexcept;
    Place& operator=(Place&&) = delete;
    ~Place();

   private:
    friend class UnclaimedSessions;
    Place(UnclaimedSessions* owner, std::vector<std::string> keys)
        : owner_(owner), keys_(std::move(keys)) {}
    UnclaimedSessions* owner_;
    std::vector<std::string> keys_;  // the counts it is held in
  };

  // A place for a session `caller` creates at `now`; a BudgetRefusal of
  // Budget::kUnclaimedSessions naming the creator, the limit and when its
  // oldest unclaimed session will be gone, if the creator holds its most
  // (creations under way included).
  absl::StatusOr<Place> Reserve(const Caller& caller, absl::Time now);

  // After any change of `entry`'s session, its lock held (the registry's
  // change hook): counts an unclaimed session, forgets a claimed or
  // deleted one. Idempotent; takes no lock of its own for a session neither
  // unclaimed nor counted (every move of a game).
  void Note(SessionEntry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // The unclaimed sessions created at or before `time`.
  std::vector<std::string> CreatedBy(absl::Time time);

  // Unclaimed sessions known now.
  int size();

 private:
  struct Unclaimed {
    std::vector<std::string> keys;  // the counts it is in
    absl::Time created;
  };
  struct Count {
    absl::flat_hash_map<std::string, absl::Time> sessions;  // id: created
    int pending = 0;                                        // places
    int total() const { return static_cast<int>(sessions.size()) + pending; }
  };

  // The counts a creator's sessions go in, with the limit of each.
  std::vector<std::pair<std::string, int>> KeysOf(
      const std::string& address, const std::string& object_key) const;
  void Release(const std::vector<std::string>& keys);
  void ForgetLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ServiceLimits* const limits_;
  Mutex mu_;
  absl::flat_hash_map<std::string, Unclaimed> sessions_ ABSL_GUARDED_BY(mu_);
  // By key: "a <address>" (plain), "o <address> <object>" (one in-world
  // object), "w <address>" (an address's in-world objects together). A
  // count with no session and no place is erased.
  absl::flat_hash_map<std::string, Count> counts_ ABSL_GUARDED_BY(mu_);
};

// Removes the unclaimed sessions older than the timeout (see
// SessionService::SweepUnclaimed): each is read again under its lock
// (Fresh) and deleted only if still unclaimed, at the version read
// (SessionRegistry::DeleteAtVersion). Returns how many it removed.
int SweepUnclaimed(SessionRegistry& registry, UnclaimedSessions& unclaimed,
                   absl::Duration timeout);

}  // namespace khet

#endif  // KHET_SERVICE_FAIR_USE_UNCLAIMED_SESSIONS_H_
