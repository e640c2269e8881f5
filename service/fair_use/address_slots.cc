// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/fair_use/address_slots.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace khet {

AddressSlots::Slot& AddressSlots::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr) owner_->Give(address_);
    owner_ = std::exchange(other.owner_, nullptr);
    address_ = std::move(other.address_);
  }
  return *this;
}

AddressSlots::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Give(address_);
}

absl::StatusOr<AddressSlots::Slot> AddressSlots::Take(
    const std::string& address) {
  if (address.empty() || limit_ <= 0) return Slot();
  MutexLock lock(&mu_);
  int& count = held_[address];
  if (count >= limit_) {
    return BudgetRefusal(
        budget_,
        absl::StrCat("too many ", what_, " at once from ", address,
                     ": at most ", limit_, ", ", TryAgainIn(retry_)),
        retry_);
  }
  ++count;
  return Slot(this, address);
}

int AddressSlots::held(const std::string& address) {
  MutexLock lock(&mu_);
  const auto it = held_.find(address);
  return it == held_.end() ? 0 : it->second;
}

void AddressSlots::Give(const std::string& address) {
  MutexLock lock(&mu_);
  const auto it = held_.find(address);
  if (it == held_.end()) return;
  if (--it->second <= 0) held_.erase(it);
}

}  // namespace khet
