// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/fair_use/client_address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "service/text/quoted_input.h"

namespace khet {
namespace {

// Longer text is no address (INET6_ADDRSTRLEN is 46, brackets add two).
constexpr size_t kMaxAddressText = 48;

constexpr std::array<uint8_t, 12> kV4MappedPrefix = {0, 0, 0, 0, 0,    0,
                                                     0, 0, 0, 0, 0xff, 0xff};

// A hop of X-Forwarded-For: an address, perhaps bracketed, perhaps with a
// port.
std::optional<IpAddress> ParseHop(absl::string_view hop) {
  hop = absl::StripAsciiWhitespace(hop);
  if (!hop.empty() && hop.front() == '[') {
    const size_t close = hop.find(']');
    if (close == absl::string_view::npos) return std::nullopt;
    const absl::string_view rest = hop.substr(close + 1);
    uint32_t port = 0;
    if (!rest.empty() &&
        (rest.front() != ':' || !absl::SimpleAtoi(rest.substr(1), &port) ||
         port > 65535)) {
      return std::nullopt;
    }
    return IpAddress::Parse(hop.substr(0, close + 1));
  }
  // One colon: IPv4 with a port. More: IPv6 without brackets.
  const size_t colon = hop.find(':');
  if (colon != absl::string_view::npos &&
      hop.find(':', colon + 1) == absl::string_view::npos) {
    uint32_t port = 0;
    if (!absl::SimpleAtoi(hop.substr(colon + 1), &port) || port > 65535) {
      return std::nullopt;
    }
    std::optional<IpAddress> address = IpAddress::Parse(hop.substr(0, colon));
    if (address.has_value() && !address->is_v4()) return std::nullopt;
    return address;
  }
  return IpAddress::Parse(hop);
}

}  // namespace

std::optional<IpAddress> IpAddress::Parse(absl::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
    if (text.find(':') == absl::string_view::npos) return std::nullopt;
  }
  if (text.empty() || text.size() > kMaxAddressText) return std::nullopt;
  char buffer[kMaxAddressText + 1];
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  if (std::memchr(buffer, '\0', text.size()) != nullptr) return std::nullopt;
  IpAddress address;
  if (text.find(':') == absl::string_view::npos) {
    if (inet_pton(AF_INET, buffer, address.bytes_.data()) != 1) {
      return std::nullopt;
    }
    address.v4_ = true;
    return address;
  }
  if (inet_pton(AF_INET6, buffer, address.bytes_.data()) != 1) {
    return std::nullopt;
  }
  if (std::equal(kV4MappedPrefix.begin(), kV4MappedPrefix.end(),
                 address.bytes_.begin())) {
    std::copy_n(address.bytes_.begin() + 12, 4, address.bytes_.begin());
    std::fill(address.bytes_.begin() + 4, address.bytes_.end(), 0);
    address.v4_ = true;
  }
  return address;
}

std::string IpAddress::ToString() const {
  char buffer[INET6_ADDRSTRLEN];
  const char* text = inet_ntop(v4_ ? AF_INET : AF_INET6, bytes_.data(), buffer,
                               sizeof(buffer));
  return text == nullptr ? std::string() : std::string(text);
}

IpAddress IpAddress::Prefix(int bits) const {
  IpAddress out = *this;
  for (int i = 0; i < 16; ++i) {
    const int kept = std::clamp(bits - 8 * i, 0, 8);
    out.bytes_[i] &= static_cast<uint8_t>(0xff00 >> kept);
  }
  return out;
}

absl::StatusOr<IpRange> IpRange::Parse(absl::string_view text) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  const size_t slash = trimmed.find('/');
  std::optional<IpAddress> base = IpAddress::Parse(trimmed.substr(0, slash));
  if (!base.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuoteInput(std::string_view(text.data(), text.size())),
                     " is not an IP address or CIDR block"));
  }
  int bits = base->bits();
  if (slash != absl::string_view::npos) {
    const absl::string_view length = trimmed.substr(slash + 1);
    if (length.empty() || length.size() > 3 ||
        !absl::c_all_of(length, absl::ascii_isdigit) ||
        !absl::SimpleAtoi(length, &bits) || bits > base->bits()) {
      return absl::InvalidArgumentError(
          absl::StrCat(QuoteInput(std::string_view(text.data(), text.size())),
                       ": the prefix length must be 0 to ", base->bits()));
    }
  }
  if (!(base->Prefix(bits) == *base)) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuoteInput(std::string_view(text.data(), text.size())),
                     " has bits set after its /", bits, " prefix; write ",
                     base->Prefix(bits).ToString(), "/", bits));
  }
  return IpRange(*base, bits);
}

bool IpRange::Contains(const IpAddress& address) const {
  return address.is_v4() == base_.is_v4() && address.Prefix(bits_) == base_;
}

std::string IpRange::ToString() const {
  return absl::StrCat(base_.ToString(), "/", bits_);
}

absl::StatusOr<TrustedProxies> TrustedProxies::Parse(absl::string_view list) {
  TrustedProxies proxies;
  if (absl::StripAsciiWhitespace(list).empty()) return proxies;
  for (absl::string_view block : absl::StrSplit(list, ',')) {
    absl::StatusOr<IpRange> range = IpRange::Parse(block);
    if (!range.ok()) return range.status();
    proxies.ranges_.push_back(*range);
  }
  return proxies;
}

bool TrustedProxies::Contains(const IpAddress& address) const {
  return absl::c_any_of(
      ranges_, [&](const IpRange& range) { return range.Contains(address); });
}

IpAddress ClientAddress(const IpAddress& peer,
                        absl::Span<const absl::string_view> forwarded_for,
                        const TrustedProxies& trusted) {
  IpAddress client = peer;
  if (!trusted.Contains(peer)) return client;
  int hops = 0;
  for (auto value = forwarded_for.rbegin(); value != forwarded_for.rend();
       ++value) {
    absl::string_view rest = *value;
    while (!rest.empty()) {
      const size_t comma = rest.rfind(',');
      const absl::string_view hop =
          comma == absl::string_view::npos ? rest : rest.substr(comma + 1);
      rest = comma == absl::string_view::npos ? absl::string_view()
                                              : rest.substr(0, comma);
      if (++hops > kMaxForwardedHops) return client;
      std::optional<IpAddress> address = ParseHop(hop);
      if (!address.has_value()) return client;
      client = *address;
      if (!trusted.Contains(client)) return client;
    }
  }
  return client;
}

std::optional<IpAddress> AddressOfGrpcPeer(absl::string_view peer) {
  absl::string_view rest;
  if (peer.substr(0, 5) == "ipv4:") {
    rest = peer.substr(5);
    const size_t colon = rest.rfind(':');
    std::optional<IpAddress> address = IpAddress::Parse(rest.substr(0, colon));
    if (!address.has_value() || !address->is_v4()) return std::nullopt;
    return address;
  }
  if (peer.substr(0, 5) != "ipv6:") return std::nullopt;
  rest = peer.substr(5);
  std::string decoded;
  if (rest.substr(0, 3) == "%5B" || rest.substr(0, 3) == "%5b") {
    const size_t close = std::min(rest.find("%5D"), rest.find("%5d"));
    if (close == absl::string_view::npos) return std::nullopt;
    decoded = absl::StrCat("[", rest.substr(3, close - 3), "]");
  } else {
    const size_t close = rest.find(']');
    if (close == absl::string_view::npos) return std::nullopt;
    decoded = std::string(rest.substr(0, close + 1));
  }
  return IpAddress::Parse(decoded);
}

std::string BudgetKey(const IpAddress& address) {
  if (address.is_v4()) return address.ToString();
  return absl::StrCat(address.Prefix(64).ToString(), "/64");
}

}  // namespace khet
