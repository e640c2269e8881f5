// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A khetd child process for the load tools: started on a free loopback port
// (and a second one for HTTP, if asked) with a given store, its addresses
// read from the lines it prints, its resident memory, threads and CPU time
// read from /proc, stopped with SIGTERM.
#ifndef KHET_TOOLS_LOAD_COMMON_KHETD_PROCESS_H_
#define KHET_TOOLS_LOAD_COMMON_KHETD_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace khet {

class KhetdProcess {
 public:
  // Runs `khetd_path` with --listen=127.0.0.1:0, --http_listen (a free
  // loopback port with `http`, else empty) and `args`, its stderr appended
  // to `log_path` ("/dev/null" to drop it), and waits up to 30 s for
  // "khetd listening on ADDR" (and "khetd http listening on ADDR").
  // UNAVAILABLE if it exits or stays silent.
  static absl::StatusOr<std::unique_ptr<KhetdProcess>> Start(
      const std::string& khetd_path, const std::vector<std::string>& args,
      const std::string& log_path, bool http = false);

  KhetdProcess(const KhetdProcess&) = delete;
  KhetdProcess& operator=(const KhetdProcess&) = delete;
  // Stops the process (SIGTERM, then SIGKILL after 10 s) if still running.
  ~KhetdProcess();

  // The gRPC address, "127.0.0.1:PORT".
  const std::string& address() const { return address_; }
  // The HTTP port; 0 without `http`.
  int http_port() const { return http_port_; }
  pid_t pid() const { return pid_; }

  // SIGTERM and wait; the exit code, or 128 + signal.
  int Stop();

 private:
  KhetdProcess(pid_t pid, std::string address, int http_port)
      : pid_(pid), address_(std::move(address)), http_port_(http_port) {}

  pid_t pid_;
  std::string address_;
  int http_port_;
  bool stopped_ = false;
};

// The resident set size of process `pid` in bytes (VmRSS in
// /proc/PID/status); NOT_FOUND if the process or the line is missing.
absl::StatusOr<int64_t> ResidentBytes(pid_t pid);

// The threads of process `pid` (Threads in /proc/PID/status); NOT_FOUND
// if the process or the line is missing.
absl::StatusOr<int> ThreadCount(pid_t pid);

// The CPU time process `pid` has used, user and system, in nanoseconds
// (from /proc/PID/stat); NOT_FOUND if it cannot be read.
absl::StatusOr<int64_t> CpuNanos(pid_t pid);

}  // namespace khet

#endif  // KHET_TOOLS_LOAD_COMMON_KHETD_PROCESS_H_
