// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// PostgresStore's writes: each a call of one of the schema's functions,
// queued and committed in batches (group commit) by whichever writer or
// committer thread leads the next batch.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/base/status_macros.h"
#include "service/store/postgres_connection.h"
#include "service/store/postgres_store.h"

namespace khet {

absl::Status PostgresStore::Commit(PendingWrite& write) {
  write_mu_.Lock();
  queue_.push_back(&write);
  while (!write.done) {
    if (queue_.empty() || committing_ >= batches_in_flight_) {
      write.woken->WaitWithTimeout(&write_mu_, absl::Seconds(1));
      continue;
    }
    // Lead a batch: the queue's oldest writes, this one's or not.
    LeadBatch();
  }
  write_mu_.Unlock();
  return write.status;
}

void PostgresStore::LeadBatch() {
  // Writers to wake once write_mu_ is let go (a woken writer would
  // otherwise block at once on it).
  std::vector<std::shared_ptr<CondVar>> to_wake;
  auto wake = [&to_wake] {
    for (const std::shared_ptr<CondVar>& woken : to_wake) woken->Signal();
    to_wake.clear();
  };
  std::vector<PendingWrite*> batch;
  while (!queue_.empty() && batch.size() < options_.max_batch) {
    batch.push_back(queue_.front());
    queue_.pop_front();
  }
  ++committing_;
  // More than a batch was queued: the rest may start another now.
  if (!queue_.empty() && committing_ < batches_in_flight_) {
    to_wake.push_back(queue_.front()->woken);
  }
  write_mu_.Unlock();
  wake();
  CommitBatch(batch);
  std::vector<std::unique_ptr<PendingWrite>> later;
  write_mu_.Lock();
  --committing_;
  for (PendingWrite* w : batch) {
    if (w->on_done) {
      later.emplace_back(w);
    } else {
      w->done = true;
      to_wake.push_back(w->woken);
    }
  }
  // A batch may start: the oldest queued write leads it.
  if (!queue_.empty()) to_wake.push_back(queue_.front()->woken);
  write_mu_.Unlock();
  wake();
  for (std::unique_ptr<PendingWrite>& w : later) {
    std::move(w->on_done)(w->status);
  }
  later.clear();
  write_mu_.Lock();
}

void PostgresStore::CommitterLoop() {
  write_mu_.Lock();
  while (!(stopping_ && queue_.empty())) {
    if (queue_.empty() || committing_ >= batches_in_flight_) {
      committers_woken_->WaitWithTimeout(&write_mu_, absl::Seconds(1));
      continue;
    }
    LeadBatch();
  }
  write_mu_.Unlock();
}

void PostgresStore::CommitBatch(std::vector<PendingWrite*>& batch) {
  // Rows are locked in id order, so that batches of several stores on the
  // same sessions cannot deadlock; writes to one session keep their order.
  std::stable_sort(batch.begin(), batch.end(),
                   [](const PendingWrite* a, const PendingWrite* b) {
                     return a->id < b->id;
                   });
  absl::Status status = CommitTogether(batch);
  if (status.ok() || batch.size() == 1 || absl::IsUnavailable(status)) {
    if (!status.ok()) {
      for (PendingWrite* w : batch) w->status = status;
    }
    return;
  }
  // One write's error undid the others' changes: each again on its own.
  for (PendingWrite* w : batch) {
    if (absl::Status alone = CommitTogether({&w, 1}); !alone.ok()) {
      w->status = alone;
    }
  }
}

absl::Status PostgresStore::CommitTogether(
    absl::Span<PendingWrite* const> writes) {
  std::vector<std::pair<int64_t, int64_t>> outcomes;
  const absl::Time begun = absl::Now();
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<Lease> lease = Acquire();
    if (!lease.ok()) return lease.status();
    // Ended while idle: nothing was sent on it, so once more on a new one.
    if (!(*lease)->StillOpen() && attempt == 0) continue;
    KHET_RETURN_IF_ERROR((*lease)->Pipeline(writes, &outcomes));
    break;
  }
  if (options_.on_commit) {
    options_.on_commit(static_cast<int>(writes.size()), absl::Now() - begun);
  }
  for (size_t i = 0; i < writes.size(); ++i) {
    writes[i]->status =
        writes[i]->Outcome(outcomes[i].first, outcomes[i].second);
  }
  return absl::OkStatus();
}

absl::Status PostgresStore::Create(const SessionRecord& record,
                                   absl::Span<const EventRecord> events) {
  KHET_RETURN_IF_ERROR(CheckNewEvents(record.id, 0, events));
  PendingWrite write("create", record.id, "create the session");
  write.events = events;
  write.AddText(record.id);
  write.AddText(absl::StrCat(record.version));
  write.AddBinary(record.state);
  write.AddOwnedBinary(postgres::EventVersions(events));
  write.AddOwnedBinary(postgres::EventBytes(events));
  return Commit(write);
}

namespace {

// An Update's events among themselves; the first against the log's last
// is checked by the statement.
absl::Status CheckUpdateEvents(std::string_view id,
                               absl::Span<const EventRecord> events) {
  if (events.empty()) return absl::OkStatus();
  return CheckNewEvents(id, events.front().version - 1, events);
}

// The statement of an Update with `archive` (may be null).
const char* UpdateStatement(const ArchivedGame* archive) {
  if (archive == nullptr) return "update";
  return archive->silver_id.empty() ? "update_archiving"
                                    : "update_archiving_rated";
}

}  // namespace

void PostgresStore::PrepareUpdate(PendingWrite& write,
                                  const SessionRecord& record,
                                  int64_t expected_version,
                                  absl::Span<const EventRecord> events,
                                  const ArchivedGame* archive) {
  write.expected_version = expected_version;
  write.events = events;
  write.AddText(record.id);
  write.AddText(absl::StrCat(expected_version));
  write.AddText(absl::StrCat(record.version));
  write.AddBinary(record.state);
  write.AddOwnedBinary(postgres::EventVersions(events));
  write.AddOwnedBinary(postgres::EventBytes(events));
  if (archive != nullptr) {
    write.game_id = archive->id;
    for (const std::string* text :
         {&archive->id, &archive->record, &archive->silver, &archive->red,
          &archive->setup_id, &archive->result, &archive->ending}) {
      write.AddText(*text);
    }
    write.AddText(absl::StrCat(absl::ToUnixMicros(archive->started_at)));
    write.AddText(absl::StrCat(absl::ToUnixMicros(archive->ended_at)));
    write.AddText(absl::StrCat(archive->plies));
    if (!archive->silver_id.empty()) {
      write.AddText(archive->silver_id);
      write.AddText(archive->red_id);
    }
  }
}

absl::Status PostgresStore::Update(const SessionRecord& record,
                                   int64_t expected_version,
                                   absl::Span<const EventRecord> events,
                                   const ArchivedGame* archive) {
  KHET_RETURN_IF_ERROR(CheckUpdateEvents(record.id, events));
  PendingWrite write(UpdateStatement(archive), record.id, "update the session");
  PrepareUpdate(write, record, expected_version, events, archive);
  KHET_RETURN_IF_ERROR(Commit(write));
  DropOldEvents(record.id, expected_version, record.version);
  return absl::OkStatus();
}

void PostgresStore::UpdateLater(
    LaterUpdate update, absl::AnyInvocable<void(absl::Status) &&> done) {
  if (absl::Status valid = CheckUpdateEvents(update.record.id, update.events);
      !valid.ok()) {
    std::move(done)(std::move(valid));
    return;
  }
  const ArchivedGame* archive =
      update.archive.has_value() ? &*update.archive : nullptr;
  auto write = std::make_unique<PendingWrite>(
      UpdateStatement(archive), update.record.id, "update the session");
  // Its parameters point into its own copy of the update.
  write->later = std::move(update);
  const LaterUpdate& kept = write->later;
  PrepareUpdate(*write, kept.record, kept.expected_version, kept.events,
                kept.archive.has_value() ? &*kept.archive : nullptr);
  write->on_done = [this, id = kept.record.id, old_last = kept.expected_version,
                    new_last = kept.record.version,
                    done = std::move(done)](absl::Status status) mutable {
    if (status.ok()) DropOldEvents(id, old_last, new_last);
    std::move(done)(std::move(status));
  };
  QueueDetached(std::move(write));
}

void PostgresStore::QueueDetached(std::unique_ptr<PendingWrite> write) {
  write->woken = committers_woken_;
  bool wake = false;
  {
    MutexLock lock(&write_mu_);
    wake = committing_ < batches_in_flight_;
    queue_.push_back(write.release());  // LeadBatch ends it
  }
  if (wake) committers_woken_->Signal();
}

void PostgresStore::DropOldEvents(std::string_view id, int64_t old_last,
                                  int64_t new_last) {
  const int64_t through =
      EventsDroppedThrough(old_last, new_last, options_.events_kept);
  if (through == 0) return;
  auto write =
      std::make_unique<PendingWrite>("drop_events", id, "drop old events");
  write->AddText(std::string(id));
  write->AddText(absl::StrCat(through));
  write->on_done = [](absl::Status) {};
  QueueDetached(std::move(write));
}

absl::Status PostgresStore::Delete(std::string_view id) {
  PendingWrite write("delete", id, "delete the session");
  write.AddText(std::string(id));
  return Commit(write);
}

absl::Status PostgresStore::DeleteAt(std::string_view id,
                                     int64_t expected_version) {
  PendingWrite write("delete_at", id, "delete the session");
  write.expected_version = expected_version;
  write.AddText(std::string(id));
  write.AddText(absl::StrCat(expected_version));
  return Commit(write);
}

absl::Status PostgresStore::SetGameAnalysis(std::string_view game_id,
                                            std::string_view analysis) {
  PendingWrite write("set_analysis", game_id, "keep a game's analysis");
  write.AddText(std::string(game_id));
  write.AddBinary(analysis);
  return Commit(write);
}

absl::Status PostgresStore::ApplyRating(std::string_view game_id,
                                        const PlayerRecord& silver,
                                        const PlayerRecord& red) {
  PendingWrite write("apply_rating", game_id, "apply a game's ratings");
  write.player_ids[0] = silver.id;
  write.player_ids[1] = red.id;
  write.player_games[0] = silver.games;
  write.player_games[1] = red.games;
  write.AddText(std::string(game_id));
  write.AddText(absl::StrCat(absl::ToUnixMicros(silver.updated_at)));
  for (const PlayerRecord* p : {&silver, &red}) {
    write.AddText(p->id);
    write.AddText(p->name);
    for (double value : {p->rating, p->deviation, p->volatility}) {
      write.AddText(absl::StrFormat("%.17g", value));
    }
    for (int64_t count : {p->games, p->wins, p->draws, p->losses}) {
      write.AddText(absl::StrCat(count));
    }
  }
  return Commit(write);
}

}  // namespace khet
