// Game records and the archive: record, games, position, analyze, and
// create --record (CreateCommand reads the file with ReadRecordFile).
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "clients/khetctl/khetctl.h"
#include "engine/game_analysis.h"

namespace khet::ctl {

absl::StatusOr<std::string> ReadRecordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--record ", path, ": cannot be read"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int RecordCommand(const Invocation& call) {
  v1::GetGameRecordRequest request;
  request.set_session_id(call.session);
  request.set_game_id(call.flags.Get("game", "current"));
  return call.client.Call(
      &v1::KhetService::Stub::GetGameRecord, request,
      [](const v1::GetGameRecordResponse& r) { return r.text(); });
}

int GamesCommand(const Invocation& call) {
  v1::ListGamesRequest request;
  request.set_session_id(call.session);
  request.set_player(call.flags.Get("player"));
  request.set_setup_id(call.flags.Get("setup"));
  request.set_result(call.flags.Get("result"));
  absl::StatusOr<int64_t> page_size =
      call.flags.GetInt("page_size", 0, 0, 1000);
  if (!page_size.ok()) return UsageError(page_size.status().message());
  request.set_page_size(static_cast<int32_t>(*page_size));
  request.set_page_token(call.flags.Get("page_token"));
  return call.client.Call(
      &v1::KhetService::Stub::ListGames, request,
      [](const v1::ListGamesResponse& r) {
        std::string out;
        for (const v1::GameSummary& g : r.games()) {
          absl::StrAppend(
              &out,
              absl::StrFormat(
                  "%-18s %-7s %-4d plies %-12s %s v %s (%s)\n", g.id(),
                  g.result(), g.plies(), g.setup_id(),
                  g.silver_player().empty() ? "-" : g.silver_player(),
                  g.red_player().empty() ? "-" : g.red_player(), g.ending()));
        }
        if (!r.next_page_token().empty()) {
          absl::StrAppend(&out, "more: --page_token ", r.next_page_token(),
                          "\n");
        }
        return out;
      });
}

int PositionCommand(const Invocation& call) {
  v1::GetPositionRequest request;
  request.set_session_id(call.session);
  request.set_game_id(call.flags.Get("game", "current"));
  absl::StatusOr<int64_t> ply = call.flags.GetInt("ply", 0, 0, 1'000'000);
  if (!ply.ok()) return UsageError(ply.status().message());
  request.set_ply(static_cast<int32_t>(*ply));
  return call.client.Call(
      &v1::KhetService::Stub::GetPosition, request,
      [](const v1::GetPositionResponse& r) {
        std::string out = absl::StrFormat("game %s, ply %d of %d\n",
                                          r.game_id(), r.ply(), r.plies());
        if (r.has_move()) {
          absl::StrAppend(&out, "move: ", r.move().notation(), "\n");
          if (!r.shot().text().empty()) {
            absl::StrAppend(&out, "laser: ", r.shot().text(), "\n");
          }
        }
        absl::StrAppend(&out, "position: ", r.board().position(), "\n");
        if (GameOver(r.result())) {
          absl::StrAppend(&out, "result: ", r.result().text(), "\n");
        } else {
          std::vector<std::string> moves;
          for (const v1::Move& m : r.legal_moves())
            moves.push_back(m.notation());
          absl::StrAppend(&out, SideName(r.board().side_to_move()),
                          " to move; legal moves (", moves.size(),
                          "): ", absl::StrJoin(moves, " "), "\n");
        }
        return out;
      });
}

namespace {

// An analysis as lines: its state, then each ply scored, with its mark and
// the better move.
std::string AnalysisText(const v1::GameAnalysis& a) {
  if (a.state() != v1::GameAnalysis::DONE) {
    return absl::StrFormat("analysing game %s: %d of %d plies done\n",
                           a.game_id(), a.plies_analyzed(), a.plies());
  }
  std::string out = absl::StrFormat(
      "game %s, %d plies, %d ms of search a ply; scores are for the side that "
      "moved, in Pyramids\n",
      a.game_id(), a.plies(), a.ms_per_ply());
  int marked = 0;
  for (const v1::PlyAnalysis& p : a.moves()) {
    const std::string number =
        absl::StrCat((p.ply() + 1) / 2, p.mover() == v1::SILVER ? "." : "...");
    const Judgement j = p.judgement() == v1::BLUNDER   ? Judgement::kBlunder
                        : p.judgement() == v1::MISTAKE ? Judgement::kMistake
                        : p.judgement() == v1::INACCURACY
                            ? Judgement::kInaccuracy
                            : Judgement::kGood;
    absl::StrAppend(&out,
                    absl::StrFormat("%6s %-10s %-11s", number,
                                    p.played() + std::string(JudgementMark(j)),
                                    ScoreText(p.played_score())));
    if (j != Judgement::kGood) {
      ++marked;
      absl::StrAppend(&out, " ", std::string(JudgementName(j)));
      if (!p.best_move().empty()) {
        absl::StrAppend(&out, "; better ", p.best_move(), " (",
                        ScoreText(p.best_score()), ")");
      }
    }
    absl::StrAppend(&out, "\n");
  }
  if (marked == 0) absl::StrAppend(&out, "no move lost much\n");
  return out;
}

}  // namespace

int AnalyzeCommand(const Invocation& call) {
  v1::AnalyzeGameRequest request;
  request.set_session_id(call.session);
  request.set_game_id(call.flags.Get("game", "current"));
  absl::StatusOr<int64_t> ms = call.flags.GetInt("ms_per_ply", 0, 0, 2000);
  if (!ms.ok()) return UsageError(ms.status().message());
  request.set_ms_per_ply(static_cast<int32_t>(*ms));
  const bool wait = !call.flags.Switch("no_wait");
  for (;;) {
    v1::GameAnalysis analysis;
    const grpc::Status status = call.client.stub().AnalyzeGame(
        call.client.Context().get(), request, &analysis);
    if (!status.ok()) return RpcError(status);
    if (!wait || analysis.state() == v1::GameAnalysis::DONE) {
      std::cout << (call.client.json() ? ToJson(analysis, true) + "\n"
                                       : AnalysisText(analysis))
                << std::flush;
      return kExitOk;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace khet::ctl
