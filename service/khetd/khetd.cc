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
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
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
#include "service/caller_budgets.h"
#include "service/client_address.h"
#include "service/grpc/grpc_service.h"
#include "service/grpc/tls_files.h"
#include "service/http/http_gateway.h"
#include "service/json_request_log.h"
#include "service/khetd/khetd_metrics.h"
#include "service/khetd/push_flags.h"
#include "service/mutex.h"
#include "service/session_service.h"
#include "service/store/memory_store.h"
#include "service/store/metered_store.h"
#include "service/store/postgres_store.h"
#include "service/store/session_store.h"
#include "service/store/sqlite_store.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "Address to listen on, host:port; port 0 picks a free port");
ABSL_FLAG(std::string, data_dir, "./khet-data",
          "Directory of the SQLite session store (khet.db); created if "
          "needed");
ABSL_FLAG(std::string, store, "sqlite",
          "Where sessions live: sqlite (durable, in --data_dir), postgres "
          "(shared by replicas, at --postgres_url) or memory (lost on exit)");
ABSL_FLAG(std::string, postgres_url, "",
          "With --store=postgres: the database, as a libpq URL "
          "(postgresql://user@host:port/db) or conninfo (\"host=... "
          "dbname=...\")");
ABSL_FLAG(int, postgres_connections, 4,
          "With --store=postgres: pooled connections for reads and writes");
ABSL_FLAG(int, max_sessions, khet::ServiceLimits().max_sessions,
          "Sessions the server holds at most");
ABSL_FLAG(int64_t, max_session_events, 1000,
          "Events kept per session for Watch's history, about (older ones "
          "are dropped in steps of 100); 0 keeps them all");
ABSL_FLAG(int, max_watchers_per_session,
          khet::ServiceLimits().max_watchers_per_session,
          "Concurrent Watch streams per session at most");
ABSL_FLAG(int, max_watchers, khet::ServiceLimits().max_watchers,
          "Watchers over all sessions at most: gRPC Watch streams, HTTP long "
          "polls and event streams together");
ABSL_FLAG(int, max_message_bytes, 64 * 1024,
          "Largest request accepted, in bytes; larger ones get "
          "RESOURCE_EXHAUSTED");
ABSL_FLAG(int, timeout_sweep_seconds, 10,
          "How often games past their inactivity timeout are reset");
ABSL_FLAG(int, shutdown_grace_seconds, 5,
          "On SIGTERM, how long calls in flight may take to finish");
ABSL_FLAG(int, computer_threads, khet::ServiceLimits().computer_threads,
          "Threads searching for the computer's seats, over all sessions");
ABSL_FLAG(int, computer_move_budget_ms,
          static_cast<int>(absl::ToInt64Milliseconds(
              khet::ServiceLimits().computer_move_budget)),
          "The longest a computer seat searches for one move, in ms");
ABSL_FLAG(int, max_concurrent_suggestions,
          khet::ServiceLimits().max_concurrent_suggestions,
          "SuggestMove searches running at once at most");
ABSL_FLAG(int, max_concurrent_analyses,
          khet::ServiceLimits().max_concurrent_analyses,
          "Games analysed by the computer at once at most (AnalyzeGame)");
ABSL_FLAG(int, computer_lease_ttl_ms,
          static_cast<int>(absl::ToInt64Milliseconds(
              khet::ServiceLimits().computer_lease_ttl)),
          "On a shared store, how long a replica's lease on a computer seat "
          "lasts unrenewed before another replica takes it over, in ms");
ABSL_FLAG(int, min_timeout_seconds,
          static_cast<int>(khet::ServiceLimits().min_timeout_seconds),
          "The shortest inactivity timeout a session may set");
ABSL_FLAG(int, max_suggestion_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::ServiceLimits().max_suggestion_time)),
          "The longest a SuggestMove search runs, whatever its deadline");
ABSL_FLAG(int, store_threads, 256,
          "With a durable store (sqlite, postgres): threads at most that "
          "serve the calls touching a session, which wait for the disk or "
          "the database (SQLite's concurrent writes share one sync); started "
          "as calls wait, they leave after idling 5 s. The memory store "
          "never waits and serves calls on gRPC's threads");

ABSL_FLAG(std::string, trusted_proxies, "",
          "Comma-separated CIDR blocks (IPv4 and IPv6) of the proxies whose "
          "X-Forwarded-For (gRPC: x-forwarded-for metadata) names the client; "
          "empty: the header is ignored and the socket's peer is the client");
ABSL_FLAG(int, calls_per_second, khet::CallerBudgetOptions().calls_per_second,
          "Calls a second one client address may make (a token bucket); "
          "beyond: RESOURCE_EXHAUSTED (HTTP 429 with Retry-After); 0: no "
          "budget");
ABSL_FLAG(int, calls_burst, khet::CallerBudgetOptions().calls_burst,
          "Calls one client address may make at once, on top of "
          "--calls_per_second");
ABSL_FLAG(int, inworld_address_calls_per_second,
          khet::CallerBudgetOptions().inworld_address_calls_per_second,
          "Calls a second one address may make in all with an in-world object "
          "key (X-SecondLife-Object-Key): a simulator host's boards together; "
          "0: object keys are ignored");
ABSL_FLAG(int, inworld_address_calls_burst,
          khet::CallerBudgetOptions().inworld_address_calls_burst,
          "Burst of --inworld_address_calls_per_second");
ABSL_FLAG(int, inworld_object_calls_per_second,
          khet::CallerBudgetOptions().inworld_object_calls_per_second,
          "Calls a second one in-world object may make, within its address's "
          "--inworld_address_calls_per_second; 0: no budget per object");
ABSL_FLAG(int, inworld_object_calls_burst,
          khet::CallerBudgetOptions().inworld_object_calls_burst,
          "Burst of --inworld_object_calls_per_second");

ABSL_FLAG(int, max_unclaimed_sessions_per_address,
          khet::ServiceLimits().max_unclaimed_sessions_per_address,
          "Sessions nobody has joined (no seat ever taken) that one client "
          "address may hold; CreateSession beyond: RESOURCE_EXHAUSTED; an "
          "in-world object counts as a caller of its own; 0: no budget");
ABSL_FLAG(int, inworld_max_unclaimed_sessions_per_address,
          khet::ServiceLimits().inworld_max_unclaimed_sessions_per_address,
          "Sessions nobody has joined that one address's in-world objects "
          "may hold together; 0: object keys are ignored for this budget");
ABSL_FLAG(int, unclaimed_session_timeout_seconds,
          static_cast<int>(absl::ToInt64Seconds(
              khet::ServiceLimits().unclaimed_session_timeout)),
          "A session on which no seat was ever taken is removed this long "
          "after its creation (at the next sweep, --timeout_sweep_seconds)");
ABSL_FLAG(int, max_unrated_games_per_hour,
          khet::ServiceLimits().max_unrated_games_per_hour,
          "Unrated games one session may archive in an hour; beyond, no new "
          "game follows a finished or abandoned one (reset, rematch, setup, "
          "a seat that starts the next game: RESOURCE_EXHAUSTED) until the "
          "hour is over; the game in progress is still played; 0: no budget");
ABSL_FLAG(int, max_suggestions_per_address,
          khet::ServiceLimits().max_suggestions_per_address,
          "SuggestMove searches at once for one client address, within "
          "--max_concurrent_suggestions; 0: no budget");
ABSL_FLAG(int, max_analyses_per_address,
          khet::ServiceLimits().max_analyses_per_address,
          "Game analyses at once for one client address, within "
          "--max_concurrent_analyses; 0: no budget");

ABSL_FLAG(std::string, tls_cert, "",
          "PEM file of the server's certificate (then any intermediate "
          "CAs): with --tls_key, the gRPC port and the HTTP port speak TLS "
          "(HTTPS); empty: plaintext");
ABSL_FLAG(std::string, tls_key, "",
          "PEM file of --tls_cert's private key (unencrypted)");

ABSL_FLAG(std::string, http_listen, "127.0.0.1:8080",
          "Address of the HTTP/JSON gateway and web board, host:port; port 0 "
          "picks a free port; empty turns it off");
ABSL_FLAG(int, http_max_waiting, khet::HttpGatewayOptions().max_waiting,
          "HTTP long polls and event streams at once at most; beyond: 429 "
          "(they hold no thread)");
ABSL_FLAG(int, http_threads, khet::HttpGatewayOptions().serving_threads,
          "Threads running HTTP requests' calls into the service");
ABSL_FLAG(int, http_max_connections, khet::HttpServerOptions().max_connections,
          "HTTP connections at once; a new one beyond is answered 503 and "
          "closed");
ABSL_FLAG(int, http_max_connections_per_address,
          khet::HttpServerOptions().max_connections_per_address,
          "HTTP connections at once from one client address; a new one beyond "
          "is answered 429 and closed");
ABSL_FLAG(int, http_max_inworld_connections_per_address,
          khet::HttpServerOptions().max_inworld_connections_per_address,
          "HTTP connections at once from one client address in all, beyond "
          "--http_max_connections_per_address, whose every request carries "
          "an in-world object key (X-SecondLife-Object-Key): a simulator "
          "host's boards, each holding a long poll; a request without a key "
          "on such a connection is answered 429 and the connection closed");
ABSL_FLAG(int, http_max_header_count,
          static_cast<int>(khet::HttpServerOptions().max_header_count),
          "Header lines of an HTTP request at most; beyond: 431");
ABSL_FLAG(int, http_max_header_bytes,
          static_cast<int>(khet::HttpServerOptions().max_header_bytes),
          "Bytes of an HTTP request's line and headers at most; beyond: 431");
ABSL_FLAG(int, http_header_timeout_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::HttpServerOptions().header_timeout)),
          "An HTTP request's headers must arrive within this; else 408");
ABSL_FLAG(int, http_body_timeout_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::HttpServerOptions().body_timeout)),
          "An HTTP request's body must arrive within this; else 408");
ABSL_FLAG(std::string, log_format, "text",
          "The per-request log lines on stderr: text (key=value) or json (one "
          "JSON object per line: time, protocol, method, route, status, code, "
          "ms, peer, session, message)");
ABSL_FLAG(bool, metrics, true,
          "Serve GET /metrics (Prometheus text format) on the HTTP port");
ABSL_FLAG(int, http_idle_timeout_seconds,
          static_cast<int>(
              absl::ToInt64Seconds(khet::HttpServerOptions().idle_timeout)),
          "A kept-alive HTTP connection idle this long is closed");

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

absl::StatusOr<std::unique_ptr<SessionStore>> OpenUnmeteredStore(
    const std::string& kind, const std::string& data_dir,
    StoreMetrics* metrics) {
  const int64_t events_kept = absl::GetFlag(FLAGS_max_session_events);
  if (kind == "memory") return std::make_unique<MemoryStore>(events_kept);
  if (kind == "postgres") {
    PostgresStoreOptions options;
    options.events_kept = events_kept;
    options.connections = absl::GetFlag(FLAGS_postgres_connections);
    options.on_commit = metrics->CommitHook();
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(absl::GetFlag(FLAGS_postgres_url), options);
    if (!store.ok()) return store.status();
    return std::unique_ptr<SessionStore>(std::move(*store));
  }
  std::error_code error;
  std::filesystem::create_directories(data_dir, error);
  if (error) {
    return absl::UnavailableError(absl::StrCat(
        "cannot create --data_dir \"", data_dir, "\": ", error.message()));
  }
  const std::string path =
      (std::filesystem::path(data_dir) / "khet.db").string();
  SqliteStoreOptions options;
  options.events_kept = events_kept;
  options.on_commit = metrics->CommitHook();
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(path, options);
  if (!store.ok()) return store.status();
  return std::unique_ptr<SessionStore>(std::move(*store));
}

// The store, measured into `metrics`.
absl::StatusOr<std::unique_ptr<SessionStore>> OpenStore(
    const std::string& kind, const std::string& data_dir,
    StoreMetrics* metrics) {
  absl::StatusOr<std::unique_ptr<SessionStore>> store =
      OpenUnmeteredStore(kind, data_dir, metrics);
  if (!store.ok()) return store.status();
  return std::make_unique<MeteredStore>(*std::move(store), metrics);
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
  const std::string store_kind = absl::GetFlag(FLAGS_store);
  if (store_kind != "sqlite" && store_kind != "memory" &&
      store_kind != "postgres") {
    return UsageError(absl::StrCat("--store=", store_kind,
                                   ": must be sqlite, postgres or memory"));
  }
  if ((store_kind == "postgres") !=
      !absl::GetFlag(FLAGS_postgres_url).empty()) {
    return UsageError(store_kind == "postgres"
                          ? "--store=postgres needs --postgres_url"
                          : "--postgres_url needs --store=postgres");
  }
  if (absl::GetFlag(FLAGS_postgres_connections) < 1 ||
      absl::GetFlag(FLAGS_postgres_connections) > 64) {
    return UsageError("--postgres_connections must be 1 to 64");
  }
  ServiceLimits limits;
  limits.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  limits.max_watchers_per_session =
      absl::GetFlag(FLAGS_max_watchers_per_session);
  limits.max_watchers = absl::GetFlag(FLAGS_max_watchers);
  limits.computer_threads = absl::GetFlag(FLAGS_computer_threads);
  limits.computer_move_budget =
      absl::Milliseconds(absl::GetFlag(FLAGS_computer_move_budget_ms));
  limits.max_concurrent_suggestions =
      absl::GetFlag(FLAGS_max_concurrent_suggestions);
  limits.max_concurrent_analyses = absl::GetFlag(FLAGS_max_concurrent_analyses);
  limits.max_suggestion_time =
      absl::Seconds(absl::GetFlag(FLAGS_max_suggestion_seconds));
  limits.computer_lease_ttl =
      absl::Milliseconds(absl::GetFlag(FLAGS_computer_lease_ttl_ms));
  limits.min_timeout_seconds = absl::GetFlag(FLAGS_min_timeout_seconds);
  limits.max_unclaimed_sessions_per_address =
      absl::GetFlag(FLAGS_max_unclaimed_sessions_per_address);
  limits.inworld_max_unclaimed_sessions_per_address =
      absl::GetFlag(FLAGS_inworld_max_unclaimed_sessions_per_address);
  limits.unclaimed_session_timeout =
      absl::Seconds(absl::GetFlag(FLAGS_unclaimed_session_timeout_seconds));
  limits.max_unrated_games_per_hour =
      absl::GetFlag(FLAGS_max_unrated_games_per_hour);
  limits.max_suggestions_per_address =
      absl::GetFlag(FLAGS_max_suggestions_per_address);
  limits.max_analyses_per_address =
      absl::GetFlag(FLAGS_max_analyses_per_address);
  const int max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  const int sweep_seconds = absl::GetFlag(FLAGS_timeout_sweep_seconds);
  const int grace_seconds = absl::GetFlag(FLAGS_shutdown_grace_seconds);
  if (limits.max_sessions < 1) return UsageError("--max_sessions must be >= 1");
  if (const int64_t kept = absl::GetFlag(FLAGS_max_session_events);
      kept != 0 && kept < kEventDropStep) {
    return UsageError(
        absl::StrCat("--max_session_events must be 0 (keep all) or at least ",
                     kEventDropStep));
  }
  if (limits.max_watchers_per_session < 1) {
    return UsageError("--max_watchers_per_session must be >= 1");
  }
  if (limits.max_watchers < 1) {
    return UsageError("--max_watchers must be >= 1");
  }
  if (max_message_bytes < 1024) {
    return UsageError("--max_message_bytes must be >= 1024");
  }
  if (sweep_seconds < 1)
    return UsageError("--timeout_sweep_seconds must be >= 1");
  if (grace_seconds < 0)
    return UsageError("--shutdown_grace_seconds must be >= 0");
  if (limits.computer_threads < 1 || limits.computer_threads > 64) {
    return UsageError("--computer_threads must be 1 to 64");
  }
  if (limits.computer_move_budget < absl::Milliseconds(1)) {
    return UsageError("--computer_move_budget_ms must be >= 1");
  }
  if (limits.computer_lease_ttl <= limits.computer_move_budget) {
    return UsageError(
        "--computer_lease_ttl_ms must exceed --computer_move_budget_ms");
  }
  if (limits.min_timeout_seconds < 1 || limits.min_timeout_seconds > 604800) {
    return UsageError("--min_timeout_seconds must be 1 to 604800");
  }
  if (limits.max_unclaimed_sessions_per_address < 0 ||
      limits.inworld_max_unclaimed_sessions_per_address < 0) {
    return UsageError(
        "--max_unclaimed_sessions_per_address and "
        "--inworld_max_unclaimed_sessions_per_address must be >= 0");
  }
  if (limits.max_unrated_games_per_hour < 0 ||
      limits.max_suggestions_per_address < 0 ||
      limits.max_analyses_per_address < 0) {
    return UsageError(
        "--max_unrated_games_per_hour, --max_suggestions_per_address and "
        "--max_analyses_per_address must be >= 0");
  }
  if (limits.unclaimed_session_timeout < absl::Seconds(1)) {
    return UsageError("--unclaimed_session_timeout_seconds must be >= 1");
  }
  if (limits.max_concurrent_suggestions < 1) {
    return UsageError("--max_concurrent_suggestions must be >= 1");
  }
  if (limits.max_concurrent_analyses < 1) {
    return UsageError("--max_concurrent_analyses must be >= 1");
  }
  if (limits.max_suggestion_time < absl::Seconds(1)) {
    return UsageError("--max_suggestion_seconds must be >= 1");
  }
  CallerBudgetOptions budget_options;
  {
    absl::StatusOr<TrustedProxies> trusted =
        TrustedProxies::Parse(absl::GetFlag(FLAGS_trusted_proxies));
    if (!trusted.ok()) {
      return UsageError(
          absl::StrCat("--trusted_proxies: ", trusted.status().message()));
    }
    budget_options.trusted_proxies = *std::move(trusted);
  }
  for (const auto& [flag, rate, burst, rate_field, burst_field] :
       {std::tuple{"--calls_per_second", absl::GetFlag(FLAGS_calls_per_second),
                   absl::GetFlag(FLAGS_calls_burst),
                   &budget_options.calls_per_second,
                   &budget_options.calls_burst},
        std::tuple{"--inworld_address_calls_per_second",
                   absl::GetFlag(FLAGS_inworld_address_calls_per_second),
                   absl::GetFlag(FLAGS_inworld_address_calls_burst),
                   &budget_options.inworld_address_calls_per_second,
                   &budget_options.inworld_address_calls_burst},
        std::tuple{"--inworld_object_calls_per_second",
                   absl::GetFlag(FLAGS_inworld_object_calls_per_second),
                   absl::GetFlag(FLAGS_inworld_object_calls_burst),
                   &budget_options.inworld_object_calls_per_second,
                   &budget_options.inworld_object_calls_burst}}) {
    *rate_field = rate;
    *burst_field = burst;
    if (*rate_field < 0 || *rate_field > 1000000 || *burst_field < 1 ||
        *burst_field > 10000000) {
      return UsageError(
          absl::StrCat(flag,
                       " must be 0 (no budget) to 1000000 and its burst 1 to "
                       "10000000"));
    }
  }
  const int store_threads = absl::GetFlag(FLAGS_store_threads);
  if (store_threads < 1 || store_threads > 1024) {
    return UsageError("--store_threads must be 1 to 1024");
  }
  HttpGatewayOptions http_options;
  HttpServerOptions& http_server = http_options.server;
  http_server.max_body_bytes = static_cast<size_t>(max_message_bytes);
  http_options.max_waiting = absl::GetFlag(FLAGS_http_max_waiting);
  http_options.serving_threads = absl::GetFlag(FLAGS_http_threads);
  http_options.shutdown_grace = absl::Seconds(grace_seconds);
  if (http_options.max_waiting < 1 || http_options.max_waiting > 100000) {
    return UsageError("--http_max_waiting must be 1 to 100000");
  }
  if (http_options.serving_threads < 1 || http_options.serving_threads > 256) {
    return UsageError("--http_threads must be 1 to 256");
  }
  http_server.max_connections = absl::GetFlag(FLAGS_http_max_connections);
  http_server.max_connections_per_address =
      absl::GetFlag(FLAGS_http_max_connections_per_address);
  http_server.max_inworld_connections_per_address =
      absl::GetFlag(FLAGS_http_max_inworld_connections_per_address);
  if (http_server.max_connections < 1 ||
      http_server.max_connections_per_address < 1 ||
      http_server.max_inworld_connections_per_address < 0) {
    return UsageError(
        "--http_max_connections and --http_max_connections_per_address must "
        "be >= 1, --http_max_inworld_connections_per_address >= 0");
  }
  const int header_count = absl::GetFlag(FLAGS_http_max_header_count);
  const int header_bytes = absl::GetFlag(FLAGS_http_max_header_bytes);
  if (header_count < 1 || header_bytes < 256) {
    return UsageError(
        "--http_max_header_count must be >= 1 and --http_max_header_bytes >= "
        "256");
  }
  http_server.max_header_count = static_cast<size_t>(header_count);
  http_server.max_header_bytes = static_cast<size_t>(header_bytes);
  for (const auto& [flag, seconds, field] :
       {std::tuple{"--http_header_timeout_seconds",
                   absl::GetFlag(FLAGS_http_header_timeout_seconds),
                   &http_server.header_timeout},
        std::tuple{"--http_body_timeout_seconds",
                   absl::GetFlag(FLAGS_http_body_timeout_seconds),
                   &http_server.body_timeout},
        std::tuple{"--http_idle_timeout_seconds",
                   absl::GetFlag(FLAGS_http_idle_timeout_seconds),
                   &http_server.idle_timeout}}) {
    if (seconds < 1) return UsageError(absl::StrCat(flag, " must be >= 1"));
    *field = absl::Seconds(seconds);
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
  http_server.tls_cert_file = absl::GetFlag(FLAGS_tls_cert);
  http_server.tls_key_file = absl::GetFlag(FLAGS_tls_key);

  // The HTTP port takes the same --tls_cert and --tls_key (HTTPS).
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      ServerCredentials();
  if (!credentials.ok()) return UsageError(credentials.status().message());
  RaiseOpenFileLimit();

  absl::StatusOr<std::unique_ptr<SessionStore>> store =
      OpenStore(store_kind, absl::GetFlag(FLAGS_data_dir), metrics.store());
  if (!store.ok()) return Fail(store.status().ToString());
  ServiceOptions options;
  options.store = store->get();
  options.limits = limits;
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
  CallerBudgets callers(std::move(budget_options), RealClock(),
                        metrics.registry());
  http_options.callers = &callers;
  KhetGrpcServiceOptions service_options;
  service_options.callers = &callers;
  service_options.log_format = log_format;
  service_options.metrics = metrics.grpc();
  service_options.store_threads = store_kind == "memory" ? 0 : store_threads;
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

  // Resets timed-out games every sweep interval until told to stop.
  Mutex sweep_mu;
  CondVar sweep_cv;
  bool stop_sweeping = false;  // guarded by sweep_mu
  std::thread sweeper([&] {
    const absl::Time start = absl::Now();
    for (int64_t round = 1;; ++round) {
      {
        MutexLock lock(&sweep_mu);
        const absl::Time next = start + round * absl::Seconds(sweep_seconds);
        while (!stop_sweeping && absl::Now() < next) {
          sweep_cv.WaitWithTimeout(&sweep_mu, next - absl::Now());
        }
        if (stop_sweeping) return;
      }
      const int reset = (*core)->SweepTimeouts();
      if (reset > 0) {
        std::fprintf(stderr, "khetd: reset or ended %d timed-out game(s)\n",
                     reset);
      }
      const int removed = (*core)->SweepUnclaimed();
      if (removed > 0) {
        std::fprintf(stderr,
                     "khetd: removed %d session(s) nobody joined within "
                     "--unclaimed_session_timeout_seconds\n",
                     removed);
      }
    }
  });
  // Ends clocked games at the moment a flag falls: waits for the next flag
  // time (looking again at least every 100 ms, for clocks started since),
  // then sweeps the flagged games.
  std::thread flag_timer([&] {
    for (;;) {
      {
        MutexLock lock(&sweep_mu);
        const absl::Time next = std::min((*core)->NextFlagFall(),
                                         absl::Now() + absl::Milliseconds(100));
        while (!stop_sweeping && absl::Now() < next) {
          sweep_cv.WaitWithTimeout(&sweep_mu, next - absl::Now());
        }
        if (stop_sweeping) return;
      }
      (*core)->SweepFlags();
    }
  });

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
  {
    MutexLock lock(&sweep_mu);
    stop_sweeping = true;
  }
  sweep_cv.SignalAll();
  sweeper.join();
  flag_timer.join();
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
