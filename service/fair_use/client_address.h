// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Client addresses as the per-caller budgets see them: IP addresses and
// CIDR ranges read strictly (the C library's inet_pton, nothing guessed),
// the client behind trusted proxies (X-Forwarded-For), gRPC's peer text,
// and the key a budget counts an address under. Free of any server.
#ifndef KHET_SERVICE_FAIR_USE_CLIENT_ADDRESS_H_
#define KHET_SERVICE_FAIR_USE_CLIENT_ADDRESS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace khet {

// An IPv4 or IPv6 address. An IPv4-mapped IPv6 address (::ffff:1.2.3.4,
// which a dual-stack socket reports for IPv4 clients) is the IPv4 address.
class IpAddress {
 public:
  // "192.0.2.7", "2001:db8::1" or "[2001:db8::1]"; nullopt for anything
  // else: ports, zone ids ("fe80::1%eth0"), spaces, leading zeros in IPv4
  // ("010.0.0.1"), host names.
  static std::optional<IpAddress> Parse(absl::string_view text);

  bool is_v4() const { return v4_; }
  // 32 or 128.
  int bits() const { return v4_ ? 32 : 128; }
  // Dotted IPv4, or IPv6 as RFC 5952 writes it ("2001:db8::1").
  std::string ToString() const;
  // The address with every bit after the first `bits` cleared. REQUIRES:
  // 0 <= bits <= this->bits().
  IpAddress Prefix(int bits) const;

  bool operator==(const IpAddress& other) const = default;

 private:
  IpAddress() = default;

  bool v4_ = false;
  // IPv4 in the first four bytes, the rest zero.
  std::array<uint8_t, 16> bytes_{};
};

// A CIDR block, "10.0.0.0/8" or "fd00::/8"; a lone address is its /32 or
// /128.
class IpRange {
 public:
  // INVALID_ARGUMENT naming `text` when it does not read, its prefix length
  // is out of range, or it has bits set after the prefix ("10.0.0.1/8":
  // write "10.0.0.0/8").
  static absl::StatusOr<IpRange> Parse(absl::string_view text);

  // Whether `address` is in the block (never across IPv4 and IPv6).
  bool Contains(const IpAddress& address) const;
  std::string ToString() const;

 private:
  IpRange(IpAddress base, int bits) : base_(base), bits_(bits) {}

  IpAddress base_;
  int bits_;
};

// The proxies whose X-Forwarded-For khetd believes (--trusted_proxies).
class TrustedProxies {
 public:
  // None: X-Forwarded-For is never read.
  TrustedProxies() = default;
  // A comma-separated list of CIDR blocks (spaces around the commas
  // allowed; empty: none); INVALID_ARGUMENT naming the first block that
  // does not read.
  static absl::StatusOr<TrustedProxies> Parse(absl::string_view list);

  bool empty() const { return ranges_.empty(); }
  bool Contains(const IpAddress& address) const;

 private:
  std::vector<IpRange> ranges_;
};

// Hops of X-Forwarded-For looked at, from the right, at most.
inline constexpr int kMaxForwardedHops = 32;

// The client's address: `peer` (the socket's), unless `peer` is a trusted
// proxy; then the last hop of `forwarded_for` (every X-Forwarded-For value
// in the order received, each a comma-separated list) that is not a
// trusted proxy, read from the right. Each hop is an address, perhaps
// bracketed, perhaps with a port ("192.0.2.7:5678", "[2001:db8::1]:443").
// A hop that does not read, or the end of the list (every hop trusted), or
// kMaxForwardedHops hops, stops the walk: the client is then the last
// address read (a trusted proxy). Forged hops are to the left of the one
// the first trusted proxy appended, so the walk never reaches them.
IpAddress ClientAddress(const IpAddress& peer,
                        absl::Span<const absl::string_view> forwarded_for,
                        const TrustedProxies& trusted);

// The address of gRPC's peer text: "ipv4:192.0.2.7:5678",
// "ipv6:[2001:db8::1]:5678" (also with the brackets percent-encoded,
// "%5B...%5D"); nullopt for any other kind ("unix:...").
std::optional<IpAddress> AddressOfGrpcPeer(absl::string_view peer);

// The key an address's budgets are counted under: an IPv4 address itself
// ("192.0.2.7"); an IPv6 address's /64 ("2001:db8:1:2::/64"), because one
// host or household is usually given a whole /64 and would otherwise have
// 2^64 budgets.
std::string BudgetKey(const IpAddress& address);

}  // namespace khet

#endif  // KHET_SERVICE_FAIR_USE_CLIENT_ADDRESS_H_
