#include "service/timeouts.h"

#include <memory>
#include <vector>

#include "service/convert.h"
#include "service/game_endings.h"

namespace khet {
namespace {

bool TimedOut(const Session& s, absl::Time now) {
  if (s.status() != v1::IN_PROGRESS) return false;
  const v1::Settings& settings = s.state().settings();
  if (!settings.timeout_enabled()) return false;
  const absl::Time last = TimeFromProto(s.state().last_move_at());
  return last + absl::Seconds(settings.timeout_seconds()) <= now;
}

}  // namespace

int SweepTimeouts(SessionRegistry& registry) {
  registry.SyncAll();
  const absl::Time now = registry.clock()->Now();
  int reset = 0;
  for (const std::shared_ptr<SessionEntry>& entry : registry.Entries()) {
    MutexLock lock(&entry->mu);
    if (entry->deleted || !TimedOut(entry->session, now)) continue;
    if (!registry.Fresh(*entry).ok() || !TimedOut(entry->session, now)) {
      continue;
    }
    // A failed write leaves the game for the next sweep; a lost race
    // (ABORTED) leaves it to the replica that won.
    absl::Status status = ResetSession(registry, *entry, /*timed_out=*/true);
    if (status.ok()) {
      ++reset;
    } else if (registry.shared() && absl::IsAborted(status)) {
      registry.Refresh(*entry).IgnoreError();
    }
  }
  return reset;
}

}  // namespace khet
