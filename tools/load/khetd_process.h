// A khetd child process for the load tool: started on a free loopback port
// with a given store, its address read from the line it prints, its
// resident memory read from /proc, stopped with SIGTERM.
#ifndef KHET_TOOLS_LOAD_KHETD_PROCESS_H_
#define KHET_TOOLS_LOAD_KHETD_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace khet {

class KhetdProcess {
 public:
  // Runs `khetd_path` with `args` plus --listen=127.0.0.1:0, its stderr
  // appended to `log_path` ("/dev/null" to drop it), and waits up to 30 s
  // for "khetd listening on ADDR". UNAVAILABLE if it exits or stays silent.
  static absl::StatusOr<std::unique_ptr<KhetdProcess>> Start(
      const std::string& khetd_path, const std::vector<std::string>& args,
      const std::string& log_path);

  KhetdProcess(const KhetdProcess&) = delete;
  KhetdProcess& operator=(const KhetdProcess&) = delete;
  // Stops the process (SIGTERM, then SIGKILL after 10 s) if still running.
  ~KhetdProcess();

  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }

  // SIGTERM and wait; the exit code, or 128 + signal.
  int Stop();

 private:
  KhetdProcess(pid_t pid, std::string address)
      : pid_(pid), address_(std::move(address)) {}

  pid_t pid_;
  std::string address_;
  bool stopped_ = false;
};

// The resident set size of process `pid` in bytes (VmRSS in
// /proc/PID/status); NOT_FOUND if the process or the line is missing.
absl::StatusOr<int64_t> ResidentBytes(pid_t pid);

// The CPU time process `pid` has used, user and system, in nanoseconds
// (from /proc/PID/stat); NOT_FOUND if it cannot be read.
absl::StatusOr<int64_t> CpuNanos(pid_t pid);

}  // namespace khet

#endif  // KHET_TOOLS_LOAD_KHETD_PROCESS_H_
