// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/khetd/budget_flags.h"

#include <string>
#include <tuple>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "service/fair_use/client_address.h"

ABSL_FLAG(std::string, trusted_proxies, "",
          "Comma-separated CIDR blocks (IPv4 and IPv6) of the proxies whose "
          "X-Forwarded-For (gRPC: x-forwarded-for metadata) names the client; "
          "their HTTP connections count toward --http_max_connections alone; "
          "empty: the header is ignored and the socket's peer is the client");
ABSL_FLAG(int, calls_per_second, khet::CallerBudgetOptions().calls_per_second,
          "Calls a second one client address may make (a token bucket); "
          "beyond: RESOURCE_EXHAUSTED (HTTP 429 with Retry-After); 0: no "
          "budget");
ABSL_FLAG(int, calls_burst, khet::CallerBudgetOptions().calls_burst,
          "Calls one client address may make at once, on top of "
          "--calls_per_second");
ABSL_FLAG(int, inworld_address_calls_per_second,
          khet::CallerBudgetOptions().inworld_address_calls_per_second,
          "Calls a second one address may make in all with an in-world object "
          "key (X-SecondLife-Object-Key): a simulator host's boards together; "
          "0: object keys are ignored");
ABSL_FLAG(int, inworld_address_calls_burst,
          khet::CallerBudgetOptions().inworld_address_calls_burst,
          "Burst of --inworld_address_calls_per_second");
ABSL_FLAG(int, inworld_object_calls_per_second,
          khet::CallerBudgetOptions().inworld_object_calls_per_second,
          "Calls a second one in-world object may make, within its address's "
          "--inworld_address_calls_per_second; 0: no budget per object");
ABSL_FLAG(int, inworld_object_calls_burst,
          khet::CallerBudgetOptions().inworld_object_calls_burst,
          "Burst of --inworld_object_calls_per_second");

namespace khet {

absl::StatusOr<CallerBudgetOptions> ReadBudgetFlags() {
  CallerBudgetOptions budget_options;
  absl::StatusOr<TrustedProxies> trusted =
      TrustedProxies::Parse(absl::GetFlag(FLAGS_trusted_proxies));
  if (!trusted.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--trusted_proxies: ", trusted.status().message()));
  }
  budget_options.trusted_proxies = *std::move(trusted);
  for (const auto& [flag, rate, burst, rate_field, burst_field] :
       {std::tuple{"--calls_per_second", absl::GetFlag(FLAGS_calls_per_second),
                   absl::GetFlag(FLAGS_calls_burst),
                   &budget_options.calls_per_second,
                   &budget_options.calls_burst},
        std::tuple{"--inworld_address_calls_per_second",
                   absl::GetFlag(FLAGS_inworld_address_calls_per_second),
                   absl::GetFlag(FLAGS_inworld_address_calls_burst),
                   &budget_options.inworld_address_calls_per_second,
                   &budget_options.inworld_address_calls_burst},
        std::tuple{"--inworld_object_calls_per_second",
                   absl::GetFlag(FLAGS_inworld_object_calls_per_second),
                   absl::GetFlag(FLAGS_inworld_object_calls_burst),
                   &budget_options.inworld_object_calls_per_second,
                   &budget_options.inworld_object_calls_burst}}) {
    *rate_field = rate;
    *burst_field = burst;
    if (*rate_field < 0 || *rate_field > 1000000 || *burst_field < 1 ||
        *burst_field > 10000000) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag,
                       " must be 0 (no budget) to 1000000 and its burst 1 to "
                       "10000000"));
    }
  }
  return budget_options;
}

}  // namespace khet
