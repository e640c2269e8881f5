// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A child process for tests: a program started with fork and execv whose
// stdout the test reads line by line, with timeouts, and which is never
// left running behind the test.
#ifndef KHET_TESTS_SUPPORT_CHILD_PROCESS_H_
#define KHET_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace khet {

// Wiring: stdout is always a pipe read by ReadLine, ReadLineWith and
// ReadAll. stderr goes to a pipe read by ReadAll, or is appended to a file.
// stdin is /dev/null, or a pipe fed by WriteStdin.
//
// Exit codes, from Wait and ReadAll, are the program's exit code, or
// 128 + the signal that ended it.
//
// The destructor, if the process still runs, first sends the polite
// `stop_signal` (when it is not SIGKILL) and waits up to 10 s for the exit,
// then kills it with SIGKILL and reaps it. A process that starts children
// of its own (nginx's master and its workers) needs SIGTERM there: a SIGKILL
// would leave the children running.
//
// Not thread-safe: one thread uses a ChildProcess at a time.
class ChildProcess {
 public:
  struct Options {
    // Where stderr is appended; empty: into a pipe read by ReadAll.
    std::string stderr_path = {};
    // stdin is a pipe fed by WriteStdin, not /dev/null.
    bool stdin_pipe = false;
    // Sent first by the destructor if the process still runs.
    int stop_signal = SIGKILL;
    // When set: the soft RLIMIT_FSIZE of the process, in bytes (its hard
    // limit stays, so the test may raise it later with prlimit(2)), and
    // SIGXFSZ ignored, so that a write past it fails with EFBIG as on a
    // full disk instead of killing the process. It applies to every file
    // the process writes, the stderr file included.
    std::optional<rlim_t> file_size_limit = std::nullopt;
  };

  // Starts argv[0] (a path, not searched in PATH) with `argv`. nullptr if
  // a pipe, the stderr file or fork fails; a program that cannot be
  // executed exits with 127.
  static std::unique_ptr<ChildProcess> Start(
      const std::vector<std::string>& argv, const Options& options);
  static std::unique_ptr<ChildProcess> Start(
      const std::vector<std::string>& argv) {
    return Start(argv, Options());
  }

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  // Writes all of `text` to its stdin; false on an error.
  // REQUIRES: started with stdin_pipe.
  bool WriteStdin(const std::string& text);

  // The next line of stdout without its newline; nullopt at the end of the
  // output or when `timeout` passes first.
  std::optional<std::string> ReadLine(absl::Duration timeout);

  // Reads stdout lines until one contains `text` and returns that line;
  // nullopt at the end of the output or after `timeout`. Every line read,
  // the last one included, is appended with its newline to *seen unless
  // `seen` is null.
  std::optional<std::string> ReadLineWith(const std::string& text,
                                          absl::Duration timeout,
                                          std::string* seen = nullptr);

  // Reads stdout (and stderr, if piped) to their ends and waits for the
  // exit, all within `timeout`. nullopt on timeout; the process is then
  // killed with SIGKILL.
  struct Output {
    int exit_code = -1;
    std::string out;  // what the Read* calls before did not take
    std::string err;  // empty if stderr goes to a file
  };
  std::optional<Output> ReadAll(absl::Duration timeout);

  // Sends `signal` if the process has not been reaped yet.
  void Signal(int signal);

  // The process id; -1 once it has been reaped.
  pid_t pid() const { return pid_; }

  // The exit code; nullopt if it still runs after `timeout`. Once reaped,
  // returns the same code again at once.
  std::optional<int> Wait(absl::Duration timeout);

 private:
  ChildProcess(pid_t pid, int out, int err, int in, int stop_signal)
      : pid_(pid), out_(out), err_(err), in_(in), stop_signal_(stop_signal) {}

  pid_t pid_;
  int out_;
  int err_;
  int in_;
  const int stop_signal_;
  std::string out_buffer_;
  std::string err_buffer_;
  std::optional<int> exit_code_;
};

}  // namespace khet

#endif  // KHET_TESTS_SUPPORT_CHILD_PROCESS_H_
