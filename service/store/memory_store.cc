#include "service/store/memory_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace khet {
namespace {

absl::Status NotFound(std::string_view id) {
  return absl::NotFoundError(
      absl::StrCat("no session \"", std::string(id), "\""));
}

}  // namespace

absl::Status MemoryStore::Create(const SessionRecord& record,
                                 absl::Span<const EventRecord> events) {
  MutexLock lock(&mu_);
  if (sessions_.count(record.id) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("session \"", record.id, "\" already exists"));
  }
  if (absl::Status s = CheckNewEvents(record.id, 0, events); !s.ok()) return s;
  sessions_[record.id] = Entry{record, {events.begin(), events.end()}};
  return absl::OkStatus();
}

absl::Status MemoryStore::Update(const SessionRecord& record,
                                 int64_t expected_version,
                                 absl::Span<const EventRecord> events) {
  MutexLock lock(&mu_);
  auto it = sessions_.find(record.id);
  if (it == sessions_.end()) return NotFound(record.id);
  if (it->second.record.version != expected_version) {
    return absl::AbortedError(
        absl::StrCat("session \"", record.id, "\" is at version ",
                     it->second.record.version, ", not ", expected_version));
  }
  std::vector<EventRecord>& stored = it->second.events;
  if (absl::Status s = CheckNewEvents(
          record.id, stored.empty() ? 0 : stored.back().version, events);
      !s.ok()) {
    return s;
  }
  it->second.record = record;
  it->second.events.insert(it->second.events.end(), events.begin(),
                           events.end());
  return absl::OkStatus();
}

absl::Status MemoryStore::Delete(std::string_view id) {
  MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return NotFound(id);
  sessions_.erase(it);
  leases_.Drop(id);
  return absl::OkStatus();
}

absl::StatusOr<bool> MemoryStore::TryLease(std::string_view id,
                                           std::string_view holder,
                                           absl::Time now, absl::Duration ttl) {
  MutexLock lock(&mu_);  // held: a Delete cannot come between
  if (sessions_.count(id) == 0) return false;
  return leases_.TryLease(id, holder, now, ttl);
}

absl::StatusOr<SessionRecord> MemoryStore::Get(std::string_view id) {
  MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return NotFound(id);
  return it->second.record;
}

absl::StatusOr<std::vector<SessionRecord>> MemoryStore::LoadAll() {
  MutexLock lock(&mu_);
  std::vector<SessionRecord> all;
  for (const auto& [id, entry] : sessions_) all.push_back(entry.record);
  return all;
}

absl::StatusOr<std::vector<EventRecord>> MemoryStore::EventsAfter(
    std::string_view id, int64_t after_version, int limit) {
  MutexLock lock(&mu_);
  std::vector<EventRecord> out;
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return out;
  for (const EventRecord& e : it->second.events) {
    if (e.version > after_version && static_cast<int>(out.size()) < limit) {
      out.push_back(e);
    }
  }
  return out;
}

}  // namespace khet
