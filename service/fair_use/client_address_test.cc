// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The address and CIDR reader: cases by hand, then properties that hold for
// any text (ExpectWellBehaved), checked on the hand-written cases and on
// bounded, seeded mutations of them, as a fuzzer would drive it.
#include "service/fair_use/client_address.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::testing::HasSubstr;

std::string Canonical(absl::string_view text) {
  std::optional<IpAddress> address = IpAddress::Parse(text);
  return address.has_value() ? address->ToString() : "<none>";
}

IpAddress Ip(absl::string_view text) {
  std::optional<IpAddress> address = IpAddress::Parse(text);
  EXPECT_TRUE(address.has_value()) << text;
  return address.value_or(*IpAddress::Parse("0.0.0.0"));
}

TrustedProxies Trusted(absl::string_view list) {
  absl::StatusOr<TrustedProxies> proxies = TrustedProxies::Parse(list);
  EXPECT_TRUE(proxies.ok()) << proxies.status();
  return proxies.value_or(TrustedProxies());
}

std::string Client(absl::string_view peer,
                   std::vector<absl::string_view> forwarded_for,
                   absl::string_view trusted) {
  return ClientAddress(Ip(peer), forwarded_for, Trusted(trusted)).ToString();
}

// What holds for any text: nothing crashes; an address read prints to
// canonical text that reads back to it; a range read contains its base and
// prints to text that reads back to the same range; the client behind no
// trusted proxy is the peer, and behind proxies trusted everywhere an
// address the text named or the peer; a gRPC peer read is an address.
void ExpectWellBehaved(absl::string_view text) {
  SCOPED_TRACE(std::string(text));
  if (std::optional<IpAddress> address = IpAddress::Parse(text)) {
    const std::string printed = address->ToString();
    ASSERT_FALSE(printed.empty());
    std::optional<IpAddress> again = IpAddress::Parse(printed);
    ASSERT_TRUE(again.has_value()) << printed;
    EXPECT_EQ(*again, *address);
    EXPECT_EQ(address->Prefix(address->bits()), *address);
    EXPECT_EQ(address->Prefix(0).Prefix(0), address->Prefix(0));
    const std::string key = BudgetKey(*address);
    if (address->is_v4()) {
      EXPECT_EQ(key, printed);
    } else {
      EXPECT_THAT(key, ::testing::EndsWith("/64"));
    }
  }
  if (absl::StatusOr<IpRange> range = IpRange::Parse(text); range.ok()) {
    absl::StatusOr<IpRange> again = IpRange::Parse(range->ToString());
    ASSERT_TRUE(again.ok()) << range->ToString();
    EXPECT_EQ(again->ToString(), range->ToString());
  } else {
    EXPECT_EQ(range.status().code(), absl::StatusCode::kInvalidArgument);
  }
  if (absl::StatusOr<TrustedProxies> proxies = TrustedProxies::Parse(text);
      !proxies.ok()) {
    EXPECT_EQ(proxies.status().code(), absl::StatusCode::kInvalidArgument);
  }
  const IpAddress peer = *IpAddress::Parse("10.0.0.1");
  const std::vector<absl::string_view> header = {text, text};
  EXPECT_EQ(ClientAddress(peer, header, TrustedProxies()), peer);
  const IpAddress behind =
      ClientAddress(peer, header, *TrustedProxies::Parse("0.0.0.0/0, ::/0"));
  EXPECT_FALSE(behind.ToString().empty());
  if (std::optional<IpAddress> grpc = AddressOfGrpcPeer(text)) {
    EXPECT_TRUE(IpAddress::Parse(grpc->ToString()).has_value());
  }
}

const std::vector<std::string>& Seeds() {
  static const auto* const seeds = new std::vector<std::string>{
      "192.0.2.7",
      "0.0.0.0",
      "255.255.255.255",
      "2001:db8::1",
      "[2001:db8::1]",
      "::",
      "::1",
      "::ffff:192.0.2.7",
      "fe80::1%eth0",
      "10.0.0.0/8",
      "fd00::/8",
      "192.0.2.7/32",
      "10.0.0.1/8",
      "10.0.0.0/33",
      "127.0.0.0/8, ::1/128",
      "192.0.2.7:5678",
      "[2001:db8::1]:443",
      "ipv4:192.0.2.7:5678",
      "ipv6:[2001:db8::1]:5678",
      "ipv6:%5B::1%5D:5678",
      "unix:/tmp/socket",
      "198.51.100.7, 10.0.0.2",
      "",
      ",",
      "1.2.3",
      "1.2.3.4.5",
      "01.2.3.4",
      "1.2.3.256",
  };
  return *seeds;
}

TEST(IpAddressTest, ReadsAddressesStrictly) {
  EXPECT_EQ(Canonical("192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(Canonical("2001:DB8:0:0:0:0:0:1"), "2001:db8::1");
  EXPECT_EQ(Canonical("[2001:db8::1]"), "2001:db8::1");
  EXPECT_EQ(Canonical("::ffff:192.0.2.7"), "192.0.2.7");
  EXPECT_TRUE(IpAddress::Parse("::ffff:192.0.2.7")->is_v4());
  for (absl::string_view bad : std::vector<absl::string_view>{
           "", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.256", " 1.2.3.4",
           "1.2.3.4 ", "host.example", "fe80::1%eth0", "[1.2.3.4]",
           "1.2.3.4:80", "[::1]:80", "::1::2",
           absl::string_view("1.2.3.4\0x", 9)}) {
    EXPECT_EQ(Canonical(bad), "<none>") << bad;
  }
}

TEST(IpAddressTest, PrefixClearsTheRest) {
  EXPECT_EQ(Ip("192.0.2.255").Prefix(24).ToString(), "192.0.2.0");
  EXPECT_EQ(Ip("192.0.2.255").Prefix(25).ToString(), "192.0.2.128");
  EXPECT_EQ(Ip("2001:db8:1:2:3:4:5:6").Prefix(64).ToString(), "2001:db8:1:2::");
  EXPECT_EQ(Ip("2001:db8::1").Prefix(0).ToString(), "::");
}

TEST(IpRangeTest, ReadsBlocksAndContainsTheirAddresses) {
  absl::StatusOr<IpRange> ten = IpRange::Parse("10.0.0.0/8");
  ASSERT_TRUE(ten.ok()) << ten.status();
  EXPECT_TRUE(ten->Contains(Ip("10.255.0.1")));
  EXPECT_FALSE(ten->Contains(Ip("11.0.0.1")));
  EXPECT_FALSE(ten->Contains(Ip("::1")));
  absl::StatusOr<IpRange> one = IpRange::Parse("192.0.2.7");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->ToString(), "192.0.2.7/32");
  EXPECT_TRUE(one->Contains(Ip("::ffff:192.0.2.7")));
  absl::StatusOr<IpRange> v6 = IpRange::Parse("2001:db8::/32");
  ASSERT_TRUE(v6.ok());
  EXPECT_TRUE(v6->Contains(Ip("2001:db8:ffff::1")));
  EXPECT_FALSE(v6->Contains(Ip("192.0.2.7")));
  absl::StatusOr<IpRange> all = IpRange::Parse("0.0.0.0/0");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->Contains(Ip("203.0.113.9")));
  EXPECT_FALSE(all->Contains(Ip("::1")));
}

TEST(IpRangeTest, RefusesWhatIsNotABlock) {
  EXPECT_THAT(IpRange::Parse("10.0.0.1/8").status().message(),
              HasSubstr("write 10.0.0.0/8"));
  EXPECT_THAT(IpRange::Parse("10.0.0.0/33").status().message(),
              HasSubstr("0 to 32"));
  EXPECT_THAT(IpRange::Parse("::/129").status().message(),
              HasSubstr("0 to 128"));
  for (absl::string_view bad : {"10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8",
                                "10.0.0.0/8/8", "ten/8", "/8"}) {
    EXPECT_EQ(IpRange::Parse(bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(TrustedProxiesTest, ReadsACommaSeparatedList) {
  EXPECT_TRUE(Trusted("").empty());
  EXPECT_TRUE(Trusted("  ").empty());
  const TrustedProxies proxies = Trusted("127.0.0.0/8, ::1/128,10.1.2.3");
  EXPECT_TRUE(proxies.Contains(Ip("127.0.0.5")));
  EXPECT_TRUE(proxies.Contains(Ip("::1")));
  EXPECT_TRUE(proxies.Contains(Ip("10.1.2.3")));
  EXPECT_FALSE(proxies.Contains(Ip("10.1.2.4")));
  EXPECT_THAT(TrustedProxies::Parse("127.0.0.0/8,,::1").status().message(),
              HasSubstr("\"\""));
  EXPECT_THAT(TrustedProxies::Parse("127.0.0.0/8,nginx").status().message(),
              HasSubstr("\"nginx\""));
}

TEST(ClientAddressTest, IgnoresTheHeaderFromAnUntrustedPeer) {
  EXPECT_EQ(Client("198.51.100.7", {"203.0.113.9"}, ""), "198.51.100.7");
  EXPECT_EQ(Client("198.51.100.7", {"203.0.113.9"}, "10.0.0.0/8"),
            "198.51.100.7");
}

TEST(ClientAddressTest, TakesTheLastUntrustedHop) {
  EXPECT_EQ(Client("10.0.0.2", {"203.0.113.9"}, "10.0.0.0/8"), "203.0.113.9");
  // The client forged a first hop; the proxy appended the real one.
  EXPECT_EQ(Client("10.0.0.2", {"1.1.1.1, 203.0.113.9"}, "10.0.0.0/8"),
            "203.0.113.9");
  // Two proxies: the second one's hop is trusted too.
  EXPECT_EQ(
      Client("10.0.0.2", {"1.1.1.1, 203.0.113.9, 10.0.0.3"}, "10.0.0.0/8"),
      "203.0.113.9");
  // Several header lines are one list, in order.
  EXPECT_EQ(
      Client("10.0.0.2", {"1.1.1.1", "203.0.113.9", "10.0.0.3"}, "10.0.0.0/8"),
      "203.0.113.9");
  EXPECT_EQ(Client("10.0.0.2", {"[2001:db8::1]:443"}, "10.0.0.0/8"),
            "2001:db8::1");
  EXPECT_EQ(Client("10.0.0.2", {"203.0.113.9:5678"}, "10.0.0.0/8"),
            "203.0.113.9");
  EXPECT_EQ(Client("::1", {"2001:db8::7"}, "::1/128"), "2001:db8::7");
}

TEST(ClientAddressTest, StopsAtWhatItCannotRead) {
  // Nothing to read: the proxy is the client.
  EXPECT_EQ(Client("10.0.0.2", {}, "10.0.0.0/8"), "10.0.0.2");
  EXPECT_EQ(Client("10.0.0.2", {""}, "10.0.0.0/8"), "10.0.0.2");
  EXPECT_EQ(Client("10.0.0.2", {"unknown"}, "10.0.0.0/8"), "10.0.0.2");
  // A hop that does not read: the last trusted hop is the client.
  EXPECT_EQ(Client("10.0.0.2", {"203.0.113.9, junk, 10.0.0.3"}, "10.0.0.0/8"),
            "10.0.0.3");
  // Every hop trusted: the first.
  EXPECT_EQ(Client("10.0.0.2", {"10.0.0.4, 10.0.0.3"}, "10.0.0.0/8"),
            "10.0.0.4");
  // A long list is read no further than kMaxForwardedHops hops.
  std::string many;
  for (int i = 0; i < 100; ++i) many += "10.0.0.9, ";
  many += "10.0.0.8";
  EXPECT_EQ(Client("10.0.0.2", {many}, "10.0.0.0/8"), "10.0.0.9");
}

TEST(GrpcPeerTest, ReadsIpPeers) {
  EXPECT_EQ(AddressOfGrpcPeer("ipv4:192.0.2.7:5678")->ToString(), "192.0.2.7");
  EXPECT_EQ(AddressOfGrpcPeer("ipv6:[2001:db8::1]:5678")->ToString(),
            "2001:db8::1");
  EXPECT_EQ(AddressOfGrpcPeer("ipv6:%5B::1%5D:5678")->ToString(), "::1");
  EXPECT_EQ(AddressOfGrpcPeer("ipv6:[::ffff:127.0.0.1]:5678")->ToString(),
            "127.0.0.1");
  EXPECT_FALSE(AddressOfGrpcPeer("unix:/tmp/s").has_value());
  EXPECT_FALSE(AddressOfGrpcPeer("ipv6:::1:5678").has_value());
  EXPECT_FALSE(AddressOfGrpcPeer("ipv4:[::1]:5678").has_value());
  EXPECT_FALSE(AddressOfGrpcPeer("").has_value());
}

TEST(BudgetKeyTest, KeysIpv6ByItsSlash64) {
  EXPECT_EQ(BudgetKey(Ip("192.0.2.7")), "192.0.2.7");
  EXPECT_EQ(BudgetKey(Ip("2001:db8:1:2:3:4:5:6")), "2001:db8:1:2::/64");
  EXPECT_EQ(BudgetKey(Ip("2001:db8:1:2::9")), "2001:db8:1:2::/64");
  EXPECT_EQ(BudgetKey(Ip("::ffff:192.0.2.7")), "192.0.2.7");
}

TEST(ClientAddressPropertiesTest, HoldForTheSeeds) {
  for (const std::string& seed : Seeds()) ExpectWellBehaved(seed);
}

// Seeded mutations of the seeds (bytes inserted, replaced, removed, seeds
// spliced), a bounded number, the same on every run.
TEST(ClientAddressPropertiesTest, HoldForMutatedSeeds) {
  std::mt19937 random(29);
  constexpr absl::string_view kAlphabet = "0123456789abcdefABCDEF:.[]/%, \t";
  const std::vector<std::string>& seeds = Seeds();
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(random);
  };
  for (int i = 0; i < 20000; ++i) {
    std::string text = seeds[pick(seeds.size())];
    const int edits = 1 + static_cast<int>(pick(4));
    for (int e = 0; e < edits; ++e) {
      const size_t at = text.empty() ? 0 : pick(text.size() + 1);
      switch (pick(5)) {
        case 0:
          text.insert(text.begin() + at, kAlphabet[pick(kAlphabet.size())]);
          break;
        case 1:
          if (at < text.size()) text[at] = kAlphabet[pick(kAlphabet.size())];
          break;
        case 2:
          if (at < text.size()) text.erase(at, 1);
          break;
        case 3:
          text.insert(at, seeds[pick(seeds.size())]);
          break;
        default:
          if (at < text.size()) text[at] = static_cast<char>(pick(256));
          break;
      }
    }
    ExpectWellBehaved(text);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace khet
