// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/push_ownership.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "boost/asio/post.hpp"
#include "service/base/status_macros.h"

namespace khet {

PushOwnership::PushOwnership(
    const PushOptions& options, const Strand& strand,
    std::function<void(std::function<void()>)> run_on_worker)
    : store_(options.shared_store),
      replica_id_(options.replica_id),
      heartbeat_(options.heartbeat),
      heartbeat_ttl_(options.heartbeat_ttl),
      max_claims_(options.max_claims),
      max_boards_(options.max_boards),
      strand_(strand),
      run_on_worker_(std::move(run_on_worker)),
      timer_(strand_) {}

void PushOwnership::AddClaimsMetric(metrics::Registry& metrics) {
  claims_ = &metrics.AddCounter(
      "khet_push_claims_total",
      "Boards this replica took over from a replica whose heartbeat "
      "ended (shared store), by how it went: ok, or failed (the "
      "session's state could not be read; the board long-polls).",
      {"result"});
}

void PushOwnership::AddPausedMetric(metrics::Registry& metrics) {
  if (store_ == nullptr) return;
  metrics.AddGaugeCallback(
      "khet_push_paused",
      "1 while this replica's deliveries wait for its heartbeat to be "
      "renewed (the store is slow or down, or another replica may have "
      "claimed its boards), else 0.",
      {}, [this](const metrics::GaugeCallback::Emit& emit) {
        emit({}, Paused() ? 1 : 0);
      });
}

absl::Status PushOwnership::Start(std::weak_ptr<Boards> boards) {
  boards_ = std::move(boards);
  if (store_ == nullptr) return absl::OkStatus();
  const absl::Time now = absl::Now();
  KHET_RETURN_IF_ERROR(store_
                           ->ClaimPushTargets(replica_id_, now,
                                              now + heartbeat_ttl_,
                                              /*limit=*/0)
                           .status());
  deliver_until_.store(absl::ToUnixNanos(FenceAfter(now)));
  return absl::OkStatus();
}

bool PushOwnership::Paused() const {
  return absl::Now() >= absl::FromUnixNanos(deliver_until_.load());
}

// Every `heartbeat`: a round (ClaimRound) on a worker, then the next.
void PushOwnership::ArmHeartbeat() {
  std::shared_ptr<Boards> boards = boards_.lock();
  if (store_ == nullptr || boards == nullptr || boards->ShuttingDown()) {
    return;
  }
  timer_.expires_after(absl::ToChronoNanoseconds(heartbeat_));
  timer_.async_wait(
      [this, boards = std::move(boards)](const boost::system::error_code& ec) {
        if (ec || boards->ShuttingDown()) return;
        // Each step holds `boards`, and so this.
        run_on_worker_([this, boards] {
          ClaimRound(boards);
          boost::asio::post(strand_, [this, boards] { ArmHeartbeat(); });
        });
      });
}

void PushOwnership::CancelHeartbeat() { timer_.cancel(); }

void PushOwnership::EndHeartbeat() {
  if (store_ == nullptr) return;
  // The boards pass to another replica at its next round rather than after
  // the heartbeat's time.
  const absl::Time now = absl::Now();
  store_->ClaimPushTargets(replica_id_, now, now, /*limit=*/0).IgnoreError();
}

// One heartbeat: renews this replica's, claims the boards of replicas whose
// heartbeat ended, drops those another owns now. On a worker.
void PushOwnership::ClaimRound(const std::shared_ptr<Boards>& boards) {
  const absl::Time began = absl::Now();
  const absl::Time fence = absl::FromUnixNanos(deliver_until_.load());
  // Past the fence this replica's heartbeat may have ended, and another
  // may have claimed its boards: this round renews it, claims nothing
  // (when the store was down for every replica, each renews before any
  // claims another's boards), and lifts the fence once the boards another
  // owns now are dropped.
  if (began >= fence) {
    if (store_
            ->ClaimPushTargets(replica_id_, began, began + heartbeat_ttl_,
                               /*limit=*/0)
            .ok()) {
      Reconcile(boards, /*lifting_fence=*/FenceAfter(began));
    }
    return;
  }
  // Lifted only after the boards another owns now are dropped, when the
  // claim statement outlasted the fence (another replica may have
  // claimed this one's boards meanwhile).
  std::optional<absl::Time> lifting_fence;
  // A full claim may have left more: claims again at once, up to
  // max_boards in all.
  for (int round = 0;
       round * max_claims_ < max_boards_ && !boards->ShuttingDown(); ++round) {
    const absl::Time now = absl::Now();
    absl::StatusOr<std::vector<PushTargetRecord>> claimed =
        store_->ClaimPushTargets(replica_id_, now, now + heartbeat_ttl_,
                                 max_claims_);
    if (!claimed.ok()) return;  // the store is down: the next round
    if (round == 0) {
      if (absl::Now() >= fence) {
        lifting_fence = FenceAfter(now);
      } else {
        deliver_until_.store(absl::ToUnixNanos(FenceAfter(now)));
      }
    }
    const bool full = static_cast<int>(claimed->size()) >= max_claims_;
    // Each read of a session on a worker of its own: thousands of boards
    // of a replica that died are taken over at once.
    for (PushTargetRecord& target : *claimed) {
      run_on_worker_([this, boards, target = std::move(target)] {
        const absl::Status adopted = boards->Adopt(target);
        if (claims_ != nullptr) {
          claims_->Get({adopted.ok() ? "ok" : "failed"}).Increment();
        }
        // A board that cannot be adopted finds its URL gone and long-polls.
        if (!adopted.ok()) boards->ForgetTarget(target.session_id);
      });
    }
    if (!full) break;
  }
  Reconcile(boards, lifting_fence);
}

// Until when this replica may deliver after renewing its heartbeat at
// `renewed`: a margin before the heartbeat ends, when another replica may
// claim its boards, so that two never deliver to one board.
absl::Time PushOwnership::FenceAfter(absl::Time renewed) const {
  return renewed + heartbeat_ttl_ - std::min(heartbeat_, heartbeat_ttl_ / 2);
}

// Drops the boards delivered here whose stored target says another replica
// delivers them now (the board registered again there, or that replica
// claimed them while this one's heartbeat had lapsed) or that another
// replica unregistered. While the numbers agree only a count is read,
// unless the fence is to be lifted (to `lifting_fence`) once the drops are
// done. On a worker.
void PushOwnership::Reconcile(const std::shared_ptr<Boards>& boards,
                              std::optional<absl::Time> lifting_fence) {
  const uint64_t installed_before = boards->InstallCount();
  if (!lifting_fence.has_value()) {
    absl::StatusOr<int64_t> owned = store_->CountPushTargets(replica_id_);
    if (!owned.ok() || *owned == boards->BoardCount()) return;
  }
  absl::StatusOr<std::vector<std::string>> sessions =
      store_->PushTargetsOf(replica_id_);
  if (!sessions.ok()) return;
  boost::asio::post(strand_, [this, boards, installed_before, lifting_fence,
                              kept = absl::flat_hash_set<std::string>(
                                  sessions->begin(), sessions->end())] {
    boards->DropMoved(kept, installed_before);
    if (lifting_fence.has_value()) {
      deliver_until_.store(absl::ToUnixNanos(*lifting_fence));
    }
  });
}

}  // namespace khet
