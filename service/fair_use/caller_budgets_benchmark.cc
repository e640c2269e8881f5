// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What a call's admission costs at either door, alone: who the caller is
// (a gRPC peer's text or an HTTP peer with X-Forwarded-For through a trusted
// proxy, read into its budget key) and its calls' budget (a token bucket
// found in a sharded map and spent), for one address, for many, and for
// an in-world object within its address's ceiling; with two threads.
//   build/release/service/caller_budgets_benchmark
// Prints Google Benchmark's lines; asserts nothing.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "service/fair_use/caller_budgets.h"
#include "service/fair_use/client_address.h"

namespace khet {
namespace {

CallerBudgetOptions NeverRefusing() {
  CallerBudgetOptions options;
  options.calls_per_second = 1000000000;
  options.calls_burst = 1000000000;
  options.inworld_address_calls_per_second = 1000000000;
  options.inworld_address_calls_burst = 1000000000;
  options.inworld_object_calls_per_second = 1000000000;
  options.inworld_object_calls_burst = 1000000000;
  return options;
}

void BM_IdentifyGrpcPeer(benchmark::State& state) {
  CallerBudgets budgets(NeverRefusing());
  const std::string peer = "ipv4:192.0.2.7:53124";
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        budgets.Identify(AddressOfGrpcPeer(peer), {}, "").address);
  }
}
BENCHMARK(BM_IdentifyGrpcPeer);

void BM_IdentifyBehindProxy(benchmark::State& state) {
  CallerBudgetOptions options = NeverRefusing();
  options.trusted_proxies = *TrustedProxies::Parse("10.0.0.0/8");
  CallerBudgets budgets(options);
  const std::vector<absl::string_view> forwarded = {"203.0.113.9, 10.0.0.3"};
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        budgets
            .Identify(IpAddress::Parse("10.0.0.2"), forwarded,
                      "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
            .address);
  }
}
BENCHMARK(BM_IdentifyBehindProxy);

void BM_AdmitOneAddress(benchmark::State& state) {
  static CallerBudgets* budgets = new CallerBudgets(NeverRefusing());
  const ClientIdentity client{"192.0.2.7", ""};
  for (auto _ : state) benchmark::DoNotOptimize(budgets->AdmitCall(client));
}
BENCHMARK(BM_AdmitOneAddress)->Threads(1)->Threads(2);

void BM_AdmitManyAddresses(benchmark::State& state) {
  static CallerBudgets* budgets = new CallerBudgets(NeverRefusing());
  std::vector<ClientIdentity> clients;
  for (int i = 0; i < 4096; ++i) {
    clients.push_back(
        {absl::StrCat("10.", state.thread_index(), ".", i / 256, ".", i % 256),
         ""});
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(budgets->AdmitCall(clients[i++ % clients.size()]));
  }
}
BENCHMARK(BM_AdmitManyAddresses)->Threads(1)->Threads(2);

void BM_AdmitInworldObject(benchmark::State& state) {
  static CallerBudgets* budgets = new CallerBudgets(NeverRefusing());
  std::vector<ClientIdentity> boards;
  for (int i = 0; i < 1000; ++i) {
    boards.push_back(
        {"192.0.2.7", absl::StrFormat("%08x-0000-4000-8000-000000000000", i)});
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(budgets->AdmitCall(boards[i++ % boards.size()]));
  }
}
BENCHMARK(BM_AdmitInworldObject);

}  // namespace
}  // namespace khet

BENCHMARK_MAIN();
