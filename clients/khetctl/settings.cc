// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A session's settings.
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

absl::Status SettingsFromFlags(const CommandLine& flags,
                               v1::SettingsUpdate* update) {
  if (flags.Has("timeout_enabled")) {
    update->set_timeout_enabled(flags.Switch("timeout_enabled"));
  }
  if (flags.Has("timeout_seconds")) {
    absl::StatusOr<int64_t> seconds =
        flags.GetInt("timeout_seconds", 0, 0, int64_t{1} << 40);
    if (!seconds.ok()) return seconds.status();
    update->set_timeout_seconds(*seconds);
  }
  if (flags.Has("quiet")) update->set_quiet(flags.Switch("quiet"));
  if (flags.Has("hints")) update->set_hints(flags.Switch("hints"));
  if (flags.Has("language")) update->set_language(flags.Get("language"));
  if (flags.Has("takebacks")) update->set_takebacks(flags.Switch("takebacks"));
  if (flags.Has("rated")) update->set_rated(flags.Switch("rated"));
  if (flags.Has("color_scheme")) {
    update->set_color_scheme(flags.Get("color_scheme"));
  }
  if (flags.Has("scale_meters")) {
    absl::StatusOr<double> scale = flags.GetDouble("scale_meters");
    if (!scale.ok()) return scale.status();
    update->set_scale_meters(*scale);
  }
  return absl::OkStatus();
}

int SettingsCommand(const Invocation& call) {
  v1::UpdateSettingsRequest request;
  request.set_session_id(call.session);
  if (absl::Status s =
          SettingsFromFlags(call.flags, request.mutable_settings());
      !s.ok()) {
    return UsageError(s.message());
  }
  return call.client.Call(&v1::KhetService::Stub::UpdateSettings, request,
                          SessionText);
}

}  // namespace khet::ctl
