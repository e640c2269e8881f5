// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/khetd/push_flags.h"

#include <algorithm>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"

ABSL_FLAG(bool, inworld_callbacks, true,
          "Let in-world boards register a URL (POST "
          "/v1/sessions/{id}/callback) that the session's events are pushed "
          "to, instead of long-polling");
ABSL_FLAG(std::string, inworld_callback_hosts, "",
          "Comma-separated host names (or \"*.\" and a domain, e.g. "
          "*.agni.lindenlab.com) that pushed events may go to besides the "
          "address a registration came from");
ABSL_FLAG(std::string, inworld_callback_ca_file, "",
          "PEM file of CAs trusted for https callback URLs besides the "
          "system's (Second Life's secure URLs are signed by Linden Lab's "
          "own CA)");
ABSL_FLAG(int, inworld_callback_max_boards, khet::PushOptions().max_boards,
          "Boards pushed to at once at most; beyond, a registration is "
          "refused (429) and the board long-polls");

namespace khet {

absl::Status ReadPushFlags(HttpGatewayOptions& options) {
  options.push_events = absl::GetFlag(FLAGS_inworld_callbacks);
  KHET_ASSIGN_OR_RETURN(
      options.pushes.hosts,
      CallbackHosts::Parse(absl::GetFlag(FLAGS_inworld_callback_hosts)));
  options.pushes.ca_file = absl::GetFlag(FLAGS_inworld_callback_ca_file);
  const int max_boards = absl::GetFlag(FLAGS_inworld_callback_max_boards);
  if (max_boards < 1 || max_boards > 1000000) {
    return absl::InvalidArgumentError(
        "--inworld_callback_max_boards must be 1 to 1000000");
  }
  options.pushes.max_boards = max_boards;
  options.pushes.max_boards_per_address =
      std::min(options.pushes.max_boards_per_address, max_boards);
  return absl::OkStatus();
}

}  // namespace khet
