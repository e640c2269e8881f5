// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Who a call comes from, as both doors establish it for the per-caller
// budgets: the client's address (the socket's peer, or the client named by
// a trusted proxy's X-Forwarded-For) as its budget key, and an in-world
// object's key when the call carries one (X-SecondLife-Object-Key, which
// Second Life and OpenSimulator add to every script's request). The object
// key may be forged by anyone: the budgets let it split its address's
// budget among objects, never raise it beyond a flag (caller_budgets.h).
#ifndef KHET_SERVICE_FAIR_USE_CLIENT_IDENTITY_H_
#define KHET_SERVICE_FAIR_USE_CLIENT_IDENTITY_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "service/fair_use/client_address.h"
#include "service/sessions/caller.h"

namespace khet {

// The headers (HTTP) and metadata keys (gRPC) read, in lower case.
inline constexpr absl::string_view kForwardedForHeader = "x-forwarded-for";
inline constexpr absl::string_view kObjectKeyHeader = "x-secondlife-object-key";

// The address key of a peer that is no IP address (a Unix socket).
inline constexpr absl::string_view kUnknownAddress = "unknown";

struct ClientIdentity {
  // BudgetKey of the client's address ("192.0.2.7", "2001:db8:1:2::/64"),
  // or kUnknownAddress.
  std::string address;
  // The in-world object's key as canonical text (a lower-case UUID); empty
  // when the call names none.
  std::string object_key;
};

// `text` as an in-world object's key: a UUID (8-4-4-4-12 hexadecimal
// digits, either case, surrounding spaces ignored) other than the nil one,
// in lower case; empty for anything else.
std::string ObjectKey(absl::string_view text);

// The identity of a call from `peer` (nullopt: not an IP peer) with the
// values of its X-Forwarded-For headers (in order) and of its first
// X-SecondLife-Object-Key header (empty: none).
ClientIdentity IdentifyClient(const std::optional<IpAddress>& peer,
                              absl::Span<const absl::string_view> forwarded_for,
                              absl::string_view object_key,
                              const TrustedProxies& trusted);

// The core's Caller for `client`, carrying `token`.
Caller CallerFrom(const ClientIdentity& client, std::string token = "");

}  // namespace khet

#endif  // KHET_SERVICE_FAIR_USE_CLIENT_IDENTITY_H_
