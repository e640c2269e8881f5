// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/fair_use/unclaimed_sessions.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "service/fair_use/budget_refusal.h"

namespace khet {
namespace {

// The creator a count's key names, for the refusal's sentence.
std::string CreatorOf(const std::string& key) {
  const std::string rest = key.substr(2);
  switch (key.front()) {
    case 'o': {
      const size_t space = rest.find(' ');
      return absl::StrCat("in-world object ", rest.substr(space + 1), " at ",
                          rest.substr(0, space));
    }
    case 'w':
      return absl::StrCat("the in-world objects at ", rest);
    default:
      return rest;
  }
}

}  // namespace

UnclaimedSessions::Place::Place(Place&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      keys_(std::move(other.keys_)) {}

UnclaimedSessions::Place::~Place() {
  if (owner_ != nullptr) owner_->Release(keys_);
}

std::vector<std::pair<std::string, int>> UnclaimedSessions::KeysOf(
    const std::string& address, const std::string& object_key) const {
  const int plain = limits_->max_unclaimed_sessions_per_address;
  const int inworld = limits_->inworld_max_unclaimed_sessions_per_address;
  if (address.empty() || plain <= 0) return {};
  if (object_key.empty() || inworld <= 0) {
    return {{absl::StrCat("a ", address), plain}};
  }
  return {{absl::StrCat("o ", address, " ", object_key), plain},
          {absl::StrCat("w ", address), inworld}};
}

absl::StatusOr<UnclaimedSessions::Place> UnclaimedSessions::Reserve(
    const Caller& caller, absl::Time now) {
  const std::vector<std::pair<std::string, int>> keys =
      KeysOf(caller.address, caller.object_key);
  std::vector<std::string> names;
  MutexLock lock(&mu_);
  for (const auto& [key, limit] : keys) {
    const auto it = counts_.find(key);
    if (it == counts_.end() || it->second.total() < limit) continue;
    // Its oldest session goes first, at the latest when it times out.
    absl::Time oldest = absl::InfiniteFuture();
    for (const auto& [id, created] : it->second.sessions) {
      oldest = std::min(oldest, created);
    }
    const absl::Duration timeout = limits_->unclaimed_session_timeout;
    const absl::Duration wait = oldest == absl::InfiniteFuture()
                                    ? absl::Seconds(1)
                                    : oldest + timeout - now;
    return BudgetRefusal(
        Budget::kUnclaimedSessions,
        absl::StrCat("too many sessions nobody has joined from ",
                     CreatorOf(key), ": at most ", limit,
                     " at once (each is removed ",
                     absl::ToInt64Seconds(timeout),
                     " s after its creation unless a seat is taken); join "
                     "one, or ",
                     TryAgainIn(wait)),
        wait);
  }
  for (const auto& [key, limit] : keys) {
    ++counts_[key].pending;
    names.push_back(key);
  }
  return Place(this, std::move(names));
}

void UnclaimedSessions::Release(const std::vector<std::string>& keys) {
  MutexLock lock(&mu_);
  for (const std::string& key : keys) {
    const auto it = counts_.find(key);
    if (it == counts_.end()) continue;
    --it->second.pending;
    if (it->second.total() <= 0) counts_.erase(it);
  }
}

void UnclaimedSessions::Note(SessionEntry& entry) {
  const Session& s = entry.session;
  const bool counts = !entry.deleted && s.unclaimed();
  if (!counts && !entry.counted_unclaimed) return;
  entry.counted_unclaimed = counts;
  MutexLock lock(&mu_);
  if (!counts) {
    ForgetLocked(entry.id);
    return;
  }
  if (sessions_.contains(entry.id)) return;
  Unclaimed unclaimed;
  unclaimed.created = entry.created_at;
  for (auto& [key, limit] :
       KeysOf(s.state().creator_address(), s.state().creator_object_key())) {
    counts_[key].sessions[entry.id] = entry.created_at;
    unclaimed.keys.push_back(std::move(key));
  }
  sessions_.emplace(entry.id, std::move(unclaimed));
}

void UnclaimedSessions::ForgetLocked(const std::string& id) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  for (const std::string& key : it->second.keys) {
    const auto count = counts_.find(key);
    if (count == counts_.end()) continue;
    count->second.sessions.erase(id);
    if (count->second.total() <= 0) counts_.erase(count);
  }
  sessions_.erase(it);
}

std::vector<std::string> UnclaimedSessions::CreatedBy(absl::Time time) {
  std::vector<std::string> ids;
  MutexLock lock(&mu_);
  for (const auto& [id, unclaimed] : sessions_) {
    if (unclaimed.created <= time) ids.push_back(id);
  }
  return ids;
}

int UnclaimedSessions::size() {
  MutexLock lock(&mu_);
  return static_cast<int>(sessions_.size());
}

int SweepUnclaimed(SessionRegistry& registry, UnclaimedSessions& unclaimed,
                   absl::Duration timeout) {
  const absl::Time now = registry.clock()->Now();
  int removed = 0;
  for (const std::string& id : unclaimed.CreatedBy(now - timeout)) {
    std::shared_ptr<SessionEntry> entry = registry.Known(id);
    if (entry == nullptr) continue;
    SessionLock lock(*entry);
    // A session deleted meanwhile is forgotten by its deletion; one that
    // cannot be read now (the store down) waits for the next sweep.
    if (!registry.Fresh(*entry).ok()) continue;
    if (!entry->session.unclaimed() || entry->created_at + timeout > now) {
      unclaimed.Note(*entry);
      continue;
    }
    const absl::Status deleted = registry.DeleteAtVersion(*entry);
    if (deleted.ok()) {
      ++removed;
    } else if (absl::IsAborted(deleted)) {
      // Another replica changed it since: catch up; a seat taken keeps it.
      registry.Refresh(*entry).IgnoreError();
    }
  }
  return removed;
}

}  // namespace khet
