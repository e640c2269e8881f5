// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

int UsageError(absl::string_view message) {
  std::cerr << "khetctl: " << message << "\n(run `khetctl help` for the usage)"
            << std::endl;
  return kExitUsage;
}

const std::set<std::string>& CommandLine::Valued() {
  static const auto* const kValued =
      new std::set<std::string>{"server",
                                "token",
                                "deadline",
                                "session",
                                "name",
                                "setup",
                                "position",
                                "ply_limit",
                                "timeout_seconds",
                                "color_scheme",
                                "scale_meters",
                                "status",
                                "page_size",
                                "page_token",
                                "color",
                                "expected_version",
                                "request_id",
                                "square",
                                "after_version",
                                "level",
                                "depth",
                                "nodes",
                                "time_ms",
                                "vs_computer",
                                "service",
                                "ca_cert",
                                "tls_server_name",
                                "game",
                                "player",
                                "result",
                                "ply",
                                "record",
                                "ms_per_ply",
                                "preset",
                                "language",
                                "fischer",
                                "per_move",
                                "player_id"};
  return *kValued;
}

const std::set<std::string>& CommandLine::Switches() {
  static const auto* const kSwitches =
      new std::set<std::string>{"json",
                                "tls",
                                "both_pharaohs_hit_draws",
                                "automatic_repetition_draw",
                                "timeout_enabled",
                                "quiet",
                                "hints",
                                "takebacks",
                                "rated",
                                "without_laser",
                                "no_wait",
                                "help",
                                "version"};
  return *kSwitches;
}

std::optional<std::string> CommandLine::Parse(int argc, char** argv) {
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_done || arg.size() < 3 || arg.substr(0, 2) != "--") {
      if (arg == "--") {
        flags_done = true;
        continue;
      }
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    std::replace(name.begin(), name.end(), '-', '_');
    if (Switches().count(name) != 0) {
      if (!value.has_value()) value = "true";
      const std::string lower = absl::AsciiStrToLower(*value);
      if (lower == "true" || lower == "yes" || lower == "1") {
        value = "true";
      } else if (lower == "false" || lower == "no" || lower == "0") {
        value = "false";
      } else {
        return absl::StrCat("--", name, "=", *value, ": must be true or false");
      }
    } else if (Valued().count(name) != 0) {
      if (!value.has_value()) {
        if (i + 1 >= argc) return absl::StrCat("--", name, " needs a value");
        value = argv[++i];
      }
    } else {
      return absl::StrCat("unknown flag --", name);
    }
    if (values_.count(name) != 0) {
      return absl::StrCat("--", name, " is given twice");
    }
    values_[name] = *value;
  }
  return std::nullopt;
}

std::optional<std::string> CommandLine::CheckAllowed(
    const std::string& command, const std::set<std::string>& allowed) const {
  static const std::set<std::string> kGlobal = {
      "server", "token", "json",    "deadline",
      "help",   "tls",   "ca_cert", "tls_server_name"};
  for (const auto& [name, value] : values_) {
    if (kGlobal.count(name) == 0 && allowed.count(name) == 0) {
      return absl::StrCat("`", command, "` takes no --", name);
    }
  }
  return std::nullopt;
}

absl::StatusOr<int64_t> CommandLine::GetInt(const std::string& name,
                                            int64_t fallback, int64_t min,
                                            int64_t max) const {
  if (!Has(name)) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(Get(name), &value) || value < min || value > max) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--%s=%s: must be a whole number from %d to %d", name,
                        Get(name), min, max));
  }
  return value;
}

absl::StatusOr<double> CommandLine::GetDouble(const std::string& name) const {
  double value = 0;
  if (!absl::SimpleAtod(Get(name), &value)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--%s=%s: must be a number", name, Get(name)));
  }
  return value;
}

const std::set<std::string> kRulesFlags = {"both_pharaohs_hit_draws",
                                           "automatic_repetition_draw",
                                           "ply_limit", "fischer", "per_move"};
const std::set<std::string> kSettingsFlags = {
    "timeout_enabled", "timeout_seconds", "quiet",
    "color_scheme",    "scale_meters",    "hints",
    "language",        "takebacks",       "rated"};

std::set<std::string> Union(std::initializer_list<std::set<std::string>> sets) {
  std::set<std::string> out;
  for (const auto& s : sets) out.insert(s.begin(), s.end());
  return out;
}

}  // namespace khet::ctl
