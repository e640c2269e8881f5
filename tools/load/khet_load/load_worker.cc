// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "tools/load/khet_load/load_worker.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/slice.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tools/load/common/grpc_call.h"
#include "tools/load/khet_load/load_move_outcome.h"
#include "tools/load/khet_load/load_sessions.h"

namespace khet::load {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kHealthCheck[] = "/grpc.health.v1.Health/Check";
constexpr char kMakeMove[] = "/khet.v1.KhetService/MakeMove";

}  // namespace

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

Worker::Worker(const std::string& address, int index,
               const GameOptions& game_options)
    : index_(index),
      game_options_(game_options),
      channel_(NewChannel(address, index)),
      stub_(v1::KhetService::NewStub(channel_)),
      generic_(channel_) {}

Worker::~Worker() {
  queue_.Shutdown();
  void* tag;
  bool ok;
  while (queue_.Next(&tag, &ok)) delete static_cast<Call*>(tag);
}

void Worker::Run(Phase& phase, const std::vector<int>& indices,
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

std::shared_ptr<grpc::Channel> Worker::NewChannel(const std::string& address,
                                                  int index) {
  grpc::ChannelArguments args;
  // A distinct argument gives each thread its own connection.
  args.SetInt("khet.load.connection", index);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                   args);
}

int Worker::Issue(Kind kind, Player* player) {
  return kind == Kind::kHealth ? Start(Step::kHealth, player)
                               : Start(Step::kMove, player);
}

int Worker::Start(Step step, Player* player) {
  auto* call = new Call;
  call->step = step;
  call->player = player;
  call->context.set_deadline(std::chrono::system_clock::now() +
                             std::chrono::seconds(60));
  auto authorize = [&](const std::string& token) {
    call->context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
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
      call->health_reader->Finish(&call->health_response, &call->status, call);
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

void Worker::Fail(Player* player, const std::string& why) {
  player->broken = true;
  ++errors_[why];
}

void Worker::Record(const Call& call) {
  if (call.start_ns >= phase_->window_start_ns) {
    samples_->push_back({call.start_ns, call.end_ns});
  }
}

int Worker::Handle(Call& call) {
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
      player->game = NewGame(game_options_);
      return stopping ? 0 : Start(Step::kMove, player);
  }
  return 0;
}

const char* Worker::StepName(Step step) {
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

}  // namespace khet::load
