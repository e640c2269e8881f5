// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/session_registry.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/sessions/announcements.h"
#include "service/sessions/game_records.h"
#include "service/sessions/store_catch_up.h"
#include "service/text/quoted_input.h"
#include "service/wire/convert.h"

namespace khet {

SessionEntry::SessionEntry(Session s, int watcher_buffer)
    : id(s.id()),
      created_at(TimeFromProto(s.state().created_at())),
      hub(std::make_shared<EventHub>(watcher_buffer)),
      session(std::move(s)) {}

absl::Status NoSession(std::string_view id) {
  return absl::NotFoundError(absl::StrCat("no session ", QuoteInput(id)));
}

absl::StatusOr<Session> SessionFromRecord(const SessionRecord& record) {
  store::SessionState state;
  if (!state.ParseFromString(record.state)) {
    return absl::InternalError(absl::StrCat(
        "session \"", record.id, "\": the stored state does not parse"));
  }
  if (state.id() != record.id || state.version() != record.version) {
    return absl::InternalError(absl::StrCat(
        "session \"", record.id, "\": the stored state is of session \"",
        state.id(), "\" version ", state.version(), ", the record of version ",
        record.version));
  }
  absl::StatusOr<Session> session = Session::FromState(state);
  if (!session.ok()) {
    return absl::InternalError(
        absl::StrCat("session \"", record.id,
                     "\" is corrupt: ", session.status().message()));
  }
  return session;
}

SessionRecord RecordOf(const Session& s) {
  return SessionRecord{s.id(), s.version(), s.state().SerializeAsString()};
}

SessionRegistry::SessionRegistry(SessionStore* store, Clock* clock,
                                 int max_sessions, int watcher_buffer)
    : store_(store),
      shared_(store->shared()),
      clock_(clock),
      max_sessions_(max_sessions),
      watcher_buffer_(watcher_buffer) {
  if (shared_) catch_up_ = std::make_unique<StoreCatchUp>(this, store_);
}

SessionRegistry::~SessionRegistry() { StopListening(); }

void SessionRegistry::StopListening() {
  if (catch_up_ != nullptr) catch_up_->StopListening();
}

absl::Status SessionRegistry::Load() {
  if (catch_up_ != nullptr) catch_up_->Listen();
  KHET_ASSIGN_OR_RETURN(std::vector<SessionRecord> records, store_->LoadAll());
  std::vector<std::shared_ptr<SessionEntry>> loaded;
  {
    MutexLock lock(&map_mu_);
    for (const SessionRecord& record : records) {
      KHET_ASSIGN_OR_RETURN(Session session, SessionFromRecord(record));
      // A change notice may have brought a newer copy already.
      auto [it, added] = sessions_.try_emplace(
          record.id,
          std::make_shared<SessionEntry>(std::move(session), watcher_buffer_));
      if (added) loaded.push_back(it->second);
    }
  }
  for (const std::shared_ptr<SessionEntry>& entry : loaded) {
    SessionLock lock(*entry);
    change_hook_(*entry);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<SessionEntry>> SessionRegistry::Create(
    const std::function<Session(const std::string& id)>& make,
    const std::function<std::string()>& new_id) {
  {  // Reserve a place so that racing creations cannot exceed the limit.
    MutexLock lock(&map_mu_);
    if (static_cast<int>(sessions_.size()) + reserved_ >= max_sessions_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the server holds the maximum of ", max_sessions_,
                       " sessions (max_sessions)"));
    }
    ++reserved_;
  }
  absl::Status created;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const std::string id = new_id();
    Session session = make(id);
    created = store_->Create(RecordOf(session), {});
    if (created.code() == absl::StatusCode::kAlreadyExists) continue;
    auto entry =
        std::make_shared<SessionEntry>(std::move(session), watcher_buffer_);
    MutexLock lock(&map_mu_);
    --reserved_;
    if (!created.ok()) return created;
    // On a shared store the store's notice of it may have come first.
    return sessions_.try_emplace(id, std::move(entry)).first->second;
  }
  MutexLock lock(&map_mu_);
  --reserved_;
  return absl::InternalError(
      absl::StrCat("could not find a free session id: ", created.message()));
}

std::shared_ptr<SessionEntry> SessionRegistry::Known(const std::string& id) {
  MutexLock lock(&map_mu_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

absl::StatusOr<std::shared_ptr<SessionEntry>> SessionRegistry::Find(
    const std::string& id) {
  if (std::shared_ptr<SessionEntry> entry = Known(id)) return entry;
  if (!shared_) return NoSession(id);
  absl::StatusOr<SessionRecord> record = store_->Get(id);
  if (absl::IsNotFound(record.status())) return NoSession(id);
  if (!record.ok()) return record.status();
  return Adopt(*record);
}

std::vector<std::shared_ptr<SessionEntry>> SessionRegistry::Entries() {
  std::vector<std::shared_ptr<SessionEntry>> entries;
  MutexLock lock(&map_mu_);
  entries.reserve(sessions_.size());
  for (const auto& [id, entry] : sessions_) entries.push_back(entry);
  return entries;
}

absl::StatusOr<std::shared_ptr<SessionEntry>> SessionRegistry::Adopt(
    const SessionRecord& record) {
  KHET_ASSIGN_OR_RETURN(Session session, SessionFromRecord(record));
  std::shared_ptr<SessionEntry> entry;
  bool added = false;
  {
    MutexLock lock(&map_mu_);
    auto [it, inserted] = sessions_.try_emplace(
        record.id,
        std::make_shared<SessionEntry>(std::move(session), watcher_buffer_));
    entry = it->second;
    added = inserted;
  }
  if (added) {
    SessionLock lock(*entry);
    change_hook_(*entry);
  }
  return entry;
}

absl::Status SessionRegistry::Fresh(SessionEntry& entry) {
  if (entry.deleted) return NoSession(entry.id);
  if (entry.lost) {
    if (absl::Status back = ReadBack(entry); !back.ok()) {
      return absl::UnavailableError(absl::StrCat(
          "session \"", entry.id,
          "\" could not be read back from the store after a failed write: ",
          back.message()));
    }
    if (entry.deleted) return NoSession(entry.id);
    // Just read from the store: as fresh as a version check would make it.
    return absl::OkStatus();
  }
  if (!shared_) return absl::OkStatus();
  KHET_RETURN_IF_ERROR(Refresh(entry));
  if (entry.deleted) return NoSession(entry.id);
  return absl::OkStatus();
}

absl::Status SessionRegistry::Refresh(SessionEntry& entry) {
  if (catch_up_ == nullptr) return absl::OkStatus();
  return catch_up_->Refresh(entry);
}

void SessionRegistry::SyncAll() {
  if (catch_up_ != nullptr) catch_up_->SyncAll();
}

NoticeBacklog SessionRegistry::Backlog() {
  return catch_up_ == nullptr ? NoticeBacklog() : catch_up_->Backlog();
}

void SessionRegistry::Replace(SessionEntry& entry, Session session,
                              const std::vector<v1::Event>& missed) {
  entry.session = std::move(session);
  entry.lost = false;  // the stored session, whatever a failed write did
  entry.hub->Publish(missed);
  change_hook_(entry);
}

absl::StatusOr<v1::Event> SessionRegistry::StoredEvent(const std::string& id,
                                                       int64_t version) {
  KHET_ASSIGN_OR_RETURN(std::vector<EventRecord> records,
                        store_->EventsAfter(id, version - 1, 1));
  if (records.empty() || records.front().version != version) {
    return absl::NotFoundError(
        absl::StrCat("session \"", id, "\" has no stored event ", version));
  }
  v1::Event event;
  if (!event.ParseFromString(records.front().event)) {
    return absl::InternalError(absl::StrCat(
        "session \"", id, "\": stored event ", version, " is corrupt"));
  }
  return event;
}

v1::Event SessionRegistry::NewEvent(const Session& s, int64_t version) const {
  v1::Event e;
  e.set_version(version);
  e.set_session_id(s.id());
  *e.mutable_time() = TimeToProto(clock_->Now());
  return e;
}

SessionStore::LaterUpdate SessionRegistry::Stamp(
    Session& next, int64_t old_version, std::vector<v1::Event>& events) {
  SessionStore::LaterUpdate update;
  update.events.reserve(events.size());
  const v1::Event stamp = NewEvent(next, 0);
  for (size_t i = 0; i < events.size(); ++i) {
    v1::Event& e = events[i];
    e.set_version(old_version + static_cast<int64_t>(i) + 1);
    e.set_session_id(stamp.session_id());
    *e.mutable_time() = stamp.time();
    if (next.has_clocks()) *e.mutable_clocks() = next.ClocksToProto();
    update.events.push_back({e.version(), e.SerializeAsString()});
  }
  next.set_version(old_version + static_cast<int64_t>(events.size()));
  // A game that ended or was abandoned goes to the archive in this write.
  update.archive = next.TakeAbandoned();
  if (!update.archive.has_value() && next.NeedsArchiving()) {
    update.archive = ArchiveOf(next, absl::InfinitePast());  // stamped below
    next.MarkArchived();
  }
  if (update.archive.has_value()) {
    update.archive->ended_at = TimeFromProto(stamp.time());
    if (update.archive->silver_id.empty()) {
      next.NoteUnratedGameArchived(update.archive->ended_at);
    }
  }
  update.record = RecordOf(next);
  update.expected_version = old_version;
  return update;
}

std::vector<SharedEventPtr> SessionRegistry::Shared(
    std::vector<EventRecord> records) {
  std::vector<SharedEventPtr> shared;
  shared.reserve(records.size());
  for (EventRecord& record : records) {
    shared.push_back(std::make_shared<const SharedEvent>(
        record.version, std::move(record.event)));
  }
  return shared;
}

absl::StatusOr<std::vector<SharedEventPtr>> SessionRegistry::Write(
    Session& next, int64_t old_version, std::vector<v1::Event>& events) {
  SessionStore::LaterUpdate update = Stamp(next, old_version, events);
  const ArchivedGame* archive =
      update.archive.has_value() ? &*update.archive : nullptr;
  KHET_RETURN_IF_ERROR(
      store_->Update(update.record, old_version, update.events, archive));
  if (archive != nullptr && !archive->silver_id.empty() && rated_game_hook_) {
    rated_game_hook_();
  }
  return Shared(std::move(update.events));
}

void SessionRegistry::CommitInPlaceLater(
    std::shared_ptr<SessionEntry> entry, std::vector<v1::Event>& events,
    absl::AnyInvocable<void(absl::Status) &&> done) {
  const int64_t old_version = entry->session.version();
  SessionStore::LaterUpdate update = Stamp(entry->session, old_version, events);
  // The bytes go to the store; the watchers get their own copy.
  std::vector<EventRecord> records = update.events;
  entry->writing = true;
  store_->UpdateLater(
      std::move(update), [this, entry = std::move(entry), old_version,
                          records = std::move(records), done = std::move(done)](
                             absl::Status written) mutable {
        {
          MutexLock lock(&entry->mu);  // no SessionLock: the write is ours
          entry->writing = false;
          if (written.ok()) {
            entry->hub->Publish(Shared(std::move(records)));
            change_hook_(*entry);
          } else {
            // Read back by the next Fresh, as a failed CommitInPlace's is
            // when its own read back fails.
            entry->session.set_version(old_version);
            NoteLost(*entry);
          }
        }
        entry->written.SignalAll();
        std::move(done)(std::move(written));
      });
}

absl::Status SessionRegistry::Commit(SessionEntry& entry, Session next,
                                     std::vector<v1::Event> events) {
  KHET_ASSIGN_OR_RETURN(std::vector<SharedEventPtr> shared,
                        Write(next, entry.session.version(), events));
  entry.session = std::move(next);
  entry.hub->Publish(shared);
  change_hook_(entry);
  return absl::OkStatus();
}

absl::Status SessionRegistry::CommitInPlace(SessionEntry& entry,
                                            std::vector<v1::Event>& events) {
  const int64_t old_version = entry.session.version();
  absl::StatusOr<std::vector<SharedEventPtr>> written =
      Write(entry.session, old_version, events);
  if (!written.ok()) {
    entry.session.set_version(old_version);
    NoteLost(entry);
    ReadBack(entry).IgnoreError();  // else the next Fresh tries again
    return written.status();
  }
  entry.hub->Publish(*written);
  change_hook_(entry);
  return absl::OkStatus();
}

void SessionRegistry::NoteLost(SessionEntry& entry) {
  entry.lost = true;
  maybe_lost_.store(true);
}

void SessionRegistry::ReadBackLost() {
  if (!maybe_lost_.exchange(false)) return;
  std::vector<std::shared_ptr<SessionEntry>> lost;
  for (std::shared_ptr<SessionEntry>& entry : Entries()) {
    MutexLock lock(&entry->mu);  // a write in flight is not waited for
    if (entry->lost && !entry->deleted) lost.push_back(std::move(entry));
  }
  for (size_t begin = 0; begin < lost.size(); begin += kReadBackBatch) {
    const size_t end = std::min(lost.size(), begin + kReadBackBatch);
    std::vector<std::string> ids;
    ids.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) ids.push_back(lost[i]->id);
    absl::StatusOr<std::vector<SessionRecord>> records = store_->GetMany(ids);
    if (!records.ok()) {
      maybe_lost_.store(true);  // the rest, next time
      return;
    }
    absl::flat_hash_map<std::string_view, SessionRecord*> by_id;
    for (SessionRecord& record : *records) by_id[record.id] = &record;
    for (size_t i = begin; i < end; ++i) {
      SessionEntry& entry = *lost[i];
      SessionLock lock(entry);
      if (!entry.lost || entry.deleted) continue;  // read back meanwhile
      auto it = by_id.find(entry.id);
      if (it == by_id.end()) {
        ReadBackFrom(entry, NoSession(entry.id)).IgnoreError();
        continue;
      }
      // Read before a later write of the entry failed: not what is stored
      // now (the entry's version is the stored one before that write).
      if (it->second->version < entry.session.version()) continue;
      ReadBackFrom(entry, std::move(*it->second)).IgnoreError();
    }
  }
}

absl::Status SessionRegistry::ReadBack(SessionEntry& entry) {
  return ReadBackFrom(entry, store_->Get(entry.id));
}

absl::Status SessionRegistry::ReadBackFrom(
    SessionEntry& entry, absl::StatusOr<SessionRecord> record) {
  if (absl::IsNotFound(record.status())) {
    entry.lost = false;
    Forget(entry);
    return absl::OkStatus();
  }
  if (!record.ok()) return record.status();
  if (record->version > entry.session.version() && catch_up_ != nullptr) {
    // Another replica wrote meanwhile: catch up, publishing its events.
    KHET_RETURN_IF_ERROR(catch_up_->CatchUp(entry));
    entry.lost = false;
    return absl::OkStatus();
  }
  KHET_ASSIGN_OR_RETURN(Session session, SessionFromRecord(*record));
  entry.session = std::move(session);
  entry.lost = false;
  return absl::OkStatus();
}

absl::Status SessionRegistry::Delete(SessionEntry& entry) {
  KHET_RETURN_IF_ERROR(store_->Delete(entry.id));
  Forget(entry);
  return absl::OkStatus();
}

absl::Status SessionRegistry::DeleteAtVersion(SessionEntry& entry) {
  const absl::Status deleted =
      store_->DeleteAt(entry.id, entry.session.version());
  if (deleted.ok() || absl::IsNotFound(deleted)) Forget(entry);
  return deleted;
}

void SessionRegistry::Forget(SessionEntry& entry) {
  const Session& s = entry.session;
  v1::Event e = NewEvent(s, s.version() + 1);
  e.set_announcement(DeletedAnnouncement(s.state().name(), s.language()));
  e.mutable_session_deleted();
  entry.deleted = true;
  entry.session.set_version(e.version());
  change_hook_(entry);
  entry.hub->Publish({e});
  entry.hub->Close();
  MutexLock map_lock(&map_mu_);
  auto it = sessions_.find(entry.id);
  if (it != sessions_.end() && it->second.get() == &entry) sessions_.erase(it);
}

}  // namespace khet
