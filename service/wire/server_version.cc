// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/wire/server_version.h"

#include "khet_version.h"

namespace khet {

v1::GetVersionResponse ServerVersion() {
  v1::GetVersionResponse out;
  out.set_version(kVersion);
  // The package the generated code was compiled from, not a copy of it.
  out.set_api(v1::GetVersionResponse::descriptor()->file()->package());
  out.set_board_scripts(kBoardScripts);
  out.set_board_scripts_url("/v1/inworld/");
  return out;
}

}  // namespace khet
