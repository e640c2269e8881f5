// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// SqliteStore's writes: each a Write queued for the next group commit,
// whose leader applies the group's writes in one transaction and syncs it
// once; each write's checks (versions, event versions, a taken game) made
// inside that transaction.
#include <sqlite3.h>

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "service/store/sqlite_statements.h"
#include "service/store/sqlite_store.h"

namespace khet {

using sqlite_statements::BindAll;
using sqlite_statements::Blob;
using sqlite_statements::ColumnBytes;
using sqlite_statements::StatementScope;

int64_t SqliteStore::NowMicros() {
  return absl::ToUnixMicros(clock_ != nullptr ? clock_->Now() : absl::Now());
}

struct SqliteStore::Write {
  enum class Kind { kCreate, kUpdate, kDelete, kAnalysis, kRating };
  Write(Kind k, std::string_view session_id,
        const SessionRecord* session = nullptr, int64_t expected = 0,
        absl::Span<const EventRecord> new_events = {},
        const ArchivedGame* game = nullptr)
      : kind(k),
        id(session_id),
        record(session),
        expected_version(expected),
        events(new_events),
        archive(game) {}

  const Kind kind;
  const std::string_view id;
  const SessionRecord* const record;           // Create and Update
  const int64_t expected_version;              // Update
  const absl::Span<const EventRecord> events;  // Create and Update
  const ArchivedGame* const archive;           // Update; may be null
  std::string_view analysis;                   // kAnalysis (id: the game's)
  const PlayerRecord* silver = nullptr;        // kRating (id: the game's)
  const PlayerRecord* red = nullptr;           // kRating

  // Set by the batch's leader, under queue_mu_.
  bool done = false;
  absl::Status status;
  CondVar cv;  // signalled when done, or when this write leads the queue
};

absl::Status SqliteStore::Create(const SessionRecord& record,
                                 absl::Span<const EventRecord> events) {
  Write write(Write::Kind::kCreate, record.id, &record, 0, events);
  return Submit(write);
}

absl::Status SqliteStore::Update(const SessionRecord& record,
                                 int64_t expected_version,
                                 absl::Span<const EventRecord> events,
                                 const ArchivedGame* archive) {
  Write write(Write::Kind::kUpdate, record.id, &record, expected_version,
              events, archive);
  return Submit(write);
}

absl::Status SqliteStore::Delete(std::string_view id) {
  Write write(Write::Kind::kDelete, id);
  absl::Status deleted = Submit(write);
  if (deleted.ok()) leases_.Drop(id);
  return deleted;
}

absl::Status SqliteStore::SetGameAnalysis(std::string_view game_id,
                                          std::string_view analysis) {
  Write write(Write::Kind::kAnalysis, game_id);
  write.analysis = analysis;
  return Submit(write);
}

absl::Status SqliteStore::ApplyRating(std::string_view game_id,
                                      const PlayerRecord& silver,
                                      const PlayerRecord& red) {
  Write write(Write::Kind::kRating, game_id);
  write.silver = &silver;
  write.red = &red;
  return Submit(write);
}

absl::StatusOr<bool> SqliteStore::TryLease(std::string_view id,
                                           std::string_view holder,
                                           absl::Time now, absl::Duration ttl) {
  absl::StatusOr<SessionRecord> session = Get(id);
  if (absl::IsNotFound(session.status())) return false;
  if (!session.ok()) return session.status();
  return leases_.TryLease(id, holder, now, ttl);
}

absl::Status SqliteStore::Submit(Write& write) {
  std::vector<Write*> batch;
  {
    MutexLock lock(&queue_mu_);
    queue_.push_back(&write);
    while (!write.done && queue_.front() != &write) {
      write.cv.WaitWithTimeout(&queue_mu_, absl::Seconds(1));
    }
    if (write.done) return write.status;
    // First in the queue: lead a batch of the oldest writes.
    const size_t size =
        std::min(queue_.size(), static_cast<size_t>(max_batch_));
    batch.assign(queue_.begin(), queue_.begin() + size);
  }
  {
    const absl::Time begun = absl::Now();
    {
      MutexLock lock(&mu_);
      CommitBatch(batch);
    }
    if (on_commit_) {
      on_commit_(static_cast<int>(batch.size()), absl::Now() - begun);
    }
  }
  MutexLock lock(&queue_mu_);
  // The batch is still the queue's front: only leaders remove writes.
  queue_.erase(queue_.begin(), queue_.begin() + batch.size());
  writes_done_ += static_cast<int64_t>(batch.size());
  ++transactions_;
  for (Write* member : batch) {
    member->done = true;
    if (member != &write) member->cv.Signal();
  }
  if (!queue_.empty()) queue_.front()->cv.Signal();  // the next leader
  return write.status;
}

void SqliteStore::CommitBatch(const std::vector<Write*>& batch) {
  absl::Status begun = Run("BEGIN IMMEDIATE");
  if (!begun.ok()) {
    for (Write* write : batch) write->status = begun;
    return;
  }
  // The members that were applied, for a failed COMMIT.
  std::vector<Write*> applied;
  for (size_t i = 0; i < batch.size(); ++i) {
    Write& write = *batch[i];
    absl::Status status = Run("SAVEPOINT member");
    if (status.ok()) status = Apply(write);
    if (status.ok()) status = Run("RELEASE member");
    if (status.ok()) {
      applied.push_back(&write);
      continue;
    }
    write.status = status;
    if (sqlite3_get_autocommit(db_) != 0) {
      // SQLite rolled the whole transaction back (an I/O error, a full
      // disk): the earlier members are undone and the rest are not tried.
      for (Write* undone : applied) undone->status = status;
      for (size_t j = i + 1; j < batch.size(); ++j) {
        batch[j]->status = status;
      }
      return;
    }
    // Undo this member alone; the transaction goes on.
    absl::Status undone = Run("ROLLBACK TO member");
    if (undone.ok()) undone = Run("RELEASE member");
    if (!undone.ok()) {
      for (Write* member : applied) member->status = undone;
      for (size_t j = i + 1; j < batch.size(); ++j) {
        batch[j]->status = undone;
      }
      Finish(undone).IgnoreError();  // rolls back
      return;
    }
  }
  const absl::Status committed = Finish(absl::OkStatus());
  if (!committed.ok()) {
    for (Write* write : applied) write->status = committed;
  }
}

absl::Status SqliteStore::Apply(const Write& write) {
  switch (write.kind) {
    case Write::Kind::kCreate:
      return CreateLocked(*write.record, write.events);
    case Write::Kind::kUpdate:
      return UpdateLocked(*write.record, write.expected_version, write.events,
                          write.archive);
    case Write::Kind::kDelete:
      return DeleteLocked(write.id);
    case Write::Kind::kAnalysis:
      return SetGameAnalysisLocked(write.id, write.analysis);
    case Write::Kind::kRating:
      return ApplyRatingLocked(write.id, *write.silver, *write.red);
  }
  return absl::InternalError("unknown kind of write");
}

SqliteWriteStats SqliteStore::write_stats() {
  MutexLock lock(&queue_mu_);
  return SqliteWriteStats{writes_done_, transactions_,
                          static_cast<int64_t>(queue_.size())};
}

absl::Status SqliteStore::CreateLocked(const SessionRecord& record,
                                       absl::Span<const EventRecord> events) {
  absl::StatusOr<int64_t> stored = StoredVersion(record.id);
  if (stored.ok()) {
    return absl::AlreadyExistsError(
        absl::StrCat("session \"", record.id, "\" already exists"));
  }
  if (!absl::IsNotFound(stored.status())) return stored.status();
  if (absl::Status s = CheckNewEvents(record.id, 0, events); !s.ok()) {
    return s;
  }
  absl::StatusOr<sqlite3_stmt*> insert = Statement(
      "INSERT INTO sessions (id, version, state, updated_unix_micros) "
      "VALUES (?, ?, ?, ?)");
  if (!insert.ok()) return insert.status();
  StatementScope scope(*insert);
  int code = BindAll(*insert, std::string_view(record.id), record.version,
                     Blob{record.state}, NowMicros());
  if (code == SQLITE_OK) code = sqlite3_step(*insert);
  if (code != SQLITE_DONE) return Error(code, "insert session");
  return InsertEvents(record.id, events);
}

absl::Status SqliteStore::UpdateLocked(const SessionRecord& record,
                                       int64_t expected_version,
                                       absl::Span<const EventRecord> events,
                                       const ArchivedGame* archive) {
  absl::StatusOr<int64_t> stored = StoredVersion(record.id);
  if (!stored.ok()) return stored.status();
  if (*stored != expected_version) {
    return absl::AbortedError(absl::StrCat("session \"", record.id,
                                           "\" is at version ", *stored,
                                           ", not ", expected_version));
  }
  absl::StatusOr<int64_t> last_event = LastEventVersion(record.id);
  if (!last_event.ok()) return last_event.status();
  if (absl::Status s = CheckNewEvents(record.id, *last_event, events);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<sqlite3_stmt*> update = Statement(
      "UPDATE sessions SET version = ?2, state = ?3, updated_unix_micros = ?4 "
      "WHERE id = ?1");
  if (!update.ok()) return update.status();
  StatementScope scope(*update);
  int code = BindAll(*update, std::string_view(record.id), record.version,
                     Blob{record.state}, NowMicros());
  if (code == SQLITE_OK) code = sqlite3_step(*update);
  if (code != SQLITE_DONE) return Error(code, "update session");
  if (archive != nullptr) {
    if (absl::Status s = InsertGame(*archive); !s.ok()) return s;
  }
  if (absl::Status s = InsertEvents(record.id, events); !s.ok()) return s;
  const int64_t through =
      EventsDroppedThrough(expected_version, record.version, events_kept_);
  if (through == 0) return absl::OkStatus();
  absl::StatusOr<sqlite3_stmt*> drop =
      Statement("DELETE FROM events WHERE session_id = ? AND version <= ?");
  if (!drop.ok()) return drop.status();
  StatementScope drop_scope(*drop);
  code = BindAll(*drop, std::string_view(record.id), through);
  if (code == SQLITE_OK) code = sqlite3_step(*drop);
  if (code != SQLITE_DONE) return Error(code, "drop old events");
  return absl::OkStatus();
}

absl::Status SqliteStore::InsertGame(const ArchivedGame& game) {
  absl::StatusOr<sqlite3_stmt*> insert = Statement(
      "INSERT INTO games (id, session_id, record, silver, red, setup_id, "
      "result, ending, started_unix_micros, ended_unix_micros, plies, "
      "silver_id, red_id) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (id) DO NOTHING");
  if (!insert.ok()) return insert.status();
  StatementScope scope(*insert);
  int code = BindAll(
      *insert, std::string_view(game.id), std::string_view(game.session_id),
      std::string_view(game.record), std::string_view(game.silver),
      std::string_view(game.red), std::string_view(game.setup_id),
      std::string_view(game.result), std::string_view(game.ending),
      absl::ToUnixMicros(game.started_at), absl::ToUnixMicros(game.ended_at),
      game.plies, std::string_view(game.silver_id),
      std::string_view(game.red_id));
  if (code == SQLITE_OK) code = sqlite3_step(*insert);
  if (code != SQLITE_DONE) return Error(code, "archive game");
  if (sqlite3_changes(db_) == 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("game \"", game.id, "\" is already archived"));
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::DeleteLocked(std::string_view id) {
  {
    absl::StatusOr<sqlite3_stmt*> remove =
        Statement("DELETE FROM sessions WHERE id = ?");
    if (!remove.ok()) return remove.status();
    StatementScope scope(*remove);
    int code = BindAll(*remove, id);
    if (code == SQLITE_OK) code = sqlite3_step(*remove);
    if (code != SQLITE_DONE) return Error(code, "delete session");
    if (sqlite3_changes(db_) == 0) return SessionNotStored(id);
  }
  {
    absl::StatusOr<sqlite3_stmt*> remove_games =
        Statement("DELETE FROM games WHERE session_id = ?");
    if (!remove_games.ok()) return remove_games.status();
    StatementScope scope(*remove_games);
    int code = BindAll(*remove_games, id);
    if (code == SQLITE_OK) code = sqlite3_step(*remove_games);
    if (code != SQLITE_DONE) return Error(code, "delete games");
  }
  absl::StatusOr<sqlite3_stmt*> remove_events =
      Statement("DELETE FROM events WHERE session_id = ?");
  if (!remove_events.ok()) return remove_events.status();
  StatementScope scope(*remove_events);
  int code = BindAll(*remove_events, id);
  if (code == SQLITE_OK) code = sqlite3_step(*remove_events);
  return code == SQLITE_DONE ? absl::OkStatus() : Error(code, "delete events");
}

absl::Status SqliteStore::SetGameAnalysisLocked(std::string_view game_id,
                                                std::string_view analysis) {
  absl::StatusOr<sqlite3_stmt*> update =
      Statement("UPDATE games SET analysis = ?2 WHERE id = ?1");
  if (!update.ok()) return update.status();
  StatementScope scope(*update);
  int code = BindAll(*update, game_id, Blob{analysis});
  if (code == SQLITE_OK) code = sqlite3_step(*update);
  if (code != SQLITE_DONE) return Error(code, "set game analysis");
  if (sqlite3_changes(db_) == 0) {
    return GameNotArchived(game_id);
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::ApplyRatingLocked(std::string_view game_id,
                                            const PlayerRecord& silver,
                                            const PlayerRecord& red) {
  {
    absl::StatusOr<sqlite3_stmt*> select = Statement(
        "SELECT silver_id, red_id, rating_applied FROM games WHERE id = ?");
    if (!select.ok()) return select.status();
    StatementScope scope(*select);
    int code = BindAll(*select, game_id);
    if (code == SQLITE_OK) code = sqlite3_step(*select);
    if (code == SQLITE_DONE) {
      return GameNotArchived(game_id);
    }
    if (code != SQLITE_ROW) return Error(code, "read rated game");
    const std::string silver_id = ColumnBytes(*select, 0);
    const std::string red_id = ColumnBytes(*select, 1);
    const bool applied = sqlite3_column_int64(*select, 2) != 0;
    if (silver_id.empty() || applied) {
      return RatingNotPending(game_id, applied);
    }
    if (silver_id != silver.id || red_id != red.id) {
      return absl::InvalidArgumentError(absl::StrCat(
          "game \"", std::string(game_id), "\" was rated between \"", silver_id,
          "\" and \"", red_id, "\", not \"", silver.id, "\" and \"", red.id,
          "\""));
    }
  }
  for (const PlayerRecord* player : {&silver, &red}) {
    absl::StatusOr<sqlite3_stmt*> select =
        Statement("SELECT games FROM players WHERE id = ?");
    if (!select.ok()) return select.status();
    StatementScope scope(*select);
    int code = BindAll(*select, std::string_view(player->id));
    if (code == SQLITE_OK) code = sqlite3_step(*select);
    if (code != SQLITE_ROW && code != SQLITE_DONE) {
      return Error(code, "read player");
    }
    const int64_t stored =
        code == SQLITE_ROW ? sqlite3_column_int64(*select, 0) : 0;
    if (stored != player->games - 1) {
      return PlayerMoved(player->id, stored, player->games);
    }
  }
  for (const PlayerRecord* player : {&silver, &red}) {
    absl::StatusOr<sqlite3_stmt*> upsert = Statement(
        "INSERT OR REPLACE INTO players (id, name, rating, deviation, "
        "volatility, games, wins, draws, losses, updated_unix_micros) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!upsert.ok()) return upsert.status();
    StatementScope scope(*upsert);
    int code = BindAll(*upsert, std::string_view(player->id),
                       std::string_view(player->name), player->rating,
                       player->deviation, player->volatility, player->games,
                       player->wins, player->draws, player->losses,
                       absl::ToUnixMicros(player->updated_at));
    if (code == SQLITE_OK) code = sqlite3_step(*upsert);
    if (code != SQLITE_DONE) return Error(code, "write player");
  }
  absl::StatusOr<sqlite3_stmt*> mark =
      Statement("UPDATE games SET rating_applied = 1 WHERE id = ?");
  if (!mark.ok()) return mark.status();
  StatementScope scope(*mark);
  int code = BindAll(*mark, game_id);
  if (code == SQLITE_OK) code = sqlite3_step(*mark);
  return code == SQLITE_DONE ? absl::OkStatus()
                             : Error(code, "mark game rated");
}

absl::StatusOr<int64_t> SqliteStore::StoredVersion(std::string_view id) {
  absl::StatusOr<sqlite3_stmt*> select =
      Statement("SELECT version FROM sessions WHERE id = ?");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code == SQLITE_DONE) return SessionNotStored(id);
  if (code != SQLITE_ROW) return Error(code, "read session version");
  return sqlite3_column_int64(*select, 0);
}

absl::StatusOr<int64_t> SqliteStore::LastEventVersion(std::string_view id) {
  absl::StatusOr<sqlite3_stmt*> select = Statement(
      "SELECT coalesce(max(version), 0) FROM events WHERE session_id = ?");
  if (!select.ok()) return select.status();
  StatementScope scope(*select);
  int code = BindAll(*select, id);
  if (code == SQLITE_OK) code = sqlite3_step(*select);
  if (code != SQLITE_ROW) return Error(code, "read last event version");
  return sqlite3_column_int64(*select, 0);
}

absl::Status SqliteStore::InsertEvents(std::string_view id,
                                       absl::Span<const EventRecord> events) {
  if (events.empty()) return absl::OkStatus();
  absl::StatusOr<sqlite3_stmt*> insert = Statement(
      "INSERT INTO events (session_id, version, event) VALUES (?, ?, ?)");
  if (!insert.ok()) return insert.status();
  for (const EventRecord& event : events) {
    StatementScope scope(*insert);
    int code = BindAll(*insert, id, event.version, Blob{event.event});
    if (code == SQLITE_OK) code = sqlite3_step(*insert);
    if (code != SQLITE_DONE) return Error(code, "insert event");
  }
  return absl::OkStatus();
}

}  // namespace khet
