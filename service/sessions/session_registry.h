// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The sessions this process holds, each behind its own lock, and the one
// way every change reaches the store and the watchers (Commit). On a shared
// store (several replicas) the registry also reads sessions it does not
// know yet and, through StoreCatchUp, never lets a request act on a copy
// older than the store's.
#ifndef KHET_SERVICE_SESSIONS_SESSION_REGISTRY_H_
#define KHET_SERVICE_SESSIONS_SESSION_REGISTRY_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.pb.h"
#include "service/base/clock.h"
#include "service/base/mutex.h"
#include "service/events/event_hub.h"
#include "service/sessions/notice_backlog.h"
#include "service/sessions/session.h"
#include "service/store/session_store.h"

namespace khet {

class StoreCatchUp;

// One session and what guards it. id, created_at and hub never change.
struct SessionEntry {
  SessionEntry(Session s, int watcher_buffer);

  const std::string id;
  const absl::Time created_at;
  const std::shared_ptr<EventHub> hub;
  Mutex mu;
  Session session ABSL_GUARDED_BY(mu);
  // Gone from the store: requests answer NOT_FOUND, watchers have ended.
  bool deleted ABSL_GUARDED_BY(mu) = false;
  // Changed in place by a change whose write failed, and not yet read back
  // from the store: `session` is not to be trusted (see CommitInPlace).
  bool lost ABSL_GUARDED_BY(mu) = false;
  // A change's write handed to the store and not yet answered
  // (CommitInPlaceLater): `session` holds the change already. Everyone else
  // waits for the answer before reading or changing the session
  // (SessionLock).
  bool writing ABSL_GUARDED_BY(mu) = false;
  CondVar written;  // signalled when `writing` ends
  // Counted by UnclaimedSessions as unclaimed: once claimed, it need not
  // be told of the session's later changes (the move path's commits).
  bool counted_unclaimed ABSL_GUARDED_BY(mu) = false;
};

// Holds an entry's lock, taken once no write of the session is in flight:
// how every reader and writer of a session locks it.
class ABSL_SCOPED_LOCKABLE SessionLock {
 public:
  explicit SessionLock(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCK_FUNCTION(entry.mu)
      : entry_(entry) {
    entry_.mu.Lock();
    while (entry_.writing) {
      entry_.written.WaitWithTimeout(&entry_.mu, absl::Seconds(1));
    }
  }
  ~SessionLock() ABSL_UNLOCK_FUNCTION() { entry_.mu.Unlock(); }
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

 private:
  SessionEntry& entry_;
};

// NOT_FOUND naming the (quoted) id.
absl::Status NoSession(std::string_view id);

class SessionRegistry {
 public:
  // Called with the entry's lock held after every change of its session
  // (a commit, a catch-up, an adoption, a deletion): the computer seats
  // look whether it is their turn.
  using ChangeHook = std::function<void(SessionEntry& entry)>;

  SessionRegistry(SessionStore* store, Clock* clock, int max_sessions,
                  int watcher_buffer);
  ~SessionRegistry();  // StopListening()

  bool shared() const { return shared_; }
  SessionStore* store() const { return store_; }
  Clock* clock() const { return clock_; }

  // Set once, before Load. REQUIRES: hook not empty.
  void SetChangeHook(ChangeHook hook) { change_hook_ = std::move(hook); }
  // Called (entry lock held) after a write that archived a rated game; may
  // be left unset. Set once, before Load.
  void SetRatedGameHook(std::function<void()> hook) {
    rated_game_hook_ = std::move(hook);
  }

  // Loads every stored session; INTERNAL naming a corrupt one. On a shared
  // store, listens for changes first, so that none made meanwhile is lost.
  absl::Status Load();

  // Stores a new session and adds it; RESOURCE_EXHAUSTED at max_sessions
  // (counting creations under way). `make` builds the session for an id,
  // called again (up to five ids) while the store says an id is taken.
  absl::StatusOr<std::shared_ptr<SessionEntry>> Create(
      const std::function<Session(const std::string& id)>& make,
      const std::function<std::string()>& new_id);

  // The session's entry; on a shared store one this process does not know
  // yet is read from the store (created by another replica). NOT_FOUND if
  // there is none.
  absl::StatusOr<std::shared_ptr<SessionEntry>> Find(const std::string& id);
  // The entry if this process knows it; nullptr otherwise. No store read.
  std::shared_ptr<SessionEntry> Known(const std::string& id);
  // Every entry now held, in id order.
  std::vector<std::shared_ptr<SessionEntry>> Entries();

  // NOT_FOUND for a deleted session. On a shared store, first brings the
  // session up to the stored one: no request acts on a copy older than the
  // store's at the time it began. A lost session is read back first;
  // UNAVAILABLE while that fails.
  absl::Status Fresh(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // On a shared store: catches the entry up with the store (StoreCatchUp);
  // a no-op on a store of this process alone.
  absl::Status Refresh(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // Numbers the events after the session's version, stamps them with the
  // session id and the time, writes `next` with them, and only when the
  // store took them replaces the session, publishes and calls the change
  // hook. On error nothing changes.
  absl::Status Commit(SessionEntry& entry, Session next,
                      std::vector<v1::Event> events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // Commit for a session already changed in place from its stored version
  // (entry.session.version() not yet raised), which saves the move path a
  // copy of the whole session per move. On a failed write the session is
  // read back from the store (publishing what other replicas wrote
  // meanwhile); if that fails too the entry is lost until a later Fresh
  // reads it back. Returns the write's error. `events` are left stamped:
  // the published events are their bytes, so the caller may take the
  // messages apart afterwards (the move path moves them into its reply).
  absl::Status CommitInPlace(SessionEntry& entry,
                             std::vector<v1::Event>& events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // CommitInPlace without waiting for the store, for a store that
  // updates_later(): the write is handed to the store and the entry marked
  // as being written (SessionEntry::writing), so that the caller may let
  // its lock go at once while everyone else waits for the answer. When the
  // store answers (on its thread), the events are published and the change
  // hook called as CommitInPlace does, or on a failed write the entry is
  // marked lost (read back by the next Fresh); `writing` ends; then `done`
  // gets the write's answer, with no lock held. `events` are serialized
  // before this returns and not touched after, so `done` may take them
  // apart.
  // The rated-game hook is not called (it writes to the store): the caller
  // must not use this for a rated game.
  void CommitInPlaceLater(std::shared_ptr<SessionEntry> entry,
                          std::vector<v1::Event>& events,
                          absl::AnyInvocable<void(absl::Status) &&> done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry->mu);

  // Deletes the session from the store, then forgets it.
  absl::Status Delete(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);
  // Delete, only if the store still holds the session at the entry's
  // version (SessionStore::DeleteAt): ABORTED, nothing changed, if another
  // replica changed it since. A session the store no longer holds is
  // forgotten too (NOT_FOUND).
  absl::Status DeleteAtVersion(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // The session is gone from the store: tells its watchers
  // (SessionDeleted, then the end of their streams), calls the change hook
  // and drops it.
  void Forget(SessionEntry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // Adds a session read from a shared store, unless another thread added
  // it meanwhile; returns the entry kept.
  absl::StatusOr<std::shared_ptr<SessionEntry>> Adopt(
      const SessionRecord& record);

  // Replaces the entry's session with one read from the store (so no
  // longer lost), and publishes `missed` (the events in between) to its
  // watchers.
  void Replace(SessionEntry& entry, Session session,
               const std::vector<v1::Event>& missed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // Catches every session up with a shared store (see StoreCatchUp::SyncAll).
  void SyncAll();
  // Reads back together every session whose write failed (lost), at most
  // kReadBackBatch per store read, so that their next requests need not
  // (a move on a lost session is read back and written synchronously,
  // several times slower than one on a held copy). SyncAll does this first,
  // which the store's listener asks for when it reconnects after an outage.
  // A read that fails leaves the rest to each session's next Fresh.
  void ReadBackLost();
  static constexpr int kReadBackBatch = 500;
  // The shared store's notices not yet handled (none without one).
  NoticeBacklog Backlog();

  // Stops hearing a shared store's changes; when it returns, no change
  // notice runs any more.
  void StopListening();

  // On a shared store, a request that failed with ABORTED (its write lost
  // a race with another replica's, or its expected_version was checked
  // against a copy that was behind) runs again on the refreshed session,
  // kSharedStoreAttempts times in all: a client's correct expected_version
  // is honoured on any replica, a stale one still fails, and replicas that
  // keep writing the session do not starve a request.
  static constexpr int kSharedStoreAttempts = 5;
  template <typename Fn>
  auto Retried(Fn fn) -> decltype(fn()) {
    auto result = fn();
    for (int attempt = 1; shared_ && attempt < kSharedStoreAttempts &&
                          absl::IsAborted(StatusOf(result));
         ++attempt) {
      result = fn();
    }
    return result;
  }

  // Runs fn(entry) on the session `id` under its lock, once it is fresh
  // (Find, then Fresh); returns what fn returns, or the error of either.
  template <typename Fn>
  auto Read(const std::string& id, Fn fn)
      -> decltype(fn(std::declval<SessionEntry&>())) {
    absl::StatusOr<std::shared_ptr<SessionEntry>> entry = Find(id);
    if (!entry.ok()) return entry.status();
    SessionLock lock(**entry);
    if (absl::Status fresh = Fresh(**entry); !fresh.ok()) return fresh;
    return fn(**entry);
  }

  // Read for a request that only waits for the session's events (a
  // watch). On a shared store it acts on the copy held, without asking the
  // store for its version, when usable(entry) says the copy serves it (it
  // holds the version watched from): the store's notices bring later
  // events to the copy and its watchers as they do to every watcher. So a
  // board's poll costs no store read, and waits on while the store is down.
  // The copy may be lost (a write failed): its version is then the stored
  // one before that write, and only written events were published, so
  // `usable` and `fn` may rely on the version and the event hub alone.
  // Read otherwise.
  template <typename Usable, typename Fn>
  auto ReadHeld(const std::string& id, Usable usable, Fn fn)
      -> decltype(fn(std::declval<SessionEntry&>())) {
    if (shared_) {
      if (std::shared_ptr<SessionEntry> held = Known(id)) {
        SessionLock lock(*held);
        if (!held->deleted && usable(*held)) return fn(*held);
      }
    }
    return Read(id, fn);
  }

  // Read for a request that changes the session: retried once on a shared
  // store (Retried).
  template <typename Fn>
  auto Change(const std::string& id, Fn fn)
      -> decltype(fn(std::declval<SessionEntry&>())) {
    return Retried([&] { return Read(id, fn); });
  }

  // Change for a request that succeeds only by writing the session (a
  // move). On a shared store its first try acts on the copy held without
  // asking the store for its version: the write names the version it
  // replaces, so a copy that was behind makes it fail and be read back.
  // That failure, any other one (a copy behind may say "not your turn"),
  // and a success that wrote nothing (a kept answer, which a reset on
  // another replica may have voided) run the request again as Change does.
  // A move on a current copy thus costs one store round trip, not two.
  template <typename Fn>
  auto ChangeByWriting(const std::string& id, Fn fn)
      -> decltype(fn(std::declval<SessionEntry&>())) {
    if (shared_) {
      absl::StatusOr<std::shared_ptr<SessionEntry>> entry = Find(id);
      if (!entry.ok()) return entry.status();
      SessionEntry& held = **entry;
      SessionLock lock(held);
      if (!held.deleted && !held.lost) {
        const int64_t before = held.session.version();
        auto result = fn(held);
        if (StatusOf(result).ok() && held.session.version() > before) {
          return result;
        }
      }
    }
    return Change(id, fn);
  }

  // The session's stored event of `version`; NOT_FOUND if there is none,
  // INTERNAL if it does not parse.
  absl::StatusOr<v1::Event> StoredEvent(const std::string& id, int64_t version);

  // An event of the session stamped with `version` and the time.
  v1::Event NewEvent(const Session& s, int64_t version) const;

 private:
  // Numbers and stamps the events after `old_version`, raises next's
  // version past them and writes both, expecting `old_version` in the
  // store. `events` are stamped in place; on success they are shared as
  // their stored bytes, ready to publish.
  absl::StatusOr<std::vector<SharedEventPtr>> Write(
      Session& next, int64_t old_version, std::vector<v1::Event>& events);
  // Write's preparation: stamps the events, raises next's version, takes
  // the game to archive (if any) and the record to store.
  SessionStore::LaterUpdate Stamp(Session& next, int64_t old_version,
                                  std::vector<v1::Event>& events);
  // Stored events as published.
  static std::vector<SharedEventPtr> Shared(std::vector<EventRecord> records);

  // After a write from an in-place change failed: the stored session back
  // in the entry (see CommitInPlace).
  absl::Status ReadBack(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);
  // ReadBack's second half: the entry made what `record` (Get's answer)
  // says the store holds.
  absl::Status ReadBackFrom(SessionEntry& entry,
                            absl::StatusOr<SessionRecord> record)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);
  // An entry was marked lost since ReadBackLost last looked.
  void NoteLost(SessionEntry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  static absl::Status StatusOf(const absl::Status& s) { return s; }
  template <typename T>
  static absl::Status StatusOf(const absl::StatusOr<T>& s) {
    return s.status();
  }

  SessionStore* const store_;
  const bool shared_;  // other replicas write the store too
  Clock* const clock_;
  const int max_sessions_;
  const int watcher_buffer_;
  ChangeHook change_hook_;
  std::function<void()> rated_game_hook_;

  Mutex map_mu_;
  std::map<std::string, std::shared_ptr<SessionEntry>> sessions_
      ABSL_GUARDED_BY(map_mu_);
  int reserved_ ABSL_GUARDED_BY(map_mu_) = 0;  // creations under way
  // Set when an entry is marked lost; ReadBackLost clears it before it
  // looks, so that it looks only when there may be one.
  std::atomic<bool> maybe_lost_{false};

  // Set on a shared store only. Last: destroyed first.
  std::unique_ptr<StoreCatchUp> catch_up_;
};

// A stored session rebuilt; INTERNAL naming what is corrupt.
absl::StatusOr<Session> SessionFromRecord(const SessionRecord& record);

// The record the store keeps of a session.
SessionRecord RecordOf(const Session& s);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_SESSION_REGISTRY_H_
