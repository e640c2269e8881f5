// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Operations running at once per client address (SuggestMove searches,
// game analyses): each takes a slot of its address for as long as it runs,
// and one more than the address's limit is refused by its budget
// (budget_refusal.h). Memory follows the operations running: an address
// whose count falls to zero is forgotten.
#ifndef KHET_SERVICE_FAIR_USE_ADDRESS_SLOTS_H_
#define KHET_SERVICE_FAIR_USE_ADDRESS_SLOTS_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/fair_use/budget_refusal.h"

namespace khet {

class AddressSlots {
 public:
  // At most `limit` at once per address (0: no budget); `what` names the
  // operations in the refusal ("suggestions"); `retry` is its Retry-After.
  AddressSlots(Budget budget, std::string what, int limit, absl::Duration retry)
      : budget_(budget), what_(std::move(what)), limit_(limit), retry_(retry) {}
  AddressSlots(const AddressSlots&) = delete;
  AddressSlots& operator=(const AddressSlots&) = delete;

  // A place held until destroyed (or moved from); an empty one holds
  // nothing.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept
        : owner_(std::exchange(other.owner_, nullptr)),
          address_(std::move(other.address_)) {}
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();

   private:
    friend class AddressSlots;
    Slot(AddressSlots* owner, std::string address)
        : owner_(owner), address_(std::move(address)) {}
    AddressSlots* owner_ = nullptr;
    std::string address_;
  };

  // A slot of `address`'s; the budget's refusal when it holds `limit`
  // already, e.g. "too many suggestions at once from 192.0.2.7: at most 2,
  // try again in 1 s". An empty address (unknown) or no limit: an empty
  // slot. Thread-safe; must outlive its slots.
  absl::StatusOr<Slot> Take(const std::string& address);

  // Slots held by `address` now.
  int held(const std::string& address);

 private:
  void Give(const std::string& address);

  const Budget budget_;
  const std::string what_;
  const int limit_;
  const absl::Duration retry_;
  Mutex mu_;
  absl::flat_hash_map<std::string, int> held_ ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_FAIR_USE_ADDRESS_SLOTS_H_
