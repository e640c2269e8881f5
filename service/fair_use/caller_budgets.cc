// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/fair_use/caller_budgets.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "service/fair_use/budget_refusal.h"

namespace khet {
namespace {

// The keys of the buckets: a kind, a space, the address (and for an
// object, a space and its key).
constexpr char kPlain = 'a';
constexpr char kInworldAddress = 'w';
constexpr char kInworldObject = 'o';

// How often a shard drops its idle buckets.
constexpr absl::Duration kSweepEvery = absl::Minutes(1);

TokenRate RateFrom(int per_second, int burst) {
  return TokenRate{static_cast<double>(std::max(per_second, 1)),
                   static_cast<double>(std::max(burst, 1))};
}

}  // namespace

CallerBudgets::CallerBudgets(CallerBudgetOptions options, Clock* clock,
                             metrics::Registry* metrics)
    : options_(std::move(options)),
      clock_(clock),
      plain_(RateFrom(options_.calls_per_second, options_.calls_burst)),
      inworld_address_(RateFrom(options_.inworld_address_calls_per_second,
                                options_.inworld_address_calls_burst)),
      inworld_object_(RateFrom(options_.inworld_object_calls_per_second,
                               options_.inworld_object_calls_burst)),
      shard_capacity_(
          static_cast<size_t>(std::max(options_.max_buckets / kShards, 4))) {
  if (metrics == nullptr) return;
  metrics::CounterFamily& family = metrics->AddCounter(
      "khet_budget_refusals_total",
      "Calls refused by a per-caller budget (RESOURCE_EXHAUSTED, HTTP 429), "
      "by budget and door.",
      {"budget", "door"});
  for (const Budget budget : kAllBudgets) {
    for (const Door door : {Door::kGrpc, Door::kHttp}) {
      refusals_[static_cast<size_t>(budget)][static_cast<size_t>(door)] =
          &family.Get(
              {BudgetName(budget), door == Door::kGrpc ? "grpc" : "http"});
    }
  }
}

const TokenRate& CallerBudgets::RateOf(absl::string_view key) const {
  switch (key.front()) {
    case kInworldAddress:
      return inworld_address_;
    case kInworldObject:
      return inworld_object_;
    default:
      return plain_;
  }
}

TokenBucket& CallerBudgets::BucketOf(Shard& shard, const std::string& key,
                                     absl::Time now) {
  auto it = shard.buckets.find(key);
  if (it == shard.buckets.end()) {
    it = shard.buckets.emplace(key, TokenBucket(RateOf(key), now)).first;
  } else {
    it->second.Refill(RateOf(key), now);
  }
  return it->second;
}

void CallerBudgets::Sweep(Shard& shard, absl::Time now, size_t keep_at_most) {
  shard.swept = now;
  // Refilling would make every bucket look used now: only looked at.
  absl::erase_if(shard.buckets, [&](const auto& entry) {
    return entry.second.full(RateOf(entry.first), now);
  });
  if (shard.buckets.size() <= keep_at_most) return;
  std::vector<std::pair<absl::Time, const std::string*>> by_use;
  by_use.reserve(shard.buckets.size());
  for (const auto& [key, bucket] : shard.buckets) {
    by_use.emplace_back(bucket.updated(), &key);
  }
  const size_t drop = by_use.size() - keep_at_most;
  std::nth_element(by_use.begin(), by_use.begin() + drop, by_use.end());
  std::vector<std::string> dropped;
  dropped.reserve(drop);
  for (size_t i = 0; i < drop; ++i) dropped.push_back(*by_use[i].second);
  for (const std::string& key : dropped) shard.buckets.erase(key);
}

absl::Status CallerBudgets::AdmitCall(const ClientIdentity& client) {
  const bool inworld = !client.object_key.empty() &&
                       options_.inworld_address_calls_per_second > 0;
  if (!inworld && options_.calls_per_second <= 0) return absl::OkStatus();
  Shard& shard = shards_[absl::Hash<std::string>()(client.address) % kShards];
  const absl::Time now = clock_->Now();
  MutexLock lock(&shard.mu);
  if (shard.buckets.size() >= shard_capacity_) {
    Sweep(shard, now, shard_capacity_ * 3 / 4);
  } else if (now - shard.swept >= kSweepEvery) {
    Sweep(shard, now, shard_capacity_);
  }
  if (!inworld) {
    TokenBucket& bucket = BucketOf(
        shard, absl::StrCat(std::string(1, kPlain), " ", client.address), now);
    if (bucket.has_token()) {
      bucket.Take();
      return absl::OkStatus();
    }
    const absl::Duration wait = bucket.Wait(plain_);
    return BudgetRefusal(Budget::kCalls,
                         absl::StrCat("too many calls from ", client.address,
                                      ": at most ", options_.calls_per_second,
                                      " a second, ", TryAgainIn(wait)),
                         wait);
  }
  // Node-based: neither reference moves when the other is made.
  TokenBucket& address = BucketOf(
      shard, absl::StrCat(std::string(1, kInworldAddress), " ", client.address),
      now);
  TokenBucket* object = nullptr;
  if (options_.inworld_object_calls_per_second > 0) {
    object = &BucketOf(shard,
                       absl::StrCat(std::string(1, kInworldObject), " ",
                                    client.address, " ", client.object_key),
                       now);
    if (!object->has_token()) {
      const absl::Duration wait = object->Wait(inworld_object_);
      return BudgetRefusal(
          Budget::kCalls,
          absl::StrCat("too many calls from in-world object ",
                       client.object_key, " at ", client.address, ": at most ",
                       options_.inworld_object_calls_per_second,
                       " a second per object, ", TryAgainIn(wait)),
          wait);
    }
  }
  if (!address.has_token()) {
    const absl::Duration wait = address.Wait(inworld_address_);
    return BudgetRefusal(
        Budget::kCalls,
        absl::StrCat("too many calls from the in-world objects at ",
                     client.address, ": at most ",
                     options_.inworld_address_calls_per_second, " a second, ",
                     TryAgainIn(wait)),
        wait);
  }
  address.Take();
  if (object != nullptr) object->Take();
  return absl::OkStatus();
}

void CallerBudgets::CountRefusal(const absl::Status& status, Door door) {
  if (status.ok() || refusals_[0][0] == nullptr) return;
  const std::optional<RefusedBudget> refused = RefusedBy(status);
  if (!refused.has_value()) return;
  refusals_[static_cast<size_t>(refused->budget)][static_cast<size_t>(door)]
      ->Increment();
}

int CallerBudgets::buckets() {
  int total = 0;
  for (Shard& shard : shards_) {
    MutexLock lock(&shard.mu);
    total += static_cast<int>(shard.buckets.size());
  }
  return total;
}

}  // namespace khet
