// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Identifiers and secrets, injected so tests can make them predictable.
#ifndef KHET_SERVICE_BASE_RANDOM_SOURCE_H_
#define KHET_SERVICE_BASE_RANDOM_SOURCE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace khet {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // A new session id: short, URL-safe, unique in practice, starting with a
  // letter or digit.
  virtual std::string NewSessionId() = 0;
  // A new bearer token: at least 128 bits from the operating system's
  // cryptographic random source, well formed (IsWellFormedToken).
  virtual std::string NewToken() = 0;
};

// A token's shape: SystemRandom's 32 random bytes in unpadded URL-safe
// base64, 43 characters of A-Z, a-z, 0-9, '-' and '_'. A caller's token of
// another shape cannot be any session's, so the doors answer it
// UNAUTHENTICATED (RFC 6750's invalid_token) before asking whose it is; a
// well-formed token that is not the caller's seat's or owner's is
// PERMISSION_DENIED.
inline constexpr size_t kTokenLength = 43;
inline constexpr absl::string_view kTokenShape =
    "a token is 43 characters of A-Z, a-z, 0-9, - and _";
bool IsWellFormedToken(absl::string_view token);

// Backed by getrandom(2). Thread-safe; never deleted.
RandomSource* SystemRandom();

}  // namespace khet

#endif  // KHET_SERVICE_BASE_RANDOM_SOURCE_H_
