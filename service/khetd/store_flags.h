// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's flags for the session store: which (sqlite, postgres, memory),
// where, how many events it keeps, and the threads that wait for it.
#ifndef KHET_SERVICE_KHETD_STORE_FLAGS_H_
#define KHET_SERVICE_KHETD_STORE_FLAGS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "service/store/metered_store.h"
#include "service/store/session_store.h"

namespace khet {

struct StoreFlags {
  std::string kind;  // sqlite, postgres or memory
  std::string data_dir;
  std::string postgres_url;
  int postgres_connections = 0;
  int64_t events_kept = 0;
  int store_threads = 0;  // for the calls that wait for a durable store
};

// The store flags, checked; INVALID_ARGUMENT naming the flag that is wrong.
absl::StatusOr<StoreFlags> ReadStoreFlags();

// Opens the store the flags name (creating --data_dir for SQLite), measured
// into `metrics`; the error names what could not be opened.
absl::StatusOr<std::unique_ptr<SessionStore>> OpenStore(const StoreFlags& flags,
                                                        StoreMetrics* metrics);

}  // namespace khet

#endif  // KHET_SERVICE_KHETD_STORE_FLAGS_H_
