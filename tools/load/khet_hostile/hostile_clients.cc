// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_hostile/hostile_clients.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/setups.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/common/grpc_call.h"
#include "tools/load/common/khetd_process.h"
#include "tools/load/common/raw_http.h"
#include "tools/load/khet_hostile/hostile_latencies.h"

namespace khet::hostile {
namespace {

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
  return CallContext(absl::Seconds(30), token);
}

RuleOptions GameRules() {
  RuleOptions rules;
  rules.automatic_repetition_draw = true;
  rules.ply_limit = 200;
  return rules;
}

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

}  // namespace

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

NormalClients::NormalClients(const Options& options, const KhetdProcess& khetd,
                             std::string get_session)
    : options_(options),
      http_port_(khetd.http_port()),
      get_session_(std::move(get_session)),
      stub_(v1::KhetService::NewStub(grpc::CreateChannel(
          khetd.address(), grpc::InsecureChannelCredentials()))) {}

NormalClients::~NormalClients() = default;

absl::Status NormalClients::CreateGames() {
  for (int i = 0; i < options_.games; ++i) {
    games_.push_back(std::make_unique<GameClient>(stub_.get(), 1000 + i));
    if (absl::Status created = games_.back()->Create(); !created.ok()) {
      return created;
    }
  }
  return absl::OkStatus();
}

std::pair<Latencies, Latencies> NormalClients::Run(double seconds) {
  const absl::Time deadline = absl::Now() + absl::Seconds(seconds);
  std::vector<Latencies> gets(options_.http_clients);
  std::vector<Latencies> moves(games_.size());
  std::vector<std::thread> threads;
  for (int i = 0; i < options_.http_clients; ++i) {
    threads.emplace_back([&, i] {
      gets[i] =
          HttpClient(http_port_, get_session_, options_.interval, deadline);
    });
  }
  for (size_t i = 0; i < games_.size(); ++i) {
    threads.emplace_back(
        [&, i] { moves[i] = games_[i]->Play(options_.interval, deadline); });
  }
  for (std::thread& thread : threads) thread.join();
  std::pair<Latencies, Latencies> out;
  for (const Latencies& l : gets) out.first.Merge(l);
  for (const Latencies& l : moves) out.second.Merge(l);
  return out;
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

}  // namespace khet::hostile
