// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/open_connections.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"

namespace khet {

int OpenConnections::Admit(const std::string& address, bool* needs_object_key) {
  MutexLock lock(&mu_);
  if (total_ >= max_connections_) return 503;
  int& from_address = per_address_[address];
  // A proxy carries many clients; the budgets limit each of them.
  const std::optional<IpAddress> ip = IpAddress::Parse(address);
  if (ip.has_value() && trusted_proxies_.Contains(*ip)) {
    *needs_object_key = false;
    ++from_address;
    ++total_;
    return 0;
  }
  *needs_object_key = from_address >= max_connections_per_address_;
  if (*needs_object_key &&
      from_address >= max_inworld_connections_per_address_) {
    if (from_address == 0) per_address_.erase(address);
    return 429;
  }
  ++from_address;
  ++total_;
  return 0;
}

void OpenConnections::Register(StoppableConnection* connection,
                               std::weak_ptr<StoppableConnection> handle) {
  bool stopping;
  {
    MutexLock lock(&mu_);
    open_[connection] = std::move(handle);
    stopping = stopping_;
  }
  if (stopping) connection->StopWhenIdle();
}

void OpenConnections::Forget(StoppableConnection* connection,
                             const std::string& address) {
  MutexLock lock(&mu_);
  open_.erase(connection);
  --total_;
  auto it = per_address_.find(address);
  if (it != per_address_.end() && --it->second <= 0) per_address_.erase(it);
  changed_.SignalAll();
}

bool OpenConnections::BeginStopping() {
  MutexLock lock(&mu_);
  if (stopping_) return false;
  stopping_ = true;
  return true;
}

void OpenConnections::ForEach(void (StoppableConnection::*action)()) {
  std::vector<std::shared_ptr<StoppableConnection>> open;
  {
    MutexLock lock(&mu_);
    for (const auto& [raw, weak] : open_) {
      if (std::shared_ptr<StoppableConnection> c = weak.lock()) {
        open.push_back(c);
      }
    }
  }
  for (const auto& c : open) ((*c).*action)();
}

void OpenConnections::WaitForNone(absl::Time deadline) {
  MutexLock lock(&mu_);
  while (total_ > 0 && absl::Now() < deadline) {
    changed_.WaitWithDeadline(&mu_, deadline);
  }
}

int OpenConnections::count() {
  MutexLock lock(&mu_);
  return total_;
}

}  // namespace khet
