// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-hostile: khetd under hostile traffic. Starts khetd, measures
// well-behaved clients alone (HTTP GETs of a session on kept-alive
// connections, gRPC MakeMove in a few games), then attacks it with all of
// these at once for a bounded time, from many loopback addresses
// (127.0.0.2 and up): connections sending their headers one byte every 2 s,
// idle kept-alive connections, open long polls and event streams, idle gRPC
// Watch streams, and repeated multi-range and header-flood requests; and
// measures the same clients meanwhile. Prints p50/p99 of both phases and
// their ratio, khetd's peak threads and memory, and what khetd answered the
// attackers (which status, and whether each refusal was a status line or a
// reset). Loopback only. Run `khet-hostile --help` for the flags.
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/common/khetd_process.h"
#include "tools/load/common/load_average.h"
#include "tools/load/common/raw_http.h"
#include "tools/load/khet_hostile/hostile_clients.h"
#include "tools/load/khet_hostile/hostile_http_attack.h"
#include "tools/load/khet_hostile/hostile_latencies.h"
#include "tools/load/khet_hostile/hostile_samplers.h"
#include "tools/load/khet_hostile/hostile_watch_attack.h"

ABSL_FLAG(std::string, khetd, KHETD_PATH, "The khetd binary to start");
ABSL_FLAG(std::string, store, "memory",
          "khetd's store: memory, or sqlite (in a fresh temporary directory)");
ABSL_FLAG(std::string, khetd_flags, "",
          "More flags for khetd, comma-separated (e.g. "
          "--max_watchers=20000,--http_max_waiting=4096)");
ABSL_FLAG(std::string, khetd_log, "/dev/null",
          "Where the started khetd's stderr (one line per request) goes");
ABSL_FLAG(bool, smoke, false,
          "A short run with small counts (for ctest): 1 s alone, 3 s under "
          "attack; the count and time flags are ignored");
ABSL_FLAG(double, baseline_seconds, 10,
          "How long the well-behaved clients are measured alone");
ABSL_FLAG(double, ramp_seconds, 5,
          "How long the attack builds up before the measurement under it "
          "starts; its connections open at random times within the first "
          "half");
ABSL_FLAG(double, attack_seconds, 30,
          "How long the well-behaved clients are measured under attack");
ABSL_FLAG(int, slow_headers, 1000,
          "Connections that send a request line, then a header byte every "
          "2 s (again when answered or closed)");
ABSL_FLAG(int, idle_connections, 500,
          "Kept-alive connections idle after one request (again when "
          "closed)");
ABSL_FLAG(int, waiters, 1000,
          "Open waits on quiet sessions (50 each): half long polls "
          "(waitSeconds=25, "
          "then again), half event streams");
ABSL_FLAG(int, watchers, 10000, "Idle gRPC Watch streams");
ABSL_FLAG(int, watch_channels, 40,
          "gRPC connections the watchers are spread over");
ABSL_FLAG(int, range_clients, 4,
          "Clients repeating a request for a web board file with 1500 "
          "ranges");
ABSL_FLAG(int, flood_clients, 4,
          "Clients repeating a request with endless tiny headers");
ABSL_FLAG(int64_t, flood_bytes, 10'000'000,
          "The most one header-flood request sends (2,000,000 headers of 5 "
          "bytes), unless khetd answers or stops reading first");
ABSL_FLAG(int, attack_pause_ms, 50,
          "Pause between two multi-range or two header-flood requests of "
          "one client");
ABSL_FLAG(int, sources, 100,
          "Loopback addresses the attack comes from: 127.0.0.2 and up");
ABSL_FLAG(int, http_clients, 4,
          "Well-behaved HTTP clients, each on its own kept-alive "
          "connection from 127.0.0.1");
ABSL_FLAG(int, games, 4, "Well-behaved gRPC clients, each playing a game");
ABSL_FLAG(int, interval_ms, 5,
          "Each well-behaved client starts a request at most this often");
ABSL_FLAG(bool, timeline, false,
          "Also print the slowest GET and MakeMove of each second under "
          "attack, counted from the attack's start");

namespace khet::hostile {
namespace {

// ---- Settings ---------------------------------------------------------------

// What one run does: the flags' counts and times, or with --smoke small
// ones for ctest.
struct Settings {
  double baseline_seconds, ramp_seconds, attack_seconds;
  int slow_headers, idle_connections, waiters, watchers, watch_channels;
  int range_clients, flood_clients, sources, http_clients, games;
  int64_t flood_bytes;
  absl::Duration attack_pause, interval;
};

Settings FromFlags() {
  Settings s;
  s.baseline_seconds = absl::GetFlag(FLAGS_baseline_seconds);
  s.ramp_seconds = absl::GetFlag(FLAGS_ramp_seconds);
  s.attack_seconds = absl::GetFlag(FLAGS_attack_seconds);
  s.slow_headers = absl::GetFlag(FLAGS_slow_headers);
  s.idle_connections = absl::GetFlag(FLAGS_idle_connections);
  s.waiters = absl::GetFlag(FLAGS_waiters);
  s.watchers = absl::GetFlag(FLAGS_watchers);
  s.watch_channels = absl::GetFlag(FLAGS_watch_channels);
  s.range_clients = absl::GetFlag(FLAGS_range_clients);
  s.flood_clients = absl::GetFlag(FLAGS_flood_clients);
  s.flood_bytes = absl::GetFlag(FLAGS_flood_bytes);
  s.sources = absl::GetFlag(FLAGS_sources);
  s.http_clients = absl::GetFlag(FLAGS_http_clients);
  s.games = absl::GetFlag(FLAGS_games);
  s.attack_pause = absl::Milliseconds(absl::GetFlag(FLAGS_attack_pause_ms));
  s.interval = absl::Milliseconds(absl::GetFlag(FLAGS_interval_ms));
  if (absl::GetFlag(FLAGS_smoke)) {
    s.baseline_seconds = 1;
    s.ramp_seconds = 1;
    s.attack_seconds = 3;
    s.slow_headers = 20;
    s.idle_connections = 10;
    s.waiters = 20;
    s.watchers = 200;
    s.watch_channels = 4;
    s.range_clients = 1;
    s.flood_clients = 1;
    s.flood_bytes = 1'000'000;
    s.sources = 8;
    s.http_clients = 2;
    s.games = 2;
  }
  return s;
}

// The well-behaved clients' part of `s`.
NormalClients::Options ClientOptions(const Settings& s) {
  NormalClients::Options options;
  options.http_clients = s.http_clients;
  options.games = s.games;
  options.interval = s.interval;
  return options;
}

// The HTTP attack's part of `s`.
HttpAttack::Options HttpAttackOptions(const Settings& s) {
  HttpAttack::Options options;
  options.slow_headers = s.slow_headers;
  options.idle_connections = s.idle_connections;
  options.waiters = s.waiters;
  options.range_clients = s.range_clients;
  options.flood_clients = s.flood_clients;
  options.flood_bytes = s.flood_bytes;
  options.attack_pause = s.attack_pause;
  options.sources = s.sources;
  options.ramp_seconds = s.ramp_seconds;
  return options;
}

// ---- The run ----------------------------------------------------------------

void PrintLatencies(const char* name, const Latencies& l) {
  std::printf("    %-24s %8zu %9.3f %9.3f\n", name, l.ms.size(),
              Percentile(l.ms, 0.5), Percentile(l.ms, 0.99));
}

int PrintErrors(const char* phase, const Latencies& l) {
  int n = 0;
  for (const auto& [error, count] : l.errors) {
    std::printf("  ERROR (%s) x%d: %s\n", phase, count, error.c_str());
    n += count;
  }
  return n;
}

std::string Verdict(bool met) { return met ? "met" : "MISSED"; }

// Measures the well-behaved clients of `khetd` alone, then under the
// attack, and prints the figures; false if a well-behaved call failed or
// the run could not be set up.
bool Measure(const Settings& s, KhetdProcess& khetd) {
  std::printf("khetd at %s, http port %d, pid %d\n", khetd.address().c_str(),
              khetd.http_port(), static_cast<int>(khetd.pid()));
  auto stub = v1::KhetService::NewStub(
      grpc::CreateChannel(khetd.address(), grpc::InsecureChannelCredentials()));
  // The sessions the GETs read, the waiters wait on and the gRPC watchers
  // watch: each watched by 50 at most, under the per-session limit.
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> get_session =
      QuietSessions(*stub, 1);
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> waited =
      QuietSessions(*stub, std::max(1, (s.waiters + 49) / 50));
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> watched =
      QuietSessions(*stub, std::max(1, (s.watchers + 49) / 50));
  for (const auto* made : {&get_session, &waited, &watched}) {
    if (!made->ok()) {
      std::printf("  ERROR: %s\n", made->status().ToString().c_str());
      return false;
    }
  }
  std::vector<std::string> watched_ids;
  for (const auto& [id, version] : *watched) watched_ids.push_back(id);
  NormalClients normal(ClientOptions(s), khetd, get_session->front().first);
  if (absl::Status created = normal.CreateGames(); !created.ok()) {
    std::printf("  ERROR: %s\n", created.ToString().c_str());
    return false;
  }
  absl::StatusOr<RawResponse> file = [&]() -> absl::StatusOr<RawResponse> {
    absl::StatusOr<std::unique_ptr<RawConnection>> c =
        RawConnection::Open(khetd.http_port());
    if (!c.ok()) return c.status();
    (*c)->Send(GetRequest("/game.js"));
    return (*c)->Read(absl::Seconds(10));
  }();

  const int threads_start = ThreadCount(khetd.pid()).value_or(0);
  const int64_t rss_start = ResidentBytes(khetd.pid()).value_or(0);
  std::printf(
      "  alone: well-behaved clients for %.1f s (%d HTTP, %d games, "
      "a call every %s each at most)\n",
      s.baseline_seconds, s.http_clients, s.games,
      absl::FormatDuration(s.interval).c_str());
  CpuShare alone(khetd.pid());
  const auto [get_alone, move_alone] = normal.Run(s.baseline_seconds);
  const auto [khetd_alone, tool_alone] = alone.Shares();

  std::printf(
      "  attack: %d slow-header connections, %d idle kept-alive, %d waiting "
      "(long polls and event streams), %d gRPC watchers over %d channels, %d "
      "multi-range and %d header-flood clients, from 127.0.0.2-127.0.0.%d; "
      "%.1f s ramp, then %.1f s measured\n",
      s.slow_headers, s.idle_connections, s.waiters, s.watchers,
      s.watch_channels, s.range_clients, s.flood_clients, 1 + s.sources,
      s.ramp_seconds, s.attack_seconds);
  std::fflush(stdout);
  std::optional<PeakSampler> sampler;
  sampler.emplace(khetd.pid());
  HttpAttack http(HttpAttackOptions(s), khetd.http_port(), *waited);
  if (file.ok()) http.set_whole_file_bytes(file->body_bytes);
  WatchAttack watch(khetd.address(), s.watch_channels);
  http.Start();
  watch.Start(s.watchers, watched_ids);
  absl::SleepFor(absl::Seconds(s.ramp_seconds));
  CpuShare attacked(khetd.pid());
  const absl::Time measured = absl::Now();
  WakeLag wake_lag;
  const auto [get_attacked, move_attacked] = normal.Run(s.attack_seconds);
  const Latencies lags = wake_lag.Stop();
  const auto [khetd_attacked, tool_attacked] = attacked.Shares();
  const int64_t watchers_open = watch.open();
  http.Stop();
  watch.Stop();
  const int peak_threads = sampler->peak_threads();
  const int64_t peak_rss = sampler->peak_rss();
  sampler.reset();

  std::printf("    %-24s %8s %9s %9s\n", "", "calls", "p50 ms", "p99 ms");
  std::printf("   alone\n");
  PrintLatencies("HTTP GET session", get_alone);
  PrintLatencies("gRPC MakeMove", move_alone);
  std::printf("   under attack\n");
  PrintLatencies("HTTP GET session", get_attacked);
  PrintLatencies("gRPC MakeMove", move_attacked);
  if (absl::GetFlag(FLAGS_timeline)) {
    const std::vector<double> gets = get_attacked.SlowestPerSecond(measured);
    const std::vector<double> moves = move_attacked.SlowestPerSecond(measured);
    const std::vector<double> late = lags.SlowestPerSecond(measured);
    std::printf(
        "   slowest per second under attack (s after its start: GET ms / "
        "MakeMove ms / this tool's latest wake-up from a 1 ms sleep, ms)\n   ");
    for (size_t i = 0; i < std::max(gets.size(), moves.size()); ++i) {
      std::printf(" %.0f: %.1f/%.1f/%.1f", s.ramp_seconds + i,
                  i < gets.size() ? gets[i] : 0.0,
                  i < moves.size() ? moves[i] : 0.0,
                  i < late.size() ? late[i] : 0.0);
    }
    std::printf("\n");
  }
  const double get_ratio = Percentile(get_attacked.ms, 0.99) /
                           std::max(1e-9, Percentile(get_alone.ms, 0.99));
  const double move_ratio = Percentile(move_attacked.ms, 0.99) /
                            std::max(1e-9, Percentile(move_alone.ms, 0.99));
  std::printf(
      "  p99 ratio attack/alone: GET %.2fx, MakeMove %.2fx (p50: GET "
      "%.2fx, MakeMove %.2fx)\n",
      get_ratio, move_ratio,
      Percentile(get_attacked.ms, 0.5) /
          std::max(1e-9, Percentile(get_alone.ms, 0.5)),
      Percentile(move_attacked.ms, 0.5) /
          std::max(1e-9, Percentile(move_alone.ms, 0.5)));
  std::printf(
      "  khetd: threads %d before, peak %d; RSS %.1f MiB before, peak "
      "%.1f MiB\n",
      threads_start, peak_threads, rss_start / 1048576.0, peak_rss / 1048576.0);
  std::printf(
      "  CPU (cores): khetd %.2f alone, %.2f under attack; this tool %.2f "
      "alone, %.2f under attack\n",
      khetd_alone, khetd_attacked, tool_alone, tool_attacked);
  http.Print();
  std::vector<std::string> refused;
  int64_t watch_refused = 0;
  for (const auto& [code, count] : watch.Refused()) {
    refused.push_back(absl::StrCat(code, ": ", count));
    watch_refused += count;
  }
  std::printf(
      "  gRPC watchers: %lld open at the end of the measurement "
      "(peak %lld), refused %lld%s%s\n",
      static_cast<long long>(watchers_open),
      static_cast<long long>(watch.peak_open()),
      static_cast<long long>(watch_refused), refused.empty() ? "" : ": ",
      absl::StrJoin(refused, ", ").c_str());
  std::printf(
      "  targets: GET p99 ratio <= 2x %s, MakeMove p99 ratio <= 2x %s, "
      "threads <= 64 %s, RSS <= 400 MiB %s, refusals all status lines %s "
      "(%lld resets or silent closes), no answer larger than the file %s\n",
      Verdict(get_ratio <= 2).c_str(), Verdict(move_ratio <= 2).c_str(),
      Verdict(peak_threads <= 64).c_str(),
      Verdict(peak_rss <= 400LL << 20).c_str(),
      Verdict(http.Unclean() == 0).c_str(),
      static_cast<long long>(http.Unclean()),
      Verdict(file.ok() && http.LargestRangeAnswer() <= file->body_bytes)
          .c_str());
  const int errors = PrintErrors("alone", get_alone) +
                     PrintErrors("alone", move_alone) +
                     PrintErrors("under attack", get_attacked) +
                     PrintErrors("under attack", move_attacked);
  std::fflush(stdout);
  return errors == 0;
}

// Lets this process hold as many sockets as it may.
void RaiseFileLimit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

int Run() {
  const Settings s = FromFlags();
  const std::string store = absl::GetFlag(FLAGS_store);
  if (store != "memory" && store != "sqlite") {
    return std::printf("--store must be memory or sqlite\n"), 2;
  }
  if (s.sources < 1 || s.sources > 250 || s.watch_channels < 1 ||
      s.http_clients < 0 || s.games < 0 || s.baseline_seconds <= 0 ||
      s.attack_seconds <= 0 || s.ramp_seconds < 0) {
    return std::printf(
               "--sources must be 1 to 250, --watch_channels positive, the "
               "times positive\n"),
           2;
  }
  RaiseFileLimit();
  rlimit files;
  getrlimit(RLIMIT_NOFILE, &files);
  std::printf(
      "khet-hostile: store %s; %u cores, load average %s; this process may "
      "open %llu files\n",
      store.c_str(), std::thread::hardware_concurrency(), LoadAverage().c_str(),
      static_cast<unsigned long long>(files.rlim_cur));

  // The per-caller budgets off (khet_hostile's well-behaved clients call
  // every few milliseconds from 127.0.0.1), unless --khetd_flags says
  // otherwise: this measures khetd's doors, which hold without them.
  std::vector<std::string> args = {absl::StrCat("--store=", store),
                                   "--calls_per_second=0",
                                   "--max_unclaimed_sessions_per_address=0",
                                   "--max_unrated_games_per_hour=0"};
  for (absl::string_view flag : absl::StrSplit(absl::GetFlag(FLAGS_khetd_flags),
                                               ',', absl::SkipEmpty())) {
    args.emplace_back(flag);
  }
  std::string data_dir;
  if (store == "sqlite") {
    char pattern[] = "/tmp/khet-hostile-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      return std::printf("cannot make a temporary directory\n"), 1;
    }
    data_dir = pattern;
    args.push_back(absl::StrCat("--data_dir=", data_dir));
  }
  absl::StatusOr<std::unique_ptr<KhetdProcess>> khetd =
      KhetdProcess::Start(absl::GetFlag(FLAGS_khetd), args,
                          absl::GetFlag(FLAGS_khetd_log), /*http=*/true);
  bool ok = false;
  if (!khetd.ok()) {
    std::printf("ERROR: %s\n", khetd.status().ToString().c_str());
  } else {
    ok = Measure(s, **khetd);
    const absl::Time stopping = absl::Now();
    const int code = (*khetd)->Stop();
    std::printf("  khetd stopped in %s after SIGTERM, exit code %d\n",
                absl::FormatDuration(absl::Now() - stopping).c_str(), code);
    if (code != 0) {
      std::printf("  ERROR: khetd exited with code %d\n", code);
      ok = false;
    }
  }
  if (!data_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(data_dir, ignored);
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace khet::hostile

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "khet-hostile: khetd under hostile traffic. Measures well-behaved HTTP "
      "and gRPC clients alone and then under an attack of slow, idle, "
      "waiting, watching, multi-range and header-flood connections from "
      "many loopback addresses; prints p50/p99 and their ratio, khetd's "
      "peak threads and RSS, and what khetd answered the attackers.\n"
      "usage: khet-hostile [--store=memory|sqlite] [--smoke] "
      "[--attack_seconds=30] ...");
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "khet_hostile.cc");
  };
  absl::SetFlagsUsageConfig(usage);
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "khet-hostile: unexpected argument \"%s\"\n", rest[1]);
    return 2;
  }
  return khet::hostile::Run();
}
