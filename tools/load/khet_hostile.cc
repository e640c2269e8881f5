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
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "boost/asio/co_spawn.hpp"
#include "boost/asio/detached.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/redirect_error.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/use_awaitable.hpp"
#include "boost/asio/write.hpp"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/setups.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/khetd_process.h"
#include "tools/load/raw_http.h"

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

namespace khet {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;

// ---- Settings -----------------------------------------------------------

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

// ---- Figures ----------------------------------------------------------------

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p * values.size()));
  rank = std::clamp<size_t>(rank, 1, values.size());
  return values[rank - 1];
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return absl::StrCat(one, " ", five, " ", fifteen);
}

// Latencies in ms of one kind of well-behaved call, and its failures.
struct Latencies {
  std::vector<double> ms;
  std::vector<absl::Time> started;  // when each call of `ms` started
  std::map<std::string, int> errors;

  void Add(absl::Time start, absl::Time end) {
    ms.push_back(absl::ToDoubleMilliseconds(end - start));
    started.push_back(start);
  }
  void Merge(const Latencies& other) {
    ms.insert(ms.end(), other.ms.begin(), other.ms.end());
    started.insert(started.end(), other.started.begin(), other.started.end());
    for (const auto& [error, n] : other.errors) errors[error] += n;
  }
  // The slowest call started in each second after `from`, in ms.
  std::vector<double> SlowestPerSecond(absl::Time from) const {
    std::vector<double> slowest;
    for (size_t i = 0; i < ms.size(); ++i) {
      const int64_t second = absl::ToInt64Seconds(started[i] - from);
      if (second < 0) continue;
      if (slowest.size() <= static_cast<size_t>(second)) {
        slowest.resize(second + 1, 0);
      }
      slowest[second] = std::max(slowest[second], ms[i]);
    }
    return slowest;
  }
};

// ---- Well-behaved clients ---------------------------------------------------

// GETs /v1/sessions/{id} on one kept-alive connection from 127.0.0.1 until
// `deadline`, one every `interval` at most.
Latencies HttpClient(int port, const std::string& session_id,
                     absl::Duration interval, absl::Time deadline) {
  Latencies out;
  const std::string request =
      GetRequest(absl::StrCat("/v1/sessions/", session_id));
  std::unique_ptr<RawConnection> connection;
  while (absl::Now() < deadline) {
    const absl::Time start = absl::Now();
    if (connection == nullptr) {
      absl::StatusOr<std::unique_ptr<RawConnection>> opened =
          RawConnection::Open(port, "127.0.0.1");
      if (!opened.ok()) {
        ++out.errors[absl::StrCat("GET: ", opened.status().message())];
        absl::SleepFor(absl::Milliseconds(100));
        continue;
      }
      connection = std::move(*opened);
    }
    absl::StatusOr<RawResponse> answer =
        connection->Send(request)
            ? connection->Read(absl::Seconds(10))
            : absl::UnavailableError("the request could not be sent");
    const absl::Time end = absl::Now();
    if (!answer.ok() || answer->status != 200) {
      ++out.errors[absl::StrCat(
          "GET: ", answer.ok() ? absl::StrCat("status ", answer->status)
                               : std::string(answer.status().message()))];
      connection.reset();
    } else {
      out.Add(start, end);
      if (!answer->keep_alive) connection.reset();
    }
    absl::SleepFor(start + interval - absl::Now());
  }
  return out;
}

std::unique_ptr<grpc::ClientContext> Context(const std::string& token = "") {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(30));
  if (!token.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
  }
  return context;
}

std::string Describe(const grpc::Status& status) {
  return absl::StrCat("code ", status.error_code(), ": ",
                      status.error_message());
}

RuleOptions GameRules() {
  RuleOptions rules;
  rules.automatic_repetition_draw = true;
  rules.ply_limit = 200;
  return rules;
}

// A session with both seats taken, played with random legal moves; the
// game is kept locally to pick them.
class GameClient {
 public:
  GameClient(v1::KhetService::Stub* stub, uint64_t seed)
      : stub_(stub), random_(seed) {}

  absl::Status Create() {
    v1::CreateSessionRequest create;
    create.set_name("hostile-game");
    create.mutable_rules()->set_automatic_repetition_draw(true);
    create.mutable_rules()->set_ply_limit(200);
    v1::CreateSessionResponse created;
    const grpc::Status status =
        stub_->CreateSession(Context().get(), create, &created);
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("CreateSession: ", Describe(status)));
    }
    id_ = created.session().id();
    owner_ = created.owner_token();
    return Join();
  }

  // Plays until `deadline`, a move every `interval` at most.
  Latencies Play(absl::Duration interval, absl::Time deadline) {
    Latencies out;
    while (absl::Now() < deadline) {
      const absl::Time start = absl::Now();
      MoveList moves;
      GenerateMoves(game_->position(), &moves);
      if (moves.size == 0) {
        ++out.errors["no legal move in a game not over"];
        return out;
      }
      const Move move = moves.moves[random_() % moves.size];
      v1::MakeMoveRequest request;
      request.set_session_id(id_);
      request.mutable_move()->set_notation(FormatMove(game_->position(), move));
      const bool silver = game_->position().side_to_move() == Color::kSilver;
      v1::MakeMoveResponse response;
      const grpc::Status status = stub_->MakeMove(
          Context(silver ? silver_ : red_).get(), request, &response);
      const absl::Time end = absl::Now();
      if (!status.ok() || !game_->Play(move).ok()) {
        ++out.errors[absl::StrCat("MakeMove: ", Describe(status))];
        return out;  // the local game may be out of step: stop this one
      }
      out.Add(start, end);
      if (game_->over()) {
        if (absl::Status again = Reset(); !again.ok()) {
          ++out.errors[std::string(again.message())];
          return out;
        }
      }
      absl::SleepFor(start + interval - absl::Now());
    }
    return out;
  }

 private:
  absl::Status Join() {
    for (const v1::Color color : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(id_);
      join.set_color(color);
      join.set_player_name(color == v1::SILVER ? "silver" : "red");
      v1::JoinSeatResponse joined;
      const grpc::Status status =
          stub_->JoinSeat(Context().get(), join, &joined);
      if (!status.ok()) {
        return absl::UnavailableError(
            absl::StrCat("JoinSeat: ", Describe(status)));
      }
      (color == v1::SILVER ? silver_ : red_) = joined.player_token();
    }
    game_ = std::make_unique<Game>(*SetupPosition("classic-2"), GameRules());
    return absl::OkStatus();
  }

  absl::Status Reset() {
    v1::ResetGameRequest reset;
    reset.set_session_id(id_);
    v1::Session session;
    const grpc::Status status =
        stub_->ResetGame(Context(owner_).get(), reset, &session);
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("ResetGame: ", Describe(status)));
    }
    return Join();
  }

  v1::KhetService::Stub* stub_;
  std::mt19937_64 random_;
  std::string id_, owner_, silver_, red_;
  std::unique_ptr<Game> game_;
};

// The well-behaved clients: HTTP GETs of one session, and games over gRPC,
// each on its own thread.
class NormalClients {
 public:
  NormalClients(const Settings& settings, const KhetdProcess& khetd,
                std::string get_session)
      : settings_(settings),
        http_port_(khetd.http_port()),
        get_session_(std::move(get_session)),
        stub_(v1::KhetService::NewStub(grpc::CreateChannel(
            khetd.address(), grpc::InsecureChannelCredentials()))) {}

  absl::Status CreateGames() {
    for (int i = 0; i < settings_.games; ++i) {
      games_.push_back(std::make_unique<GameClient>(stub_.get(), 1000 + i));
      if (absl::Status created = games_.back()->Create(); !created.ok()) {
        return created;
      }
    }
    return absl::OkStatus();
  }

  // Runs them all for `seconds`: the GETs' and the moves' latencies.
  std::pair<Latencies, Latencies> Run(double seconds) {
    const absl::Time deadline = absl::Now() + absl::Seconds(seconds);
    std::vector<Latencies> gets(settings_.http_clients);
    std::vector<Latencies> moves(games_.size());
    std::vector<std::thread> threads;
    for (int i = 0; i < settings_.http_clients; ++i) {
      threads.emplace_back([&, i] {
        gets[i] =
            HttpClient(http_port_, get_session_, settings_.interval, deadline);
      });
    }
    for (size_t i = 0; i < games_.size(); ++i) {
      threads.emplace_back(
          [&, i] { moves[i] = games_[i]->Play(settings_.interval, deadline); });
    }
    for (std::thread& thread : threads) thread.join();
    std::pair<Latencies, Latencies> out;
    for (const Latencies& l : gets) out.first.Merge(l);
    for (const Latencies& l : moves) out.second.Merge(l);
    return out;
  }

 private:
  const Settings& settings_;
  const int http_port_;
  const std::string get_session_;
  std::unique_ptr<v1::KhetService::Stub> stub_;
  std::vector<std::unique_ptr<GameClient>> games_;
};

// ---- The HTTP attack ------------------------------------------------------

// What khetd did with one kind of attack connection.
struct Outcomes {
  int64_t connections = 0;
  int64_t connect_failures = 0;
  std::map<int, int64_t> statuses;  // answers by status
  int64_t resets = 0;               // reset while a request was pending
  int64_t silent_closes = 0;        // closed while a request was pending
  int64_t idle_ends = 0;   // ended with nothing pending (idle, a stream)
  int64_t unanswered = 0;  // given up on 5 s after its last byte
  int64_t largest_body = 0;

  int64_t Refused() const {
    int64_t n = 0;
    for (const auto& [status, count] : statuses) n += status >= 400 ? count : 0;
    return n;
  }
};

// One answer read from an attack connection.
struct Answer {
  int status = 0;  // 0: the connection ended before a status line
  int64_t body_bytes = 0;
  bool keep_alive = false;
  bool reset = false;  // it ended by a reset, not in order
};

// The HTTP attackers, all on one thread's event loop.
class HttpAttack {
 public:
  // The waiters wait on `quiet` sessions (id and version), 50 at most on
  // each.
  HttpAttack(const Settings& settings, int port,
             std::vector<std::pair<std::string, int64_t>> quiet)
      : settings_(settings),
        server_(asio::ip::address_v4::loopback(), static_cast<uint16_t>(port)),
        quiet_(std::move(quiet)) {}

  void Start() {
    using Attacker = awaitable<void> (HttpAttack::*)(int);
    const std::pair<int, Attacker> kinds[] = {
        {settings_.slow_headers, &HttpAttack::SlowHeader},
        {settings_.idle_connections, &HttpAttack::IdleKeptAlive},
        {settings_.waiters, &HttpAttack::Waiter},
        {settings_.range_clients, &HttpAttack::MultiRange},
        {settings_.flood_clients, &HttpAttack::HeaderFlood}};
    int index = 0;
    for (const auto& [count, attacker] : kinds) {
      for (int i = 0; i < count; ++i, ++index) {
        asio::co_spawn(io_, (this->*attacker)(index), asio::detached);
      }
    }
    thread_ = std::thread([this] { io_.run(); });
  }

  // Ends the attack: every connection is dropped.
  void Stop() {
    io_.stop();
    thread_.join();
  }

  void Print() const {
    std::printf("  %-22s %8s %8s %8s %8s %9s %8s  %s\n", "attack connections",
                "opened", "refused", "resets", "silent", "no answer",
                "idle end", "answers by status");
    const std::pair<const char*, const Outcomes*> rows[] = {
        {"slow headers", &slow_},
        {"idle kept-alive", &idle_},
        {"long polls, streams", &waiting_},
        {"multi-range", &range_},
        {"header flood", &flood_}};
    for (const auto& [name, o] : rows) {
      std::vector<std::string> statuses;
      for (const auto& [status, count] : o->statuses) {
        statuses.push_back(absl::StrCat(status, ": ", count));
      }
      std::printf("  %-22s %8lld %8lld %8lld %8lld %9lld %8lld  %s\n", name,
                  static_cast<long long>(o->connections),
                  static_cast<long long>(o->Refused()),
                  static_cast<long long>(o->resets),
                  static_cast<long long>(o->silent_closes),
                  static_cast<long long>(o->unanswered),
                  static_cast<long long>(o->idle_ends),
                  absl::StrJoin(statuses, ", ").c_str());
    }
    std::printf(
        "  (refused: answers >= 400; resets and silent: ended by a reset or a "
        "close with a request pending and no status line; no answer: a "
        "flood neither answered nor closed 5 s after its last byte)\n");
    std::printf("  largest multi-range answer: %lld bytes (the file: %lld)\n",
                static_cast<long long>(range_.largest_body),
                static_cast<long long>(whole_file_bytes_));
  }

  int64_t Unclean() const {
    int64_t n = 0;
    for (const Outcomes* o : {&slow_, &idle_, &waiting_, &range_, &flood_}) {
      n += o->resets + o->silent_closes;
    }
    return n;
  }
  int64_t LargestRangeAnswer() const { return range_.largest_body; }
  void set_whole_file_bytes(int64_t bytes) { whole_file_bytes_ = bytes; }

 private:
  using Socket = std::shared_ptr<tcp::socket>;

  awaitable<void> Sleep(absl::Duration duration) {
    asio::steady_timer timer(io_, absl::ToChronoNanoseconds(duration));
    boost::system::error_code ignored;
    co_await timer.async_wait(
        asio::redirect_error(asio::use_awaitable, ignored));
  }

  // A random wait in the first half of the ramp, so that the connections
  // do not all open at once.
  awaitable<void> Stagger() {
    std::uniform_real_distribution<double> within(0,
                                                  settings_.ramp_seconds / 2);
    co_await Sleep(absl::Seconds(within(random_)));
  }

  // A connection from 127.0.0.(2 + index % sources); nullptr if it fails.
  awaitable<Socket> Connect(int index, Outcomes& outcomes) {
    auto socket = std::make_shared<tcp::socket>(io_);
    boost::system::error_code error;
    socket->open(tcp::v4(), error);
    if (!error) {
      const int one = 1;
      setsockopt(socket->native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT,
                 &one, sizeof one);
      const uint32_t source =
          0x7f000002u + static_cast<uint32_t>(index % settings_.sources);
      socket->bind(tcp::endpoint(asio::ip::address_v4(source), 0), error);
    }
    if (!error) {
      co_await socket->async_connect(
          server_, asio::redirect_error(asio::use_awaitable, error));
    }
    if (error) {
      ++outcomes.connect_failures;
      co_return nullptr;
    }
    socket->set_option(tcp::no_delay(true), error);
    ++outcomes.connections;
    co_return socket;
  }

  // Writes `bytes`; false if the connection is gone.
  awaitable<bool> Write(tcp::socket& socket, absl::string_view bytes) {
    boost::system::error_code error;
    co_await asio::async_write(
        socket, asio::buffer(bytes.data(), bytes.size()),
        asio::redirect_error(asio::use_awaitable, error));
    co_return !error;
  }

  // Reads one answer after what *buffer holds: the status line and headers,
  // then (unless `head_only`) the body by Content-Length or to the end,
  // counted but not kept.
  awaitable<Answer> Read(tcp::socket& socket, std::string* buffer,
                         bool head_only) {
    Answer answer;
    char chunk[16384];
    boost::system::error_code error;
    size_t end = buffer->find("\r\n\r\n");
    while (end == std::string::npos) {
      const size_t n = co_await socket.async_read_some(
          asio::buffer(chunk),
          asio::redirect_error(asio::use_awaitable, error));
      if (error) {
        answer.reset = error != asio::error::eof;
        co_return answer;
      }
      buffer->append(chunk, n);
      end = buffer->find("\r\n\r\n");
    }
    const std::string head = buffer->substr(0, end);
    buffer->erase(0, end + 4);
    const std::vector<std::string> words =
        absl::StrSplit(head.substr(0, head.find("\r\n")), ' ');
    if (words.size() < 2 || !absl::SimpleAtoi(words[1], &answer.status)) {
      answer.status = 0;
      co_return answer;
    }
    int64_t length = -1;
    answer.keep_alive = true;
    for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
      const size_t colon = line.find(':');
      if (colon == absl::string_view::npos) continue;
      const absl::string_view name = line.substr(0, colon);
      const absl::string_view value =
          absl::StripAsciiWhitespace(line.substr(colon + 1));
      if (absl::EqualsIgnoreCase(name, "Content-Length")) {
        if (!absl::SimpleAtoi(value, &length)) length = -1;
      } else if (absl::EqualsIgnoreCase(name, "Connection") &&
                 absl::EqualsIgnoreCase(value, "close")) {
        answer.keep_alive = false;
      }
    }
    if (head_only) co_return answer;
    if (length < 0) answer.keep_alive = false;  // the body ends at the close
    while (length < 0 || answer.body_bytes < length) {
      if (buffer->empty()) {
        const size_t n = co_await socket.async_read_some(
            asio::buffer(chunk),
            asio::redirect_error(asio::use_awaitable, error));
        if (error) break;
        buffer->append(chunk, n);
      }
      const int64_t take =
          length < 0
              ? static_cast<int64_t>(buffer->size())
              : std::min<int64_t>(buffer->size(), length - answer.body_bytes);
      answer.body_bytes += take;
      buffer->erase(0, static_cast<size_t>(take));
    }
    co_return answer;
  }

  // Reads and drops what comes until the connection ends.
  awaitable<void> DrainUntilEnd(tcp::socket& socket) {
    char chunk[16384];
    boost::system::error_code error;
    while (!error) {
      co_await socket.async_read_some(
          asio::buffer(chunk),
          asio::redirect_error(asio::use_awaitable, error));
    }
  }

  // Counts an answer to a pending request; true if it was a refusal or the
  // end of the connection (the caller then starts over after a pause).
  static bool Record(Outcomes& outcomes, const Answer& answer) {
    if (answer.status == 0) {
      ++(answer.reset ? outcomes.resets : outcomes.silent_closes);
      return true;
    }
    ++outcomes.statuses[answer.status];
    outcomes.largest_body = std::max(outcomes.largest_body, answer.body_bytes);
    return answer.status >= 400 || !answer.keep_alive;
  }

  // Sends one byte of `text` every 2 s until *done.
  awaitable<void> Trickle(Socket socket, std::shared_ptr<bool> done,
                          std::string text) {
    asio::steady_timer timer(io_);
    for (size_t i = 0; i < text.size() && !*done; ++i) {
      timer.expires_after(std::chrono::seconds(2));
      boost::system::error_code error;
      co_await timer.async_wait(
          asio::redirect_error(asio::use_awaitable, error));
      if (*done) break;
      const absl::string_view byte = absl::string_view(text).substr(i, 1);
      const bool sent = co_await Write(*socket, byte);
      if (!sent) break;
    }
  }

  // A request line, then a header byte every 2 s, until khetd answers or
  // ends the connection; then again.
  awaitable<void> SlowHeader(int index) {
    co_await Stagger();
    const std::string slow = absl::StrCat("X-Slow: ", std::string(4000, 'a'));
    while (true) {
      Socket socket = co_await Connect(index, slow_);
      if (socket == nullptr) {
        co_await Sleep(absl::Seconds(1));
        continue;
      }
      co_await Write(*socket, "GET /v1/setups HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      auto done = std::make_shared<bool>(false);
      asio::co_spawn(io_, Trickle(socket, done, slow), asio::detached);
      std::string buffer;
      const Answer answer = co_await Read(*socket, &buffer, /*head_only=*/true);
      *done = true;
      Record(slow_, answer);
      boost::system::error_code ignored;
      socket->close(ignored);
      co_await Sleep(answer.status >= 400 && answer.status != 408
                         ? absl::Seconds(1)
                         : absl::Milliseconds(100));
    }
  }

  // One GET, then idle until khetd closes the connection; then again.
  awaitable<void> IdleKeptAlive(int index) {
    co_await Stagger();
    while (true) {
      Socket socket = co_await Connect(index, idle_);
      if (socket == nullptr) {
        co_await Sleep(absl::Seconds(1));
        continue;
      }
      co_await Write(*socket, GetRequest("/v1/setups"));
      std::string buffer;
      const Answer answer = co_await Read(*socket, &buffer, false);
      if (!Record(idle_, answer)) {
        co_await DrainUntilEnd(*socket);  // until khetd ends it
        ++idle_.idle_ends;
      } else {
        co_await Sleep(absl::Seconds(1));
      }
    }
  }

  // Even indexes: long polls on a quiet session, one after another on a
  // kept-alive connection; odd: an event stream held open.
  awaitable<void> Waiter(int index) {
    co_await Stagger();
    const auto& [id, version] = quiet_[index % quiet_.size()];
    const std::string events = absl::StrCat("/v1/sessions/", id, "/events");
    const std::string request =
        index % 2 == 0
            ? GetRequest(absl::StrCat(events, "?afterVersion=", version,
                                      "&waitSeconds=25"))
            : GetRequest(
                  absl::StrCat(events, ":stream?afterVersion=", version));
    while (true) {
      Socket socket = co_await Connect(index, waiting_);
      if (socket == nullptr) {
        co_await Sleep(absl::Seconds(1));
        continue;
      }
      std::string buffer;
      bool refused = false;
      while (!refused) {
        co_await Write(*socket, request);
        const bool stream = index % 2 == 1;
        const Answer answer = co_await Read(*socket, &buffer, stream);
        refused = Record(waiting_, answer);
        if (stream && !refused) {
          co_await DrainUntilEnd(*socket);  // held until it ends
          ++waiting_.idle_ends;
          break;
        }
      }
      co_await Sleep(absl::Seconds(1));
    }
  }

  // A web board file with 1500 ranges, again and again.
  awaitable<void> MultiRange(int index) {
    co_await Stagger();
    std::vector<std::string> ranges(1500, "0-");
    const std::string request = GetRequest(
        "/game.js",
        absl::StrCat("Range: bytes=", absl::StrJoin(ranges, ","), "\r\n"));
    while (true) {
      Socket socket = co_await Connect(index, range_);
      if (socket == nullptr) {
        co_await Sleep(absl::Seconds(1));
        continue;
      }
      std::string buffer;
      bool again = true;
      while (again) {
        co_await Write(*socket, request);
        const Answer answer = co_await Read(*socket, &buffer, false);
        again = !Record(range_, answer);
        co_await Sleep(settings_.attack_pause);
      }
    }
  }

  // Reads the answer to a flood, then sets *done.
  awaitable<void> ReadFloodAnswer(Socket socket, std::shared_ptr<bool> done,
                                  std::shared_ptr<Answer> answer) {
    std::string buffer;
    *answer = co_await Read(*socket, &buffer, true);
    *done = true;
  }

  // A request line, then tiny headers until khetd answers, stops reading or
  // flood_bytes are sent; then again.
  awaitable<void> HeaderFlood(int index) {
    co_await Stagger();
    std::string chunk;
    for (int i = 0; i < 1000; ++i) chunk += "a:b\r\n";
    while (true) {
      Socket socket = co_await Connect(index, flood_);
      if (socket == nullptr) {
        co_await Sleep(absl::Seconds(1));
        continue;
      }
      auto done = std::make_shared<bool>(false);
      auto answer = std::make_shared<Answer>();
      asio::co_spawn(io_, ReadFloodAnswer(socket, done, answer),
                     asio::detached);
      bool sent = co_await Write(
          *socket, "GET /v1/setups HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      for (int64_t bytes = 0; sent && !*done && bytes < settings_.flood_bytes;
           bytes += static_cast<int64_t>(chunk.size())) {
        sent = co_await Write(*socket, chunk);
      }
      // The answer, if any, follows soon after khetd stops reading.
      for (int i = 0; i < 100 && !*done; ++i) {
        co_await Sleep(absl::Milliseconds(50));
      }
      if (*done) {
        Record(flood_, *answer);
      } else {
        ++flood_.unanswered;
      }
      boost::system::error_code ignored;
      socket->close(ignored);
      co_await Sleep(settings_.attack_pause);
    }
  }

  const Settings& settings_;
  const tcp::endpoint server_;
  const std::vector<std::pair<std::string, int64_t>> quiet_;
  asio::io_context io_;
  std::thread thread_;
  std::mt19937_64 random_{7};
  Outcomes slow_, idle_, waiting_, range_, flood_;
  int64_t whole_file_bytes_ = 0;
};

// ---- The gRPC attack --------------------------------------------------------

// Idle Watch streams over a few connections, driven by one thread through a
// completion queue. A watch is open once its first event (the session's
// history) has come; one that ends before is refused, counted by its code.
class WatchAttack {
 public:
  WatchAttack(const std::string& address, int channels) {
    for (int i = 0; i < channels; ++i) {
      grpc::ChannelArguments args;
      args.SetInt("khet.hostile.channel", i);  // a connection of its own
      stubs_.push_back(v1::KhetService::NewStub(grpc::CreateCustomChannel(
          address, grpc::InsecureChannelCredentials(), args)));
    }
  }

  // Starts `count` watches spread over `sessions`.
  void Start(int count, const std::vector<std::string>& sessions) {
    for (int i = 0; i < count; ++i) {
      auto call = std::make_unique<Call>();
      v1::WatchRequest request;
      request.set_session_id(sessions[i % sessions.size()]);
      call->reader = stubs_[i % stubs_.size()]->PrepareAsyncWatch(
          &call->context, request, &queue_);
      calls_.push_back(std::move(call));
    }
    for (auto& call : calls_) call->reader->StartCall(call.get());
    thread_ = std::thread([this] {
      void* tag;
      bool ok;
      while (queue_.Next(&tag, &ok)) Handle(static_cast<Call*>(tag), ok);
    });
  }

  // Cancels every watch and waits for them to end.
  void Stop() {
    stopping_ = true;
    for (auto& call : calls_) call->context.TryCancel();
    {
      std::unique_lock<std::mutex> lock(mu_);
      for (auto& call : calls_) {
        if (call->state == State::kOpen) Finish(call.get());
      }
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (done_ < static_cast<int64_t>(calls_.size()) &&
           absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    queue_.Shutdown();
    thread_.join();
  }

  int64_t open() const { return open_; }
  int64_t peak_open() const { return peak_open_; }
  // Watches refused (ended before their first event), by status code name.
  std::map<std::string, int64_t> Refused() const {
    std::unique_lock<std::mutex> lock(mu_);
    return refused_;
  }

 private:
  enum class State { kStarting, kReading, kOpen, kFinishing, kDone };
  struct Call {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientAsyncReader<v1::Event>> reader;
    v1::Event event;
    grpc::Status status;
    State state = State::kStarting;
    bool opened = false;
  };

  void Finish(Call* call) {
    call->state = State::kFinishing;
    call->reader->Finish(&call->status, call);
  }

  void Handle(Call* call, bool ok) {
    std::unique_lock<std::mutex> lock(mu_);
    switch (call->state) {
      case State::kStarting:
        if (!ok) return Finish(call);
        call->state = State::kReading;
        call->reader->Read(&call->event, call);
        return;
      case State::kReading:
        if (!ok) return Finish(call);
        call->state = State::kOpen;
        call->opened = true;
        peak_open_ = std::max<int64_t>(peak_open_, ++open_);
        if (stopping_) Finish(call);
        return;
      case State::kFinishing:
        call->state = State::kDone;
        ++done_;
        if (call->opened) {
          --open_;
        } else if (!stopping_) {
          ++refused_[StatusName(call->status.error_code())];
        }
        return;
      case State::kOpen:
      case State::kDone:
        return;
    }
  }

  static std::string StatusName(grpc::StatusCode code) {
    switch (code) {
      case grpc::StatusCode::RESOURCE_EXHAUSTED:
        return "RESOURCE_EXHAUSTED";
      case grpc::StatusCode::UNAVAILABLE:
        return "UNAVAILABLE";
      case grpc::StatusCode::DEADLINE_EXCEEDED:
        return "DEADLINE_EXCEEDED";
      default:
        return absl::StrCat("code ", code);
    }
  }

  std::vector<std::unique_ptr<v1::KhetService::Stub>> stubs_;
  grpc::CompletionQueue queue_;
  std::vector<std::unique_ptr<Call>> calls_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> open_{0};
  std::atomic<int64_t> peak_open_{0};
  std::atomic<int64_t> done_{0};
  std::map<std::string, int64_t> refused_;
};

// ---- khetd's threads and memory -------------------------------------------

// Samples khetd's threads and RSS every 100 ms while it runs; the peaks.
class Sampler {
 public:
  explicit Sampler(pid_t pid) : pid_(pid) {
    thread_ = std::thread([this] {
      while (!stop_) {
        absl::StatusOr<int> threads = ThreadCount(pid_);
        absl::StatusOr<int64_t> rss = ResidentBytes(pid_);
        if (threads.ok())
          peak_threads_ = std::max(peak_threads_.load(), *threads);
        if (rss.ok()) peak_rss_ = std::max(peak_rss_.load(), *rss);
        absl::SleepFor(absl::Milliseconds(100));
      }
    });
  }
  ~Sampler() {
    stop_ = true;
    thread_.join();
  }
  int peak_threads() const { return peak_threads_; }
  int64_t peak_rss() const { return peak_rss_; }

 private:
  const pid_t pid_;
  std::atomic<bool> stop_{false};
  std::atomic<int> peak_threads_{0};
  std::atomic<int64_t> peak_rss_{0};
  std::thread thread_;
};

// How late this process wakes from 1 ms sleeps while it runs: the
// machine's own delays, to tell from khetd's in the timeline.
class WakeLag {
 public:
  WakeLag() {
    thread_ = std::thread([this] {
      while (!stop_) {
        const absl::Time start = absl::Now();
        absl::SleepFor(absl::Milliseconds(1));
        lags_.Add(start, absl::Now() - absl::Milliseconds(1));
      }
    });
  }
  // Stops; the lags, as latencies.
  Latencies Stop() {
    stop_ = true;
    thread_.join();
    return lags_;
  }

 private:
  std::atomic<bool> stop_{false};
  Latencies lags_;
  std::thread thread_;
};

// ---- The run ----------------------------------------------------------------

// The CPU khetd and this tool use from construction to Shares(), in cores.
class CpuShare {
 public:
  explicit CpuShare(pid_t pid)
      : pid_(pid),
        start_(absl::Now()),
        khetd_(CpuNanos(pid).value_or(0)),
        self_(SelfNanos()) {}

  std::pair<double, double> Shares() const {
    const double wall = absl::ToDoubleSeconds(absl::Now() - start_) * 1e9;
    return {(CpuNanos(pid_).value_or(0) - khetd_) / wall,
            (SelfNanos() - self_) / wall};
  }

 private:
  static int64_t SelfNanos() {
    rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    auto nanos = [](const timeval& t) {
      return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_usec * 1000;
    };
    return nanos(usage.ru_utime) + nanos(usage.ru_stime);
  }

  const pid_t pid_;
  const absl::Time start_;
  const int64_t khetd_;
  const int64_t self_;
};

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

// Creates a session over gRPC with a seat taken (so that its history has
// an event); its id and version.
absl::StatusOr<std::pair<std::string, int64_t>> QuietSession(
    v1::KhetService::Stub& stub) {
  v1::CreateSessionRequest create;
  create.set_name("hostile-quiet");
  v1::CreateSessionResponse created;
  grpc::Status status = stub.CreateSession(Context().get(), create, &created);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat("CreateSession: ", Describe(status)));
  }
  v1::JoinSeatRequest join;
  join.set_session_id(created.session().id());
  join.set_player_name("watched");
  v1::JoinSeatResponse joined;
  status = stub.JoinSeat(Context().get(), join, &joined);
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("JoinSeat: ", Describe(status)));
  }
  return std::make_pair(created.session().id(), joined.session().version());
}

absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> QuietSessions(
    v1::KhetService::Stub& stub, int count) {
  std::vector<std::pair<std::string, int64_t>> sessions;
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<std::pair<std::string, int64_t>> session =
        QuietSession(stub);
    if (!session.ok()) return session.status();
    sessions.push_back(*std::move(session));
  }
  return sessions;
}

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
  NormalClients normal(s, khetd, get_session->front().first);
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
  std::optional<Sampler> sampler;
  sampler.emplace(khetd.pid());
  HttpAttack http(s, khetd.http_port(), *waited);
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

  std::vector<std::string> args = {absl::StrCat("--store=", store)};
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
}  // namespace khet

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
  return khet::Run();
}
