// Test doubles for the service core: predictable ids and tokens, and a
// store whose writes can be made to fail.
#ifndef KHET_SERVICE_TEST_FAKES_H_
#define KHET_SERVICE_TEST_FAKES_H_

#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/mutex.h"
#include "service/random_source.h"
#include "service/store/memory_store.h"

namespace khet {

// Ids "s0001", "s0002"...; tokens "token-0001-" padded to 43 characters.
class FakeRandom final : public RandomSource {
 public:
  std::string NewSessionId() override {
    return absl::StrFormat("s%04d", ++sessions_);
  }
  std::string NewToken() override {
    std::string t = absl::StrFormat("token-%04d-", ++tokens_);
    t.resize(43, 'x');
    return t;
  }

 private:
  std::atomic<int> sessions_{0};
  std::atomic<int> tokens_{0};
};

// A MemoryStore whose Create, Update and Delete fail with UNAVAILABLE while
// fail_writes is set.
class FlakyStore final : public SessionStore {
 public:
  std::atomic<bool> fail_writes{false};
  MemoryStore inner;

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override {
    if (fail_writes) return absl::UnavailableError("disk on fire");
    return inner.Create(record, events);
  }
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events) override {
    if (fail_writes) return absl::UnavailableError("disk on fire");
    return inner.Update(record, expected_version, events);
  }
  absl::Status Delete(std::string_view id) override {
    if (fail_writes) return absl::UnavailableError("disk on fire");
    return inner.Delete(id);
  }
  absl::StatusOr<SessionRecord> Get(std::string_view id) override {
    return inner.Get(id);
  }
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override {
    return inner.LoadAll();
  }
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override {
    return inner.EventsAfter(id, after_version, limit);
  }
};

}  // namespace khet

#endif  // KHET_SERVICE_TEST_FAKES_H_
