// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_boards.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tools/load/common/khetd_process.h"
#include "tools/load/common/load_average.h"
#include "tools/load/khet_load/load_board.h"
#include "tools/load/khet_load/load_figures.h"
#include "tools/load/khet_load/load_push_figures.h"
#include "tools/load/khet_load/load_push_receiver.h"
#include "tools/load/khet_load/load_push_routing.h"

namespace khet::load {
namespace {

using boards_internal::Board;
using boards_internal::ClientThread;
using boards_internal::Counts;
using boards_internal::NowNs;
using boards_internal::PrintPushed;
using boards_internal::PushMetrics;
using boards_internal::ReadPushMetrics;
using boards_internal::StartPushReceivers;
using boards_internal::Window;

// Raises the soft limit of open files to the hard one: a board's long poll
// or stream holds a connection of its own.
void RaiseOpenFiles() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The percentile `q` of sorted `values` in milliseconds.
double Ms(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t at = std::min(
      sorted.size() - 1, static_cast<size_t>(q * (sorted.size() - 1) + 0.5));
  return sorted[at] / 1e6;
}

// Runs `command` by /bin/sh and waits for it: its exit code, or -1. The
// child closes every descriptor but the standard three first, so that the
// boards' thousands of connections are not handed to what it starts (a
// database server started with them open ran out of files).
int RunCommand(const std::string& command) {
  const pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    close_range(3, ~0U, 0);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// What the fault did to the boards; false if a board was not answered
// again within the limit, or still failed at the end.
bool PrintFault(const BoardsOptions& options, const Counts& all,
                const Window& window) {
  const BoardsOptions::Fault& fault = options.fault;
  const int64_t start = window.fault_start.load();
  if (start == INT64_MAX) {
    std::printf("  ERROR: the fault never came (at %.1f s of %.1f)\n",
                fault.at_seconds, options.seconds);
    return false;
  }
  std::printf("  fault at %.1f s:%s%s%s, %.1f s long\n",
              (start - window.start.load()) / 1e9,
              fault.kill_pid > 0
                  ? absl::StrCat(" SIGKILL to ", fault.kill_pid).c_str()
                  : "",
              fault.command.empty() ? "" : " ", fault.command.c_str(),
              (window.fault_end.load() - start) / 1e9);
  std::string outage;
  for (const auto& [what, n] : all.outage) {
    absl::StrAppend(&outage, outage.empty() ? "" : ", ", what, " x", n);
  }
  std::printf("  calls failed by it and retried: %s; moves sent again %lld\n",
              outage.empty() ? "none" : outage.c_str(),
              static_cast<long long>(all.moves_sent_again));
  const double limit_ms = fault.recovery_limit_seconds * 1e3;
  const double worst = Ms(all.recovery_ns, 1.0);
  std::printf(
      "  boards answered again: %zu, after ms p50 %.0f  p99 %.0f  max %.0f "
      "(limit %.0f); still failing at the end: %lld\n",
      all.recovery_ns.size(), Ms(all.recovery_ns, 0.5),
      Ms(all.recovery_ns, 0.99), worst, limit_ms,
      static_cast<long long>(all.unrecovered));
  return worst <= limit_ms && all.unrecovered == 0;
}

}  // namespace

bool RunBoards(const BoardsOptions& options, const std::vector<int>& ports,
               const std::vector<WatchedKhetd>& khetds) {
  RaiseOpenFiles();
  const int servers = static_cast<int>(ports.size());
  const int processes = static_cast<int>(khetds.size());
  std::vector<int> metrics_ports;
  for (const WatchedKhetd& khetd : khetds) {
    metrics_ports.push_back(khetd.http_port);
  }
  std::printf(
      "boards: %d, each %s, a move every %.1f s +-%.0f%%; %d client "
      "address%s, %d client threads per server; %u cores, load average %s\n",
      options.boards,
      options.push     ? "with a URL khetd pushes its events to (one "
                         "receiving server per client address)"
      : options.stream ? "with an event stream"
                       : absl::StrCat("with a long poll (waitSeconds ",
                                      options.wait_seconds, ")")
                             .c_str(),
      options.move_period_seconds, options.move_jitter * 100,
      options.client_addresses, options.client_addresses == 1 ? "" : "es",
      options.threads, std::thread::hardware_concurrency(),
      LoadAverage().c_str());
  if (servers > 1) {
    std::printf(
        "  %d servers; board i waits on server i %% %d and makes its other "
        "calls %s\n",
        servers, servers,
        options.calls_elsewhere ? "on the next one" : "on the same one");
  }
  std::fflush(stdout);

  // Client threads by server: server s's are clients[s * threads ...].
  Window window;
  std::vector<std::unique_ptr<ClientThread>> clients;
  for (int s = 0; s < servers; ++s) {
    const int calls = options.calls_elsewhere ? (s + 1) % servers : s;
    for (int t = 0; t < options.threads; ++t) {
      clients.push_back(std::make_unique<ClientThread>(
          options, window, ports[s], ports[calls], s * options.threads + t));
    }
  }
  std::vector<Board*> boards;  // by index
  for (int i = 0; i < options.boards; ++i) {
    const int server = i % servers;
    const int thread = (i / servers) % options.threads;
    boards.push_back(clients[server * options.threads + thread]->Add(
        i, i % options.client_addresses));
  }

  // Push mode: each client address's receiving server (load_push_routing.h).
  std::atomic<int64_t> unknown_targets{0};
  std::vector<std::unique_ptr<PushReceiver>> receivers;
  if (options.push) {
    absl::StatusOr<std::vector<std::unique_ptr<PushReceiver>>> started =
        StartPushReceivers(options, clients, boards, unknown_targets);
    if (!started.ok()) {
      std::printf("  ERROR: %s\n", started.status().ToString().c_str());
      return false;
    }
    receivers = std::move(*started);
  }

  // Each khetd's and the client's figures from /proc, sampled every 100 ms.
  std::vector<int64_t> rss_peak(processes, 0), rss_start(processes, 0);
  std::vector<int> threads_peak(processes, 0);
  auto sample = [&] {
    for (int r = 0; r < processes; ++r) {
      const pid_t pid = khetds[r].pid;
      if (pid <= 0) continue;
      if (absl::StatusOr<int64_t> rss = ResidentBytes(pid); rss.ok()) {
        rss_peak[r] = std::max(rss_peak[r], *rss);
      }
      if (absl::StatusOr<int> threads = ThreadCount(pid); threads.ok()) {
        threads_peak[r] = std::max(threads_peak[r], *threads);
      }
    }
  };
  auto cpu = [](pid_t of) -> int64_t {
    if (of <= 0) return 0;
    absl::StatusOr<int64_t> nanos = CpuNanos(of);
    return nanos.ok() ? *nanos : 0;
  };
  for (int r = 0; r < processes; ++r) {
    if (khetds[r].pid > 0) {
      rss_start[r] = ResidentBytes(khetds[r].pid).value_or(0);
    }
  }

  const absl::Time setup_start = absl::Now();
  std::vector<std::thread> running;
  for (auto& client : clients) {
    running.emplace_back([&client] { client->Run(); });
  }
  auto set_up = [&] {
    int n = 0;
    for (auto& client : clients) n += client->counts().set_up.load();
    return n;
  };
  // Setting up: until every board plays, or no progress for 30 s.
  int last = -1;
  absl::Time progress = absl::Now();
  while (set_up() < options.boards) {
    absl::SleepFor(absl::Milliseconds(100));
    sample();
    const int now = set_up();
    if (now != last) {
      last = now;
      progress = absl::Now();
    } else if (absl::Now() - progress > absl::Seconds(30)) {
      break;
    }
  }
  const double setup_seconds = absl::ToDoubleSeconds(absl::Now() - setup_start);
  const int playing = set_up();
  std::printf(
      "  set up %d boards in %.1f s (sessions created, both seats "
      "taken, waiting)\n",
      playing, setup_seconds);
  std::fflush(stdout);

  // The fault, once the window has started: its start and its end.
  const BoardsOptions::Fault& fault = options.fault;
  auto fault_step = [&] {
    if (fault.at_seconds < 0) return;
    const int64_t now = NowNs();
    const int64_t start = window.start.load();
    if (start == INT64_MAX) return;  // not measuring yet
    if (window.fault_start.load() == INT64_MAX) {
      if (now < start + static_cast<int64_t>(fault.at_seconds * 1e9)) return;
      // Started before the command runs: what fails while it does is the
      // fault's.
      window.fault_start = NowNs();
      if (fault.kill_pid > 0) kill(fault.kill_pid, SIGKILL);
      if (!fault.command.empty() && RunCommand(fault.command) != 0) {
        std::printf("  ERROR: the fault's command failed: %s\n",
                    fault.command.c_str());
      }
      if (fault.end_command.empty()) {
        window.fault_end = window.fault_start.load();
      }
      return;
    }
    if (window.fault_end.load() == INT64_MAX &&
        now >= window.fault_start.load() +
                   static_cast<int64_t>(fault.seconds * 1e9)) {
      if (RunCommand(fault.end_command) != 0) {
        std::printf("  ERROR: the fault's end command failed: %s\n",
                    fault.end_command.c_str());
      }
      window.fault_end = NowNs();
    }
  };
  auto sleep_sampling = [&](double seconds) {
    const absl::Time until = absl::Now() + absl::Seconds(seconds);
    while (absl::Now() < until) {
      absl::SleepFor(std::min(absl::Milliseconds(100), until - absl::Now()));
      sample();
      fault_step();
    }
  };
  if (playing == options.boards) {
    sleep_sampling(options.warmup_seconds);
    const PushMetrics push_start =
        options.push ? ReadPushMetrics(metrics_ports) : PushMetrics();
    window.start = NowNs();
    std::vector<int64_t> khetd_cpu(processes);
    for (int r = 0; r < processes; ++r) khetd_cpu[r] = cpu(khetds[r].pid);
    const int64_t client_cpu_start = cpu(getpid());
    const int64_t end = NowNs() + static_cast<int64_t>(options.seconds * 1e9);
    window.end = end;
    sleep_sampling(options.seconds);
    for (int r = 0; r < processes; ++r) {
      khetd_cpu[r] = std::max<int64_t>(0, cpu(khetds[r].pid) - khetd_cpu[r]);
    }
    const int64_t client_cpu = cpu(getpid()) - client_cpu_start;
    // The last moves' events: a grace of 2 s.
    sleep_sampling(2);
    const PushMetrics push_end =
        options.push ? ReadPushMetrics(metrics_ports) : PushMetrics();
    for (auto& client : clients) client->Stop();
    for (std::thread& thread : running) thread.join();
    running.clear();

    Counts all;
    for (auto& client : clients) {
      client->CountUndelivered();
      Counts& c = client->counts();
      all.delivery_ns.insert(all.delivery_ns.end(), c.delivery_ns.begin(),
                             c.delivery_ns.end());
      all.move_ns.insert(all.move_ns.end(), c.move_ns.begin(), c.move_ns.end());
      all.moves += c.moves;
      all.delivered_first += c.delivered_first;
      all.skipped += c.skipped;
      all.undelivered += c.undelivered;
      all.reconnects += c.reconnects;
      all.deliveries += c.deliveries;
      all.bad_signatures += c.bad_signatures;
      all.out_of_order += c.out_of_order;
      all.gaps += c.gaps;
      all.states += c.states;
      for (const auto& [what, n] : c.outage) all.outage[what] += n;
      all.recovery_ns.insert(all.recovery_ns.end(), c.recovery_ns.begin(),
                             c.recovery_ns.end());
      all.moves_sent_again += c.moves_sent_again;
      all.unrecovered += c.unrecovered;
      for (const auto& [what, n] : c.refusals) all.refusals[what] += n;
      for (const std::string& e : c.errors) all.errors.push_back(e);
    }
    std::sort(all.delivery_ns.begin(), all.delivery_ns.end());
    std::sort(all.move_ns.begin(), all.move_ns.end());
    std::sort(all.recovery_ns.begin(), all.recovery_ns.end());
    std::printf(
        "  measured %.0f s: %lld moves acknowledged (%.0f/s), %zu events "
        "delivered (%lld before the move's answer), %lld undelivered, %lld "
        "periods skipped (last move not yet delivered)\n",
        options.seconds, static_cast<long long>(all.moves),
        all.moves / options.seconds, all.delivery_ns.size(),
        static_cast<long long>(all.delivered_first),
        static_cast<long long>(all.undelivered),
        static_cast<long long>(all.skipped));
    std::printf(
        "  delivery ms (move acknowledged -> %s): p50 %.2f  "
        "p99 %.2f  p99.9 %.2f  max %.2f\n",
        options.push ? "the push holding its event read by the board's server"
                     : "event at its board",
        Ms(all.delivery_ns, 0.5), Ms(all.delivery_ns, 0.99),
        Ms(all.delivery_ns, 0.999), Ms(all.delivery_ns, 1.0));
    std::printf("  move answer ms: p50 %.2f  p99 %.2f  max %.2f\n",
                Ms(all.move_ns, 0.5), Ms(all.move_ns, 0.99),
                Ms(all.move_ns, 1.0));
    std::string refusals;
    for (const auto& [what, n] : all.refusals) {
      absl::StrAppend(&refusals, refusals.empty() ? "" : ", ", what, " x", n);
    }
    std::printf("  refused or failed: %s; reconnects %lld\n",
                refusals.empty() ? "none" : refusals.c_str(),
                static_cast<long long>(all.reconnects));
    if (options.push &&
        !PrintPushed(options, all, receivers, unknown_targets.load(),
                     push_start, push_end)) {
      all.errors.push_back("pushed deliveries were wrong (above)");
    }
    if (!options.push) {
      std::printf("  events out of order %lld, skipped %lld\n",
                  static_cast<long long>(all.out_of_order),
                  static_cast<long long>(all.gaps));
      if (all.out_of_order + all.gaps > 0) {
        all.errors.push_back("events came out of order or were skipped");
      }
    }
    if (fault.at_seconds >= 0) {
      if (!PrintFault(options, all, window)) {
        all.errors.push_back("the boards did not all recover (above)");
      }
    }
    for (int r = 0; r < processes; ++r) {
      if (khetds[r].pid <= 0) continue;
      if (khetds[r].pid == fault.kill_pid) {
        std::printf("  khetd 127.0.0.1:%d: killed by the fault\n",
                    khetds[r].http_port);
        continue;
      }
      std::printf(
          "  khetd%s: RSS peak %s (%s at start), threads peak %d, CPU %.1f%% "
          "of a core in the window\n",
          processes == 1
              ? ""
              : absl::StrCat(" 127.0.0.1:", khetds[r].http_port).c_str(),
          FormatBytes(rss_peak[r]).c_str(), FormatBytes(rss_start[r]).c_str(),
          threads_peak[r], 100.0 * khetd_cpu[r] / (options.seconds * 1e9));
    }
    std::printf("  client (khet-load): CPU %.1f%% of a core in the window\n",
                100.0 * client_cpu / (options.seconds * 1e9));
    // What fails the run, each said once more as an ERROR line.
    if (!all.refusals.empty()) all.errors.push_back("calls refused or failed");
    if (all.undelivered > 0) {
      all.errors.push_back(absl::StrCat(all.undelivered,
                                        " acknowledged moves' events never "
                                        "reached their boards"));
    }
    if (all.moves == 0) all.errors.push_back("no move acknowledged");
    for (const std::string& e : all.errors) {
      std::printf("  ERROR: %s\n", e.c_str());
    }
    std::fflush(stdout);
    return all.errors.empty() && all.refusals.empty() && all.undelivered == 0 &&
           all.moves > 0;
  }
  for (auto& client : clients) client->Stop();
  for (std::thread& thread : running) thread.join();
  std::printf(
      "  ERROR: only %d of %d boards were set up within 30 s of the "
      "last progress\n",
      playing, options.boards);
  for (auto& client : clients) {
    for (const auto& [what, n] : client->counts().refusals) {
      std::printf("  refused or failed: %s x%lld\n", what.c_str(),
                  static_cast<long long>(n));
    }
    for (const std::string& e : client->counts().errors) {
      std::printf("  ERROR: %s\n", e.c_str());
    }
  }
  return false;
}

}  // namespace khet::load
