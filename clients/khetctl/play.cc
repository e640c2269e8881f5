// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// play: an interactive game in the terminal, against a person or the
// computer.
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "clients/khetctl/khetctl.h"

namespace khet::ctl {

namespace {

std::mutex output_mu;     // play's two threads both print
std::string play_prompt;  // guarded by output_mu: play's current prompt

// Lines from stdin without blocking for longer than a poll interval, so the
// game's end can stop the loop.
class LineReader {
 public:
  enum class Result { kLine, kNothingYet, kEnd };
  Result Next(std::string* line, int timeout_ms) {
    while (true) {
      if (const size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        *line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return Result::kLine;
      }
      if (eof_) {
        if (buffer_.empty()) return Result::kEnd;
        *line = std::move(buffer_);
        buffer_.clear();
        return Result::kLine;
      }
      pollfd fd{STDIN_FILENO, POLLIN, 0};
      const int ready = poll(&fd, 1, timeout_ms);
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return Result::kNothingYet;
      char chunk[4096];
      const ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        eof_ = true;
      } else {
        buffer_.append(chunk, static_cast<size_t>(n));
      }
    }
  }

 private:
  std::string buffer_;
  bool eof_ = false;
};

constexpr absl::string_view kPlayHelp =
    "type a move (j4-j3, f4=g3, c1R, d1^d2), or: moves [SQ], board, hint "
    "[LEVEL], resign, draw (offer), accept (a draw), claim (a repetition "
    "draw), quit\n";

void Print(const std::string& text) {
  std::lock_guard<std::mutex> lock(output_mu);
  std::cout << text << std::flush;
}

// Prints `text`, then the prompt again.
void PrintAndPrompt(const std::string& text) {
  std::lock_guard<std::mutex> lock(output_mu);
  std::cout << text << play_prompt << std::flush;
}

void SetPrompt(const std::string& prompt) {
  std::lock_guard<std::mutex> lock(output_mu);
  play_prompt = prompt;
}

std::string BoardText(Client& client, const std::string& session) {
  std::string text;
  const grpc::Status status =
      FetchBoard(client, session, /*without_laser=*/false, &text);
  if (!status.ok())
    return absl::StrCat("(no board: ", ErrorText(status), ")\n");
  return text;
}

std::string PlayPrompt(const v1::Color side_to_move,
                       std::optional<v1::Color> mine) {
  if (!mine.has_value()) {
    return absl::StrCat(SideName(side_to_move), " to move> ");
  }
  return side_to_move == *mine
             ? absl::StrCat("your move (", SideName(*mine), ")> ")
             : absl::StrCat("waiting for ", SideName(side_to_move), "...\n");
}

int RunPlay(Client& client, const std::string& session,
            std::optional<v1::Color> mine) {
  v1::GetSessionRequest get;
  get.set_session_id(session);
  v1::Session state;
  const grpc::Status got =
      client.stub().GetSession(client.Context().get(), get, &state);
  if (!got.ok()) return RpcError(got);
  if (state.status() == v1::FINISHED) {
    Print(absl::StrCat(SessionText(state), BoardText(client, session)));
    Print("the game is over\n");
    return kExitOk;
  }
  Print(
      absl::StrCat(SessionText(state), BoardText(client, session), kPlayHelp));
  if (state.status() == v1::WAITING_FOR_PLAYERS) {
    Print("waiting for both seats to be taken...\n");
  } else {
    SetPrompt(PlayPrompt(state.board().side_to_move(), mine));
    PrintAndPrompt("");
  }

  // Every event after the one read, ours included, comes from the watch.
  std::atomic<bool> done{false};
  auto watch_context = client.Context(/*streaming=*/true);
  std::thread watcher([&] {
    v1::WatchRequest request;
    request.set_session_id(session);
    request.set_after_version(state.version());
    auto reader = client.stub().Watch(watch_context.get(), request);
    v1::Event event;
    while (!done && reader->Read(&event)) {
      std::string out = absl::StrCat("\n", EventLine(event), "\n");
      bool over = false;
      v1::Color next = v1::COLOR_UNSPECIFIED;
      switch (event.kind_case()) {
        case v1::Event::kMoveMade:
          absl::StrAppend(&out, BoardText(client, session));
          over = GameOver(event.move_made().result());
          next = event.move_made().board().side_to_move();
          break;
        case v1::Event::kGameStarted:
          absl::StrAppend(&out, BoardText(client, session));
          next = event.game_started().board().side_to_move();
          break;
        case v1::Event::kGameOver:
          absl::StrAppend(&out, BoardText(client, session));
          over = true;
          break;
        case v1::Event::kGameReset:
        case v1::Event::kSessionDeleted:
          over = true;
          break;
        default:
          break;
      }
      if (over) {
        absl::StrAppend(&out, "the game is over\n");
        done = true;
        SetPrompt("");
      } else if (next != v1::COLOR_UNSPECIFIED) {
        SetPrompt(PlayPrompt(next, mine));
      }
      PrintAndPrompt(out);
    }
    const grpc::Status status = reader->Finish();
    if (!done && status.error_code() != grpc::StatusCode::CANCELLED) {
      Print(
          absl::StrCat("The game's events stopped: ", ErrorText(status), "\n"));
    }
    done = true;
  });

  LineReader input;
  int exit_code = kExitOk;
  while (!done) {
    std::string line;
    const LineReader::Result result = input.Next(&line, 100);
    if (result == LineReader::Result::kNothingYet) continue;
    if (result == LineReader::Result::kEnd) break;
    const std::string command(absl::StripAsciiWhitespace(line));
    if (command.empty()) continue;
    const std::vector<std::string> words =
        absl::StrSplit(command, ' ', absl::SkipEmpty());
    grpc::Status status;
    v1::Session after;
    if (words[0] == "quit" || words[0] == "exit") break;
    if (words[0] == "help") {
      PrintAndPrompt(std::string(kPlayHelp));
    } else if (words[0] == "board") {
      PrintAndPrompt(BoardText(client, session));
    } else if (words[0] == "moves") {
      v1::ListLegalMovesRequest request;
      request.set_session_id(session);
      if (words.size() > 1) request.set_square(words[1]);
      v1::ListLegalMovesResponse response;
      status = client.stub().ListLegalMoves(client.Context().get(), request,
                                            &response);
      if (status.ok()) {
        std::vector<std::string> moves;
        for (const v1::Move& move : response.moves()) {
          moves.push_back(move.notation());
        }
        PrintAndPrompt(absl::StrCat(absl::StrJoin(moves, " "), "\n"));
      }
    } else if (words[0] == "hint") {
      v1::SuggestMoveRequest request;
      request.set_session_id(session);
      int level = 3;
      if (words.size() > 1 && !absl::SimpleAtoi(words[1], &level)) level = 0;
      request.set_level(level);
      v1::SuggestMoveResponse response;
      status =
          client.stub().SuggestMove(client.Context().get(), request, &response);
      if (status.ok()) PrintAndPrompt(SuggestionText(response));
    } else if (words[0] == "resign") {
      v1::ResignRequest request;
      request.set_session_id(session);
      status = client.stub().Resign(client.Context().get(), request, &after);
    } else if (words[0] == "draw") {
      v1::OfferDrawRequest request;
      request.set_session_id(session);
      status = client.stub().OfferDraw(client.Context().get(), request, &after);
    } else if (words[0] == "accept") {
      v1::AcceptDrawRequest request;
      request.set_session_id(session);
      status =
          client.stub().AcceptDraw(client.Context().get(), request, &after);
    } else if (words[0] == "claim") {
      v1::ClaimRepetitionDrawRequest request;
      request.set_session_id(session);
      status = client.stub().ClaimRepetitionDraw(client.Context().get(),
                                                 request, &after);
    } else {
      v1::MakeMoveRequest request;
      request.set_session_id(session);
      request.mutable_move()->set_notation(command);
      v1::MakeMoveResponse response;
      status =
          client.stub().MakeMove(client.Context().get(), request, &response);
    }
    if (!status.ok()) {
      PrintAndPrompt(absl::StrCat(ErrorText(status), "\n"));
      if (ExitCode(status) == kExitUnreachable) {
        exit_code = kExitUnreachable;
        break;
      }
    }
  }
  done = true;
  watch_context->TryCancel();
  watcher.join();
  return exit_code;
}

// Plays against the computer: makes a session if `session` is empty (the
// setup and rules from the flags), takes a seat in it as --name, seats the
// computer at `level` in the other seat if that is free, then plays.
int RunPlayVsComputer(Client& client, const CommandLine& flags,
                      std::string session, int level,
                      std::optional<v1::Color> color) {
  if (session.empty()) {
    v1::CreateSessionRequest create;
    create.set_name(absl::StrCat("against the computer, level ", level));
    create.set_setup_id(flags.Get("setup"));
    if (absl::Status s = RulesFromFlags(flags, create.mutable_rules());
        !s.ok()) {
      return UsageError(s.message());
    }
    v1::CreateSessionResponse created;
    const grpc::Status status =
        client.stub().CreateSession(client.Context().get(), create, &created);
    if (!status.ok()) return RpcError(status);
    session = created.session().id();
    Print(absl::StrCat("created session ", session,
                       "\nowner token: ", created.owner_token(), "\n"));
  } else if (flags.Has("setup")) {
    return UsageError("--setup makes a new session: leave out SESSION");
  }
  v1::JoinSeatRequest join;
  join.set_session_id(session);
  join.set_player_name(flags.Get("name", "player"));
  if (color.has_value()) join.set_color(*color);
  v1::JoinSeatResponse joined;
  grpc::Status status =
      client.stub().JoinSeat(client.Context().get(), join, &joined);
  if (!status.ok()) return RpcError(status);
  Print(absl::StrCat("you play ", SideName(joined.color()), " in session ",
                     session, "\nplayer token: ", joined.player_token(),
                     "\n(to come back: khetctl play ", session,
                     " --token TOKEN)\n"));
  client.set_token(joined.player_token());
  const v1::Color other = OtherColor(joined.color());
  const v1::Seat& seat = joined.session().seats(other == v1::SILVER ? 0 : 1);
  if (seat.occupied()) {
    Print(absl::StrCat("the ", SideName(other), " seat is taken by ",
                       SeatHolder(seat), ": you play against them\n"));
  } else {
    v1::SeatComputerRequest computer;
    computer.set_session_id(session);
    computer.set_color(other);
    computer.set_level(level);
    v1::Session seated;
    status =
        client.stub().SeatComputer(client.Context().get(), computer, &seated);
    if (!status.ok()) return RpcError(status);
  }
  return RunPlay(client, session, joined.color());
}

}  // namespace

int PlayCommand(const Invocation& call) {
  std::optional<v1::Color> mine;
  if (call.flags.Has("color")) {
    absl::StatusOr<v1::Color> color = ParseColor(call.flags.Get("color"));
    if (!color.ok()) return UsageError(color.status().message());
    mine = *color;
  }
  if (call.flags.Has("vs_computer")) {
    absl::StatusOr<int64_t> level = call.flags.GetInt("vs_computer", 0, 1, 5);
    if (!level.ok()) return UsageError(level.status().message());
    return RunPlayVsComputer(call.client, call.flags, call.session,
                             static_cast<int>(*level), mine);
  }
  for (const std::string& flag : Union({{"name", "setup"}, kRulesFlags})) {
    if (call.flags.Has(flag)) {
      return UsageError(
          absl::StrCat("`play` takes --", flag, " only with --vs_computer"));
    }
  }
  return RunPlay(call.client, call.session, mine);
}

}  // namespace khet::ctl
