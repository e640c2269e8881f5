#include "tools/load/khet_load/load_boards.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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

}  // namespace

bool RunBoards(const BoardsOptions& options, int http_port, pid_t pid) {
  RaiseOpenFiles();
  std::printf(
      "boards: %d, each %s, a move every %.1f s +-%.0f%%; %d client "
      "address%s, %d client threads; %u cores, load average %s\n",
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
  std::fflush(stdout);

  Window window;
  std::vector<std::unique_ptr<ClientThread>> clients;
  for (int t = 0; t < options.threads; ++t) {
    clients.push_back(
        std::make_unique<ClientThread>(options, window, http_port, t));
  }
  std::vector<Board*> boards;  // by index
  for (int i = 0; i < options.boards; ++i) {
    boards.push_back(
        clients[i % options.threads]->Add(i, i % options.client_addresses));
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

  // khetd's and the client's figures from /proc, sampled every 100 ms.
  int64_t rss_peak = 0;
  int threads_peak = 0;
  auto sample = [&] {
    if (pid <= 0) return;
    if (absl::StatusOr<int64_t> rss = ResidentBytes(pid); rss.ok()) {
      rss_peak = std::max(rss_peak, *rss);
    }
    if (absl::StatusOr<int> threads = ThreadCount(pid); threads.ok()) {
      threads_peak = std::max(threads_peak, *threads);
    }
  };
  auto cpu = [](pid_t of) -> int64_t {
    absl::StatusOr<int64_t> nanos = CpuNanos(of);
    return nanos.ok() ? *nanos : 0;
  };
  const int64_t rss_start = pid > 0 ? ResidentBytes(pid).value_or(0) : 0;

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

  auto sleep_sampling = [&](double seconds) {
    const absl::Time until = absl::Now() + absl::Seconds(seconds);
    while (absl::Now() < until) {
      absl::SleepFor(std::min(absl::Milliseconds(100), until - absl::Now()));
      sample();
    }
  };
  if (playing == options.boards) {
    sleep_sampling(options.warmup_seconds);
    const PushMetrics push_start =
        options.push ? ReadPushMetrics(http_port) : PushMetrics();
    window.start = NowNs();
    const int64_t khetd_cpu_start = pid > 0 ? cpu(pid) : 0;
    const int64_t client_cpu_start = cpu(getpid());
    const int64_t end = NowNs() + static_cast<int64_t>(options.seconds * 1e9);
    window.end = end;
    sleep_sampling(options.seconds);
    const int64_t khetd_cpu = pid > 0 ? cpu(pid) - khetd_cpu_start : 0;
    const int64_t client_cpu = cpu(getpid()) - client_cpu_start;
    // The last moves' events: a grace of 2 s.
    sleep_sampling(2);
    const PushMetrics push_end =
        options.push ? ReadPushMetrics(http_port) : PushMetrics();
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
      for (const auto& [what, n] : c.refusals) all.refusals[what] += n;
      for (const std::string& e : c.errors) all.errors.push_back(e);
    }
    std::sort(all.delivery_ns.begin(), all.delivery_ns.end());
    std::sort(all.move_ns.begin(), all.move_ns.end());
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
    if (pid > 0) {
      std::printf(
          "  khetd: RSS peak %s (%s at start), threads peak %d, CPU %.1f%% "
          "of a core in the window\n",
          FormatBytes(rss_peak).c_str(), FormatBytes(rss_start).c_str(),
          threads_peak, 100.0 * khetd_cpu / (options.seconds * 1e9));
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
