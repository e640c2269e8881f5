// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The certificate and private key khetd presents over TLS (--tls_cert,
// --tls_key): read from PEM files and checked to belong together before any
// port opens, so that a wrong file stops khetd at start with a message
// naming it rather than failing every client's handshake.
#ifndef KHET_SERVICE_GRPC_TLS_FILES_H_
#define KHET_SERVICE_GRPC_TLS_FILES_H_

#include <string>

#include "absl/status/statusor.h"

namespace khet {

struct TlsFiles {
  std::string cert_chain;   // PEM: the server's certificate, then any CAs
  std::string private_key;  // PEM: the certificate's key
};

// INVALID_ARGUMENT naming the flag and file when a file cannot be read,
// holds no PEM certificate (or key), or the key is not the certificate's.
absl::StatusOr<TlsFiles> ReadTlsFiles(const std::string& cert_path,
                                      const std::string& key_path);

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_TLS_FILES_H_
