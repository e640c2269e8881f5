// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// SuggestMove: the computer's move for the side to move, searched on a
// copy of the position with no lock held, on a thread of its own while the
// calling thread watches the caller. At most max_concurrent_suggestions at
// once; the time is bounded by the caller's deadline (less a margin) and by
// max_suggestion_time. See the decisions in session_service.h.
#ifndef KHET_SERVICE_COMPUTER_SUGGESTIONS_H_
#define KHET_SERVICE_COMPUTER_SUGGESTIONS_H_

#include <atomic>

#include "absl/status/statusor.h"
#include "khet/v1/khet_service.pb.h"
#include "service/fair_use/address_slots.h"
#include "service/search/computer_players.h"
#include "service/sessions/caller.h"
#include "service/sessions/service_core.h"

namespace khet {

class Suggestions {
 public:
  Suggestions(const ServiceCore& core, SearchFunction search);

  absl::StatusOr<v1::SuggestMoveResponse> SuggestMove(
      const v1::SuggestMoveRequest& request, const CallControl& control);

 private:
  // A place among the searches running at once, given back when destroyed.
  class Slot {
   public:
    explicit Slot(std::atomic<int>* count) : count_(count) {}
    Slot(Slot&& other) : count_(std::exchange(other.count_, nullptr)) {}
    Slot& operator=(Slot&&) = delete;
    ~Slot() {
      if (count_ != nullptr) count_->fetch_sub(1);
    }

   private:
    std::atomic<int>* count_;
  };

  absl::StatusOr<Slot> Reserve();

  // Runs the search on a thread of its own while this one watches the
  // caller: the search is stopped at `stop_at`, or when control.check
  // fails, which *stopped_by then holds.
  SearchResult Run(const Position& pos, const SearchLimits& limits,
                   const SearchStyle& style, absl::Time stop_at,
                   const CallControl& control, absl::Status* stopped_by);

  const ServiceCore core_;
  const SearchFunction search_;
  std::atomic<int> running_{0};
  AddressSlots per_address_;  // searches at once per CallControl::address
};

}  // namespace khet

#endif  // KHET_SERVICE_COMPUTER_SUGGESTIONS_H_
