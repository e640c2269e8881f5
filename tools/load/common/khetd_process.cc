// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/common/khetd_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace khet {
namespace {

constexpr absl::Duration kStartTimeout = absl::Seconds(30);
constexpr absl::Duration kStopTimeout = absl::Seconds(10);
constexpr char kReadyPrefix[] = "khetd listening on ";
constexpr char kHttpReadyPrefix[] = "khetd http listening on ";

// The address after `prefix` on a whole line of `output`; "" if none yet.
std::string AddressAfter(const std::string& output, const std::string& prefix) {
  size_t at = output.find(prefix);
  while (at != std::string::npos && at > 0 && output[at - 1] != '\n') {
    at = output.find(prefix, at + 1);
  }
  if (at == std::string::npos) return "";
  const size_t end = output.find('\n', at);
  if (end == std::string::npos) return "";
  return output.substr(at + prefix.size(), end - at - prefix.size());
}

// The value of a "/proc/PID/status" line `key` (e.g. "VmRSS:"), its
// leading number.
absl::StatusOr<int64_t> StatusNumber(pid_t pid, absl::string_view key) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, key)) continue;
    rest = absl::StripAsciiWhitespace(rest);
    absl::ConsumeSuffix(&rest, "kB");
    int64_t value = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(rest), &value)) {
      return value;
    }
  }
  return absl::NotFoundError(
      absl::StrCat("no ", key, " line in /proc/", pid, "/status"));
}

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Waits up to `timeout` for `pid` to end; its exit code, or -1 if it still
// runs.
int WaitFor(pid_t pid, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return DecodeWaitStatus(status);
    if (done < 0) return -1;
    if (absl::Now() >= deadline) return -1;
    absl::SleepFor(absl::Milliseconds(10));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<KhetdProcess>> KhetdProcess::Start(
    const std::string& khetd_path, const std::vector<std::string>& args,
    const std::string& log_path, bool http) {
  std::vector<std::string> argv = {
      khetd_path, "--listen=127.0.0.1:0",
      http ? "--http_listen=127.0.0.1:0" : "--http_listen="};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (std::string& arg : argv) raw.push_back(arg.data());
  raw.push_back(nullptr);

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    return absl::UnavailableError("khetd: cannot make a pipe");
  }
  const int log_fd =
      open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) {
    close(out[0]);
    close(out[1]);
    return absl::UnavailableError(
        absl::StrCat("khetd: cannot open the log file ", log_path));
  }
  const pid_t pid = fork();
  if (pid == 0) {  // only async-signal-safe calls from here on
    dup2(null_fd, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execv(raw[0], raw.data());
    _exit(127);
  }
  close(out[1]);
  close(log_fd);
  close(null_fd);
  if (pid < 0) {
    close(out[0]);
    return absl::UnavailableError("khetd: fork failed");
  }

  // Read stdout until the ready line, the end of the output, or timeout.
  std::string output;
  const absl::Time deadline = absl::Now() + kStartTimeout;
  std::string address;
  std::string http_address;
  while (address.empty() || (http && http_address.empty())) {
    const absl::Duration left = deadline - absl::Now();
    pollfd p{out[0], POLLIN, 0};
    if (left <= absl::ZeroDuration() ||
        poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) <=
            0) {
      break;
    }
    char buffer[256];
    const ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;
    output.append(buffer, static_cast<size_t>(n));
    address = AddressAfter(output, kReadyPrefix);
    http_address = AddressAfter(output, kHttpReadyPrefix);
  }
  close(out[0]);  // khetd writes nothing else to stdout
  const size_t colon = http_address.rfind(':');
  int http_port = 0;
  if (http && (colon == std::string::npos ||
               !absl::SimpleAtoi(http_address.substr(colon + 1), &http_port) ||
               http_port <= 0)) {
    address.clear();
  }
  if (address.empty()) {
    kill(pid, SIGKILL);
    const int code = WaitFor(pid, kStopTimeout);
    return absl::UnavailableError(absl::StrCat(
        "khetd did not say it was listening (exit code ", code,
        "; its stderr is in ", log_path, "); stdout: \"", output, "\""));
  }
  return std::unique_ptr<KhetdProcess>(
      new KhetdProcess(pid, std::move(address), http_port));
}

KhetdProcess::~KhetdProcess() {
  if (!stopped_) Stop();
}

int KhetdProcess::Stop() {
  stopped_ = true;
  kill(pid_, SIGTERM);
  int code = WaitFor(pid_, kStopTimeout);
  if (code < 0) {
    kill(pid_, SIGKILL);
    code = WaitFor(pid_, kStopTimeout);
  }
  return code;
}

absl::StatusOr<int64_t> ResidentBytes(pid_t pid) {
  absl::StatusOr<int64_t> kb = StatusNumber(pid, "VmRSS:");
  if (!kb.ok()) return kb.status();
  return *kb * 1024;
}

absl::StatusOr<int> ThreadCount(pid_t pid) {
  absl::StatusOr<int64_t> threads = StatusNumber(pid, "Threads:");
  if (!threads.ok()) return threads.status();
  return static_cast<int>(*threads);
}

absl::StatusOr<int64_t> CpuNanos(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat;
  std::getline(in, stat);
  // The command name (field 2) may hold spaces; count from its ")".
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) {
    return absl::NotFoundError(
        absl::StrCat("cannot read /proc/", pid, "/stat"));
  }
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(close + 2), ' ');
  // Fields 14 and 15 of the file (utime, stime) are 11 and 12 after ")".
  int64_t utime = 0, stime = 0;
  if (fields.size() < 13 || !absl::SimpleAtoi(fields[11], &utime) ||
      !absl::SimpleAtoi(fields[12], &stime)) {
    return absl::NotFoundError(
        absl::StrCat("cannot read /proc/", pid, "/stat"));
  }
  const int64_t ticks = sysconf(_SC_CLK_TCK);
  return (utime + stime) * (1'000'000'000 / ticks);
}

}  // namespace khet
