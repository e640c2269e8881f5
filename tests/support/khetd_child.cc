// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tests/support/khetd_child.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/support/text_file.h"

namespace khet {
namespace {

// The next stdout line of *process, which must be `prefix` followed by
// "HOST:PORT" with a positive port: that address and port.
absl::Status ReadListeningLine(ChildProcess* process, absl::string_view prefix,
                               absl::Time deadline, std::string* address,
                               int* port) {
  const std::optional<std::string> line =
      process->ReadLine(deadline - absl::Now());
  if (!line.has_value()) {
    // On the failure path only: a second for an exit to be reaped.
    const std::optional<int> exit_code = process->Wait(absl::Seconds(1));
    return absl::UnavailableError(absl::StrCat(
        "khetd ",
        exit_code.has_value() ? absl::StrCat("exited with code ", *exit_code)
                              : std::string("printed no line in time"),
        " instead of \"", prefix, "ADDR\""));
  }
  const size_t colon = line->rfind(':');
  if (!absl::StartsWith(*line, prefix) || colon == std::string::npos ||
      !absl::SimpleAtoi(line->substr(colon + 1), port) || *port <= 0) {
    return absl::UnavailableError(
        absl::StrCat("khetd said \"", *line, "\", not \"", prefix, "ADDR\""));
  }
  *address = line->substr(prefix.size());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<KhetdChild>> KhetdChild::Start(
    const std::string& khetd_path, const std::vector<std::string>& flags,
    const std::string& log_path, const Options& options) {
  std::vector<std::string> argv = {
      khetd_path, "--listen=127.0.0.1:0",
      options.http ? "--http_listen=127.0.0.1:0" : "--http_listen="};
  argv.insert(argv.end(), flags.begin(), flags.end());
  std::unique_ptr<ChildProcess> process = ChildProcess::Start(
      argv,
      {.stderr_path = log_path, .file_size_limit = options.file_size_limit});
  if (process == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot start ", khetd_path));
  }
  auto khetd =
      std::unique_ptr<KhetdChild>(new KhetdChild(std::move(process), log_path));
  const absl::Time deadline = absl::Now() + options.start_timeout;
  int port = 0;
  if (absl::Status status =
          ReadListeningLine(khetd->process_.get(), "khetd listening on ",
                            deadline, &khetd->address_, &port);
      !status.ok()) {
    return status;
  }
  if (options.http) {
    std::string http_address;
    if (absl::Status status =
            ReadListeningLine(khetd->process_.get(), "khetd http listening on ",
                              deadline, &http_address, &khetd->http_port_);
        !status.ok()) {
      return status;
    }
  }
  return khetd;
}

std::string KhetdChild::log() const { return ReadTextFile(log_path_); }

}  // namespace khet
