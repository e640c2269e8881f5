// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/grpc/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace khet {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

absl::StatusOr<std::string> ReadFile(const std::string& flag,
                                     const std::string& path) {
  std::error_code error;
  std::ifstream in(path, std::ios::binary);
  if (!std::filesystem::is_regular_file(path, error) || !in.is_open()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", path, ": cannot be read"));
  }
  std::string contents((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
  if (in.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", path, ": cannot be read"));
  }
  return contents;
}

std::unique_ptr<BIO, BioFree> Bio(const std::string& pem) {
  return std::unique_ptr<BIO, BioFree>(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

}  // namespace

absl::StatusOr<TlsFiles> ReadTlsFiles(const std::string& cert_path,
                                      const std::string& key_path) {
  TlsFiles files;
  absl::StatusOr<std::string> cert = ReadFile("tls_cert", cert_path);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadFile("tls_key", key_path);
  if (!key.ok()) return key.status();
  files.cert_chain = *std::move(cert);
  files.private_key = *std::move(key);

  const std::unique_ptr<X509, X509Free> x509(PEM_read_bio_X509(
      Bio(files.cert_chain).get(), nullptr, nullptr, nullptr));
  const std::unique_ptr<EVP_PKEY, KeyFree> pkey(PEM_read_bio_PrivateKey(
      Bio(files.private_key).get(), nullptr, nullptr, nullptr));
  ERR_clear_error();  // the answers above say all we report
  if (x509 == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_cert=", cert_path, ": holds no PEM certificate"));
  }
  if (pkey == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls_key=", key_path,
        ": holds no PEM private key (an unencrypted one is needed)"));
  }
  if (X509_check_private_key(x509.get(), pkey.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls_key=", key_path, ": is not the key of --tls_cert=", cert_path));
  }
  return files;
}

}  // namespace khet
