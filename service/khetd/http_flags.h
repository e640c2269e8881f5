// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's flags for the HTTP server's limits: waiting requests, threads,
// connections (per address and in-world), headers and timeouts.
#ifndef KHET_SERVICE_KHETD_HTTP_FLAGS_H_
#define KHET_SERVICE_KHETD_HTTP_FLAGS_H_

#include "absl/status/status.h"
#include "service/http/gateway_options.h"

namespace khet {

// Sets the limits of `options` (and of options.server) from the flags;
// INVALID_ARGUMENT naming the flag that is wrong.
absl::Status ReadHttpFlags(HttpGatewayOptions& options);

}  // namespace khet

#endif  // KHET_SERVICE_KHETD_HTTP_FLAGS_H_
