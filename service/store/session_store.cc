// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/session_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace khet {

absl::Status CheckNewEvents(std::string_view id, int64_t last_version,
                            absl::Span<const EventRecord> events) {
  for (const EventRecord& event : events) {
    if (event.version <= last_version) {
      return absl::InvalidArgumentError(absl::StrCat(
          "session \"", std::string(id), "\": event version ", event.version,
          " does not follow version ", last_version));
    }
    last_version = event.version;
  }
  return absl::OkStatus();
}

int64_t EventsDroppedThrough(int64_t old_last, int64_t new_last,
                             int64_t events_kept) {
  if (events_kept <= 0 ||
      new_last / kEventDropStep == old_last / kEventDropStep) {
    return 0;
  }
  return std::max<int64_t>(0, new_last - events_kept);
}

bool GameMatches(const ArchivedGame& game, const GameQuery& query) {
  return (query.session_id.empty() || game.session_id == query.session_id) &&
         (query.player.empty() || game.silver == query.player ||
          game.red == query.player) &&
         (query.setup_id.empty() || game.setup_id == query.setup_id) &&
         (query.result.empty() || game.result == query.result);
}

absl::StatusOr<std::vector<SessionRecord>> SessionStore::GetMany(
    absl::Span<const std::string> ids) {
  std::vector<SessionRecord> records;
  records.reserve(ids.size());
  for (const std::string& id : ids) {
    absl::StatusOr<SessionRecord> record = Get(id);
    if (absl::IsNotFound(record.status())) continue;
    if (!record.ok()) return record.status();
    records.push_back(*std::move(record));
  }
  return records;
}

absl::StatusOr<int64_t> SessionStore::GetVersion(std::string_view id) {
  absl::StatusOr<SessionRecord> record = Get(id);
  if (!record.ok()) return record.status();
  return record->version;
}

absl::Status SessionStore::SavePushTarget(const PushTargetRecord&) {
  return absl::OkStatus();
}

absl::Status SessionStore::DeletePushTarget(std::string_view,
                                            std::string_view) {
  return absl::OkStatus();
}

absl::StatusOr<PushTargetRecord> SessionStore::GetPushTarget(
    std::string_view session_id) {
  return absl::NotFoundError(absl::StrCat("session \"", std::string(session_id),
                                          "\" has no stored push target"));
}

absl::StatusOr<std::vector<std::string>> SessionStore::PushTargetsOf(
    std::string_view) {
  return std::vector<std::string>{};
}

absl::StatusOr<int64_t> SessionStore::CountPushTargets(std::string_view) {
  return 0;
}

absl::StatusOr<std::vector<PushTargetRecord>> SessionStore::ClaimPushTargets(
    std::string_view, absl::Time, absl::Time, int) {
  return std::vector<PushTargetRecord>{};
}

absl::Status SessionStore::DeleteAt(std::string_view id,
                                    int64_t expected_version) {
  absl::StatusOr<int64_t> version = GetVersion(id);
  if (!version.ok()) return version.status();
  if (*version != expected_version) {
    return absl::AbortedError(absl::StrCat("session \"", std::string(id),
                                           "\" is at version ", *version,
                                           ", not ", expected_version));
  }
  return Delete(id);
}

absl::StatusOr<std::vector<SessionVersion>> SessionStore::ListVersions() {
  absl::StatusOr<std::vector<SessionRecord>> all = LoadAll();
  if (!all.ok()) return all.status();
  std::vector<SessionVersion> versions;
  versions.reserve(all->size());
  for (SessionRecord& record : *all) {
    versions.push_back({std::move(record.id), record.version});
  }
  return versions;
}

bool RanksAbove(const PlayerRecord& a, const PlayerRecord& b) {
  if (a.rating != b.rating) return a.rating > b.rating;
  return a.id < b.id;
}

absl::Status SessionNotStored(std::string_view id) {
  return absl::NotFoundError(
      absl::StrCat("no session \"", std::string(id), "\""));
}

absl::Status GameNotArchived(std::string_view game_id) {
  return absl::NotFoundError(
      absl::StrCat("no archived game \"", std::string(game_id), "\""));
}

absl::Status NoPlayer(std::string_view player_id) {
  return absl::NotFoundError(
      absl::StrCat("no rated player \"", std::string(player_id),
                   "\" (a player is rated after their first rated game)"));
}

absl::Status RatingNotPending(std::string_view game_id, bool applied) {
  return absl::FailedPreconditionError(absl::StrCat(
      "game \"", std::string(game_id), "\" ",
      applied ? "has its ratings applied already" : "is not a rated game"));
}

absl::Status PlayerMoved(std::string_view player_id, int64_t stored_games,
                         int64_t new_games) {
  return absl::AbortedError(absl::StrCat(
      "player \"", std::string(player_id), "\" has ", stored_games,
      " rated games, not ", new_games - 1, ": another game was rated first"));
}

namespace {
absl::Status NoRatings() {
  return absl::UnimplementedError("this session store keeps no ratings");
}
}  // namespace

absl::StatusOr<PlayerRecord> SessionStore::GetPlayer(std::string_view) {
  return NoRatings();
}

absl::StatusOr<std::vector<PlayerRecord>> SessionStore::ListPlayers(int64_t,
                                                                    int) {
  return NoRatings();
}

absl::StatusOr<std::vector<ArchivedGame>> SessionStore::PendingRatedGames(int) {
  return NoRatings();
}

absl::Status SessionStore::ApplyRating(std::string_view, const PlayerRecord&,
                                       const PlayerRecord&) {
  return NoRatings();
}

}  // namespace khet
