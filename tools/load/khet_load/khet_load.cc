// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-load: a load benchmark for khetd. Many sessions, each with both seats
// taken, play games of random legal moves through gRPC (the tool keeps each
// game with the engine to pick its moves); the same connections also call
// the gRPC health check, an empty RPC, as the baseline. Reports calls/s and
// p50/p99/p99.9 latency of both and their ratio, measured in alternating
// phases of the same run, and khetd's resident memory per idle and per
// active session. It starts and stops khetd itself for each store, so one
// command prints the whole table. Run `khet-load --help` for the flags.
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
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
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/setups.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/common/khetd_process.h"
#include "tools/load/common/load_average.h"
#include "tools/load/khet_load/load_boards.h"
#include "tools/load/khet_load/load_figures.h"
#include "tools/load/khet_load/load_sessions.h"
#include "tools/load/khet_load/load_worker.h"

ABSL_FLAG(std::string, khetd, KHETD_PATH,
          "The khetd binary to start for each store");
ABSL_FLAG(std::string, stores, "memory,sqlite",
          "Stores to measure, comma-separated: memory, sqlite (in a fresh "
          "temporary directory), postgres (needs --postgres_url)");
ABSL_FLAG(std::string, postgres_url, "",
          "libpq connection URL for --store=postgres; when given, postgres "
          "is measured too even if --stores leaves it out");
ABSL_FLAG(std::string, server, "",
          "Measure a khetd already running at this address instead of "
          "starting one (its store is whatever it runs with)");
ABSL_FLAG(int, pid, 0,
          "With --server: khetd's process id, for the memory figures "
          "(0: no memory figures)");
ABSL_FLAG(int, sessions, 200, "Concurrent sessions playing (active games)");
ABSL_FLAG(int, threads, 2,
          "Client threads, each with its own connection and completion "
          "queue; the sessions are spread over them");
ABSL_FLAG(double, seconds, 5, "Length of each measured phase, in seconds");
ABSL_FLAG(double, warmup_seconds, 1,
          "Calls made before each phase's measurement starts");
ABSL_FLAG(int, rounds, 3,
          "Rounds of phases (health, moves, and both again with one "
          "session); calls/s is the median over rounds, latencies pool "
          "all rounds");
ABSL_FLAG(int, idle_sessions, 10000,
          "Sessions created and left idle for the memory figure (0: skip)");
ABSL_FLAG(int, ply_limit, 200,
          "Each game is drawn after this many plies (games also end on a "
          "Pharaoh hit or the third repetition); then the session is reset, "
          "both seats are taken again and a new game starts");
ABSL_FLAG(std::string, setup, "classic-2", "The setup every game starts from");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the random moves");
ABSL_FLAG(std::string, khetd_log, "/dev/null",
          "Where the started khetd's stderr (one line per request) goes");
ABSL_FLAG(
    std::string, khetd_flags, "",
    "More flags for the started khetd, comma-separated, after khet-load's "
    "own (which turn the per-caller budgets off: every session plays "
    "from 127.0.0.1, and the idle ones are never joined), e.g. "
    "--calls_per_second=1000000,--calls_burst=1000000 to measure the "
    "calls' budget checked but never refusing");

ABSL_FLAG(int, boards, 0,
          "Boards mode (docs/PERFORMANCE.md, \"Boards\"): this many in-world "
          "boards over HTTP, each a session with both seats, holding a long "
          "poll or an event stream (or pushed to: --push) and moving once per "
          "period; 0: the gRPC benchmark above");
ABSL_FLAG(std::string, wait, "poll",
          "Boards mode: how each board waits for events, \"poll\" (long "
          "polls, compact view) or \"stream\" (server-sent events)");
ABSL_FLAG(bool, push, false,
          "Boards mode: instead of waiting, each board registers a URL "
          "(POST /v1/sessions/{id}/callback) on its client address's "
          "receiving server, one per address as a simulator host serves its "
          "objects' URLs, and khetd pushes the session's events to it; "
          "every delivery's signature and version order is checked");
ABSL_FLAG(int, wait_seconds, 25,
          "Boards mode: the long poll's waitSeconds (the in-world board's "
          "value in Second Life)");
ABSL_FLAG(double, move_period_seconds, 10,
          "Boards mode: each board moves once per period");
ABSL_FLAG(double, move_jitter, 0.2,
          "Boards mode: each period varies by up to this share of it");
ABSL_FLAG(int, client_addresses, 1,
          "Boards mode: source addresses 127.0.0.2 onwards the boards are "
          "spread over (1: one simulator host)");
ABSL_FLAG(int, shared_connections, 64,
          "Boards mode: kept-alive connections per client thread and source "
          "address for the boards' moves and setting up");
ABSL_FLAG(bool, inworld_headers, true,
          "Boards mode: each board's calls carry X-SecondLife-Object-Key and "
          "-Owner-Key, as a simulator sends them");
ABSL_FLAG(double, boards_seconds, 60,
          "Boards mode: the measured time, after --warmup_seconds");
ABSL_FLAG(std::string, http_server, "",
          "Boards mode: measure a khetd already running with its HTTP port "
          "at this address (127.0.0.1:PORT) instead of starting one; "
          "--pid names its process. Several, comma-separated: replicas on "
          "one database (or proxies), board i waiting on the i-th modulo "
          "their number");
ABSL_FLAG(std::string, khetds, "",
          "Boards mode with --http_server: the khetd processes whose figures "
          "are printed (and whose /metrics are read), as "
          "127.0.0.1:HTTP_PORT/PID, comma-separated; default: --http_server "
          "with --pid when there is one server");
ABSL_FLAG(double, fault_at_seconds, -1,
          "Boards mode: a fault this long into the measured time (-1: none): "
          "SIGKILL to --fault_kill_pid and/or --fault_command run; the calls "
          "it fails are retried (moves with their request id), and each "
          "board must be answered again within --recovery_limit_seconds");
ABSL_FLAG(int, fault_kill_pid, 0, "Boards mode: the process the fault kills");
ABSL_FLAG(std::string, fault_command, "",
          "Boards mode: a shell command the fault runs (e.g. stopping the "
          "database)");
ABSL_FLAG(double, fault_seconds, 0,
          "Boards mode: how long after its start --fault_end_command runs");
ABSL_FLAG(std::string, fault_end_command, "",
          "Boards mode: a shell command that ends the fault (e.g. starting the "
          "database again)");
ABSL_FLAG(double, recovery_limit_seconds, 5,
          "Boards mode: the longest a board may go unanswered after the fault "
          "(its end) or its own first failure");
ABSL_FLAG(bool, calls_elsewhere, false,
          "Boards mode with several --http_server: each board makes its "
          "moves and other calls on the replica after the one it waits on, "
          "so that its events reach it through the store's notices");

namespace khet::load {
namespace {

// The games' setup and ply limit from the flags.
GameOptions GameOptionsFromFlags() {
  GameOptions options;
  options.setup = absl::GetFlag(FLAGS_setup);
  options.ply_limit = absl::GetFlag(FLAGS_ply_limit);
  return options;
}

// ---- One store --------------------------------------------------------------

// Runs `jobs` across `threads` threads, job i on thread i % threads; the
// first error.
absl::Status Parallel(int threads, int jobs,
                      const std::function<absl::Status(int job)>& run) {
  std::vector<absl::Status> results(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int j = t; j < jobs; j += threads) {
        absl::Status s = run(j);
        if (!s.ok()) {
          results[t] = s;
          return;
        }
      }
    });
  }
  for (std::thread& thread : pool) thread.join();
  for (const absl::Status& s : results) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Measures the khetd at `address` (process `pid`, 0: unknown) and prints
// its figures; returns false if any call failed.
bool Measure(const std::string& label, const std::string& address, pid_t pid) {
  const int sessions = absl::GetFlag(FLAGS_sessions);
  const int threads = absl::GetFlag(FLAGS_threads);
  const int idle = absl::GetFlag(FLAGS_idle_sessions);
  const GameOptions game = GameOptionsFromFlags();
  std::printf("store %s: khetd at %s%s\n", label.c_str(), address.c_str(),
              pid > 0 ? absl::StrCat(" (pid ", pid, ")").c_str() : "");
  std::fflush(stdout);

  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    workers.push_back(std::make_unique<Worker>(address, t, game));
  }
  auto cpu = [pid]() -> std::optional<int64_t> {
    if (pid <= 0) return std::nullopt;
    absl::StatusOr<int64_t> nanos = CpuNanos(pid);
    return nanos.ok() ? std::optional<int64_t>(*nanos) : std::nullopt;
  };
  auto rss = [pid]() -> std::optional<int64_t> {
    if (pid <= 0) return std::nullopt;
    absl::StatusOr<int64_t> bytes = ResidentBytes(pid);
    return bytes.ok() ? std::optional<int64_t>(*bytes) : std::nullopt;
  };

  // Idle sessions: created, nobody seated. More threads than cores, so
  // that a durable store sees concurrent writes.
  const std::optional<int64_t> rss_start = rss();
  if (idle > 0) {
    const int creators = std::max(threads, 16);
    std::vector<std::unique_ptr<v1::KhetService::Stub>> stubs;
    for (int t = 0; t < creators; ++t) {
      stubs.push_back(v1::KhetService::NewStub(
          grpc::CreateChannel(address, grpc::InsecureChannelCredentials())));
    }
    const absl::Time start = absl::Now();
    absl::Status created = Parallel(creators, idle, [&](int job) {
      Player player;
      return CreateSession(*stubs[job % creators], game, player,
                           /*seated=*/false);
    });
    if (!created.ok()) {
      std::printf("  creating idle sessions failed: %s\n",
                  created.ToString().c_str());
      return false;
    }
    std::printf("  created %d idle sessions in %.2f s\n", idle,
                absl::ToDoubleSeconds(absl::Now() - start));
  }
  const std::optional<int64_t> rss_idle = rss();

  // The playing sessions, spread over the workers.
  std::vector<Player> players(sessions);
  std::vector<std::vector<int>> indices(threads);
  for (int i = 0; i < sessions; ++i) {
    players[i].random.seed(absl::GetFlag(FLAGS_seed) * 1000003 + i);
    workers[i % threads]->players().push_back(&players[i]);
    indices[i % threads].push_back(i);
  }
  absl::Status seated = Parallel(threads, sessions, [&](int i) {
    return CreateSession(workers[i % threads]->stub(), game, players[i],
                         /*seated=*/true);
  });
  if (!seated.ok()) {
    std::printf("  creating the playing sessions failed: %s\n",
                seated.ToString().c_str());
    return false;
  }

  // Rounds of four phases: health and moves with every session, then with
  // one.
  const double seconds = absl::GetFlag(FLAGS_seconds);
  const double warmup = absl::GetFlag(FLAGS_warmup_seconds);
  struct PhaseSpec {
    Kind kind;
    int active;
  };
  const PhaseSpec specs[] = {{Kind::kHealth, sessions},
                             {Kind::kMove, sessions},
                             {Kind::kHealth, 1},
                             {Kind::kMove, 1}};
  Tally tallies[4];
  for (int round = 0; round < absl::GetFlag(FLAGS_rounds); ++round) {
    for (int p = 0; p < 4; ++p) {
      Phase phase;
      phase.kind = specs[p].kind;
      phase.active = specs[p].active;
      phase.window_start_ns = NowNanos() + static_cast<int64_t>(warmup * 1e9);
      std::vector<std::vector<Sample>> samples(threads);
      std::vector<std::thread> running;
      for (int t = 0; t < threads; ++t) {
        running.emplace_back(
            [&, t] { workers[t]->Run(phase, indices[t], &samples[t]); });
      }
      absl::SleepFor(absl::Seconds(warmup));
      const std::optional<int64_t> cpu_start = cpu();
      absl::SleepFor(absl::Seconds(seconds));
      const std::optional<int64_t> cpu_end = cpu();
      const int64_t window_end = NowNanos();
      phase.stop = true;
      for (std::thread& thread : running) thread.join();
      std::vector<Sample> all;
      for (const auto& s : samples) all.insert(all.end(), s.begin(), s.end());
      tallies[p].AddRound(all, phase.window_start_ns, window_end,
                          cpu_start && cpu_end ? *cpu_end - *cpu_start : 0);
    }
  }
  const std::optional<int64_t> rss_active = rss();

  if (rss_start && rss_idle && rss_active) {
    std::string line =
        absl::StrFormat("  memory: RSS %s at start", FormatBytes(*rss_start));
    if (idle > 0) {
      const double per = double(*rss_idle - *rss_start) / idle;
      absl::StrAppend(&line,
                      absl::StrFormat("; %d idle sessions +%s (%s each)", idle,
                                      FormatBytes(*rss_idle - *rss_start),
                                      FormatBytes(per)));
    }
    const double per_active = double(*rss_active - *rss_idle) / sessions;
    absl::StrAppend(
        &line, absl::StrFormat("; %d sessions playing +%s (%s each)", sessions,
                               FormatBytes(*rss_active - *rss_idle),
                               FormatBytes(per_active)));
    std::printf("%s\n", line.c_str());
  }
  for (int group = 0; group < 2; ++group) {
    const Figures health = tallies[2 * group].Compute();
    const Figures move = tallies[2 * group + 1].Compute();
    std::printf("  %d session%s at once  %10s %10s %9s %9s %9s %12s\n",
                specs[2 * group].active,
                specs[2 * group].active == 1 ? " " : "s", "calls", "calls/s",
                "p50 ms", "p99 ms", "p99.9 ms", "khetd CPU us");
    for (const auto& [name, f] :
         {std::pair<const char*, Figures>{"health check (baseline)", health},
          {"MakeMove", move}}) {
      std::printf("    %-24s %8lld %10.0f %9.3f %9.3f %9.3f %12.1f\n", name,
                  static_cast<long long>(f.calls), f.calls_per_second, f.p50_ms,
                  f.p99_ms, f.p999_ms, f.server_cpu_us);
    }
    std::printf(
        "    MakeMove / health check: p50 %.2fx, calls/s %.2fx, khetd CPU "
        "per call %.2fx\n",
        health.p50_ms > 0 ? move.p50_ms / health.p50_ms : 0.0,
        health.calls_per_second > 0
            ? move.calls_per_second / health.calls_per_second
            : 0.0,
        health.server_cpu_us > 0 ? move.server_cpu_us / health.server_cpu_us
                                 : 0.0);
  }
  bool ok = true;
  for (const auto& worker : workers) {
    for (const auto& [error, count] : worker->errors()) {
      std::printf("  ERROR x%d: %s\n", count, error.c_str());
      ok = false;
    }
  }
  std::fflush(stdout);
  return ok;
}

// The boards mode's options from the flags.
BoardsOptions BoardsOptionsFromFlags() {
  BoardsOptions options;
  options.boards = absl::GetFlag(FLAGS_boards);
  options.threads = absl::GetFlag(FLAGS_threads);
  options.stream = absl::GetFlag(FLAGS_wait) == "stream";
  options.push = absl::GetFlag(FLAGS_push);
  options.wait_seconds = absl::GetFlag(FLAGS_wait_seconds);
  options.move_period_seconds = absl::GetFlag(FLAGS_move_period_seconds);
  options.move_jitter = absl::GetFlag(FLAGS_move_jitter);
  options.client_addresses = absl::GetFlag(FLAGS_client_addresses);
  options.shared_connections = absl::GetFlag(FLAGS_shared_connections);
  options.inworld_headers = absl::GetFlag(FLAGS_inworld_headers);
  options.warmup_seconds = absl::GetFlag(FLAGS_warmup_seconds);
  options.seconds = absl::GetFlag(FLAGS_boards_seconds);
  options.game = GameOptionsFromFlags();
  options.seed = absl::GetFlag(FLAGS_seed);
  options.calls_elsewhere = absl::GetFlag(FLAGS_calls_elsewhere);
  options.fault.at_seconds = absl::GetFlag(FLAGS_fault_at_seconds);
  options.fault.kill_pid = absl::GetFlag(FLAGS_fault_kill_pid);
  options.fault.command = absl::GetFlag(FLAGS_fault_command);
  options.fault.seconds = absl::GetFlag(FLAGS_fault_seconds);
  options.fault.end_command = absl::GetFlag(FLAGS_fault_end_command);
  options.fault.recovery_limit_seconds =
      absl::GetFlag(FLAGS_recovery_limit_seconds);
  return options;
}

// A port of "127.0.0.1:PORT"; 0 if it is not one.
int LoopbackPort(absl::string_view address) {
  int port = 0;
  if (!absl::ConsumePrefix(&address, "127.0.0.1:") ||
      !absl::SimpleAtoi(address, &port) || port < 1 || port > 65535) {
    return 0;
  }
  return port;
}

// --http_server's ports.
absl::StatusOr<std::vector<int>> BoardsPortsFromFlags() {
  std::vector<int> ports;
  for (absl::string_view address :
       absl::StrSplit(absl::GetFlag(FLAGS_http_server), ',')) {
    const int port = LoopbackPort(address);
    if (port == 0) {
      return absl::InvalidArgumentError(
          "--http_server must be 127.0.0.1:PORT, or several comma-separated");
    }
    ports.push_back(port);
  }
  return ports;
}

// --khetds, or the one --http_server with --pid.
absl::StatusOr<std::vector<WatchedKhetd>> KhetdsFromFlags(
    const std::vector<int>& ports) {
  std::vector<WatchedKhetd> khetds;
  const std::string listed = absl::GetFlag(FLAGS_khetds);
  if (listed.empty()) {
    if (ports.size() == 1) {
      khetds.push_back({ports[0], absl::GetFlag(FLAGS_pid)});
    }
    return khetds;
  }
  for (absl::string_view each : absl::StrSplit(listed, ',')) {
    const size_t slash = each.find('/');
    WatchedKhetd khetd;
    if (slash == absl::string_view::npos ||
        (khetd.http_port = LoopbackPort(each.substr(0, slash))) == 0 ||
        !absl::SimpleAtoi(each.substr(slash + 1), &khetd.pid) ||
        khetd.pid <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--khetds: \"", each, "\" is not 127.0.0.1:HTTP_PORT/PID"));
    }
    khetds.push_back(khetd);
  }
  return khetds;
}

// Starts khetd with `store`, measures it, stops it. The boards mode runs
// khetd with its own limits and budgets, the defaults but for what
// --khetd_flags sets.
bool MeasureStore(const std::string& store) {
  const bool boards = absl::GetFlag(FLAGS_boards) > 0;
  const int capacity =
      absl::GetFlag(FLAGS_idle_sessions) + absl::GetFlag(FLAGS_sessions) + 100;
  std::vector<std::string> args = {absl::StrCat("--store=", store)};
  if (!boards) {
    args.insert(
        args.end(),
        {absl::StrCat("--max_sessions=", std::max(capacity, 10000)),
         "--calls_per_second=0", "--max_unclaimed_sessions_per_address=0",
         "--max_unrated_games_per_hour=0"});
  }
  for (absl::string_view flag : absl::StrSplit(absl::GetFlag(FLAGS_khetd_flags),
                                               ',', absl::SkipEmpty())) {
    args.emplace_back(flag);
  }
  std::string data_dir;
  if (store == "sqlite") {
    char pattern[] = "/tmp/khet-load-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      std::printf("store sqlite: cannot make a temporary directory\n");
      return false;
    }
    data_dir = pattern;
    args.push_back(absl::StrCat("--data_dir=", data_dir));
  } else if (store == "postgres") {
    args.push_back(
        absl::StrCat("--postgres_url=", absl::GetFlag(FLAGS_postgres_url)));
  }
  absl::StatusOr<std::unique_ptr<KhetdProcess>> khetd =
      KhetdProcess::Start(absl::GetFlag(FLAGS_khetd), args,
                          absl::GetFlag(FLAGS_khetd_log), /*http=*/boards);
  bool ok = false;
  if (!khetd.ok()) {
    std::printf("store %s: %s\n", store.c_str(),
                khetd.status().ToString().c_str());
  } else if (boards) {
    std::printf("store %s: khetd at %s, HTTP 127.0.0.1:%d (pid %d)\n",
                store.c_str(), (*khetd)->address().c_str(),
                (*khetd)->http_port(), static_cast<int>((*khetd)->pid()));
    ok = RunBoards(BoardsOptionsFromFlags(), {(*khetd)->http_port()},
                   {{(*khetd)->http_port(), (*khetd)->pid()}});
    const int code = (*khetd)->Stop();
    if (code != 0) {
      std::printf("  khetd exited with code %d\n", code);
      ok = false;
    }
  } else {
    ok = Measure(store, (*khetd)->address(), (*khetd)->pid());
    const int code = (*khetd)->Stop();
    if (code != 0) {
      std::printf("  khetd exited with code %d\n", code);
      ok = false;
    }
  }
  if (!data_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(data_dir, ignored);
  }
  return ok;
}

// The boards mode's checks of its flags; "" if they are fine.
std::string BoardsFlagsProblem() {
  const BoardsOptions o = BoardsOptionsFromFlags();
  if (o.threads < 1 || o.threads > o.boards) {
    return "--threads must be 1 to --boards";
  }
  if (absl::GetFlag(FLAGS_wait) != "poll" &&
      absl::GetFlag(FLAGS_wait) != "stream") {
    return "--wait must be poll or stream";
  }
  if (o.push && o.stream) return "--push and --wait=stream exclude each other";
  if (o.wait_seconds < 0 || o.wait_seconds > 25) {
    return "--wait_seconds must be 0 to 25";
  }
  if (o.move_period_seconds <= 0 || o.move_jitter < 0 || o.move_jitter >= 1) {
    return "--move_period_seconds must be positive, --move_jitter 0 to "
           "below 1";
  }
  if (o.client_addresses < 1 || o.client_addresses > 60000) {
    return "--client_addresses must be 1 to 60000";
  }
  if (o.shared_connections < 1) return "--shared_connections must be >= 1";
  if (o.seconds <= 0 || o.warmup_seconds < 0) {
    return "--boards_seconds must be positive, --warmup_seconds not "
           "negative";
  }
  const BoardsOptions::Fault& f = o.fault;
  if (f.at_seconds >= 0) {
    if (f.at_seconds + f.seconds >= o.seconds) {
      return "the fault (--fault_at_seconds + --fault_seconds) must end "
             "within --boards_seconds";
    }
    if (f.kill_pid <= 0 && f.command.empty()) {
      return "--fault_at_seconds needs --fault_kill_pid or --fault_command";
    }
    if (f.seconds < 0 || f.recovery_limit_seconds <= 0) {
      return "--fault_seconds must not be negative, --recovery_limit_seconds "
             "must be positive";
    }
  }
  return "";
}

int Run() {
  const int sessions = absl::GetFlag(FLAGS_sessions);
  const int threads = absl::GetFlag(FLAGS_threads);
  if (absl::GetFlag(FLAGS_boards) > 0) {
    if (const std::string problem = BoardsFlagsProblem(); !problem.empty()) {
      return std::printf("%s\n", problem.c_str()), 2;
    }
    if (!SetupPosition(absl::GetFlag(FLAGS_setup)).ok()) {
      return std::printf("--setup=%s: no such setup\n",
                         absl::GetFlag(FLAGS_setup).c_str()),
             2;
    }
  } else if (sessions < 1) {
    return std::printf("--sessions must be >= 1\n"), 2;
  } else if (threads < 1 || threads > sessions) {
    return std::printf("--threads must be 1 to --sessions\n"), 2;
  }
  if (absl::GetFlag(FLAGS_boards) > 0 &&
      !absl::GetFlag(FLAGS_http_server).empty()) {
    absl::StatusOr<std::vector<int>> ports = BoardsPortsFromFlags();
    absl::StatusOr<std::vector<WatchedKhetd>> khetds =
        ports.ok() ? KhetdsFromFlags(*ports)
                   : absl::StatusOr<std::vector<WatchedKhetd>>(ports.status());
    if (!khetds.ok()) {
      return std::printf("%s\n",
                         std::string(khetds.status().message()).c_str()),
             2;
    }
    return RunBoards(BoardsOptionsFromFlags(), *ports, *khetds) ? 0 : 1;
  }
  if (absl::GetFlag(FLAGS_seconds) <= 0 || absl::GetFlag(FLAGS_rounds) < 1 ||
      absl::GetFlag(FLAGS_warmup_seconds) < 0 ||
      absl::GetFlag(FLAGS_idle_sessions) < 0) {
    return std::printf(
               "--seconds and --rounds must be positive, --warmup_seconds "
               "and --idle_sessions not negative\n"),
           2;
  }
  if (!SetupPosition(absl::GetFlag(FLAGS_setup)).ok()) {
    return std::printf("--setup=%s: no such setup\n",
                       absl::GetFlag(FLAGS_setup).c_str()),
           2;
  }
  if (absl::GetFlag(FLAGS_boards) == 0) {
    std::printf(
        "khet-load: %d sessions, %d client threads, %d round(s) of %.1f s "
        "phases (+%.1f s warm-up); %u cores, load average %s\n",
        sessions, threads, absl::GetFlag(FLAGS_rounds),
        absl::GetFlag(FLAGS_seconds), absl::GetFlag(FLAGS_warmup_seconds),
        std::thread::hardware_concurrency(), LoadAverage().c_str());
  }
  if (absl::GetFlag(FLAGS_boards) == 0 &&
      !absl::GetFlag(FLAGS_server).empty()) {
    return Measure("(running server)", absl::GetFlag(FLAGS_server),
                   absl::GetFlag(FLAGS_pid))
               ? 0
               : 1;
  }
  std::vector<std::string> stores =
      absl::StrSplit(absl::GetFlag(FLAGS_stores), ',', absl::SkipEmpty());
  const bool have_url = !absl::GetFlag(FLAGS_postgres_url).empty();
  if (have_url &&
      std::find(stores.begin(), stores.end(), "postgres") == stores.end()) {
    stores.push_back("postgres");
  }
  for (const std::string& store : stores) {
    if (store != "memory" && store != "sqlite" && store != "postgres") {
      return std::printf("--stores: unknown store \"%s\"\n", store.c_str()), 2;
    }
    if (store == "postgres" && !have_url) {
      return std::printf("--stores=postgres needs --postgres_url\n"), 2;
    }
  }
  bool ok = true;
  for (const std::string& store : stores) ok = MeasureStore(store) && ok;
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace khet::load

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "khet-load: khetd under load. Sessions play random legal moves through "
      "gRPC; prints calls/s and p50/p99/p99.9 latency of MakeMove and of the "
      "health check (the baseline) with their ratio, and khetd's memory per "
      "idle and per playing session, for each store.\n"
      "usage: khet-load [--stores=memory,sqlite] [--postgres_url=URL] "
      "[--sessions=200] [--seconds=5] ...");
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "khet_load.cc");
  };
  absl::SetFlagsUsageConfig(usage);
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "khet-load: unexpected argument \"%s\"\n", rest[1]);
    return 2;
  }
  return khet::load::Run();
}
