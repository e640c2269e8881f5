// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/metered_store.h"

#include <chrono>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "khet/v1/khet_service.pb.h"
#include "session_state.pb.h"

namespace khet {
namespace {

absl::Duration Since(std::chrono::steady_clock::time_point start) {
  return absl::FromChrono(std::chrono::steady_clock::now() - start);
}

}  // namespace

int StoredStatus(std::string_view state) {
  constexpr uint64_t kField = store::SessionState::kStatusFieldNumber;
  size_t at = 0;
  auto varint = [&](uint64_t* out) {
    *out = 0;
    for (int shift = 0; shift < 64 && at < state.size(); shift += 7) {
      const uint8_t byte = static_cast<uint8_t>(state[at++]);
      *out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  };
  uint64_t status = 0;
  while (at < state.size()) {
    uint64_t tag;
    if (!varint(&tag)) return 0;
    uint64_t skip = 0;
    switch (tag & 7) {
      case 0: {  // varint
        uint64_t value;
        if (!varint(&value)) return 0;
        if ((tag >> 3) == kField) status = value;
        break;
      }
      case 1:  // fixed64
        skip = 8;
        break;
      case 2:  // length-delimited
        if (!varint(&skip)) return 0;
        break;
      case 5:  // fixed32
        skip = 4;
        break;
      default:  // groups: never in this message
        return 0;
    }
    if (skip > state.size() - at) return 0;
    at += skip;
  }
  return status < 4 ? static_cast<int>(status) : 0;
}

StoreMetrics::StoreMetrics(metrics::Registry* registry)
    : write_latency_(registry->AddHistogram(
          "khet_store_write_duration_seconds",
          "Session store writes as their callers waited for them, in "
          "seconds, by operation (SQLite: with the wait for their group "
          "commit).",
          {"op"}, metrics::LatencyBounds())),
      write_errors_(registry->AddCounter(
          "khet_store_write_errors_total",
          "Session store writes that failed, by operation and status code.",
          {"op", "code"})),
      batch_writes_(registry
                        ->AddHistogram("khet_store_group_commit_writes",
                                       "Writes carried by each "
                                       "transaction (group commit; SQLite "
                                       "and PostgreSQL).",
                                       {}, metrics::PowersOfTwo(256))
                        .Get({})),
      batch_latency_(
          registry
              ->AddHistogram("khet_store_group_commit_duration_seconds",
                             "Each transaction of writes (SQLite, "
                             "PostgreSQL), from waiting for the connection "
                             "to the end of its commit, in seconds.",
                             {}, metrics::LatencyBounds())
              .Get({})) {
  registry->AddGaugeCallback(
      "khet_sessions", "Sessions by game status.", {"status"},
      [this](const metrics::GaugeCallback::Emit& emit) {
        for (const v1::GameStatus status :
             {v1::WAITING_FOR_PLAYERS, v1::IN_PROGRESS, v1::FINISHED}) {
          emit({v1::GameStatus_Name(status)},
               static_cast<double>(sessions(status)));
        }
      });
}

std::function<void(int, absl::Duration)> StoreMetrics::CommitHook() {
  return [this](int writes, absl::Duration took) {
    batch_writes_.Observe(writes);
    batch_latency_.Observe(absl::ToDoubleSeconds(took));
  };
}

StoreMetrics::Shard& StoreMetrics::ShardOf(std::string_view id) {
  return shards_[std::hash<std::string_view>()(id) % kShards];
}

void StoreMetrics::SetStatus(std::string_view id, int status) {
  if (status < 0 || status >= kStatuses) status = 0;
  Shard& shard = ShardOf(id);
  MutexLock lock(&shard.mu);
  auto [it, inserted] =
      shard.status.try_emplace(absl::string_view(id.data(), id.size()), status);
  if (!inserted) {
    if (it->second == status) return;
    counts_[it->second].fetch_sub(1, std::memory_order_relaxed);
    it->second = status;
  }
  counts_[status].fetch_add(1, std::memory_order_relaxed);
}

void StoreMetrics::Forget(std::string_view id) {
  Shard& shard = ShardOf(id);
  MutexLock lock(&shard.mu);
  auto it = shard.status.find(absl::string_view(id.data(), id.size()));
  if (it == shard.status.end()) return;
  counts_[it->second].fetch_sub(1, std::memory_order_relaxed);
  shard.status.erase(it);
}

int64_t StoreMetrics::sessions(int status) const {
  return counts_[status].load(std::memory_order_relaxed);
}

void StoreMetrics::RecordWrite(std::string_view op, const absl::Status& status,
                               absl::Duration took) {
  const absl::string_view label(op.data(), op.size());
  write_latency_.Get({label}).Observe(absl::ToDoubleSeconds(took));
  if (!status.ok()) {
    write_errors_.Get({label, absl::StatusCodeToString(status.code())})
        .Increment();
  }
}

MeteredStore::MeteredStore(std::unique_ptr<SessionStore> inner,
                           StoreMetrics* metrics)
    : inner_(std::move(inner)), metrics_(metrics) {}

MeteredStore::~MeteredStore() = default;

absl::Status MeteredStore::Create(const SessionRecord& record,
                                  absl::Span<const EventRecord> events) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = inner_->Create(record, events);
  metrics_->RecordWrite("create", status, Since(start));
  if (status.ok()) metrics_->SetStatus(record.id, StoredStatus(record.state));
  return status;
}

absl::Status MeteredStore::Update(const SessionRecord& record,
                                  int64_t expected_version,
                                  absl::Span<const EventRecord> events,
                                  const ArchivedGame* archive) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status =
      inner_->Update(record, expected_version, events, archive);
  metrics_->RecordWrite("update", status, Since(start));
  if (status.ok()) metrics_->SetStatus(record.id, StoredStatus(record.state));
  return status;
}

void MeteredStore::UpdateLater(LaterUpdate update,
                               absl::AnyInvocable<void(absl::Status) &&> done) {
  const auto start = std::chrono::steady_clock::now();
  const int status = StoredStatus(update.record.state);
  std::string id = update.record.id;  // before `update` is handed on
  inner_->UpdateLater(std::move(update),
                      [this, start, status, id = std::move(id),
                       done = std::move(done)](absl::Status written) mutable {
                        metrics_->RecordWrite("update", written, Since(start));
                        if (written.ok()) metrics_->SetStatus(id, status);
                        std::move(done)(std::move(written));
                      });
}

absl::StatusOr<ArchivedGame> MeteredStore::GetGame(std::string_view game_id) {
  return inner_->GetGame(game_id);
}

absl::Status MeteredStore::SetGameAnalysis(std::string_view game_id,
                                           std::string_view analysis) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = inner_->SetGameAnalysis(game_id, analysis);
  metrics_->RecordWrite("analysis", status, Since(start));
  return status;
}

absl::StatusOr<PlayerRecord> MeteredStore::GetPlayer(
    std::string_view player_id) {
  return inner_->GetPlayer(player_id);
}

absl::StatusOr<std::vector<PlayerRecord>> MeteredStore::ListPlayers(
    int64_t offset, int limit) {
  return inner_->ListPlayers(offset, limit);
}

absl::StatusOr<std::vector<ArchivedGame>> MeteredStore::PendingRatedGames(
    int limit) {
  return inner_->PendingRatedGames(limit);
}

absl::Status MeteredStore::ApplyRating(std::string_view game_id,
                                       const PlayerRecord& silver,
                                       const PlayerRecord& red) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = inner_->ApplyRating(game_id, silver, red);
  metrics_->RecordWrite("rating", status, Since(start));
  return status;
}

absl::StatusOr<std::vector<ArchivedGame>> MeteredStore::ListGames(
    const GameQuery& query) {
  return inner_->ListGames(query);
}

absl::Status MeteredStore::Delete(std::string_view id) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = inner_->Delete(id);
  metrics_->RecordWrite("delete", status, Since(start));
  if (status.ok() || absl::IsNotFound(status)) metrics_->Forget(id);
  return status;
}

absl::Status MeteredStore::DeleteAt(std::string_view id,
                                    int64_t expected_version) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = inner_->DeleteAt(id, expected_version);
  metrics_->RecordWrite("delete", status, Since(start));
  if (status.ok() || absl::IsNotFound(status)) metrics_->Forget(id);
  return status;
}

absl::StatusOr<SessionRecord> MeteredStore::Get(std::string_view id) {
  absl::StatusOr<SessionRecord> record = inner_->Get(id);
  if (record.ok()) {
    metrics_->SetStatus(id, StoredStatus(record->state));
  } else if (absl::IsNotFound(record.status())) {
    metrics_->Forget(id);
  }
  return record;
}

absl::StatusOr<std::vector<SessionRecord>> MeteredStore::GetMany(
    absl::Span<const std::string> ids) {
  absl::StatusOr<std::vector<SessionRecord>> records = inner_->GetMany(ids);
  if (!records.ok()) return records;
  absl::flat_hash_set<std::string_view> stored;
  for (const SessionRecord& record : *records) {
    metrics_->SetStatus(record.id, StoredStatus(record.state));
    stored.insert(record.id);
  }
  for (const std::string& id : ids) {
    if (!stored.contains(id)) metrics_->Forget(id);
  }
  return records;
}

absl::StatusOr<int64_t> MeteredStore::GetVersion(std::string_view id) {
  absl::StatusOr<int64_t> version = inner_->GetVersion(id);
  if (absl::IsNotFound(version.status())) metrics_->Forget(id);
  return version;
}

absl::StatusOr<std::vector<SessionRecord>> MeteredStore::LoadAll() {
  absl::StatusOr<std::vector<SessionRecord>> records = inner_->LoadAll();
  if (records.ok()) {
    for (const SessionRecord& record : *records) {
      metrics_->SetStatus(record.id, StoredStatus(record.state));
    }
  }
  return records;
}

absl::StatusOr<std::vector<SessionVersion>> MeteredStore::ListVersions() {
  return inner_->ListVersions();
}

absl::StatusOr<std::vector<EventRecord>> MeteredStore::EventsAfter(
    std::string_view id, int64_t after_version, int limit) {
  return inner_->EventsAfter(id, after_version, limit);
}

absl::StatusOr<bool> MeteredStore::TryLease(std::string_view id,
                                            std::string_view holder,
                                            absl::Time now,
                                            absl::Duration ttl) {
  return inner_->TryLease(id, holder, now, ttl);
}

absl::Status MeteredStore::SavePushTarget(const PushTargetRecord& target) {
  return inner_->SavePushTarget(target);
}

absl::Status MeteredStore::DeletePushTarget(std::string_view session_id,
                                            std::string_view owner) {
  return inner_->DeletePushTarget(session_id, owner);
}

absl::StatusOr<PushTargetRecord> MeteredStore::GetPushTarget(
    std::string_view session_id) {
  return inner_->GetPushTarget(session_id);
}

absl::StatusOr<std::vector<std::string>> MeteredStore::PushTargetsOf(
    std::string_view owner) {
  return inner_->PushTargetsOf(owner);
}

absl::StatusOr<int64_t> MeteredStore::CountPushTargets(std::string_view owner) {
  return inner_->CountPushTargets(owner);
}

absl::StatusOr<std::vector<PushTargetRecord>> MeteredStore::ClaimPushTargets(
    std::string_view owner, absl::Time now, absl::Time expires, int limit) {
  return inner_->ClaimPushTargets(owner, now, expires, limit);
}

bool MeteredStore::shared() const { return inner_->shared(); }

void MeteredStore::SetChangeListener(ChangeListener listener) {
  if (listener == nullptr) {
    inner_->SetChangeListener(nullptr);
    return;
  }
  inner_->SetChangeListener(
      [this, listener = std::move(listener)](const StoreChange& change) {
        if (change.deleted && !change.id.empty()) metrics_->Forget(change.id);
        listener(change);
      });
}

}  // namespace khet
