// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Where khetd may push a board's events (docs/http-api.md, "Pushed events"):
// a callback URL read strictly and the rule that keeps it from becoming a
// way to make khetd call any host. A URL is accepted only if it is http or
// https, names a host and no user, and its host either resolves to the
// address the registration came from (a simulator registering its own
// object's URL) or matches one of the operator's host patterns
// (--inworld_callback_hosts). Deliveries then go to the address checked
// here, never to a later answer of the resolver.
#ifndef KHET_SERVICE_HTTP_CALLBACK_TARGET_H_
#define KHET_SERVICE_HTTP_CALLBACK_TARGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "service/fair_use/client_address.h"

namespace khet {

inline constexpr size_t kMaxCallbackUrlBytes = 1024;

// A callback URL's parts.
struct CallbackUrl {
  bool tls = false;    // https
  std::string host;    // lower case; an IPv6 literal without brackets
  uint16_t port = 0;   // 80 or 443 unless the URL names one
  std::string target;  // the path and query, at least "/"
};

// INVALID_ARGUMENT naming the problem for anything but
// "http[s]://host[:port][/path][?query]" of at most kMaxCallbackUrlBytes
// printable ASCII bytes: other schemes, a user ("user@"), a fragment, an
// empty host or a bad port.
absl::StatusOr<CallbackUrl> ParseCallbackUrl(absl::string_view url);

// The operator's host patterns: exact names ("sim1.example.org") or a
// leading "*." for any name below a domain ("*.agni.lindenlab.com", which
// does not match "agni.lindenlab.com" itself). Case does not matter.
class CallbackHosts {
 public:
  // A comma-separated list; INVALID_ARGUMENT naming a pattern that is empty,
  // has a "*" anywhere but a leading "*.", or a character a host name
  // cannot have.
  static absl::StatusOr<CallbackHosts> Parse(absl::string_view list);

  bool Matches(absl::string_view host) const;
  bool empty() const { return patterns_.empty(); }

 private:
  std::vector<std::string> patterns_;
};

// Resolves `url`'s host (numeric hosts are not looked up) and picks the
// address deliveries go to: one equal to `caller`, or, when the host
// matches `hosts`, its first address. PERMISSION_DENIED naming the host
// and the caller's address when neither holds; INVALID_ARGUMENT when the
// name does not resolve.
absl::StatusOr<IpAddress> CheckCallbackTarget(const CallbackUrl& url,
                                              const IpAddress& caller,
                                              const CallbackHosts& hosts);

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_CALLBACK_TARGET_H_
