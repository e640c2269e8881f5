// Identifiers and secrets, injected so tests can make them predictable.
#ifndef KHET_SERVICE_BASE_RANDOM_SOURCE_H_
#define KHET_SERVICE_BASE_RANDOM_SOURCE_H_

#include <string>

namespace khet {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // A new session id: short, URL-safe, unique in practice, starting with a
  // letter or digit.
  virtual std::string NewSessionId() = 0;
  // A new bearer token: at least 128 bits from the operating system's
  // cryptographic random source, URL-safe text.
  virtual std::string NewToken() = 0;
};

// Backed by getrandom(2). Thread-safe; never deleted.
RandomSource* SystemRandom();

}  // namespace khet

#endif  // KHET_SERVICE_BASE_RANDOM_SOURCE_H_
