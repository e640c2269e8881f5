// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Computer-seat leases kept in memory (SessionStore::TryLease), for the
// stores that only one process uses (memory, SQLite): leases need not
// outlive the process that holds them. Thread-safe.
#ifndef KHET_SERVICE_STORE_LOCAL_LEASES_H_
#define KHET_SERVICE_STORE_LOCAL_LEASES_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"

namespace khet {

class LocalLeases {
 public:
  // TryLease's rule for a session known to exist.
  bool TryLease(std::string_view id, std::string_view holder, absl::Time now,
                absl::Duration ttl);
  // The session is gone: so is its lease.
  void Drop(std::string_view id);

 private:
  struct Lease {
    std::string holder;
    absl::Time expires;
  };
  Mutex mu_;
  std::map<std::string, Lease, std::less<>> leases_ ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_LOCAL_LEASES_H_
