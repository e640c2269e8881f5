// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/fair_use/client_identity.h"

#include "absl/strings/ascii.h"

namespace khet {

std::string ObjectKey(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  constexpr size_t kLength = 36;
  if (text.size() != kLength) return "";
  std::string key(kLength, '-');
  bool nil = true;
  for (size_t i = 0; i < kLength; ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return "";
      continue;
    }
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return "";
    key[i] = absl::ascii_tolower(static_cast<unsigned char>(c));
    if (c != '0') nil = false;
  }
  return nil ? "" : key;
}

Caller CallerFrom(const ClientIdentity& client, std::string token) {
  return Caller{std::move(token), client.address, client.object_key};
}

ClientIdentity IdentifyClient(const std::optional<IpAddress>& peer,
                              absl::Span<const absl::string_view> forwarded_for,
                              absl::string_view object_key,
                              const TrustedProxies& trusted) {
  ClientIdentity identity;
  identity.address =
      peer.has_value() ? BudgetKey(ClientAddress(*peer, forwarded_for, trusted))
                       : std::string(kUnknownAddress);
  identity.object_key = ObjectKey(object_key);
  return identity;
}

}  // namespace khet
