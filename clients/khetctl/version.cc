// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// version: the release of the khetd answering (GetVersion). khetctl's own
// is `khetctl --version` (main.cc).
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

int VersionCommand(const Invocation& call) {
  return call.client.Call(
      &v1::KhetService::Stub::GetVersion, v1::GetVersionRequest(),
      [](const v1::GetVersionResponse& r) {
        return absl::StrCat("khetd ", r.version(), " (", r.api(), ")\n");
      });
}

}  // namespace khet::ctl
