// Keeping this process's copies of sessions current with a shared store
// (PostgreSQL with several replicas). Every request first brings its
// session up to the stored version (Refresh, through the registry's
// Fresh); the store's change notices keep idle copies and their watchers
// current; a sweep (SyncAll) recovers whatever notices were lost. Watchers
// see every event whichever replica wrote it, in order, by version.
#ifndef KHET_SERVICE_SESSIONS_STORE_CATCH_UP_H_
#define KHET_SERVICE_SESSIONS_STORE_CATCH_UP_H_

#include "absl/status/status.h"
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
  // Stops hearing them; when it returns, no notice is being handled.
  void StopListening();

  // Replaces the entry's session with the stored one if that is newer,
  // after publishing the events in between to the local watchers, oldest
  // first; forgets it (SessionDeleted) if the store has it no more. On
  // error nothing changes.
  absl::Status Refresh(SessionEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu);

  // Catches every session up: new ones adopted, changed ones refreshed,
  // deleted ones forgotten. Reads the states of changed sessions only.
  void SyncAll();

 private:
  // A change committed by any replica (on the store's thread).
  void OnStoreChange(const StoreChange& change);

  SessionRegistry* const registry_;
  SessionStore* const store_;
  bool listening_ = false;
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_STORE_CATCH_UP_H_
