// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/callback_target.h"

#include <netdb.h>
#include <sys/socket.h>

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "service/text/quoted_input.h"

namespace khet {
namespace {

absl::Status BadUrl(absl::string_view url, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(
      "callback url ", QuoteInput(std::string_view(url.data(), url.size())),
      " is not usable: ", problem));
}

bool HostNameChar(char c) {
  return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_';
}

// Every address `host` resolves to, in the resolver's order.
std::vector<IpAddress> Resolve(const std::string& host) {
  std::vector<IpAddress> out;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[NI_MAXHOST];
    if (getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof text, nullptr, 0,
                    NI_NUMERICHOST) != 0) {
      continue;
    }
    if (std::optional<IpAddress> ip = IpAddress::Parse(text)) {
      out.push_back(*ip);
    }
  }
  freeaddrinfo(found);
  return out;
}

}  // namespace

absl::StatusOr<CallbackUrl> ParseCallbackUrl(absl::string_view url) {
  if (url.empty()) return BadUrl(url, "it is empty");
  if (url.size() > kMaxCallbackUrlBytes) {
    return BadUrl(url, absl::StrCat("it is longer than ", kMaxCallbackUrlBytes,
                                    " bytes"));
  }
  for (const char c : url) {
    if (c <= ' ' || c >= 0x7f) {
      return BadUrl(url, "it holds a space, a control or a non-ASCII byte");
    }
  }
  CallbackUrl out;
  absl::string_view rest = url;
  if (absl::ConsumePrefix(&rest, "https://")) {
    out.tls = true;
    out.port = 443;
  } else if (absl::ConsumePrefix(&rest, "http://")) {
    out.port = 80;
  } else {
    return BadUrl(url, "it must start with http:// or https://");
  }
  if (absl::StrContains(url, '#')) return BadUrl(url, "it has a fragment");
  const size_t path_start = rest.find_first_of("/?");
  absl::string_view authority = rest.substr(0, path_start);
  out.target = path_start == absl::string_view::npos
                   ? "/"
                   : std::string(rest.substr(path_start));
  if (out.target[0] == '?') out.target.insert(0, "/");
  if (absl::StrContains(authority, '@')) {
    return BadUrl(url, "it names a user; callback urls carry no credentials");
  }
  absl::string_view port_text;
  if (absl::ConsumePrefix(&authority, "[")) {
    const size_t close = authority.find(']');
    if (close == absl::string_view::npos) {
      return BadUrl(url, "its IPv6 address has no closing ']'");
    }
    out.host = std::string(authority.substr(0, close));
    if (!IpAddress::Parse(out.host).has_value() ||
        absl::StrContains(out.host, '.')) {
      return BadUrl(url, "the text between [ and ] is not an IPv6 address");
    }
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (!absl::ConsumePrefix(&after, ":")) {
        return BadUrl(url, "something follows its IPv6 address");
      }
      if (after.empty()) return BadUrl(url, "its port is empty");
      port_text = after;
    }
  } else {
    const size_t colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != absl::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return BadUrl(url, "its port is empty");
    }
    for (const char c : out.host) {
      if (!HostNameChar(c)) return BadUrl(url, "its host is not a host name");
    }
  }
  if (out.host.empty()) return BadUrl(url, "it names no host");
  out.host = absl::AsciiStrToLower(out.host);
  if (!port_text.empty()) {
    int port = 0;
    if (port_text.size() > 5 || !absl::SimpleAtoi(port_text, &port) ||
        port < 1 || port > 65535 || !absl::ascii_isdigit(port_text[0])) {
      return BadUrl(url, "its port is not a number from 1 to 65535");
    }
    out.port = static_cast<uint16_t>(port);
  }
  return out;
}

absl::StatusOr<CallbackHosts> CallbackHosts::Parse(absl::string_view list) {
  CallbackHosts out;
  for (absl::string_view raw : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    const absl::string_view pattern = absl::StripAsciiWhitespace(raw);
    absl::string_view name = pattern;
    absl::ConsumePrefix(&name, "*.");
    bool ok = !name.empty();
    for (const char c : name) ok = ok && HostNameChar(c);
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--inworld_callback_hosts: ",
          QuoteInput(std::string_view(pattern.data(), pattern.size())),
          " is not a host name or \"*.\" and a domain"));
    }
    out.patterns_.push_back(absl::AsciiStrToLower(pattern));
  }
  return out;
}

bool CallbackHosts::Matches(absl::string_view host) const {
  const std::string lower = absl::AsciiStrToLower(host);
  for (const std::string& pattern : patterns_) {
    if (absl::StartsWith(pattern, "*.")) {
      const absl::string_view domain = absl::string_view(pattern).substr(1);
      if (lower.size() > domain.size() && absl::EndsWith(lower, domain)) {
        return true;
      }
    } else if (lower == pattern) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<IpAddress> CheckCallbackTarget(const CallbackUrl& url,
                                              const IpAddress& caller,
                                              const CallbackHosts& hosts) {
  std::vector<IpAddress> addresses;
  if (std::optional<IpAddress> literal = IpAddress::Parse(url.host)) {
    addresses.push_back(*literal);
  } else {
    addresses = Resolve(url.host);
    if (addresses.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "callback url's host ", QuoteInput(url.host), " does not resolve"));
    }
  }
  for (const IpAddress& address : addresses) {
    if (address == caller) return address;
  }
  if (hosts.Matches(url.host)) return addresses.front();
  return absl::PermissionDeniedError(absl::StrCat(
      "callback url's host ", QuoteInput(url.host),
      " is not the address this registration came from (", caller.ToString(),
      ") and matches none of khetd's --inworld_callback_hosts; khetd "
      "pushes only to the registering simulator or to hosts its operator "
      "names"));
}

}  // namespace khet
