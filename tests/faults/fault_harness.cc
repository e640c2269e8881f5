// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tests/faults/fault_harness.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "gtest/gtest.h"
#include "tests/support/child_process.h"
#include "tests/support/text_file.h"

#ifndef PG_CLUSTER_SCRIPT
#error "PG_CLUSTER_SCRIPT must name tests/pg/pg_cluster.sh"
#endif
#ifndef NGINX_TEMPLATE_PATH
#error "NGINX_TEMPLATE_PATH must name deploy/nginx/khet-grpc.conf"
#endif

namespace khet::faults {

std::vector<std::string> WithoutBudgets(std::vector<std::string> flags) {
  flags.push_back("--calls_per_second=0");
  return flags;
}

std::shared_ptr<grpc::Channel> QuickChannel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 20);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 20);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 100);
  // A connection (and its backoff) of this channel's own, not one shared
  // with the process's other channels to the same address.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                   args);
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::string QuietMove(const std::string& position_text) {
  absl::StatusOr<Position> pos = ParsePosition(position_text);
  if (!pos.ok()) return "";
  MoveList moves;
  GenerateMoves(*pos, &moves);
  if (moves.size == 0) return "";
  for (const Move m : moves) {
    Position child = *pos;
    if (MakeMove(&child, m) == 0) return FormatMove(*pos, m);
  }
  return FormatMove(*pos, moves.moves[0]);
}

void Ledger::AddSession(const std::string& id) {
  std::lock_guard lock(mu_);
  moves_[id];
  changed_[id] = acked_ + 1;
}

void Ledger::Ack(const std::string& id, AckedMove move) {
  std::lock_guard lock(mu_);
  moves_[id].moves.push_back(std::move(move));
  changed_[id] = ++acked_;
}

void Ledger::AckResignation(const std::string& id, const std::string& game_id) {
  std::lock_guard lock(mu_);
  moves_[id].archived_game = game_id;
  changed_[id] = acked_ + 1;
}

AckedMoves Ledger::Snapshot() const {
  std::lock_guard lock(mu_);
  return moves_;
}

AckedMoves Ledger::SnapshotSince(int64_t since) const {
  std::lock_guard lock(mu_);
  AckedMoves changed;
  for (const auto& [id, at] : changed_) {
    if (at > since) changed.emplace(id, moves_.at(id));
  }
  return changed;
}

int64_t Ledger::acked() const {
  std::lock_guard lock(mu_);
  return acked_;
}

namespace {

// Codes after which the call's outcome is unknown, or it did not reach
// khetd: the same request may be sent again.
bool Retryable(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE ||
         code == grpc::StatusCode::DEADLINE_EXCEEDED ||
         code == grpc::StatusCode::CANCELLED ||
         code == grpc::StatusCode::UNKNOWN ||
         code == grpc::StatusCode::INTERNAL;
}

// Runs `call` timed; the outcome of its status.
template <typename Call>
CallOutcome Timed(const char* name, Call&& call) {
  CallOutcome outcome;
  outcome.call = name;
  outcome.start = absl::Now();
  const grpc::Status status = call();
  outcome.latency = absl::Now() - outcome.start;
  outcome.code = status.error_code();
  outcome.message = status.error_message();
  return outcome;
}

}  // namespace

Player::Player(const std::string& address, Ledger* ledger, Options options)
    : address_(address),
      ledger_(ledger),
      options_(std::move(options)),
      stub_(v1::KhetService::NewStub(QuickChannel(address))) {}

void Player::Prepare(grpc::ClientContext* context,
                     const std::string& token) const {
  context->set_deadline(absl::ToChronoTime(absl::Now() + options_.deadline));
  // A call waits for khetd to come back rather than failing at once: it
  // is the waiting call that polls the channel's new connection (calls
  // failed fast left a completed connect unnoticed for seconds).
  context->set_wait_for_ready(true);
  if (!token.empty()) {
    context->AddMetadata("authorization", "Bearer " + token);
  }
}

CallOutcome Player::Step() {
  CallOutcome outcome;
  switch (stage_) {
    case Stage::kCreate:
      outcome = Create();
      break;
    case Stage::kJoinSilver:
      outcome = Join(v1::SILVER);
      break;
    case Stage::kJoinRed:
      outcome = Join(v1::RED);
      break;
    case Stage::kRead:
      outcome = Read();
      break;
    case Stage::kPlay:
      outcome = Move();
      break;
    case Stage::kResign:
      outcome = Resign();
      break;
  }
  outcome.player = options_.name;
  return outcome;
}

CallOutcome Player::Create() {
  v1::CreateSessionRequest request;
  request.set_name(absl::StrCat(options_.name, " game ", ++games_));
  v1::CreateSessionResponse reply;
  CallOutcome outcome = Timed("CreateSession", [&] {
    grpc::ClientContext context;
    Prepare(&context, "");
    return stub_->CreateSession(&context, request, &reply);
  });
  if (outcome.code == grpc::StatusCode::OK) {
    id_ = reply.session().id();
    stage_ = Stage::kJoinSilver;
  }
  return outcome;
}

CallOutcome Player::Join(v1::Color color) {
  v1::JoinSeatRequest request;
  request.set_session_id(id_);
  request.set_color(color);
  request.set_player_name(color == v1::SILVER ? "alice" : "bob");
  v1::JoinSeatResponse reply;
  CallOutcome outcome = Timed("JoinSeat", [&] {
    grpc::ClientContext context;
    Prepare(&context, "");
    return stub_->JoinSeat(&context, request, &reply);
  });
  if (outcome.code == grpc::StatusCode::OK) {
    if (color == v1::SILVER) {
      silver_ = reply.player_token();
      stage_ = Stage::kJoinRed;
    } else {
      red_ = reply.player_token();
      ledger_->AddSession(id_);
      Follow(reply.session());
    }
  } else if (!Retryable(outcome.code)) {
    // A seat taken by a join whose answer was lost: a new board.
    stage_ = Stage::kCreate;
  }
  return outcome;
}

CallOutcome Player::Read() {
  v1::GetSessionRequest request;
  request.set_session_id(id_);
  v1::Session session;
  CallOutcome outcome = Timed("GetSession", [&] {
    grpc::ClientContext context;
    Prepare(&context, "");
    return stub_->GetSession(&context, request, &session);
  });
  if (outcome.code == grpc::StatusCode::OK) {
    Follow(session);
  } else if (outcome.code == grpc::StatusCode::NOT_FOUND) {
    stage_ = Stage::kCreate;
  }
  return outcome;
}

void Player::Follow(const v1::Session& session) {
  version_ = session.version();
  position_ = session.board().position();
  to_move_ = session.board().side_to_move();
  plies_ = session.moves_size();
  over_ = session.status() != v1::IN_PROGRESS;
  pending_.reset();
  stage_ = over_                          ? Stage::kCreate
           : plies_ >= options_.max_plies ? AtTheEnd()
                                          : Stage::kPlay;
}

Player::Stage Player::AtTheEnd() const {
  return options_.resign ? Stage::kResign : Stage::kCreate;
}

CallOutcome Player::Resign() {
  v1::ResignRequest request;
  request.set_session_id(id_);
  v1::Session session;
  CallOutcome outcome = Timed("Resign", [&] {
    grpc::ClientContext context;
    Prepare(&context, to_move_ == v1::SILVER ? silver_ : red_);
    return stub_->Resign(&context, request, &session);
  });
  if (outcome.code == grpc::StatusCode::OK) {
    ledger_->AckResignation(id_, session.game_id());
    stage_ = Stage::kCreate;
  } else if (!Retryable(outcome.code)) {
    stage_ = Stage::kRead;  // perhaps resigned by the call cut off
  }
  return outcome;
}

CallOutcome Player::Move() {
  if (!pending_.has_value()) {
    pending_ = PendingMove{QuietMove(position_),
                           absl::StrCat(options_.name, "-", id_, "-", version_),
                           version_, plies_};
  }
  v1::MakeMoveRequest request;
  request.set_session_id(id_);
  request.mutable_move()->set_notation(pending_->notation);
  request.set_expected_version(pending_->expected_version);
  request.set_request_id(pending_->request_id);
  v1::MakeMoveResponse reply;
  CallOutcome outcome = Timed("MakeMove", [&] {
    grpc::ClientContext context;
    Prepare(&context, to_move_ == v1::SILVER ? silver_ : red_);
    return stub_->MakeMove(&context, request, &reply);
  });
  if (outcome.code == grpc::StatusCode::OK) {
    ledger_->Ack(id_, AckedMove{pending_->ply, reply.version(),
                                reply.move().notation()});
    version_ = reply.version();
    position_ = reply.board().position();
    to_move_ = reply.board().side_to_move();
    ++plies_;
    pending_.reset();
    if (reply.result().outcome() != v1::ONGOING) {
      stage_ = Stage::kCreate;
    } else if (plies_ >= options_.max_plies) {
      stage_ = AtTheEnd();
    }
  } else if (!Retryable(outcome.code)) {
    pending_.reset();
    stage_ = Stage::kRead;
  }
  return outcome;
}

namespace {

absl::Status FromGrpc(const char* call, const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(call, ": ", status.error_message()));
}

void Prepare(grpc::ClientContext* context, const std::string& token) {
  context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  // As a player's call (Player::Prepare): a connection attempt cut short
  // on a loaded machine is retried within the deadline, not failed.
  context->set_wait_for_ready(true);
  if (!token.empty()) {
    context->AddMetadata("authorization", "Bearer " + token);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<ComputerGame>> ComputerGame::Start(
    const std::string& address, int level) {
  auto game = std::unique_ptr<ComputerGame>(new ComputerGame(address));
  v1::CreateSessionRequest create;
  create.set_name("against the computer");
  v1::CreateSessionResponse created;
  {
    grpc::ClientContext context;
    Prepare(&context, "");
    if (absl::Status s =
            FromGrpc("CreateSession",
                     game->stub_->CreateSession(&context, create, &created));
        !s.ok()) {
      return s;
    }
  }
  game->id_ = created.session().id();
  v1::JoinSeatRequest join;
  join.set_session_id(game->id_);
  join.set_color(v1::SILVER);
  join.set_player_name("alice");
  v1::JoinSeatResponse joined;
  {
    grpc::ClientContext context;
    Prepare(&context, "");
    if (absl::Status s = FromGrpc(
            "JoinSeat", game->stub_->JoinSeat(&context, join, &joined));
        !s.ok()) {
      return s;
    }
  }
  game->silver_ = joined.player_token();
  v1::SeatComputerRequest seat;
  seat.set_session_id(game->id_);
  seat.set_color(v1::RED);
  seat.set_level(level);
  v1::Session seated;
  grpc::ClientContext context;
  Prepare(&context, created.owner_token());
  if (absl::Status s = FromGrpc(
          "SeatComputer", game->stub_->SeatComputer(&context, seat, &seated));
      !s.ok()) {
    return s;
  }
  return game;
}

absl::StatusOr<v1::Session> ComputerGame::Get() {
  v1::GetSessionRequest request;
  request.set_session_id(id_);
  v1::Session session;
  grpc::ClientContext context;
  Prepare(&context, "");
  if (absl::Status s = FromGrpc("GetSession",
                                stub_->GetSession(&context, request, &session));
      !s.ok()) {
    return s;
  }
  return session;
}

absl::StatusOr<int64_t> ComputerGame::Move() {
  absl::StatusOr<v1::Session> session = Get();
  if (!session.ok()) return session.status();
  if (session->status() != v1::IN_PROGRESS ||
      session->board().side_to_move() != v1::SILVER) {
    return absl::FailedPreconditionError(absl::StrCat(
        "not Silver's move in ", id_, " at version ", session->version()));
  }
  v1::MakeMoveRequest request;
  request.set_session_id(id_);
  request.mutable_move()->set_notation(QuietMove(session->board().position()));
  request.set_expected_version(session->version());
  v1::MakeMoveResponse reply;
  grpc::ClientContext context;
  Prepare(&context, silver_);
  if (absl::Status s =
          FromGrpc("MakeMove", stub_->MakeMove(&context, request, &reply));
      !s.ok()) {
    return s;
  }
  return reply.version();
}

absl::Status ComputerGame::WaitForReply(int64_t after, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Status last;
  while (absl::Now() < deadline) {
    absl::StatusOr<v1::Session> session = Get();
    if (session.ok() && session->version() > after &&
        (session->board().side_to_move() == v1::SILVER ||
         session->status() != v1::IN_PROGRESS)) {
      return absl::OkStatus();
    }
    if (!session.ok()) last = session.status();
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "the computer did not answer in ", id_, " within ",
      absl::FormatDuration(timeout), "; last error: ", last.ToString()));
}

Load::Load(const std::string& address, Ledger* ledger, int players,
           Player::Options options, absl::Duration pause) {
  for (int i = 0; i < players; ++i) {
    Player::Options mine = options;
    mine.name = absl::StrCat(options.name, i);
    threads_.emplace_back([this, address, ledger, mine, pause] {
      Player player(address, ledger, mine);
      while (!stop_.load()) {
        CallOutcome outcome = player.Step();
        const bool failed = outcome.code != grpc::StatusCode::OK;
        {
          std::lock_guard lock(mu_);
          outcomes_.push_back(std::move(outcome));
        }
        if (failed) absl::SleepFor(pause);
      }
    });
  }
}

Load::~Load() { Stop(); }

void Load::Stop() {
  stop_ = true;
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

std::vector<CallOutcome> Load::Outcomes() const {
  std::lock_guard lock(mu_);
  return outcomes_;
}

std::string Summary(const std::vector<CallOutcome>& outcomes) {
  std::map<std::string, int> counts;
  std::map<std::string, std::string> example;
  for (const CallOutcome& o : outcomes) {
    const std::string key = absl::StrCat(o.call, " ", StatusCodeName(o.code));
    ++counts[key];
    if (o.code != grpc::StatusCode::OK && !example.contains(key)) {
      example[key] = o.message;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [key, count] : counts) {
    std::string part = absl::StrCat(key, ": ", count);
    if (example.contains(key))
      absl::StrAppend(&part, " (\"", example[key], "\")");
    parts.push_back(std::move(part));
  }
  return absl::StrJoin(parts, "; ");
}

std::vector<std::string> CheckAcknowledged(const std::string& address,
                                           const AckedMoves& acked,
                                           bool exact) {
  std::vector<std::string> differences;
  std::unique_ptr<v1::KhetService::Stub> stub =
      v1::KhetService::NewStub(QuickChannel(address));
  for (const auto& [id, acks] : acked) {
    const std::vector<AckedMove>& moves = acks.moves;
    v1::GetSessionRequest request;
    request.set_session_id(id);
    v1::Session session;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    // The check reads a khetd that served a moment ago: a connection
    // attempt that fails on a loaded machine is tried again within the
    // deadline rather than taken for a lost move.
    context.set_wait_for_ready(true);
    const grpc::Status status = stub->GetSession(&context, request, &session);
    if (!status.ok()) {
      differences.push_back(absl::StrCat("session ", id, ": GetSession ",
                                         StatusCodeName(status.error_code()),
                                         ": ", status.error_message()));
      continue;
    }
    if (!acks.archived_game.empty()) {
      if (session.status() != v1::FINISHED) {
        differences.push_back(absl::StrCat(
            "session ", id, ": an acknowledged resignation is lost (status ",
            v1::GameStatus_Name(session.status()), ")"));
      }
      v1::GetGameRecordRequest get_record;
      get_record.set_session_id(id);
      get_record.set_game_id(acks.archived_game);
      v1::GetGameRecordResponse record;
      grpc::ClientContext record_context;
      record_context.set_deadline(
          absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
      record_context.set_wait_for_ready(true);
      const grpc::Status read =
          stub->GetGameRecord(&record_context, get_record, &record);
      if (!read.ok()) {
        differences.push_back(absl::StrCat(
            "session ", id, ": the resigned game ", acks.archived_game, ": ",
            StatusCodeName(read.error_code()), " ", read.error_message()));
      } else if (!record.game().archived() ||
                 record.game().plies() < static_cast<int>(moves.size()) ||
                 record.game().ending() != "resignation") {
        differences.push_back(absl::StrCat(
            "session ", id, ": the resigned game ", acks.archived_game,
            " is archived ", record.game().archived(), " with ",
            record.game().plies(), " plies, ending \"", record.game().ending(),
            "\""));
      }
    }
    if (moves.empty()) continue;
    if (session.version() < moves.back().version) {
      differences.push_back(
          absl::StrCat("session ", id, " is at version ", session.version(),
                       ", below the acknowledged ", moves.back().version));
    }
    for (const AckedMove& move : moves) {
      if (move.ply >= session.moves_size()) {
        differences.push_back(absl::StrCat("session ", id, " lost ply ",
                                           move.ply, " (", move.notation,
                                           ", version ", move.version, ")"));
      } else if (session.moves(move.ply) != move.notation) {
        differences.push_back(absl::StrCat(
            "session ", id, " has ", session.moves(move.ply), " at ply ",
            move.ply, ", not the acknowledged ", move.notation));
      }
    }
    if (exact && session.moves_size() != static_cast<int>(moves.size())) {
      differences.push_back(absl::StrCat(
          "session ", id, " holds ", session.moves_size(), " moves, not the ",
          moves.size(), " acknowledged: a refused move was kept"));
    }
  }
  return differences;
}

absl::StatusOr<absl::Duration> WaitServing(const std::string& address,
                                           const std::string& session_id,
                                           absl::Time since,
                                           absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  grpc::Status last;
  while (absl::Now() < deadline) {
    std::unique_ptr<v1::KhetService::Stub> stub =
        v1::KhetService::NewStub(QuickChannel(address));
    grpc::ClientContext context;
    context.set_deadline(
        absl::ToChronoTime(absl::Now() + absl::Milliseconds(500)));
    if (session_id.empty()) {
      v1::ListSetupsResponse setups;
      last = stub->ListSetups(&context, v1::ListSetupsRequest(), &setups);
    } else {
      v1::GetSessionRequest request;
      request.set_session_id(session_id);
      v1::Session session;
      last = stub->GetSession(&context, request, &session);
    }
    if (last.ok()) return absl::Now() - since;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "khetd at ", address, " did not serve within ",
      absl::FormatDuration(timeout), "; last: ",
      StatusCodeName(last.error_code()), " ", last.error_message()));
}

absl::Duration Median(std::vector<absl::Duration> values) {
  if (values.empty()) return absl::ZeroDuration();
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

absl::Duration Max(const std::vector<absl::Duration>& values) {
  return values.empty() ? absl::ZeroDuration()
                        : *std::max_element(values.begin(), values.end());
}

absl::StatusOr<std::unique_ptr<OwnPostgres>> OwnPostgres::Start(
    const std::string& state_dir) {
  auto own = std::unique_ptr<OwnPostgres>(new OwnPostgres(state_dir, ""));
  if (absl::Status s = own->Script("start"); !s.ok()) return s;
  std::string conninfo = ReadTextFile(state_dir + "/conninfo");
  while (!conninfo.empty() &&
         (conninfo.back() == '\n' || conninfo.back() == ' ')) {
    conninfo.pop_back();
  }
  if (conninfo.empty()) {
    return absl::InternalError("pg_cluster.sh wrote no conninfo");
  }
  own.reset(new OwnPostgres(state_dir, conninfo));
  return own;
}

OwnPostgres::~OwnPostgres() {
  if (!conninfo_.empty()) Script("stop").IgnoreError();
}

absl::Status OwnPostgres::StopServer() { return Script("stop-server"); }
absl::Status OwnPostgres::StartServer() { return Script("start-server"); }

absl::Status OwnPostgres::Script(const std::string& command) {
  std::unique_ptr<ChildProcess> script = ChildProcess::Start(
      {"/bin/bash", PG_CLUSTER_SCRIPT, command, state_dir_});
  if (script == nullptr) return absl::InternalError("cannot run pg_cluster.sh");
  std::optional<ChildProcess::Output> output =
      script->ReadAll(absl::Seconds(120));
  if (!output.has_value() || output->exit_code != 0) {
    return absl::UnavailableError(absl::StrCat(
        "pg_cluster.sh ", command, " failed: ",
        output.has_value() ? output->out + output->err : "timed out"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Nginx>> Nginx::Start(
    const std::string& dir, const std::vector<std::string>& upstreams) {
  constexpr char kNginx[] = "/usr/sbin/nginx";
  std::string servers;
  for (const std::string& address : upstreams) {
    absl::StrAppend(&servers, "server ", address,
                    " max_fails=1 fail_timeout=30s;\n    ");
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string address = absl::StrCat("127.0.0.1:", FreePort());
    const std::string conf = dir + "/nginx.conf";
    std::ofstream(conf) << absl::StrReplaceAll(
        ReadTextFile(NGINX_TEMPLATE_PATH),
        {{"${KHET_NGINX_PREFIX}", dir},
         {"${KHET_NGINX_LISTEN}", address},
         {"${KHET_NGINX_UPSTREAMS}", servers}});
    std::unique_ptr<ChildProcess> nginx = ChildProcess::Start(
        {kNginx, "-p", dir, "-c", conf, "-g", "daemon off;"},
        {.stderr_path = dir + "/nginx.out", .stop_signal = SIGTERM});
    if (nginx == nullptr) continue;
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      if (WaitServing(address, "", absl::Now(), absl::Seconds(1)).ok()) {
        return std::unique_ptr<Nginx>(new Nginx(std::move(nginx), address));
      }
      if (nginx->Wait(absl::Milliseconds(50)).has_value()) break;  // exited
    }
  }
  return absl::UnavailableError(
      absl::StrCat("nginx did not start: ", ReadTextFile(dir + "/nginx.out"),
                   ReadTextFile(dir + "/error.log")));
}

std::string MakeTempDir(const std::string& prefix) {
  std::string pattern = testing::TempDir() + prefix + "_XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return "";
  // nginx's workers and PostgreSQL may run as other users when root runs
  // the test.
  chmod(pattern.c_str(), 0755);
  return pattern;
}

}  // namespace khet::faults
