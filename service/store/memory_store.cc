// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/memory_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace khet {
namespace {

absl::Status GameTaken(std::string_view id) {
  return absl::AlreadyExistsError(
      absl::StrCat("game \"", std::string(id), "\" is already archived"));
}

// The first of `events` (sorted by version) with version > `version`.
std::vector<EventRecord>::const_iterator After(
    const std::vector<EventRecord>& events, int64_t version) {
  return std::upper_bound(
      events.begin(), events.end(), version,
      [](int64_t v, const EventRecord& e) { return v < e.version; });
}

}  // namespace

absl::Status MemoryStore::Create(const SessionRecord& record,
                                 absl::Span<const EventRecord> events) {
  MutexLock lock(&mu_);
  if (sessions_.count(record.id) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("session \"", record.id, "\" already exists"));
  }
  if (absl::Status s = CheckNewEvents(record.id, 0, events); !s.ok()) return s;
  sessions_[record.id] = Entry{record, {events.begin(), events.end()}};
  return absl::OkStatus();
}

absl::Status MemoryStore::Update(const SessionRecord& record,
                                 int64_t expected_version,
                                 absl::Span<const EventRecord> events,
                                 const ArchivedGame* archive) {
  MutexLock lock(&mu_);
  auto it = sessions_.find(record.id);
  if (it == sessions_.end()) return SessionNotStored(record.id);
  if (it->second.record.version != expected_version) {
    return absl::AbortedError(
        absl::StrCat("session \"", record.id, "\" is at version ",
                     it->second.record.version, ", not ", expected_version));
  }
  std::vector<EventRecord>& stored = it->second.events;
  if (absl::Status s = CheckNewEvents(
          record.id, stored.empty() ? 0 : stored.back().version, events);
      !s.ok()) {
    return s;
  }
  if (archive != nullptr) {
    if (FindGame(archive->id) != nullptr) return GameTaken(archive->id);
    game_sequences_[archive->id] = last_sequence_ + 1;
    ArchivedGame& kept = games_[++last_sequence_];
    kept = *archive;
    kept.sequence = last_sequence_;
    kept.analysis.clear();
    kept.rating_applied = false;
  }
  it->second.record = record;
  stored.insert(stored.end(), events.begin(), events.end());
  if (const int64_t through =
          EventsDroppedThrough(expected_version, record.version, events_kept_);
      through > 0) {
    stored.erase(stored.begin(), After(stored, through));
  }
  return absl::OkStatus();
}

absl::Status MemoryStore::Delete(std::string_view id) {
  MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return SessionNotStored(id);
  sessions_.erase(it);
  leases_.Drop(id);
  std::erase_if(games_, [&](const auto& entry) {
    if (entry.second.session_id != id) return false;
    game_sequences_.erase(entry.second.id);
    return true;
  });
  return absl::OkStatus();
}

ArchivedGame* MemoryStore::FindGame(std::string_view id) {
  auto it = game_sequences_.find(id);
  if (it == game_sequences_.end()) return nullptr;
  auto game = games_.find(it->second);
  return game == games_.end() ? nullptr : &game->second;
}

absl::StatusOr<bool> MemoryStore::TryLease(std::string_view id,
                                           std::string_view holder,
                                           absl::Time now, absl::Duration ttl) {
  MutexLock lock(&mu_);  // held: a Delete cannot come between
  if (sessions_.count(id) == 0) return false;
  return leases_.TryLease(id, holder, now, ttl);
}

absl::StatusOr<ArchivedGame> MemoryStore::GetGame(std::string_view game_id) {
  MutexLock lock(&mu_);
  if (const ArchivedGame* game = FindGame(game_id)) return *game;
  return GameNotArchived(game_id);
}

absl::Status MemoryStore::SetGameAnalysis(std::string_view game_id,
                                          std::string_view analysis) {
  MutexLock lock(&mu_);
  if (ArchivedGame* game = FindGame(game_id)) {
    game->analysis = std::string(analysis);
    return absl::OkStatus();
  }
  return GameNotArchived(game_id);
}

absl::StatusOr<std::vector<ArchivedGame>> MemoryStore::ListGames(
    const GameQuery& query) {
  MutexLock lock(&mu_);
  std::vector<ArchivedGame> out;
  auto end = query.before_sequence > 0
                 ? games_.lower_bound(query.before_sequence)
                 : games_.end();
  for (auto it = std::make_reverse_iterator(end);
       it != games_.rend() && static_cast<int>(out.size()) < query.limit;
       ++it) {
    if (GameMatches(it->second, query)) out.push_back(it->second);
  }
  return out;
}

absl::StatusOr<SessionRecord> MemoryStore::Get(std::string_view id) {
  MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return SessionNotStored(id);
  return it->second.record;
}

absl::StatusOr<std::vector<SessionRecord>> MemoryStore::LoadAll() {
  MutexLock lock(&mu_);
  std::vector<SessionRecord> all;
  for (const auto& [id, entry] : sessions_) all.push_back(entry.record);
  return all;
}

absl::StatusOr<std::vector<EventRecord>> MemoryStore::EventsAfter(
    std::string_view id, int64_t after_version, int limit) {
  MutexLock lock(&mu_);
  std::vector<EventRecord> out;
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return out;
  const std::vector<EventRecord>& stored = it->second.events;
  for (auto e = After(stored, after_version);
       e != stored.end() && static_cast<int>(out.size()) < limit; ++e) {
    out.push_back(*e);
  }
  return out;
}

absl::StatusOr<PlayerRecord> MemoryStore::GetPlayer(
    std::string_view player_id) {
  MutexLock lock(&mu_);
  auto it = players_.find(player_id);
  if (it == players_.end()) return NoPlayer(player_id);
  return it->second;
}

absl::StatusOr<std::vector<PlayerRecord>> MemoryStore::ListPlayers(
    int64_t offset, int limit) {
  MutexLock lock(&mu_);
  std::vector<PlayerRecord> all;
  for (const auto& [id, player] : players_) all.push_back(player);
  std::sort(all.begin(), all.end(), RanksAbove);
  std::vector<PlayerRecord> page;
  for (int64_t i = std::max<int64_t>(offset, 0);
       i < static_cast<int64_t>(all.size()) &&
       static_cast<int>(page.size()) < limit;
       ++i) {
    page.push_back(all[i]);
  }
  return page;
}

absl::StatusOr<std::vector<ArchivedGame>> MemoryStore::PendingRatedGames(
    int limit) {
  MutexLock lock(&mu_);
  std::vector<ArchivedGame> out;
  for (const auto& [sequence, game] : games_) {
    if (static_cast<int>(out.size()) >= limit) break;
    if (!game.silver_id.empty() && !game.rating_applied) out.push_back(game);
  }
  return out;
}

absl::Status MemoryStore::ApplyRating(std::string_view game_id,
                                      const PlayerRecord& silver,
                                      const PlayerRecord& red) {
  MutexLock lock(&mu_);
  ArchivedGame* game = FindGame(game_id);
  if (game == nullptr) {
    return GameNotArchived(game_id);
  }
  if (game->silver_id.empty() || game->rating_applied) {
    return RatingNotPending(game_id, game->rating_applied);
  }
  if (game->silver_id != silver.id || game->red_id != red.id) {
    return absl::InvalidArgumentError(
        absl::StrCat("game \"", std::string(game_id), "\" was rated between \"",
                     game->silver_id, "\" and \"", game->red_id, "\", not \"",
                     silver.id, "\" and \"", red.id, "\""));
  }
  for (const PlayerRecord* p : {&silver, &red}) {
    auto it = players_.find(p->id);
    const int64_t stored = it == players_.end() ? 0 : it->second.games;
    if (stored != p->games - 1) return PlayerMoved(p->id, stored, p->games);
  }
  players_[silver.id] = silver;
  players_[red.id] = red;
  game->rating_applied = true;
  return absl::OkStatus();
}

}  // namespace khet
