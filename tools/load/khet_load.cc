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
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
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
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/setups.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/channel_arguments.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/khetd_process.h"

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

namespace khet {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

constexpr char kHealthCheck[] = "/grpc.health.v1.Health/Check";
constexpr char kMakeMove[] = "/khet.v1.KhetService/MakeMove";

// Reads a varint at `*at` in `bytes`; false past the end.
bool ReadVarint(const std::string& bytes, size_t* at, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *at < bytes.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(bytes[(*at)++]);
    *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// The one thing the tool needs of a MakeMoveResponse, read from its bytes
// without parsing the rest (the board, the shot): result.outcome (field 4,
// then 1). The health check's reply is not parsed at all, so neither call's
// latency carries more of the client's own work than it must. Returns
// OUTCOME_UNSPECIFIED for bytes that are not such a reply.
v1::Outcome OutcomeOf(const grpc::ByteBuffer& reply) {
  std::vector<grpc::Slice> slices;
  if (!reply.Dump(&slices).ok()) return v1::OUTCOME_UNSPECIFIED;
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  // Walks the fields of [from, to) and returns the bounds of the last
  // length-delimited field `number` (the contents), or false.
  auto find = [&bytes](size_t from, size_t to, uint64_t number, size_t* begin,
                       size_t* end) {
    bool found = false;
    size_t at = from;
    while (at < to) {
      uint64_t tag = 0;
      uint64_t n = 0;
      if (!ReadVarint(bytes, &at, &tag)) return false;
      switch (tag & 7) {
        case 0:
          if (!ReadVarint(bytes, &at, &n)) return false;
          if ((tag >> 3) == number) {
            *begin = at;  // a varint: its value is read by the caller
            *end = n;
            found = true;
          }
          break;
        case 1:
          at += 8;
          break;
        case 5:
          at += 4;
          break;
        case 2:
          if (!ReadVarint(bytes, &at, &n) || n > to - at) return false;
          if ((tag >> 3) == number) {
            *begin = at;
            *end = at + n;
            found = true;
          }
          at += n;
          break;
        default:
          return false;
      }
    }
    return found && at == to;
  };
  size_t result_begin = 0, result_end = 0;
  if (!find(0, bytes.size(), 4, &result_begin, &result_end)) {
    return v1::OUTCOME_UNSPECIFIED;
  }
  size_t unused = 0, outcome = 0;
  if (!find(result_begin, result_end, 1, &unused, &outcome)) {
    return v1::OUTCOME_UNSPECIFIED;
  }
  return static_cast<v1::Outcome>(outcome);
}

// ---- Sessions ---------------------------------------------------------------

// One session the tool plays, with its game replayed locally.
struct Player {
  std::string session_id;
  std::string owner_token;
  std::string tokens[2];  // by Color: silver, red
  std::unique_ptr<Game> game;
  std::mt19937_64 random;
  bool broken = false;  // an unexpected answer: the session is left alone
};

RuleOptions LoadRules() {
  RuleOptions rules;
  rules.automatic_repetition_draw = true;
  rules.ply_limit = absl::GetFlag(FLAGS_ply_limit);
  return rules;
}

v1::RuleOptions LoadRulesProto() {
  v1::RuleOptions rules;
  rules.set_automatic_repetition_draw(true);
  rules.set_ply_limit(absl::GetFlag(FLAGS_ply_limit));
  return rules;
}

std::unique_ptr<grpc::ClientContext> NewContext(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(60));
  if (!token.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
  }
  return context;
}

std::string Describe(const grpc::Status& status) {
  return absl::StrCat("code ", static_cast<int>(status.error_code()), ": ",
                      status.error_message());
}

// Takes both seats of `player`'s session; a new game starts.
absl::Status JoinBoth(v1::KhetService::Stub& stub, Player& player) {
  for (v1::Color color : {v1::SILVER, v1::RED}) {
    v1::JoinSeatRequest join;
    join.set_session_id(player.session_id);
    join.set_color(color);
    join.set_player_name(color == v1::SILVER ? "load-silver" : "load-red");
    v1::JoinSeatResponse joined;
    const grpc::Status status =
        stub.JoinSeat(NewContext("").get(), join, &joined);
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("JoinSeat: ", Describe(status)));
    }
    player.tokens[color == v1::SILVER ? 0 : 1] = joined.player_token();
  }
  player.game = std::make_unique<Game>(
      *SetupPosition(absl::GetFlag(FLAGS_setup)), LoadRules());
  return absl::OkStatus();
}

// Creates a session; with `seated`, takes both seats too.
absl::Status CreateSession(v1::KhetService::Stub& stub, Player& player,
                           bool seated) {
  v1::CreateSessionRequest create;
  create.set_name("load");
  create.set_setup_id(absl::GetFlag(FLAGS_setup));
  *create.mutable_rules() = LoadRulesProto();
  v1::CreateSessionResponse created;
  const grpc::Status status =
      stub.CreateSession(NewContext("").get(), create, &created);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat("CreateSession: ", Describe(status)));
  }
  player.session_id = created.session().id();
  player.owner_token = created.owner_token();
  return seated ? JoinBoth(stub, player) : absl::OkStatus();
}

// ---- Phases -----------------------------------------------------------------

enum class Kind { kHealth, kMove };

// What one phase measures: which call, by how many sessions, and when.
struct Phase {
  Kind kind;
  int active;  // sessions 0..active-1 take part
  std::atomic<bool> stop{false};
  int64_t window_start_ns = 0;  // calls started before are warm-up
};

// One measured call: when it started and ended.
struct Sample {
  int64_t start_ns;
  int64_t end_ns;
};

// The calls one client thread makes: its own channel and completion queue,
// and the sessions with index % threads == its index.
class Worker {
 public:
  Worker(const std::string& address, int index)
      : index_(index),
        channel_(NewChannel(address, index)),
        stub_(v1::KhetService::NewStub(channel_)),
        generic_(channel_) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  // Every call has ended when Run returns, so the queue holds no call.
  ~Worker() {
    queue_.Shutdown();
    void* tag;
    bool ok;
    while (queue_.Next(&tag, &ok)) delete static_cast<Call*>(tag);
  }

  v1::KhetService::Stub& stub() { return *stub_; }
  std::vector<Player*>& players() { return players_; }
  const std::map<std::string, int>& errors() const { return errors_; }

  // Plays `phase` until phase.stop and its calls have ended; the samples of
  // calls started after the window began go to *samples.
  void Run(Phase& phase, const std::vector<int>& indices,
           std::vector<Sample>* samples) {
    phase_ = &phase;
    samples_ = samples;
    int outstanding = 0;
    for (size_t i = 0; i < players_.size(); ++i) {
      if (indices[i] < phase.active && !players_[i]->broken) {
        outstanding += Issue(phase.kind, players_[i]);
      }
    }
    while (outstanding > 0) {
      void* tag = nullptr;
      bool ok = false;
      if (!queue_.Next(&tag, &ok)) break;
      --outstanding;
      std::unique_ptr<Call> call(static_cast<Call*>(tag));
      call->end_ns = NowNanos();
      outstanding += Handle(*call);
    }
  }

 private:
  enum class Step { kHealth, kMove, kReset, kJoinSilver, kJoinRed };

  struct Call {
    Step step;
    Player* player;
    grpc::ClientContext context;
    grpc::Status status;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    Move move;
    grpc::ByteBuffer health_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<grpc::ByteBuffer>>
        health_reader;
    // Raw, like the health check's: only the result is read (OutcomeOf).
    grpc::ByteBuffer move_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<grpc::ByteBuffer>>
        move_reader;
    v1::Session reset_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<v1::Session>> reset_reader;
    v1::JoinSeatResponse join_response;
    std::unique_ptr<grpc::ClientAsyncResponseReader<v1::JoinSeatResponse>>
        join_reader;
  };

  static std::shared_ptr<grpc::Channel> NewChannel(const std::string& address,
                                                   int index) {
    grpc::ChannelArguments args;
    // A distinct argument gives each thread its own connection.
    args.SetInt("khet.load.connection", index);
    return grpc::CreateCustomChannel(address,
                                     grpc::InsecureChannelCredentials(), args);
  }

  // Starts the phase's kind of call for `player`; returns 1 (one call
  // outstanding) or 0.
  int Issue(Kind kind, Player* player) {
    return kind == Kind::kHealth ? Start(Step::kHealth, player)
                                 : Start(Step::kMove, player);
  }

  int Start(Step step, Player* player) {
    auto* call = new Call;
    call->step = step;
    call->player = player;
    call->context.set_deadline(std::chrono::system_clock::now() +
                               std::chrono::seconds(60));
    auto authorize = [&](const std::string& token) {
      call->context.AddMetadata("authorization",
                                absl::StrCat("Bearer ", token));
    };
    switch (step) {
      case Step::kHealth: {
        static const grpc::ByteBuffer kEmpty = [] {
          grpc::Slice empty("");
          return grpc::ByteBuffer(&empty, 1);
        }();
        call->start_ns = NowNanos();
        call->health_reader = generic_.PrepareUnaryCall(
            &call->context, kHealthCheck, kEmpty, &queue_);
        call->health_reader->StartCall();
        call->health_reader->Finish(&call->health_response, &call->status,
                                    call);
        return 1;
      }
      case Step::kMove: {
        const Position& pos = player->game->position();
        MoveList moves;
        GenerateMoves(pos, &moves);
        if (moves.size == 0) {
          Fail(player, "no legal move in a game not over");
          delete call;
          return 0;
        }
        call->move = moves.moves[player->random() % moves.size];
        v1::MakeMoveRequest request;
        request.set_session_id(player->session_id);
        request.mutable_move()->set_notation(FormatMove(pos, call->move));
        authorize(player->tokens[pos.side_to_move() == Color::kSilver ? 0 : 1]);
        grpc::ByteBuffer request_bytes;
        bool own_buffer = false;
        if (!grpc::SerializationTraits<v1::MakeMoveRequest>::Serialize(
                 request, &request_bytes, &own_buffer)
                 .ok()) {
          Fail(player, "a MakeMoveRequest did not serialize");
          delete call;
          return 0;
        }
        call->start_ns = NowNanos();
        call->move_reader = generic_.PrepareUnaryCall(&call->context, kMakeMove,
                                                      request_bytes, &queue_);
        call->move_reader->StartCall();
        call->move_reader->Finish(&call->move_response, &call->status, call);
        return 1;
      }
      case Step::kReset: {
        v1::ResetGameRequest request;
        request.set_session_id(player->session_id);
        authorize(player->owner_token);
        call->reset_reader =
            stub_->PrepareAsyncResetGame(&call->context, request, &queue_);
        call->reset_reader->StartCall();
        call->reset_reader->Finish(&call->reset_response, &call->status, call);
        return 1;
      }
      case Step::kJoinSilver:
      case Step::kJoinRed: {
        v1::JoinSeatRequest request;
        request.set_session_id(player->session_id);
        const bool silver = step == Step::kJoinSilver;
        request.set_color(silver ? v1::SILVER : v1::RED);
        request.set_player_name(silver ? "load-silver" : "load-red");
        call->join_reader =
            stub_->PrepareAsyncJoinSeat(&call->context, request, &queue_);
        call->join_reader->StartCall();
        call->join_reader->Finish(&call->join_response, &call->status, call);
        return 1;
      }
    }
    delete call;
    return 0;
  }

  void Fail(Player* player, const std::string& why) {
    player->broken = true;
    ++errors_[why];
  }

  void Record(const Call& call) {
    if (call.start_ns >= phase_->window_start_ns) {
      samples_->push_back({call.start_ns, call.end_ns});
    }
  }

  // Handles a finished call and starts the player's next one; returns how
  // many calls that started (0 or 1).
  int Handle(Call& call) {
    Player* player = call.player;
    const bool stopping = phase_->stop.load(std::memory_order_relaxed);
    if (!call.status.ok()) {
      Fail(player,
           absl::StrCat(StepName(call.step), ": ", Describe(call.status)));
      return 0;
    }
    switch (call.step) {
      case Step::kHealth:
        Record(call);
        return stopping ? 0 : Start(Step::kHealth, player);
      case Step::kMove: {
        Record(call);
        if (!player->game->Play(call.move).ok()) {
          Fail(player, "the local game refused a move khetd took");
          return 0;
        }
        const v1::Outcome outcome = OutcomeOf(call.move_response);
        if (outcome == v1::OUTCOME_UNSPECIFIED) {
          Fail(player, "a MakeMove reply without a result");
          return 0;
        }
        const bool over = outcome != v1::ONGOING;
        if (over != player->game->over()) {
          Fail(player, "khetd and the local game disagree on the result");
          return 0;
        }
        if (over) return Start(Step::kReset, player);
        return stopping ? 0 : Start(Step::kMove, player);
      }
      case Step::kReset:  // a new game: both seats again, whatever the phase
        return Start(Step::kJoinSilver, player);
      case Step::kJoinSilver:
        player->tokens[0] = call.join_response.player_token();
        return Start(Step::kJoinRed, player);
      case Step::kJoinRed:
        player->tokens[1] = call.join_response.player_token();
        player->game = std::make_unique<Game>(
            *SetupPosition(absl::GetFlag(FLAGS_setup)), LoadRules());
        return stopping ? 0 : Start(Step::kMove, player);
    }
    return 0;
  }

  static const char* StepName(Step step) {
    switch (step) {
      case Step::kHealth:
        return "Health/Check";
      case Step::kMove:
        return "MakeMove";
      case Step::kReset:
        return "ResetGame";
      case Step::kJoinSilver:
      case Step::kJoinRed:
        return "JoinSeat";
    }
    return "?";
  }

  const int index_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::KhetService::Stub> stub_;
  grpc::GenericStub generic_;
  grpc::CompletionQueue queue_;
  std::vector<Player*> players_;
  Phase* phase_ = nullptr;
  std::vector<Sample>* samples_ = nullptr;
  std::map<std::string, int> errors_;
};

// ---- Figures ----------------------------------------------------------------

struct Figures {
  double calls_per_second = 0;  // median over rounds
  double server_cpu_us = 0;     // khetd's CPU time per call, median; 0: unknown
  double p50_ms = 0, p99_ms = 0, p999_ms = 0;
  int64_t calls = 0;
};

double Percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p * sorted.size()));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1] / 1e6;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The rounds' samples of one kind of phase: each round's calls that
// started and ended inside its window.
class Tally {
 public:
  // `server_cpu_ns`: khetd's CPU time during the window (0: unknown).
  void AddRound(const std::vector<Sample>& samples, int64_t window_start,
                int64_t window_end, int64_t server_cpu_ns) {
    int64_t n = 0;
    for (const Sample& s : samples) {
      if (s.start_ns < window_start || s.end_ns > window_end) continue;
      latencies_.push_back(s.end_ns - s.start_ns);
      ++n;
    }
    rates_.push_back(n / ((window_end - window_start) / 1e9));
    if (server_cpu_ns > 0 && n > 0) cpu_us_.push_back(server_cpu_ns / 1e3 / n);
  }

  Figures Compute() {
    std::sort(latencies_.begin(), latencies_.end());
    Figures f;
    f.calls_per_second = Median(rates_);
    f.server_cpu_us = Median(cpu_us_);
    f.p50_ms = Percentile(latencies_, 0.5);
    f.p99_ms = Percentile(latencies_, 0.99);
    f.p999_ms = Percentile(latencies_, 0.999);
    f.calls = static_cast<int64_t>(latencies_.size());
    return f;
  }

 private:
  std::vector<int64_t> latencies_;
  std::vector<double> rates_;
  std::vector<double> cpu_us_;
};

std::string FormatBytes(double bytes) {
  if (std::abs(bytes) >= 1024.0 * 1024) {
    return absl::StrFormat("%.1f MiB", bytes / (1024.0 * 1024));
  }
  return absl::StrFormat("%.1f KiB", bytes / 1024.0);
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return absl::StrCat(one, " ", five, " ", fifteen);
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
  std::printf("store %s: khetd at %s%s\n", label.c_str(), address.c_str(),
              pid > 0 ? absl::StrCat(" (pid ", pid, ")").c_str() : "");
  std::fflush(stdout);

  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    workers.push_back(std::make_unique<Worker>(address, t));
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
      return CreateSession(*stubs[job % creators], player, /*seated=*/false);
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
    return CreateSession(workers[i % threads]->stub(), players[i],
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

// Starts khetd with `store`, measures it, stops it.
bool MeasureStore(const std::string& store) {
  const int capacity =
      absl::GetFlag(FLAGS_idle_sessions) + absl::GetFlag(FLAGS_sessions) + 100;
  std::vector<std::string> args = {
      absl::StrCat("--store=", store),
      absl::StrCat("--max_sessions=", std::max(capacity, 10000))};
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
  absl::StatusOr<std::unique_ptr<KhetdProcess>> khetd = KhetdProcess::Start(
      absl::GetFlag(FLAGS_khetd), args, absl::GetFlag(FLAGS_khetd_log));
  bool ok = false;
  if (!khetd.ok()) {
    std::printf("store %s: %s\n", store.c_str(),
                khetd.status().ToString().c_str());
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

int Run() {
  const int sessions = absl::GetFlag(FLAGS_sessions);
  const int threads = absl::GetFlag(FLAGS_threads);
  if (sessions < 1) return std::printf("--sessions must be >= 1\n"), 2;
  if (threads < 1 || threads > sessions) {
    return std::printf("--threads must be 1 to --sessions\n"), 2;
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
  std::printf(
      "khet-load: %d sessions, %d client threads, %d round(s) of %.1f s "
      "phases (+%.1f s warm-up); %u cores, load average %s\n",
      sessions, threads, absl::GetFlag(FLAGS_rounds),
      absl::GetFlag(FLAGS_seconds), absl::GetFlag(FLAGS_warmup_seconds),
      std::thread::hardware_concurrency(), LoadAverage().c_str());
  if (!absl::GetFlag(FLAGS_server).empty()) {
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
}  // namespace khet

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
  return khet::Run();
}
