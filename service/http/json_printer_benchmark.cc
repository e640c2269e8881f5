// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The JSON of a Session (the Classic start after ten moves, with its laser)
// and of a MakeMove reply, printed by json_printer and by protobuf's own
// printer (the gateway's ToJson before it), in one run.
//   build/release/service/http/json_printer_benchmark
// Prints Google Benchmark's lines (time per message); asserts nothing.
#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"
#include "google/protobuf/util/json_util.h"
#include "service/core/session_service.h"
#include "service/http/json_printer.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

// A session ten moves into its game, and the reply to its last move.
struct Sample {
  v1::Session session;
  v1::MakeMoveResponse reply;
};

const Sample& TheSample() {
  static const Sample* sample = [] {
    auto* made = new Sample;
    MemoryStore store;
    ServiceOptions options;
    options.store = &store;
    auto service = *SessionService::Create(options);
    v1::CreateSessionRequest create;
    create.set_name("Benchmark table");
    auto created = *service->CreateSession(create);
    const std::string id = created.session().id();
    Caller players[2];
    for (int seat = 0; seat < 2; ++seat) {
      v1::JoinSeatRequest join;
      join.set_session_id(id);
      join.set_color(seat == 0 ? v1::SILVER : v1::RED);
      join.set_player_name(seat == 0 ? "Ada" : "Bea");
      players[seat] = Caller{service->JoinSeat(join)->player_token()};
    }
    for (int ply = 0; ply < 10; ++ply) {
      v1::ListLegalMovesRequest list;
      list.set_session_id(id);
      auto moves = *service->ListLegalMoves(list);
      v1::MakeMoveRequest move;
      move.set_session_id(id);
      move.mutable_move()->set_notation(moves.moves(ply % 3).notation());
      auto reply = service->MakeMove(move, players[ply % 2]);
      if (!reply.ok()) std::abort();
      made->reply = *reply;
    }
    v1::GetSessionRequest get;
    get.set_session_id(id);
    made->session = *service->GetSession(get);
    return made;
  }();
  return *sample;
}

void Protobufs(benchmark::State& state, const google::protobuf::Message& m) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  for (auto _ : state) {
    std::string out;
    (void)google::protobuf::util::MessageToJsonString(m, &out, options);
    benchmark::DoNotOptimize(out);
  }
}

void Ours(benchmark::State& state, const google::protobuf::Message& m) {
  for (auto _ : state) {
    std::string out;
    AppendJson(m, &out);
    benchmark::DoNotOptimize(out);
  }
}

void BM_SessionProtobuf(benchmark::State& s) {
  Protobufs(s, TheSample().session);
}
void BM_SessionPrinter(benchmark::State& s) { Ours(s, TheSample().session); }
void BM_ReplyProtobuf(benchmark::State& s) { Protobufs(s, TheSample().reply); }
void BM_ReplyPrinter(benchmark::State& s) { Ours(s, TheSample().reply); }
BENCHMARK(BM_SessionProtobuf);
BENCHMARK(BM_SessionPrinter);
BENCHMARK(BM_ReplyProtobuf);
BENCHMARK(BM_ReplyPrinter);

}  // namespace
}  // namespace khet

BENCHMARK_MAIN();
