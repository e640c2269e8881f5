// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What a caller may spend at either door, checked before any work: calls
// per second as token buckets, and who the caller is (client_identity.h).
// Also where both doors count their refusals by any budget
// (khet_budget_refusals_total{budget, door}).
//
// Buckets, each a rate and a burst (a flag pair each; 0 calls a second
// turns that bucket off):
// - a client address's calls without an in-world object key
//   (--calls_per_second, --calls_burst);
// - an address's calls with one, together (its in-world ceiling,
//   --inworld_address_calls_per_second/_burst): every script of a region
//   reaches khetd from one simulator host's address, so a busy region needs
//   far more than one person; the key can be forged, so this ceiling, a
//   flag, is all a forger gets;
// - each object's calls (--inworld_object_calls_per_second/_burst): one
//   noisy board cannot starve the other boards of its region.
// A call with an object key takes a token from its object's bucket and
// one from its address's in-world bucket, and is refused (taking none) if
// either is empty. With the in-world ceiling off, object keys are ignored.
//
// Memory is bounded: at most max_buckets buckets. A bucket that has filled
// up again (its caller idle) is dropped, losing nothing (a new one starts
// full): each shard drops its full buckets once a minute, and whenever it
// reaches its share of max_buckets; if that frees too little (a flood of
// distinct addresses), it drops the least recently used down to three
// quarters of its share, which at worst gives those callers a fresh burst.
#ifndef KHET_SERVICE_FAIR_USE_CALLER_BUDGETS_H_
#define KHET_SERVICE_FAIR_USE_CALLER_BUDGETS_H_

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "service/base/clock.h"
#include "service/base/mutex.h"
#include "service/base/token_bucket.h"
#include "service/fair_use/client_address.h"
#include "service/fair_use/client_identity.h"
#include "service/metrics/metrics.h"

namespace khet {

struct CallerBudgetOptions {
  // Whose X-Forwarded-For names the client (--trusted_proxies).
  TrustedProxies trusted_proxies;
  // See the file comment. A person's browser makes a few calls a second at
  // most; 50 leaves room for a household or an office behind one address.
  int calls_per_second = 50;
  int calls_burst = 100;
  // 10,000 boards at about 1.1 calls a second (a long poll each second and
  // a move every ten) fit behind two simulator addresses.
  int inworld_address_calls_per_second = 6000;
  int inworld_address_calls_burst = 12000;
  int inworld_object_calls_per_second = 5;
  int inworld_object_calls_burst = 20;
  // Buckets of every kind together.
  int max_buckets = 1 << 16;
};

// Where a call came in: the metric's `door` label.
enum class Door { kGrpc, kHttp };

class CallerBudgets {
 public:
  // `metrics` (may be null: not counted) gets khet_budget_refusals_total,
  // one series per budget and door, from zero. `clock` and `metrics` must
  // outlive this.
  explicit CallerBudgets(CallerBudgetOptions options,
                         Clock* clock = RealClock(),
                         metrics::Registry* metrics = nullptr);
  CallerBudgets(const CallerBudgets&) = delete;
  CallerBudgets& operator=(const CallerBudgets&) = delete;

  const CallerBudgetOptions& options() const { return options_; }

  // Who calls (client_identity.h), with this door's trusted proxies.
  ClientIdentity Identify(const std::optional<IpAddress>& peer,
                          absl::Span<const absl::string_view> forwarded_for,
                          absl::string_view object_key) const {
    return IdentifyClient(peer, forwarded_for, object_key,
                          options_.trusted_proxies);
  }

  // Spends one call of `client`'s: OK, or a BudgetRefusal of
  // Budget::kCalls naming the bucket and when it has a token again, e.g.
  // "too many calls from 192.0.2.7: at most 50 a second, try again in 1 s".
  // Thread-safe.
  absl::Status AdmitCall(const ClientIdentity& client);

  // Counts `status` in khet_budget_refusals_total if it is a budget's
  // refusal (budget_refusal.h), whichever budget refused.
  void CountRefusal(const absl::Status& status, Door door);

  // Buckets held now, over all shards.
  int buckets();

 private:
  static constexpr int kShards = 16;
  struct Shard {
    Mutex mu;
    absl::node_hash_map<std::string, TokenBucket> buckets ABSL_GUARDED_BY(mu);
    absl::Time swept ABSL_GUARDED_BY(mu) = absl::InfinitePast();
  };

  // The rate of a bucket by its key's first character.
  const TokenRate& RateOf(absl::string_view key) const;
  // The bucket of `key`, made full if new.
  TokenBucket& BucketOf(Shard& shard, const std::string& key, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mu);
  // Drops the shard's full buckets; if it still holds more than
  // `keep_at_most`, the least recently used beyond that.
  void Sweep(Shard& shard, absl::Time now, size_t keep_at_most)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mu);

  const CallerBudgetOptions options_;
  Clock* const clock_;
  const TokenRate plain_;
  const TokenRate inworld_address_;
  const TokenRate inworld_object_;
  const size_t shard_capacity_;
  std::array<Shard, kShards> shards_;
  // [budget][door], or null without metrics.
  std::array<std::array<metrics::Counter*, 2>, 5> refusals_{};
};

}  // namespace khet

#endif  // KHET_SERVICE_FAIR_USE_CALLER_BUDGETS_H_
