// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetctl: khetd on the command line. Every RPC of khet.v1.KhetService is a
// subcommand; `watch` follows a session's events live and `play` is an
// interactive game in the terminal. Run `khetctl help` for the usage.
//
// This file: the usage, the table of commands and the parsing of a command
// line up to the command's own function (khetctl.h lists the others).
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/khetctl/khetctl.h"
#include "khet_version.h"

namespace khet::ctl {
namespace {

constexpr absl::string_view kUsage =
    R"(usage: khetctl [--server ADDR] [--token T] [--json] <command> [args]

Global flags (anywhere on the line):
  --server ADDR      khetd's address (default 127.0.0.1:50051)
  --token T          the bearer token for calls that act for someone
                     (default: the environment variable KHET_TOKEN)
  --json             print the response as protobuf JSON (watch: one event
                     per line)
  --deadline S       seconds a call may take (default 30; not watch/play)
  --tls              connect over TLS, trusting the system's CAs or
                     --ca_cert (khetd with --tls_cert and --tls_key)
  --ca_cert FILE     PEM file of the CA (or self-signed certificate) that
                     signed khetd's certificate; implies --tls
  --tls_server_name NAME
                     the name khetd's certificate must carry, when --server
                     names it otherwise (an IP address); implies --tls

Commands (SESSION is the session id, given first or as --session ID):
  setups                          the named starting setups
  presets                         the rule presets (casual, tournament-2009,
                                  club): a setup, rules and owner settings
  schemes                         the colour schemes
  create [--name N] [--setup ID | --position TEXT] [rules] [settings]
                                  a new board; prints the owner token
  create --preset ID [--name N] [--setup ID] [settings]
                                  a new board with a preset's setup, rules
                                  and settings (khetctl presets)
  create --record FILE [--ply N] [--name N] [settings]
                                  a new board going on from a game record,
                                  replayed to its end or to ply N
  get SESSION                     a session
  list [--status waiting|in_progress|finished] [--page_size N]
       [--page_token T]           sessions, newest first
  delete SESSION                  (owner token)
  join SESSION --name PLAYER [--color silver|red] [--player_id ID]
                                  takes a seat; prints the player token
                                  (ID: a stable identity for ratings)
  leave SESSION [--color silver|red]
                                  leaves your seat (player token), or takes
                                  the computer out of the seat named
                                  (owner or player token), or removes the
                                  player there (owner token)
  computer SESSION --level N [--color silver|red]
                                  seats the computer at level N (1-5) in a
                                  free seat (owner or player token)
  levels                          the computer's levels
  suggest SESSION [--level N | --depth D --nodes N --time_ms T]
                                  the computer's move for the side to move,
                                  its score and line (default level 3)
  setup SESSION (--setup ID | --position TEXT) [rules]
  setup SESSION --preset ID [--setup ID]
                                  chooses the setup while no game runs
  move SESSION MOVE [--expected_version V] [--request_id R]
                                  plays a move in notation: j4-j3, f4=g3,
                                  c1R, d1^d2 (player token)
  moves SESSION [--square SQ]     the legal moves of the side to move
  resign SESSION                  (player token)
  offer-draw SESSION              (player token)
  accept-draw SESSION             (player token)
  claim-draw SESSION              a third repetition (player token)
  takeback SESSION                asks to take back your last move (and
                                  the reply to it, if any) (player token)
  accept-takeback SESSION         (the other player's token)
  decline-takeback SESSION        (the other player's token)
  player ID                       a rated player's rating and record
  players [--page_size N] [--page_token T]
                                  rated players, best rating first
  settings SESSION [settings]     changes the owner settings (owner token)
  reset SESSION                   ends the game, empties the seats (owner)
  rematch SESSION                 after a finished game: a new one with the
                                  same players, colours swapped (owner or
                                  player token)
  watch SESSION [--after_version V]
                                  prints events as they happen, one a line
  board SESSION [--without_laser] the board as text with the laser path and
                                  a line naming its pieces
  legend                          how to read a board: the pieces' letters
                                  and marks, the squares, the laser, and
                                  the moves' notation (c1R: turn right)
  play SESSION [--color silver|red]
                                  an interactive game (player token): type
                                  moves, `moves`, `board`, `hint`, `resign`,
                                  `draw`, `accept`, `claim`, `quit`
  play [SESSION] --vs_computer LEVEL [--name PLAYER] [--color silver|red]
       [--setup ID] [rules]       against the computer: creates a session
                                  (or takes a seat in SESSION), seats the
                                  computer in the other seat, then plays
  record SESSION [--game ID]      a game's record (default: the current
                                  game), ready to save as a .khet file
  games [SESSION] [--player P] [--setup ID] [--result 1-0|0-1|1/2-1/2|*]
        [--page_size N] [--page_token T]
                                  archived games, newest first: the
                                  session's, or without SESSION every one
  position SESSION --ply N [--game ID]
                                  a game's position after N plies, that
                                  ply's move and laser, the legal moves
  analyze SESSION [--game ID] [--ms_per_ply N] [--no_wait]
                                  the computer's analysis of a finished
                                  game: every move scored, inaccuracies
                                  (?!), mistakes (?) and blunders (??)
                                  marked with the better move; waits until
                                  it is done unless --no_wait (N: 10-2000
                                  ms of search a ply, default 200)
  health [--service NAME]         grpc.health.v1 Check of khetd (or of one
                                  service): prints SERVING, NOT_SERVING...;
                                  exits 0 only for SERVING (a container or
                                  orchestrator health check)
  version                         the release of the khetd answering, by
                                  GetVersion: khetd X.Y.Z and the API
  help                            this text
  --version                       khetctl's own release: "khetctl X.Y.Z"

Rules flags: --both_pharaohs_hit_draws, --automatic_repetition_draw,
  --ply_limit N, and clocks: --fischer BASE+INCREMENT (seconds, e.g.
  300+5) or --per_move SECONDS (each move within that time); a player whose
  time runs out loses.
Flag names may be written with - for _ (--vs-computer).
Settings flags: --timeout_enabled[=true|false], --timeout_seconds N,
  --quiet[=true|false], --color_scheme ID, --scale_meters M,
  --hints[=true|false] (false: no suggestions while a game is in progress),
  --language en|de|fr|nl (the board's announcements),
  --takebacks[=true|false], --rated[=true|false] (games between players
  with ids update their ratings; no takebacks).

Exit codes: 0 done; 1 khetd refused or failed the request (the reason is
printed, e.g. "Not your turn: it is Red's move."); 2 the command line is
wrong; 3 khetd could not be reached or did not answer within --deadline.
health exits 1 for any answer but SERVING.
)";

struct Command {
  std::set<std::string> flags;  // besides the global ones
  int positional;               // arguments after the session id (if any)
  bool needs_session;
  int (*run)(const Invocation& call);
};

const std::map<std::string, Command>& Commands() {
  static const auto* const kCommands = new std::map<std::string, Command>{
      {"setups", {{}, 0, false, &SetupsCommand}},
      {"schemes", {{}, 0, false, &SchemesCommand}},
      {"create",
       {Union({{"name", "setup", "position", "record", "ply", "preset"},
               kRulesFlags,
               kSettingsFlags}),
        0, false, &CreateCommand}},
      {"record", {{"session", "game"}, 0, true, &RecordCommand}},
      {"games",
       {{"session", "player", "setup", "result", "page_size", "page_token"},
        0,
        true,
        &GamesCommand}},
      {"position", {{"session", "game", "ply"}, 0, true, &PositionCommand}},
      {"analyze",
       {{"session", "game", "ms_per_ply", "no_wait"},
        0,
        true,
        &AnalyzeCommand}},
      {"get", {{"session"}, 0, true, &GetCommand}},
      {"list", {{"status", "page_size", "page_token"}, 0, false, &ListCommand}},
      {"delete", {{"session"}, 0, true, &DeleteCommand}},
      {"join",
       {{"session", "name", "color", "player_id"}, 0, true, &JoinCommand}},
      {"leave", {{"session", "color"}, 0, true, &LeaveCommand}},
      {"computer", {{"session", "color", "level"}, 0, true, &ComputerCommand}},
      {"levels", {{}, 0, false, &LevelsCommand}},
      {"legend", {{}, 0, false, &LegendCommand}},
      {"health", {{"service"}, 0, false, &HealthCommand}},
      {"version", {{}, 0, false, &VersionCommand}},
      {"suggest",
       {{"session", "level", "depth", "nodes", "time_ms"},
        0,
        true,
        &SuggestCommand}},
      {"setup",
       {Union({{"session", "setup", "position", "preset"}, kRulesFlags}), 0,
        true, &SetupCommand}},
      {"presets", {{}, 0, false, &PresetsCommand}},
      {"move",
       {{"session", "expected_version", "request_id"}, 1, true, &MoveCommand}},
      {"moves", {{"session", "square"}, 0, true, &MovesCommand}},
      {"resign", {{"session"}, 0, true, &ResignCommand}},
      {"offer-draw", {{"session"}, 0, true, &OfferDrawCommand}},
      {"accept-draw", {{"session"}, 0, true, &AcceptDrawCommand}},
      {"claim-draw", {{"session"}, 0, true, &ClaimDrawCommand}},
      {"takeback", {{"session"}, 0, true, &TakebackCommand}},
      {"accept-takeback", {{"session"}, 0, true, &AcceptTakebackCommand}},
      {"decline-takeback", {{"session"}, 0, true, &DeclineTakebackCommand}},
      {"player", {{}, 1, false, &PlayerCommand}},
      {"players", {{"page_size", "page_token"}, 0, false, &PlayersCommand}},
      {"settings",
       {Union({{"session"}, kSettingsFlags}), 0, true, &SettingsCommand}},
      {"reset", {{"session"}, 0, true, &ResetCommand}},
      {"rematch", {{"session"}, 0, true, &RematchCommand}},
      {"watch", {{"session", "after_version"}, 0, true, &WatchCommand}},
      {"board", {{"session", "without_laser"}, 0, true, &BoardCommand}},
      {"play",
       {Union({{"session", "color", "vs_computer", "name", "setup"},
               kRulesFlags}),
        0, true, &PlayCommand}},
  };
  return *kCommands;
}

int Run(int argc, char** argv) {
  CommandLine flags;
  if (std::optional<std::string> error = flags.Parse(argc, argv)) {
    return UsageError(*error);
  }
  std::vector<std::string> args = flags.positional();
  if (flags.Switch("version")) {
    std::cout << "khetctl " << kVersion << "\n";
    return kExitOk;
  }
  if (flags.Switch("help") || args.empty() || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() && !flags.Switch("help") ? kExitUsage : kExitOk;
  }
  const std::string name = args[0];
  args.erase(args.begin());
  const auto found = Commands().find(name);
  if (found == Commands().end()) {
    return UsageError(absl::StrCat("unknown command \"", name, "\""));
  }
  const Command& command = found->second;
  if (std::optional<std::string> error =
          flags.CheckAllowed(name, command.flags)) {
    return UsageError(*error);
  }
  std::string session = flags.Get("session");
  // play --vs_computer makes a session when it is given none; games
  // without one lists every session's.
  const bool session_optional =
      (name == "play" && flags.Has("vs_computer")) || name == "games";
  if (command.needs_session && session.empty() &&
      !(session_optional && args.empty())) {
    if (args.empty())
      return UsageError(absl::StrCat("`", name, "` needs a SESSION id"));
    session = args[0];
    args.erase(args.begin());
  }
  if (static_cast<int>(args.size()) != command.positional) {
    if (args.size() > static_cast<size_t>(command.positional)) {
      return UsageError(absl::StrCat("`", name, "`: unexpected argument \"",
                                     args[command.positional], "\""));
    }
    return UsageError(absl::StrCat("`", name, "` needs a MOVE"));
  }
  absl::StatusOr<int64_t> deadline = flags.GetInt("deadline", 30, 1, 86400);
  if (!deadline.ok()) return UsageError(deadline.status().message());
  std::string token = flags.Get("token");
  if (!flags.Has("token")) {
    if (const char* env = std::getenv("KHET_TOKEN")) token = env;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = OpenChannel(flags);
  if (!channel.ok()) return UsageError(channel.status().message());
  Client client(flags, *channel, token, static_cast<int>(*deadline));

  return command.run({flags, session, args, client});
}

}  // namespace
}  // namespace khet::ctl

int main(int argc, char** argv) { return khet::ctl::Run(argc, argv); }
