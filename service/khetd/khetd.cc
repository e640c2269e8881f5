// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd: the Khet session service over gRPC. Serves khet.v1.KhetService with
// gRPC health checking and server reflection, keeps sessions in SQLite (or
// in memory), resets timed-out games in the background, and shuts down
// cleanly on SIGTERM or SIGINT. Prints "khetd listening on <host:port>" once
// it accepts calls, then "khetd http listening on <host:port>" for the
// HTTP/JSON gateway and web board (--http_listen), which also serves GET
// /metrics; one log line per request goes to stderr (--log_format text or
// json). With --tls_cert and --tls_key both ports speak TLS.
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "khet_version.h"
#include "service/base/random_source.h"
#include "service/core/session_service.h"
#include "service/fair_use/caller_budgets.h"
#include "service/grpc/grpc_service.h"
#include "service/grpc/tls_files.h"
#include "service/http/http_gateway.h"
#include "service/khetd/background_sweeps.h"
#include "service/khetd/budget_flags.h"
#include "service/khetd/http_flags.h"
#include "service/khetd/khetd_metrics.h"
#include "service/khetd/limit_flags.h"
#include "service/khetd/push_flags.h"
#include "service/khetd/store_flags.h"
#include "service/store/session_store.h"
#include "service/text/json_request_log.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "Address to listen on, host:port; port 0 picks a free port");
ABSL_FLAG(int, max_message_bytes, 64 * 1024,
          "Largest request accepted, in bytes; larger ones get "
          "RESOURCE_EXHAUSTED");
ABSL_FLAG(int, timeout_sweep_seconds, 10,
          "How often games past their inactivity timeout are reset");
ABSL_FLAG(int, shutdown_grace_seconds, 5,
          "On SIGTERM, how long calls in flight may take to finish");

ABSL_FLAG(std::string, tls_cert, "",
          "PEM file of the server's certificate (then any intermediate "
          "CAs): with --tls_key, the gRPC port and the HTTP port speak TLS "
          "(HTTPS); empty: plaintext");
ABSL_FLAG(std::string, tls_key, "",
          "PEM file of --tls_cert's private key (unencrypted)");

ABSL_FLAG(std::string, http_listen, "127.0.0.1:8080",
          "Address of the HTTP/JSON gateway and web board, host:port; port 0 "
          "picks a free port; empty turns it off");
ABSL_FLAG(std::string, log_format, "text",
          "The per-request log lines on stderr: text (key=value) or json (one "
          "JSON object per line: time, protocol, method, route, status, code, "
          "ms, peer, session, message)");
ABSL_FLAG(bool, metrics, true,
          "Serve GET /metrics (Prometheus text format) on the HTTP port");

namespace khet {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

int Fail(absl::string_view message) {
  std::fprintf(stderr, "khetd: %s\n", std::string(message).c_str());
  return kExitError;
}

int UsageError(absl::string_view message) {
  std::fprintf(stderr, "khetd: %s (see khetd --help)\n",
               std::string(message).c_str());
  return kExitUsage;
}

// `listen` with its port replaced by the one the server was given.
std::string ListeningAddress(const std::string& listen, int port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return absl::StrCat(listen, ":", port);
  return absl::StrCat(listen.substr(0, colon), ":", port);
}

// Raises the soft limit of open files to the hard limit: each client
// connection, watch and long poll holds a socket. Says so only if it fails.
void RaiseOpenFileLimit() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_cur == limit.rlim_max) return;
  const rlim_t soft = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    std::fprintf(stderr,
                 "khetd: cannot raise the open-file limit from %llu to %llu: "
                 "%s\n",
                 static_cast<unsigned long long>(soft),
                 static_cast<unsigned long long>(limit.rlim_max),
                 std::strerror(errno));
  }
}

// The gRPC port's credentials: TLS with --tls_cert and --tls_key, else
// plaintext. A usage error names a missing, unreadable or mismatched file.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials() {
  const std::string cert = absl::GetFlag(FLAGS_tls_cert);
  const std::string key = absl::GetFlag(FLAGS_tls_key);
  if (cert.empty() != key.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert and --tls_key go together: give both or neither");
  }
  if (cert.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<TlsFiles> files = ReadTlsFiles(cert, key);
  if (!files.ok()) return files.status();
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back(
      {std::move(files->private_key), std::move(files->cert_chain)});
  return grpc::SslServerCredentials(options);
}

int Run(const sigset_t& stop_signals) {
  absl::StatusOr<StoreFlags> store_flags = ReadStoreFlags();
  if (!store_flags.ok()) return UsageError(store_flags.status().message());
  absl::StatusOr<ServiceLimits> limits = ReadLimitFlags();
  if (!limits.ok()) return UsageError(limits.status().message());
  const int max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  const int sweep_seconds = absl::GetFlag(FLAGS_timeout_sweep_seconds);
  const int grace_seconds = absl::GetFlag(FLAGS_shutdown_grace_seconds);
  if (max_message_bytes < 1024) {
    return UsageError("--max_message_bytes must be >= 1024");
  }
  if (sweep_seconds < 1)
    return UsageError("--timeout_sweep_seconds must be >= 1");
  if (grace_seconds < 0)
    return UsageError("--shutdown_grace_seconds must be >= 0");
  absl::StatusOr<CallerBudgetOptions> budget_options = ReadBudgetFlags();
  if (!budget_options.ok()) {
    return UsageError(budget_options.status().message());
  }
  HttpGatewayOptions http_options;
  http_options.server.max_body_bytes = static_cast<size_t>(max_message_bytes);
  http_options.shutdown_grace = absl::Seconds(grace_seconds);
  if (absl::Status http_limits = ReadHttpFlags(http_options);
      !http_limits.ok()) {
    return UsageError(http_limits.message());
  }
  LogFormat log_format;
  if (!ParseLogFormat(absl::GetFlag(FLAGS_log_format), &log_format)) {
    return UsageError(
        absl::StrCat("--log_format=", absl::GetFlag(FLAGS_log_format),
                     ": must be text or json"));
  }
  http_options.log_format = log_format;
  if (absl::Status pushes = ReadPushFlags(http_options); !pushes.ok()) {
    return UsageError(pushes.message());
  }
  // Declared before everything it measures, so that it outlives them.
  KhetdMetrics metrics;
  if (absl::GetFlag(FLAGS_metrics)) http_options.metrics = metrics.registry();
  http_options.server.tls_cert_file = absl::GetFlag(FLAGS_tls_cert);
  http_options.server.tls_key_file = absl::GetFlag(FLAGS_tls_key);

  // The HTTP port takes the same --tls_cert and --tls_key (HTTPS).
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      ServerCredentials();
  if (!credentials.ok()) return UsageError(credentials.status().message());
  RaiseOpenFileLimit();

  absl::StatusOr<std::unique_ptr<SessionStore>> store =
      OpenStore(*store_flags, metrics.store());
  if (!store.ok()) return Fail(store.status().ToString());
  ServiceOptions options;
  options.store = store->get();
  options.limits = *limits;
  options.log = [log_format](const std::string& line) {
    // One write per line so that lines from concurrent threads never mix.
    const std::string out =
        (log_format == LogFormat::kJson ? FormatJsonMessage(line, absl::Now())
                                        : line) +
        "\n";
    [[maybe_unused]] const ssize_t written =
        ::write(STDERR_FILENO, out.data(), out.size());
  };
  options.computer_search_done = metrics.ComputerSearchHook();
  absl::StatusOr<std::unique_ptr<SessionService>> core =
      SessionService::Create(options);
  if (!core.ok()) {
    return Fail(
        absl::StrCat("cannot load the sessions: ", core.status().ToString()));
  }
  metrics.AddWatchers(core->get());
  if ((*store)->shared()) {
    // Replicas keep the boards they push to in the store, each under a
    // name of this process's own, so that a live one takes a dead one's.
    http_options.pushes.shared_store = store->get();
    http_options.pushes.replica_id = SystemRandom()->NewToken();
  }
  http_options.server.trusted_proxies = budget_options->trusted_proxies;
  CallerBudgets callers(*std::move(budget_options), RealClock(),
                        metrics.registry());
  http_options.callers = &callers;
  KhetGrpcServiceOptions service_options;
  service_options.callers = &callers;
  service_options.log_format = log_format;
  service_options.metrics = metrics.grpc();
  service_options.store_threads =
      store_flags->kind == "memory" ? 0 : store_flags->store_threads;
  KhetGrpcService service(core->get(), std::move(service_options));

  EnableHealthCheckingAndReflection();
  grpc::ServerBuilder builder;
  const std::string listen = absl::GetFlag(FLAGS_listen);
  int port = 0;
  builder.AddListeningPort(listen, *credentials, &port);
  AddKhetService(&builder, &service, max_message_bytes);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return Fail(absl::StrCat("cannot listen on --listen=", listen));
  }
  ReportServing(server.get());
  std::printf("khetd listening on %s\n",
              ListeningAddress(listen, port).c_str());
  std::fflush(stdout);

  const std::string http_listen = absl::GetFlag(FLAGS_http_listen);
  std::unique_ptr<HttpGateway> http;
  if (!http_listen.empty()) {
    http = std::make_unique<HttpGateway>(core->get(), http_options);
    absl::StatusOr<int> http_port = http->Start(http_listen);
    if (!http_port.ok()) {
      server->Shutdown();
      return Fail(absl::StrCat("--http_listen=", http_listen, ": ",
                               http_port.status().message()));
    }
    std::printf("khetd http listening on %s\n",
                ListeningAddress(http_listen, *http_port).c_str());
    std::fflush(stdout);
  }

  std::optional<BackgroundSweeps> sweeps;
  sweeps.emplace(core->get(), absl::Seconds(sweep_seconds));

  // The stop signals are blocked in every thread; this one waits for them.
  std::thread signal_waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    std::fprintf(stderr, "khetd: %s: shutting down\n",
                 signal == SIGINT ? "SIGINT" : "SIGTERM");
    const absl::Time deadline = absl::Now() + absl::Seconds(grace_seconds);
    service.Shutdown();  // ends Watch streams so they do not hold us up
    // Both ports stop together, each within the grace.
    std::thread http_stopper([&] {
      if (http != nullptr) http->Shutdown();  // ends long polls and streams
    });
    server->Shutdown(absl::ToChronoTime(deadline));
    http_stopper.join();
  });

  server->Wait();
  signal_waiter.join();
  sweeps.reset();
  http.reset();
  server.reset();
  core->reset();
  store->reset();
  std::fprintf(stderr, "khetd: stopped\n");
  return kExitOk;
}

}  // namespace
}  // namespace khet

int main(int argc, char** argv) {
  // Block the stop signals before any thread starts, so every thread
  // inherits the mask and only the signal waiter receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // gRPC locks with absl::Mutex; Debian's Abseil checks every lock order
  // for cycles by default, which cost several percent of a call.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::SetProgramUsageMessage(
      "khetd: Khet boards as a gRPC and HTTP/JSON service.\n"
      "usage: khetd [--listen=127.0.0.1:50051] [--http_listen=127.0.0.1:8080] "
      "[--data_dir=./khet-data] [--store=sqlite|postgres|memory] "
      "[--postgres_url=URL] [limits]");
  // --version prints this line and exits 0.
  absl::FlagsUsageConfig usage_config;
  usage_config.version_string = [] {
    return absl::StrCat("khetd ", khet::kVersion, "\n");
  };
  absl::SetFlagsUsageConfig(usage_config);
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    return khet::UsageError(
        absl::StrCat("unexpected argument \"", rest[1], "\""));
  }
  return khet::Run(stop_signals);
}
