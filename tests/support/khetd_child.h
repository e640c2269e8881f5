// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd started by a test on free loopback ports, ready once it has printed
// "khetd listening on ADDR" (and "khetd http listening on ADDR" when its
// HTTP gateway is on).
#ifndef KHET_TESTS_SUPPORT_KHETD_CHILD_H_
#define KHET_TESTS_SUPPORT_KHETD_CHILD_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/support/child_process.h"

namespace khet {

class KhetdChild {
 public:
  struct Options {
    // Also serve HTTP on a free port; otherwise --http_listen is empty.
    bool http = false;
    // How long khetd may take to print its listening lines.
    absl::Duration start_timeout = absl::Seconds(60);
    // The largest file khetd may write (ChildProcess::Options), its log
    // included; unset: no limit of the test's.
    std::optional<rlim_t> file_size_limit = std::nullopt;
  };

  // Runs `khetd_path` with --listen=127.0.0.1:0, --http_listen as
  // `options` says, then `flags`; its stderr appended to `log_path`, its
  // stdout read for the listening lines. UNAVAILABLE, with what it printed
  // instead, if it does not start. Killed with SIGKILL when destroyed.
  static absl::StatusOr<std::unique_ptr<KhetdChild>> Start(
      const std::string& khetd_path, const std::vector<std::string>& flags,
      const std::string& log_path, const Options& options);

  // The gRPC address, "127.0.0.1:PORT".
  const std::string& address() const { return address_; }
  // The HTTP port; 0 without options.http.
  int http_port() const { return http_port_; }
  ChildProcess& process() { return *process_; }
  // Its stderr so far.
  std::string log() const;

 private:
  KhetdChild(std::unique_ptr<ChildProcess> process, std::string log_path)
      : process_(std::move(process)), log_path_(std::move(log_path)) {}

  std::unique_ptr<ChildProcess> process_;
  std::string log_path_;
  std::string address_;
  int http_port_ = 0;
};

}  // namespace khet

#endif  // KHET_TESTS_SUPPORT_KHETD_CHILD_H_
