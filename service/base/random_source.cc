// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/base/random_source.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"

namespace khet {
namespace {

// Fills buf from the kernel's cryptographic source. getrandom(2) without
// flags blocks only until the pool is first initialised and returns at most
// 32 MiB per call, so a short read happens only on a signal: try again.
void FillRandom(char* buf, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = getrandom(buf + done, size - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::cerr << "khet: getrandom failed, errno " << errno << "\n";
      std::abort();  // no safe way to go on without randomness
    }
    done += static_cast<size_t>(n);
  }
}

std::string RandomUrlSafe(size_t bytes) {
  std::string raw(bytes, '\0');
  FillRandom(raw.data(), raw.size());
  return absl::WebSafeBase64Escape(raw);  // unpadded
}

class GetrandomSource final : public RandomSource {
 public:
  // 9 bytes: 12 characters, about 72 bits. Never starting with '-' or '_',
  // so that command lines do not take an id for a flag.
  std::string NewSessionId() override {
    while (true) {
      std::string id = RandomUrlSafe(9);
      if (absl::ascii_isalnum(static_cast<unsigned char>(id[0]))) return id;
    }
  }
  // 32 bytes: 43 characters, 256 bits.
  std::string NewToken() override { return RandomUrlSafe(32); }
};

}  // namespace

RandomSource* SystemRandom() {
  static RandomSource* const random = new GetrandomSource();
  return random;
}

bool IsWellFormedToken(absl::string_view token) {
  if (token.size() != kTokenLength) return false;
  for (const char c : token) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' &&
        c != '_') {
      return false;
    }
  }
  return true;
}

}  // namespace khet
