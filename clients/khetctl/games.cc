// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Game records and the archive: record, games, position, analyze, and
// create --record (CreateCommand reads the file with ReadRecordFile).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "clients/khetctl/khetctl.h"
#include "engine/game_analysis.h"

namespace khet::ctl {

namespace {

// The offset of the first byte of `text` that does not begin a well-formed
// UTF-8 character (RFC 3629: no overlong forms, surrogates or code points
// above U+10FFFF), or npos if every byte is in one.
size_t FirstNonUtf8Byte(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = text[i];
    int continuation = 0;
    unsigned char low = 0x80, high = 0xBF;  // the second byte's range
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      continuation = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      continuation = 2;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      continuation = 3;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    for (int k = 1; k <= continuation; ++k) {
      if (i + k >= text.size()) return i;
      const unsigned char next = text[i + k];
      if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xBF)) {
        return i;
      }
    }
    i += continuation + 1;
  }
  return std::string_view::npos;
}

}  // namespace

absl::StatusOr<std::string> ReadRecordFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--record ", path, ": cannot be read"));
  }
  std::ostringstream read;
  read << in.rdbuf();
  std::string text = read.str();
  // A record is text, and khetd takes only UTF-8: say where it is not,
  // before sending it.
  if (const size_t bad = FirstNonUtf8Byte(text);
      bad != std::string_view::npos) {
    const std::string_view before = std::string_view(text).substr(0, bad);
    const size_t line_start = before.rfind('\n');
    const size_t line = std::count(before.begin(), before.end(), '\n') + 1;
    const size_t column =
        bad - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    return absl::InvalidArgumentError(absl::StrFormat(
        "--record %s: not UTF-8 text: byte %d (line %d, column %d) is 0x%02X, "
        "which does not begin a UTF-8 character; save the file as UTF-8",
        path, bad, line, column, static_cast<unsigned char>(text[bad])));
  }
  return text;
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
