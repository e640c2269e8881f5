// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/base/sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <memory>
#include <string>
#include <string_view>

namespace khet {

std::string Sha256(std::string_view data) {
  // The algorithm fetched once (SHA256() looks it up by name, under a lock
  // of OpenSSL's, on every call) and a context kept per thread.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  thread_local const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(
      EVP_MD_CTX_new(), EVP_MD_CTX_free);
  std::string out(SHA256_DIGEST_LENGTH, '\0');
  EVP_DigestInit_ex(ctx.get(), kSha256, nullptr);
  EVP_DigestUpdate(ctx.get(), data.data(), data.size());
  EVP_DigestFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(out.data()),
                     nullptr);
  return out;
}

std::string Sha256Hex(std::string_view data) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * SHA256_DIGEST_LENGTH);
  for (unsigned char c : Sha256(data)) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace khet
