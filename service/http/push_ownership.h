// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Which boards this replica pushes to, on a shared store (docs/ARCHITECTURE.md,
// "Pushed events on replicas"): the replica side of BoardPushes.
//
// Contract:
// - Owns this replica's heartbeat: renewed at Start, then every `heartbeat`
//   (lasting `heartbeat_ttl`) in the same statement that claims the targets
//   of replicas whose heartbeat ended (at most `max_claims` a statement,
//   claimed again at once while a claim was full, up to `max_boards`), and
//   ended by EndHeartbeat so that another replica takes the boards over at
//   its next round.
// - Owns the fence: Paused() is true from shortly before the heartbeat
//   could end (renewal + heartbeat_ttl - min(heartbeat, heartbeat_ttl / 2))
//   until a renewal lifts it; deliveries wait while it is. A round that
//   begins past the fence only renews, claims nothing and drops the boards
//   another replica owns now before lifting it.
// - Each round also drops the boards whose stored target another replica
//   owns now or unregistered (read only while this replica's count of
//   stored targets differs from its boards, unless the fence is lifting).
// - Calls back its Boards: Adopt and ForgetTarget for each claimed target
//   on a worker of its own (`run_on_worker`), DropMoved on the strand,
//   ShuttingDown, BoardCount and InstallCount from any thread.
// - Metrics: khet_push_claims_total; khet_push_paused on a shared store.
// - Without a shared store it does nothing and never pauses.
// Threads: Start and EndHeartbeat off the strand, ArmHeartbeat and
// CancelHeartbeat on it, Paused from any thread. It lives inside the object
// that implements its Boards: everything it leaves pending on the strand or
// a worker holds the Boards (and so this) alive.
#ifndef KHET_SERVICE_HTTP_PUSH_OWNERSHIP_H_
#define KHET_SERVICE_HTTP_PUSH_OWNERSHIP_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "service/http/board_pushes.h"
#include "service/metrics/metrics.h"
#include "service/store/session_store.h"

namespace khet {

class PushOwnership {
 public:
  // The boards this replica delivers to, as the heartbeat's rounds need
  // them (BoardPushes::Impl).
  class Boards {
   public:
    virtual ~Boards() = default;
    // True once shut down: no round starts or claims again. Any thread.
    virtual bool ShuttingDown() const = 0;
    // Boards delivered here now; boards installed so far (only grows).
    // Any thread.
    virtual int64_t BoardCount() const = 0;
    virtual uint64_t InstallCount() const = 0;
    // Takes over a board claimed from a replica whose heartbeat ended. On
    // a worker.
    virtual absl::Status Adopt(const PushTargetRecord& target) = 0;
    // Deletes this replica's stored target of the session. On a worker.
    virtual void ForgetTarget(const std::string& session_id) = 0;
    // Drops, as moved, the boards installed by install `installed` whose
    // session is not in `kept`. On the strand.
    virtual void DropMoved(const absl::flat_hash_set<std::string>& kept,
                           uint64_t installed) = 0;
  };

  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  // Reads shared_store, replica_id, heartbeat, heartbeat_ttl, max_claims
  // and max_boards from `options`.
  PushOwnership(const PushOptions& options, const Strand& strand,
                std::function<void(std::function<void()>)> run_on_worker);
  PushOwnership(const PushOwnership&) = delete;
  PushOwnership& operator=(const PushOwnership&) = delete;

  // Its metrics, in two calls so that the caller places them among its
  // own (the order of /metrics).
  void AddClaimsMetric(metrics::Registry& metrics);
  void AddPausedMetric(metrics::Registry& metrics);

  // The first heartbeat, before any target is saved, so that no other
  // replica takes this one's new boards for a dead replica's; an error of
  // the store if it fails. Once, off the strand.
  absl::Status Start(std::weak_ptr<Boards> boards);
  // Starts the rounds, each `heartbeat` after the last ends. On the strand,
  // after Start.
  void ArmHeartbeat();
  // No round starts after it. On the strand.
  void CancelHeartbeat();
  // Ends this replica's heartbeat in the store. Off the strand, after the
  // boards are dropped.
  void EndHeartbeat();

  // True while deliveries wait for the heartbeat to be renewed. Any thread.
  bool Paused() const;

 private:
  void ClaimRound(const std::shared_ptr<Boards>& boards);
  absl::Time FenceAfter(absl::Time renewed) const;
  void Reconcile(const std::shared_ptr<Boards>& boards,
                 std::optional<absl::Time> lifting_fence);

  SessionStore* const store_;  // null: nothing to do
  const std::string replica_id_;
  const absl::Duration heartbeat_;
  const absl::Duration heartbeat_ttl_;
  const int max_claims_;
  const int max_boards_;
  const Strand strand_;
  const std::function<void(std::function<void()>)> run_on_worker_;
  std::weak_ptr<Boards> boards_;
  boost::asio::steady_timer timer_;  // strand-only
  // Deliveries wait from then on (Unix nanoseconds; FenceAfter). Never
  // without a shared store.
  std::atomic<int64_t> deliver_until_{std::numeric_limits<int64_t>::max()};
  metrics::CounterFamily* claims_ = nullptr;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_PUSH_OWNERSHIP_H_
