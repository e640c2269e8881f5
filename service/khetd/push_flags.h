// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's flags for events pushed to in-world boards (board_pushes.h):
// --inworld_callbacks, --inworld_callback_hosts,
// --inworld_callback_ca_file, --inworld_callback_max_boards.
#ifndef KHET_SERVICE_KHETD_PUSH_FLAGS_H_
#define KHET_SERVICE_KHETD_PUSH_FLAGS_H_

#include "absl/status/status.h"
#include "service/http/gateway_options.h"

namespace khet {

// Sets push_events and pushes of `options` from the flags;
// INVALID_ARGUMENT naming the flag that is wrong.
absl::Status ReadPushFlags(HttpGatewayOptions& options);

}  // namespace khet

#endif  // KHET_SERVICE_KHETD_PUSH_FLAGS_H_
