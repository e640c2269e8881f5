#include "service/store/session_store.h"

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

bool GameMatches(const ArchivedGame& game, const GameQuery& query) {
  return (query.session_id.empty() || game.session_id == query.session_id) &&
         (query.player.empty() || game.silver == query.player ||
          game.red == query.player) &&
         (query.setup_id.empty() || game.setup_id == query.setup_id) &&
         (query.result.empty() || game.result == query.result);
}

absl::StatusOr<int64_t> SessionStore::GetVersion(std::string_view id) {
  absl::StatusOr<SessionRecord> record = Get(id);
  if (!record.ok()) return record.status();
  return record->version;
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

}  // namespace khet
