// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What khetctl's files share: the command line, the connection, errors and
// other texts printed for people, boards with their key, and the commands,
// one function each, grouped by file (sessions.cc, seats.cc, computer.cc,
// moves.cc, draws.cc, settings.cc, watch.cc, play.cc, health.cc, games.cc,
// legend.cc); main.cc holds the usage and the table of commands.
#ifndef KHET_CLIENTS_KHETCTL_KHETCTL_H_
#define KHET_CLIENTS_KHETCTL_KHETCTL_H_

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "khet/v1/khet_service.grpc.pb.h"

namespace khet::ctl {

// khetctl's exit codes (the usage lists them).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;        // khetd refused or failed the request
constexpr int kExitUsage = 2;        // the command line is wrong
constexpr int kExitUnreachable = 3;  // khetd could not be reached in time

// Print the error and return kExitUsage (command_line.cc), or the exit code
// for the refusal (errors.cc).
int UsageError(absl::string_view message);
int RpcError(const grpc::Status& status);

// ---- Errors in plain words (errors.cc)
// ----------------------------------------

// khetd's refusal as a sentence for people, e.g. "Not your turn: it is
// Red's move." REQUIRES: !status.ok().
std::string ErrorText(const grpc::Status& status);
// kExitUnreachable when khetd was not reached or did not answer in time,
// else kExitError (kExitOk for OK).
int ExitCode(const grpc::Status& status);

// ---- The command line (command_line.cc)
// --------------------------------------

// The command line: positional arguments and flags, "--name value",
// "--name=value" or, for switches, "--name" or "--name=true|false".
class CommandLine {
 public:
  // Which flags take a value and which are switches, over all commands.
  static const std::set<std::string>& Valued();
  static const std::set<std::string>& Switches();

  // On error returns the message.
  std::optional<std::string> Parse(int argc, char** argv);

  // The flags that are set but not in `allowed` (nor global), for errors.
  std::optional<std::string> CheckAllowed(
      const std::string& command, const std::set<std::string>& allowed) const;

  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  std::string Get(const std::string& name,
                  const std::string& fallback = "") const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  bool Switch(const std::string& name) const { return Get(name) == "true"; }

  absl::StatusOr<int64_t> GetInt(const std::string& name, int64_t fallback,
                                 int64_t min, int64_t max) const;
  absl::StatusOr<double> GetDouble(const std::string& name) const;

  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

// The flags of the rules and of the settings, for the commands that take
// them, and their union with others.
extern const std::set<std::string> kRulesFlags;
extern const std::set<std::string> kSettingsFlags;
std::set<std::string> Union(std::initializer_list<std::set<std::string>> sets);

// The flags into requests; INVALID_ARGUMENT naming a bad flag.
absl::Status RulesFromFlags(const CommandLine& flags, v1::RuleOptions* rules);
absl::Status SettingsFromFlags(const CommandLine& flags,
                               v1::SettingsUpdate* update);

// ---- Texts for people (output.cc)
// --------------------------------------------

std::string SideName(v1::Color color);
std::string EditionName(v1::Edition edition);
std::string StatusName(v1::GameStatus status);
bool GameOver(const v1::GameResult& result);
std::string SeatHolder(const v1::Seat& seat);
v1::Color OtherColor(v1::Color color);
absl::StatusOr<v1::Color> ParseColor(const std::string& text);

std::string ToJson(const google::protobuf::Message& message, bool multiline);
std::string SessionText(const v1::Session& s);
std::string SuggestionText(const v1::SuggestMoveResponse& r);
std::string LevelsText(const v1::ListLevelsResponse& r);
std::string MoveText(const v1::MakeMoveResponse& r);
std::string EventLine(const v1::Event& e);

// A search score (hundredths of a Pyramid, for `side_to_move`) in words:
// "+1.20 (Silver ahead by about a Pyramid)", "Red wins in 3 moves"
// (score_words.cc).
std::string ScoreInWords(int score, v1::Color side_to_move);

// ---- The connection (connection.cc)
// ------------------------------------------

// The channel to --server: plaintext, or TLS with --tls, --ca_cert or
// --tls_server_name. INVALID_ARGUMENT if --ca_cert cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(
    const CommandLine& flags);

class Client {
 public:
  Client(const CommandLine& flags, std::shared_ptr<grpc::Channel> channel,
         std::string token, int deadline_seconds)
      : json_(flags.Switch("json")),
        token_(std::move(token)),
        deadline_seconds_(deadline_seconds),
        channel_(channel),
        stub_(v1::KhetService::NewStub(std::move(channel))) {}

  v1::KhetService::Stub& stub() { return *stub_; }
  grpc::Channel& channel() { return *channel_; }
  bool json() const { return json_; }
  int deadline_seconds() const { return deadline_seconds_; }
  const std::string& token() const { return token_; }
  void set_token(std::string token) { token_ = std::move(token); }

  // A context for one call: the token, if any, and, unless `streaming`, the
  // deadline.
  std::unique_ptr<grpc::ClientContext> Context(bool streaming = false) const {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!streaming) {
      context->set_deadline(std::chrono::system_clock::now() +
                            std::chrono::seconds(deadline_seconds_));
    }
    if (!token_.empty()) {
      context->AddMetadata("authorization", absl::StrCat("Bearer ", token_));
    }
    return context;
  }

  // Calls `method` and prints the response as JSON or with `text`.
  template <typename Request, typename Response, typename Text>
  int Call(grpc::Status (v1::KhetService::Stub::*method)(grpc::ClientContext*,
                                                         const Request&,
                                                         Response*),
           const Request& request, Text text) {
    Response response;
    const grpc::Status status =
        (stub_.get()->*method)(Context().get(), request, &response);
    if (!status.ok()) return RpcError(status);
    std::cout << (json_ ? ToJson(response, true) + "\n" : text(response))
              << std::flush;
    return kExitOk;
  }

 private:
  const bool json_;
  std::string token_;
  const int deadline_seconds_;
  const std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::KhetService::Stub> stub_;
};

// ---- Boards for people (board.cc, legend.cc)
// ----------------------------------

// RenderBoard's `board_text` of `session`: once the game is over, its last
// line says who won and why instead of whose move it would be; then the
// key line.
std::string BoardForPeople(absl::string_view board_text,
                           const v1::Session& session);
// The session's board as BoardForPeople gives it, into *text.
grpc::Status FetchBoard(Client& client, const std::string& session_id,
                        bool without_laser, std::string* text);
// One line naming the pieces on `board_text` and pointing to the legend.
std::string LegendLine(absl::string_view board_text);

// ---- The commands
// ------------------------------------------------------------

// One command's call: the flags, the session id (if the command takes
// one), the arguments after it, and the client.
struct Invocation {
  const CommandLine& flags;
  const std::string& session;
  const std::vector<std::string>& args;
  Client& client;
};

// Each runs one command and returns khetctl's exit code.
// sessions.cc
int SetupsCommand(const Invocation& call);
int SchemesCommand(const Invocation& call);
int CreateCommand(const Invocation& call);
int GetCommand(const Invocation& call);
int ListCommand(const Invocation& call);
int DeleteCommand(const Invocation& call);
int SetupCommand(const Invocation& call);
int ResetCommand(const Invocation& call);
int RematchCommand(const Invocation& call);
int PresetsCommand(const Invocation& call);
int BoardCommand(const Invocation& call);
// seats.cc
int JoinCommand(const Invocation& call);
int LeaveCommand(const Invocation& call);
// computer.cc
int ComputerCommand(const Invocation& call);
int LevelsCommand(const Invocation& call);
int SuggestCommand(const Invocation& call);
// moves.cc
int MoveCommand(const Invocation& call);
int MovesCommand(const Invocation& call);
// draws.cc
int ResignCommand(const Invocation& call);
int OfferDrawCommand(const Invocation& call);
int AcceptDrawCommand(const Invocation& call);
int ClaimDrawCommand(const Invocation& call);
int TakebackCommand(const Invocation& call);
int AcceptTakebackCommand(const Invocation& call);
int DeclineTakebackCommand(const Invocation& call);
int PlayerCommand(const Invocation& call);
int PlayersCommand(const Invocation& call);
// settings.cc
int SettingsCommand(const Invocation& call);
// watch.cc
int WatchCommand(const Invocation& call);
// play.cc
int PlayCommand(const Invocation& call);
// health.cc
int HealthCommand(const Invocation& call);
// version.cc
int VersionCommand(const Invocation& call);
// legend.cc
int LegendCommand(const Invocation& call);
// games.cc
int RecordCommand(const Invocation& call);
int GamesCommand(const Invocation& call);
int PositionCommand(const Invocation& call);
int AnalyzeCommand(const Invocation& call);
// The text of the record file `path`; INVALID_ARGUMENT if it cannot be read.
absl::StatusOr<std::string> ReadRecordFile(const std::string& path);

}  // namespace khet::ctl

#endif  // KHET_CLIENTS_KHETCTL_KHETCTL_H_
