// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/local_leases.h"

namespace khet {

bool LocalLeases::TryLease(std::string_view id, std::string_view holder,
                           absl::Time now, absl::Duration ttl) {
  MutexLock lock(&mu_);
  auto it = leases_.find(id);
  if (it == leases_.end()) {
    leases_.emplace(std::string(id), Lease{std::string(holder), now + ttl});
    return true;
  }
  if (it->second.holder != holder && it->second.expires > now) return false;
  it->second = Lease{std::string(holder), now + ttl};
  return true;
}

void LocalLeases::Drop(std::string_view id) {
  MutexLock lock(&mu_);
  auto it = leases_.find(id);
  if (it != leases_.end()) leases_.erase(it);
}

}  // namespace khet
