// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Keeping this process's copies of sessions current with a shared store
// (PostgreSQL with several replicas). Every request first brings its
// session up to the stored version (Refresh, through the registry's
// Fresh); the store's change notices keep idle copies and their watchers
// current; a sweep (SyncAll) recovers whatever notices were lost. Watchers
// see every event whichever replica wrote it, in order, by version.
//
// Notices are handled off the store's listening thread by a few threads of
// their own, each session's always by the same one (so in order), and the
// notices of a session that wait together as one: a notice costs reads of
// the store, and one thread reading them one after the other fell behind
// (docs/PERFORMANCE.md, "Boards on replicas").
#ifndef KHET_SERVICE_SESSIONS_STORE_CATCH_UP_H_
#define KHET_SERVICE_SESSIONS_STORE_CATCH_UP_H_

#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/sessions/session_registry.h"
#include "service/store/session_store.h"

namespace khet {

class StoreCatchUp {
 public:
  // REQUIRES: store->shared(); both outlive this.
  StoreCatchUp(SessionRegistry* registry, SessionStore* store);
  ~StoreCatchUp();  // StopListening()

  // Starts hearing the store's change notices.
  void Listen();
  // Stops hearing them; when it returns, no notice is being handled and
  // those not yet handled are dropped (a later request, or the sweep,
  // catches their sessions up).
  void StopListening();

  // Replaces the entry's session with the stored one if that is newer,
  // after publishing the events in between to the local watchers, oldest
  // first; forgets it (SessionDeleted) if the store has it no more. On
  // error nothing changes.
  absl::Status Refresh(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);
  // Refresh for a session known to be behind the store (a notice named a
  // newer version): the version is not asked first.
  absl::Status CatchUp(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // Catches every session up: new ones adopted, changed ones refreshed,
  // deleted ones forgotten. Reads the states of changed sessions only.
  void SyncAll();

  // The notices heard and not yet handled.
  NoticeBacklog Backlog();

 private:
  // Threads that handle notices.
  static constexpr int kNoticeThreads = 4;
  // One such thread and the notices waiting for it, oldest first, one per
  // session (a later notice of a waiting session joins it).
  struct Waiting {
    StoreChange change;
    absl::Time heard;  // its first notice
  };
  struct NoticeThread {
    Mutex mu;
    CondVar ready;
    std::deque<std::string> order ABSL_GUARDED_BY(mu);
    absl::flat_hash_map<std::string, Waiting> waiting ABSL_GUARDED_BY(mu);
    bool stop ABSL_GUARDED_BY(mu) = false;
    std::thread thread;
  };

  // A change committed by any replica (on the store's thread): queued for
  // its session's notice thread.
  void OnStoreChange(const StoreChange& change);
  void RunNotices(NoticeThread& notices);
  void HandleChange(const StoreChange& change);
  // Reads the stored session and the events after the entry's version.
  absl::Status ReadStored(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  SessionRegistry* const registry_;
  SessionStore* const store_;
  bool listening_ = false;
  // kNoticeThreads of them, from construction to destruction.
  std::vector<std::unique_ptr<NoticeThread>> notice_threads_;
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_STORE_CATCH_UP_H_
