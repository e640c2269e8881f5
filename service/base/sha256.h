// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// SHA-256 (FIPS 180-4, computed by OpenSSL's libcrypto), for storing token
// hashes instead of tokens, and a constant-time comparison for checking them.
#ifndef KHET_SERVICE_BASE_SHA256_H_
#define KHET_SERVICE_BASE_SHA256_H_

#include <string>
#include <string_view>

namespace khet {

// The 32-byte SHA-256 digest of `data`, as raw bytes.
std::string Sha256(std::string_view data);

// The digest as 64 lower-case hexadecimal digits.
std::string Sha256Hex(std::string_view data);

// Whether a and b are equal, taking time that depends only on their lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace khet

#endif  // KHET_SERVICE_BASE_SHA256_H_
