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

}  // namespace khet
