// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tests/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/time/clock.h"

namespace khet {
namespace {

// Exit code, or 128 + the signal that ended the process.
int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Milliseconds for poll until `deadline`, rounded up so that a wait never
// ends early.
int PollMillis(absl::Time deadline) {
  return static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now())) +
         1;
}

// Appends what is readable from *fd; closes it at the end of its data.
// False if nothing was read.
bool ReadSome(int* fd, std::string* buffer) {
  char chunk[4096];
  const ssize_t n = read(*fd, chunk, sizeof(chunk));
  if (n < 0 && errno == EINTR) return false;
  if (n <= 0) {
    close(*fd);
    *fd = -1;
    return false;
  }
  buffer->append(chunk, static_cast<size_t>(n));
  return true;
}

void CloseIfOpen(int fd) {
  if (fd >= 0) close(fd);
}

}  // namespace

std::unique_ptr<ChildProcess> ChildProcess::Start(
    const std::vector<std::string>& argv, const Options& options) {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  int in[2] = {-1, -1};
  const bool err_pipe = options.stderr_path.empty();
  if (pipe2(out, O_CLOEXEC) != 0 || (err_pipe && pipe2(err, O_CLOEXEC) != 0) ||
      (options.stdin_pipe && pipe2(in, O_CLOEXEC) != 0)) {
    for (const int fd : {out[0], out[1], err[0], err[1], in[0], in[1]}) {
      CloseIfOpen(fd);
    }
    return nullptr;
  }
  // Everything the child needs is prepared before fork: after it, in a
  // process that may have threads, the child only calls async-signal-safe
  // functions.
  std::vector<char*> args;
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  const int child_err =
      err_pipe ? err[1]
               : open(options.stderr_path.c_str(),
                      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int child_in =
      options.stdin_pipe ? in[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
  struct rlimit file_size;
  const bool limit_file_size = options.file_size_limit.has_value();
  if (limit_file_size) {
    getrlimit(RLIMIT_FSIZE, &file_size);
    file_size.rlim_cur = std::min(*options.file_size_limit, file_size.rlim_max);
  }
  const pid_t pid = child_err < 0 || child_in < 0 ? -1 : fork();
  if (pid == 0) {
    if (limit_file_size) {
      signal(SIGXFSZ, SIG_IGN);  // an ignored signal stays so across execv
      setrlimit(RLIMIT_FSIZE, &file_size);
    }
    dup2(child_in, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(child_err, STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  for (const int fd : {out[1], child_err, child_in}) CloseIfOpen(fd);
  if (pid < 0) {
    for (const int fd : {out[0], err[0], in[1]}) CloseIfOpen(fd);
    return nullptr;
  }
  return std::unique_ptr<ChildProcess>(
      new ChildProcess(pid, out[0], err[0], in[1], options.stop_signal));
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && stop_signal_ != SIGKILL) {
    kill(pid_, stop_signal_);
    Wait(absl::Seconds(10));
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  for (const int fd : {out_, err_, in_}) CloseIfOpen(fd);
}

bool ChildProcess::WriteStdin(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(in_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::optional<std::string> ChildProcess::ReadLine(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (const size_t nl = out_buffer_.find('\n'); nl != std::string::npos) {
      std::string line = out_buffer_.substr(0, nl);
      out_buffer_.erase(0, nl + 1);
      return line;
    }
    if (out_ < 0 || absl::Now() >= deadline) return std::nullopt;
    pollfd fd{out_, POLLIN, 0};
    if (poll(&fd, 1, PollMillis(deadline)) > 0) ReadSome(&out_, &out_buffer_);
  }
}

std::optional<std::string> ChildProcess::ReadLineWith(const std::string& text,
                                                      absl::Duration timeout,
                                                      std::string* seen) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    std::optional<std::string> line = ReadLine(deadline - absl::Now());
    if (!line.has_value()) return std::nullopt;
    if (seen != nullptr) seen->append(*line).push_back('\n');
    if (line->find(text) != std::string::npos) return line;
  }
}

std::optional<ChildProcess::Output> ChildProcess::ReadAll(
    absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (out_ >= 0 || err_ >= 0) {
    if (absl::Now() >= deadline) {
      Signal(SIGKILL);
      return std::nullopt;
    }
    pollfd fds[2];
    int n = 0;
    if (out_ >= 0) fds[n++] = {out_, POLLIN, 0};
    if (err_ >= 0) fds[n++] = {err_, POLLIN, 0};
    if (poll(fds, n, PollMillis(deadline)) <= 0) continue;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == out_) {
        ReadSome(&out_, &out_buffer_);
      } else {
        ReadSome(&err_, &err_buffer_);
      }
    }
  }
  const std::optional<int> code = Wait(deadline - absl::Now());
  if (!code.has_value()) {
    Signal(SIGKILL);
    return std::nullopt;
  }
  return Output{*code, std::exchange(out_buffer_, ""),
                std::exchange(err_buffer_, "")};
}

void ChildProcess::Signal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

std::optional<int> ChildProcess::Wait(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (pid_ > 0) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      exit_code_ = DecodeWaitStatus(status);
      break;
    }
    if (absl::Now() >= deadline) return std::nullopt;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return exit_code_;
}

}  // namespace khet
