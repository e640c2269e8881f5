// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The channel to khetd: plaintext or TLS, as the flags say.
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/khetctl/khetctl.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"

namespace khet::ctl {

// The channel to --server: plaintext, or TLS with --tls, --ca_cert or
// --tls_server_name. INVALID_ARGUMENT if --ca_cert cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(
    const CommandLine& flags) {
  const std::string server = flags.Get("server", "127.0.0.1:50051");
  const bool tls = flags.Switch("tls") || flags.Has("ca_cert") ||
                   flags.Has("tls_server_name");
  if (!tls) {
    return grpc::CreateChannel(server, grpc::InsecureChannelCredentials());
  }
  grpc::SslCredentialsOptions options;
  if (flags.Has("ca_cert")) {
    const std::string path = flags.Get("ca_cert");
    std::ifstream in(path, std::ios::binary);
    std::string pem((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
    if (!in.is_open() || in.bad() ||
        pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--ca_cert=", path, ": cannot be read or holds no PEM certificate"));
    }
    options.pem_root_certs = std::move(pem);
  }
  grpc::ChannelArguments arguments;
  if (flags.Has("tls_server_name")) {
    arguments.SetSslTargetNameOverride(flags.Get("tls_server_name"));
  }
  return grpc::CreateCustomChannel(server, grpc::SslCredentials(options),
                                   arguments);
}

}  // namespace khet::ctl
