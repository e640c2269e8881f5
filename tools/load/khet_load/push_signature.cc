// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/push_signature.h"

#include <openssl/evp.h>

namespace khet::load {

std::string PushSignature(absl::string_view secret, absl::string_view body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
  EVP_DigestUpdate(context, secret.data(), secret.size());
  EVP_DigestUpdate(context, body.data(), body.size());
  EVP_DigestUpdate(context, secret.data(), secret.size());
  EVP_DigestFinal_ex(context, digest, &size);
  EVP_MD_CTX_free(context);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * size, '0');
  for (unsigned int i = 0; i < size; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace khet::load
