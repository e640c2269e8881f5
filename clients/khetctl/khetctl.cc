// khetctl: khetd on the command line. Every RPC of khet.v1.KhetService is a
// subcommand; `watch` follows a session's events live and `play` is an
// interactive game in the terminal. Run `khetctl help` for the usage.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "service/grpc/status_conversion.h"

namespace khet {
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
  schemes                         the colour schemes
  create [--name N] [--setup ID | --position TEXT] [rules] [settings]
                                  a new board; prints the owner token
  get SESSION                     a session
  list [--status waiting|in_progress|finished] [--page_size N]
       [--page_token T]           sessions, newest first
  delete SESSION                  (owner token)
  join SESSION --name PLAYER [--color silver|red]
                                  takes a seat; prints the player token
  leave SESSION [--color silver|red]
                                  leaves your seat (player token), or takes
                                  the computer out of the seat named
                                  (owner or player token)
  computer SESSION --level N [--color silver|red]
                                  seats the computer at level N (1-5) in a
                                  free seat (owner or player token)
  levels                          the computer's levels
  suggest SESSION [--level N | --depth D --nodes N --time_ms T]
                                  the computer's move for the side to move,
                                  its score and line (default level 3)
  setup SESSION (--setup ID | --position TEXT) [rules]
                                  chooses the setup while no game runs
  move SESSION MOVE [--expected_version V] [--request_id R]
                                  plays a move in notation: e4-e5, f4=g3,
                                  d1^d2, j1L (player token)
  moves SESSION [--square SQ]     the legal moves of the side to move
  resign SESSION                  (player token)
  offer-draw SESSION              (player token)
  accept-draw SESSION             (player token)
  claim-draw SESSION              a third repetition (player token)
  settings SESSION [settings]     changes the owner settings (owner token)
  reset SESSION                   ends the game, empties the seats (owner)
  watch SESSION [--after_version V]
                                  prints events as they happen, one a line
  board SESSION [--without_laser] the board as text with the laser path
  play SESSION [--color silver|red]
                                  an interactive game (player token): type
                                  moves, `moves`, `board`, `hint`, `resign`,
                                  `draw`, `accept`, `claim`, `quit`
  play [SESSION] --vs_computer LEVEL [--name PLAYER] [--color silver|red]
       [--setup ID] [rules]       against the computer: creates a session
                                  (or takes a seat in SESSION), seats the
                                  computer in the other seat, then plays
  health [--service NAME]         grpc.health.v1 Check of khetd (or of one
                                  service): prints SERVING, NOT_SERVING...;
                                  exits 0 only for SERVING (a container or
                                  orchestrator health check)
  help                            this text

Rules flags: --both_pharaohs_hit_draws, --automatic_repetition_draw,
  --ply_limit N.
Flag names may be written with - for _ (--vs-computer).
Settings flags: --timeout_enabled[=true|false], --timeout_seconds N,
  --quiet[=true|false], --color_scheme ID, --scale_meters M.

Errors print the gRPC code and message and exit 1; usage errors exit 2.
)";

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

int UsageError(absl::string_view message) {
  std::cerr << "khetctl: " << message << "\n(run `khetctl help` for the usage)"
            << std::endl;
  return kExitUsage;
}

int RpcError(const grpc::Status& status) {
  std::cerr << "khetctl: " << StatusCodeName(status.error_code()) << ": "
            << status.error_message() << std::endl;
  return kExitError;
}

// ---- Flags ---------------------------------------------------------------

// The command line: positional arguments and flags, "--name value",
// "--name=value" or, for switches, "--name" or "--name=true|false".
class CommandLine {
 public:
  // Which flags take a value and which are switches, over all commands.
  static const std::set<std::string>& Valued() {
    static const auto* const kValued =
        new std::set<std::string>{"server",
                                  "token",
                                  "deadline",
                                  "session",
                                  "name",
                                  "setup",
                                  "position",
                                  "ply_limit",
                                  "timeout_seconds",
                                  "color_scheme",
                                  "scale_meters",
                                  "status",
                                  "page_size",
                                  "page_token",
                                  "color",
                                  "expected_version",
                                  "request_id",
                                  "square",
                                  "after_version",
                                  "level",
                                  "depth",
                                  "nodes",
                                  "time_ms",
                                  "vs_computer",
                                  "service",
                                  "ca_cert",
                                  "tls_server_name"};
    return *kValued;
  }
  static const std::set<std::string>& Switches() {
    static const auto* const kSwitches =
        new std::set<std::string>{"json",
                                  "tls",
                                  "both_pharaohs_hit_draws",
                                  "automatic_repetition_draw",
                                  "timeout_enabled",
                                  "quiet",
                                  "without_laser",
                                  "help"};
    return *kSwitches;
  }

  // On error returns the message.
  std::optional<std::string> Parse(int argc, char** argv) {
    bool flags_done = false;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (flags_done || arg.size() < 3 || arg.substr(0, 2) != "--") {
        if (arg == "--") {
          flags_done = true;
          continue;
        }
        positional_.push_back(arg);
        continue;
      }
      std::string name = arg.substr(2);
      std::optional<std::string> value;
      if (const size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      std::replace(name.begin(), name.end(), '-', '_');
      if (Switches().count(name) != 0) {
        if (!value.has_value()) value = "true";
        const std::string lower = absl::AsciiStrToLower(*value);
        if (lower == "true" || lower == "yes" || lower == "1") {
          value = "true";
        } else if (lower == "false" || lower == "no" || lower == "0") {
          value = "false";
        } else {
          return absl::StrCat("--", name, "=", *value,
                              ": must be true or false");
        }
      } else if (Valued().count(name) != 0) {
        if (!value.has_value()) {
          if (i + 1 >= argc) return absl::StrCat("--", name, " needs a value");
          value = argv[++i];
        }
      } else {
        return absl::StrCat("unknown flag --", name);
      }
      if (values_.count(name) != 0) {
        return absl::StrCat("--", name, " is given twice");
      }
      values_[name] = *value;
    }
    return std::nullopt;
  }

  // The flags that are set but not in `allowed` (nor global), for errors.
  std::optional<std::string> CheckAllowed(
      const std::string& command, const std::set<std::string>& allowed) const {
    static const std::set<std::string> kGlobal = {
        "server", "token", "json",    "deadline",
        "help",   "tls",   "ca_cert", "tls_server_name"};
    for (const auto& [name, value] : values_) {
      if (kGlobal.count(name) == 0 && allowed.count(name) == 0) {
        return absl::StrCat("`", command, "` takes no --", name);
      }
    }
    return std::nullopt;
  }

  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  std::string Get(const std::string& name,
                  const std::string& fallback = "") const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  bool Switch(const std::string& name) const { return Get(name) == "true"; }

  absl::StatusOr<int64_t> GetInt(const std::string& name, int64_t fallback,
                                 int64_t min, int64_t max) const {
    if (!Has(name)) return fallback;
    int64_t value = 0;
    if (!absl::SimpleAtoi(Get(name), &value) || value < min || value > max) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--%s=%s: must be a whole number from %d to %d", name,
                          Get(name), min, max));
    }
    return value;
  }

  absl::StatusOr<double> GetDouble(const std::string& name) const {
    double value = 0;
    if (!absl::SimpleAtod(Get(name), &value)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--%s=%s: must be a number", name, Get(name)));
    }
    return value;
  }

  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

// ---- Names for people -------------------------------------------------------

std::string SideName(v1::Color color) {
  switch (color) {
    case v1::SILVER:
      return "Silver";
    case v1::RED:
      return "Red";
    default:
      return "nobody";
  }
}

std::string EditionName(v1::Edition edition) {
  switch (edition) {
    case v1::KHET_1:
      return "Khet 1.0";
    case v1::KHET_2:
      return "Khet 2.0";
    default:
      return "unknown edition";
  }
}

std::string StatusName(v1::GameStatus status) {
  switch (status) {
    case v1::WAITING_FOR_PLAYERS:
      return "waiting for players";
    case v1::IN_PROGRESS:
      return "in progress";
    case v1::FINISHED:
      return "finished";
    default:
      return "unknown";
  }
}

bool GameOver(const v1::GameResult& result) {
  return result.outcome() != v1::OUTCOME_UNSPECIFIED &&
         result.outcome() != v1::ONGOING;
}

// A shot's text (one line per beam) on one line.
std::string OneLine(absl::string_view text) {
  std::vector<absl::string_view> lines =
      absl::StrSplit(text, '\n', absl::SkipEmpty());
  return absl::StrJoin(lines, " | ");
}

// "alice", or "the computer (level 3, PYRAMID SCHEMER)".
std::string SeatHolder(const v1::Seat& seat) {
  if (seat.computer()) {
    return absl::StrCat("the computer (level ", seat.computer_level(), ", ",
                        seat.player_name(), ")");
  }
  return seat.player_name();
}

v1::Color OtherColor(v1::Color color) {
  return color == v1::SILVER ? v1::RED : v1::SILVER;
}

absl::StatusOr<v1::Color> ParseColor(const std::string& text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "silver" || lower == "s") return v1::SILVER;
  if (lower == "red" || lower == "r") return v1::RED;
  return absl::InvalidArgumentError(
      absl::StrCat("--color=", text, ": must be silver or red"));
}

// ---- Output ----------------------------------------------------------------

std::mutex output_mu;     // play's two threads both print
std::string play_prompt;  // guarded by output_mu: play's current prompt

std::string ToJson(const google::protobuf::Message& message, bool multiline) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = multiline;
  std::string json;
  const auto status =
      google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::StrCat("{\"error\": \"", std::string(status.message()), "\"}");
  }
  if (multiline && !json.empty() && json.back() == '\n') json.pop_back();
  return json;
}

std::string SessionText(const v1::Session& s) {
  std::string out = absl::StrFormat("session %s \"%s\", version %d\n", s.id(),
                                    s.name(), s.version());
  absl::StrAppend(&out, "setup ", s.setup_id(), ", ",
                  EditionName(s.board().edition()), ", ",
                  StatusName(s.status()));
  if (s.status() == v1::IN_PROGRESS) {
    absl::StrAppend(&out, ", ", SideName(s.board().side_to_move()), " to move");
  }
  absl::StrAppend(&out, "\n");
  std::vector<std::string> seats;
  for (const v1::Seat& seat : s.seats()) {
    seats.push_back(absl::StrCat(
        SideName(seat.color()), ": ",
        seat.occupied() ? SeatHolder(seat) : std::string("(free)")));
  }
  absl::StrAppend(&out, "seats: ", absl::StrJoin(seats, ", "), "\n");
  if (s.moves_size() > 0) {
    absl::StrAppend(&out, "moves: ", absl::StrJoin(s.moves(), " "), "\n");
  }
  if (GameOver(s.result()))
    absl::StrAppend(&out, "result: ", s.result().text(), "\n");
  if (s.draw_offered_by() != v1::COLOR_UNSPECIFIED) {
    absl::StrAppend(&out, "draw offered by ", SideName(s.draw_offered_by()),
                    "\n");
  }
  const v1::Settings& settings = s.settings();
  absl::StrAppend(
      &out, absl::StrFormat(
                "settings: timeout %s, quiet %s, colours %s, scale %g m\n",
                settings.timeout_enabled()
                    ? absl::StrCat(settings.timeout_seconds(), " s")
                    : std::string("off"),
                settings.quiet() ? "on" : "off", settings.color_scheme(),
                settings.scale_meters()));
  absl::StrAppend(&out, "position: ", s.board().position(), "\n");
  return out;
}

// The moves of a line in notation, separated by spaces.
std::string LineText(const google::protobuf::RepeatedPtrField<v1::Move>& line) {
  std::vector<std::string> moves;
  for (const v1::Move& m : line) moves.push_back(m.notation());
  return absl::StrJoin(moves, " ");
}

std::string SuggestionText(const v1::SuggestMoveResponse& r) {
  std::string out = absl::StrCat("suggestion for ", SideName(r.side_to_move()),
                                 ": ", r.move().notation());
  if (r.level() > 0) {
    absl::StrAppend(&out, " (level ", r.level(), ", ", r.level_name(), ")");
  }
  absl::StrAppend(
      &out, "\n",
      absl::StrFormat("score %d, depth %d, %d nodes, %d ms%s\n", r.score(),
                      r.depth(), r.nodes(), r.elapsed_ms(),
                      r.cut_short() ? ", cut short by time" : ""),
      "line: ", LineText(r.principal_variation()), "\n");
  return out;
}

std::string LevelsText(const v1::ListLevelsResponse& r) {
  std::string out;
  for (const v1::Level& level : r.levels()) {
    std::vector<std::string> limits;
    if (level.limits().max_depth() > 0) {
      limits.push_back(absl::StrCat("depth ", level.limits().max_depth()));
    }
    if (level.limits().max_nodes() > 0) {
      limits.push_back(absl::StrCat(level.limits().max_nodes(), " nodes"));
    }
    if (level.limits().max_time_ms() > 0) {
      limits.push_back(absl::StrCat(level.limits().max_time_ms(), " ms"));
    }
    absl::StrAppend(
        &out,
        absl::StrFormat("%d  %-20s %-24s %s\n", level.number(), level.name(),
                        absl::StrJoin(limits, ", "), level.description()));
  }
  return out;
}

std::string MoveText(const v1::MakeMoveResponse& r) {
  std::string out = r.announcement().empty()
                        ? absl::StrCat("played ", r.move().notation())
                        : r.announcement();
  absl::StrAppend(&out, "\nlaser: ", OneLine(r.shot().text()), "\n");
  if (GameOver(r.result()))
    absl::StrAppend(&out, "result: ", r.result().text(), "\n");
  absl::StrAppend(&out, "version ", r.version(), "\n");
  return out;
}

// One event on one line: the version, what happened, and for a move its
// laser.
std::string EventLine(const v1::Event& e) {
  std::string what;
  switch (e.kind_case()) {
    case v1::Event::kSeatChanged:
      what = absl::StrCat(
          "seat: ", SideName(e.seat_changed().seat().color()),
          e.seat_changed().joined()
              ? absl::StrCat(" taken by ", SeatHolder(e.seat_changed().seat()))
              : std::string(" left"));
      break;
    case v1::Event::kSetupChosen:
      what = absl::StrCat("setup: ", e.setup_chosen().setup_id());
      break;
    case v1::Event::kGameStarted:
      what = "game started";
      break;
    case v1::Event::kMoveMade:
      what = absl::StrCat("move: ", SideName(e.move_made().mover()), " ",
                          e.move_made().move().notation());
      break;
    case v1::Event::kGameOver:
      what = absl::StrCat("game over: ", e.game_over().result().text());
      break;
    case v1::Event::kGameReset:
      what =
          e.game_reset().timed_out() ? "game reset (timed out)" : "game reset";
      break;
    case v1::Event::kDrawOffered:
      what = absl::StrCat("draw offered by ", SideName(e.draw_offered().by()));
      break;
    case v1::Event::kSettingsChanged:
      what = "settings changed";
      break;
    case v1::Event::kSessionDeleted:
      what = "session deleted";
      break;
    default:
      what = "event";
      break;
  }
  std::string line = absl::StrCat("v", e.version(), " ", what);
  if (!e.announcement().empty())
    absl::StrAppend(&line, " -- ", e.announcement());
  if (e.kind_case() == v1::Event::kMoveMade) {
    absl::StrAppend(&line, " -- laser: ", OneLine(e.move_made().shot().text()));
    if (GameOver(e.move_made().result())) {
      absl::StrAppend(&line, " -- ", e.move_made().result().text());
    }
  }
  return line;
}

// ---- Calls -----------------------------------------------------------------

// The channel to --server: plaintext, or TLS with --tls, --ca_cert or
// --tls_server_name. INVALID_ARGUMENT if --ca_cert cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(
    const CommandLine& flags) {
  const std::string server = flags.Get("server", "127.0.0.1:50051");
  const bool tls = flags.Switch("tls") || flags.Has("ca_cert") ||
                   flags.Has("tls_server_name");
  if (!tls) {
    return grpc::CreateChannel(server, grpc::InsecureChannelCredentials());
  }
  grpc::SslCredentialsOptions options;
  if (flags.Has("ca_cert")) {
    const std::string path = flags.Get("ca_cert");
    std::ifstream in(path, std::ios::binary);
    std::string pem((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
    if (!in.is_open() || in.bad() ||
        pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--ca_cert=", path, ": cannot be read or holds no PEM certificate"));
    }
    options.pem_root_certs = std::move(pem);
  }
  grpc::ChannelArguments arguments;
  if (flags.Has("tls_server_name")) {
    arguments.SetSslTargetNameOverride(flags.Get("tls_server_name"));
  }
  return grpc::CreateCustomChannel(server, grpc::SslCredentials(options),
                                   arguments);
}

class Client {
 public:
  Client(const CommandLine& flags, std::shared_ptr<grpc::Channel> channel,
         std::string token, int deadline_seconds)
      : json_(flags.Switch("json")),
        token_(std::move(token)),
        deadline_seconds_(deadline_seconds),
        stub_(v1::KhetService::NewStub(std::move(channel))) {}

  v1::KhetService::Stub& stub() { return *stub_; }
  bool json() const { return json_; }
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
  std::unique_ptr<v1::KhetService::Stub> stub_;
};

absl::Status RulesFromFlags(const CommandLine& flags, v1::RuleOptions* rules) {
  rules->set_both_pharaohs_hit_draws(flags.Switch("both_pharaohs_hit_draws"));
  rules->set_automatic_repetition_draw(
      flags.Switch("automatic_repetition_draw"));
  absl::StatusOr<int64_t> ply_limit =
      flags.GetInt("ply_limit", 0, 0, 1'000'000);
  if (!ply_limit.ok()) return ply_limit.status();
  rules->set_ply_limit(static_cast<int32_t>(*ply_limit));
  return absl::OkStatus();
}

absl::Status SettingsFromFlags(const CommandLine& flags,
                               v1::SettingsUpdate* update) {
  if (flags.Has("timeout_enabled")) {
    update->set_timeout_enabled(flags.Switch("timeout_enabled"));
  }
  if (flags.Has("timeout_seconds")) {
    absl::StatusOr<int64_t> seconds =
        flags.GetInt("timeout_seconds", 0, 0, int64_t{1} << 40);
    if (!seconds.ok()) return seconds.status();
    update->set_timeout_seconds(*seconds);
  }
  if (flags.Has("quiet")) update->set_quiet(flags.Switch("quiet"));
  if (flags.Has("color_scheme")) {
    update->set_color_scheme(flags.Get("color_scheme"));
  }
  if (flags.Has("scale_meters")) {
    absl::StatusOr<double> scale = flags.GetDouble("scale_meters");
    if (!scale.ok()) return scale.status();
    update->set_scale_meters(*scale);
  }
  return absl::OkStatus();
}

const std::set<std::string> kRulesFlags = {
    "both_pharaohs_hit_draws", "automatic_repetition_draw", "ply_limit"};
const std::set<std::string> kSettingsFlags = {"timeout_enabled",
                                              "timeout_seconds", "quiet",
                                              "color_scheme", "scale_meters"};

std::set<std::string> Union(std::initializer_list<std::set<std::string>> sets) {
  std::set<std::string> out;
  for (const auto& s : sets) out.insert(s.begin(), s.end());
  return out;
}

// ---- watch
// -------------------------------------------------------------------

int RunWatch(Client& client, const std::string& session,
             int64_t after_version) {
  v1::WatchRequest request;
  request.set_session_id(session);
  request.set_after_version(after_version);
  auto context = client.Context(/*streaming=*/true);
  auto reader = client.stub().Watch(context.get(), request);
  v1::Event event;
  bool deleted = false;
  while (reader->Read(&event)) {
    std::cout << (client.json() ? ToJson(event, false) : EventLine(event))
              << std::endl;
    deleted = deleted || event.kind_case() == v1::Event::kSessionDeleted;
  }
  const grpc::Status status = reader->Finish();
  // The stream of a deleted session ends NOT_FOUND after its last event.
  if (status.ok() ||
      (deleted && status.error_code() == grpc::StatusCode::NOT_FOUND)) {
    return kExitOk;
  }
  return RpcError(status);
}

// ---- play
// --------------------------------------------------------------------

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
    "type a move (e4-e5, f4=g3, d1^d2, j1L), or: moves [SQ], board, hint "
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
  v1::RenderBoardRequest request;
  request.set_session_id(session);
  v1::RenderBoardResponse response;
  const grpc::Status status =
      client.stub().RenderBoard(client.Context().get(), request, &response);
  if (!status.ok()) {
    return absl::StrCat("(no board: ", StatusCodeName(status.error_code()),
                        ": ", status.error_message(), ")\n");
  }
  return response.text();
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
      Print(absl::StrCat("watch ended: ", StatusCodeName(status.error_code()),
                         ": ", status.error_message(), "\n"));
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
      PrintAndPrompt(absl::StrCat(StatusCodeName(status.error_code()), ": ",
                                  status.error_message(), "\n"));
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
        exit_code = kExitError;
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

// ---- Health
// ------------------------------------------------------------------

// grpc.health.v1 has no generated code in Debian's packages, so the check
// is a raw call: HealthCheckRequest{service = 1} in, HealthCheckResponse
// {status = 1} out.
std::string HealthStatusName(uint32_t status) {
  switch (status) {
    case 0:
      return "UNKNOWN";
    case 1:
      return "SERVING";
    case 2:
      return "NOT_SERVING";
    case 3:
      return "SERVICE_UNKNOWN";
    default:
      return absl::StrCat("status ", status);
  }
}

// The status field of a serialized HealthCheckResponse; nullopt if the
// bytes do not parse.
std::optional<uint32_t> ParseHealthStatus(const std::string& bytes) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  uint32_t status = 0;  // absent: UNKNOWN
  while (const uint32_t tag = in.ReadTag()) {
    if (tag == WireFormatLite::MakeTag(1, WireFormatLite::WIRETYPE_VARINT)) {
      if (!in.ReadVarint32(&status)) return std::nullopt;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return std::nullopt;
    }
  }
  if (!in.ConsumedEntireMessage()) return std::nullopt;
  return status;
}

int RunHealth(const CommandLine& flags, grpc::Channel& channel,
              int deadline_seconds) {
  const std::string service = flags.Get("service");
  std::string request_bytes;
  {
    google::protobuf::io::StringOutputStream stream(&request_bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    if (!service.empty()) {
      google::protobuf::internal::WireFormatLite::WriteString(1, service, &out);
    }
  }
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(deadline_seconds));
  const grpc::Status status =
      grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
          &channel,
          grpc::internal::RpcMethod("/grpc.health.v1.Health/Check",
                                    grpc::internal::RpcMethod::NORMAL_RPC),
          &context, request, &response);
  if (!status.ok()) return RpcError(status);
  std::vector<grpc::Slice> slices;
  std::string response_bytes;
  if (response.Dump(&slices).ok()) {
    for (const grpc::Slice& s : slices) {
      response_bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
  }
  const std::optional<uint32_t> health = ParseHealthStatus(response_bytes);
  if (!health.has_value()) {
    std::cerr << "khetctl: the health check's answer does not parse"
              << std::endl;
    return kExitError;
  }
  const std::string name = HealthStatusName(*health);
  if (flags.Switch("json")) {
    std::cout << "{\"status\": \"" << name << "\"}" << std::endl;
  } else {
    std::cout << name << std::endl;
  }
  return *health == 1 ? kExitOk : kExitError;
}

// ---- Commands
// ------------------------------------------------------------------

struct Command {
  std::set<std::string> flags;  // besides the global ones
  int positional;               // arguments after the session id (if any)
  bool needs_session;
};

const std::map<std::string, Command>& Commands() {
  static const auto* const kCommands = new std::map<std::string, Command>{
      {"setups", {{}, 0, false}},
      {"schemes", {{}, 0, false}},
      {"create",
       {Union({{"name", "setup", "position"}, kRulesFlags, kSettingsFlags}), 0,
        false}},
      {"get", {{"session"}, 0, true}},
      {"list", {{"status", "page_size", "page_token"}, 0, false}},
      {"delete", {{"session"}, 0, true}},
      {"join", {{"session", "name", "color"}, 0, true}},
      {"leave", {{"session", "color"}, 0, true}},
      {"computer", {{"session", "color", "level"}, 0, true}},
      {"levels", {{}, 0, false}},
      {"health", {{"service"}, 0, false}},
      {"suggest", {{"session", "level", "depth", "nodes", "time_ms"}, 0, true}},
      {"setup",
       {Union({{"session", "setup", "position"}, kRulesFlags}), 0, true}},
      {"move", {{"session", "expected_version", "request_id"}, 1, true}},
      {"moves", {{"session", "square"}, 0, true}},
      {"resign", {{"session"}, 0, true}},
      {"offer-draw", {{"session"}, 0, true}},
      {"accept-draw", {{"session"}, 0, true}},
      {"claim-draw", {{"session"}, 0, true}},
      {"settings", {Union({{"session"}, kSettingsFlags}), 0, true}},
      {"reset", {{"session"}, 0, true}},
      {"watch", {{"session", "after_version"}, 0, true}},
      {"board", {{"session", "without_laser"}, 0, true}},
      {"play",
       {Union({{"session", "color", "vs_computer", "name", "setup"},
               kRulesFlags}),
        0, true}},
  };
  return *kCommands;
}

int Run(int argc, char** argv) {
  CommandLine flags;
  if (std::optional<std::string> error = flags.Parse(argc, argv)) {
    return UsageError(*error);
  }
  std::vector<std::string> args = flags.positional();
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
  // play --vs_computer makes a session when it is given none.
  const bool session_optional = name == "play" && flags.Has("vs_computer");
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

  if (name == "setups") {
    return client.Call(
        &v1::KhetService::Stub::ListSetups, v1::ListSetupsRequest(),
        [](const v1::ListSetupsResponse& r) {
          std::string out;
          for (const v1::Setup& s : r.setups()) {
            absl::StrAppend(
                &out,
                absl::StrFormat("%-12s %-12s %s%s\n", s.id(), s.name(),
                                EditionName(s.edition()),
                                s.beam_splitter() ? ", Eye of Horus" : ""));
          }
          return out;
        });
  }
  if (name == "schemes") {
    return client.Call(
        &v1::KhetService::Stub::ListColorSchemes, v1::ListColorSchemesRequest(),
        [](const v1::ListColorSchemesResponse& r) {
          std::string out;
          for (const v1::ColorScheme& s : r.schemes()) {
            absl::StrAppend(
                &out,
                absl::StrFormat("%-10s %-32s silver %s  red %s  beam %s\n",
                                s.id(), s.name(), s.silver().hex(),
                                s.red().hex(), s.beam().hex()));
          }
          return out;
        });
  }
  if (name == "create") {
    v1::CreateSessionRequest request;
    request.set_name(flags.Get("name"));
    request.set_setup_id(flags.Get("setup"));
    request.set_position(flags.Get("position"));
    if (absl::Status s = RulesFromFlags(flags, request.mutable_rules());
        !s.ok()) {
      return UsageError(s.message());
    }
    if (absl::Status s = SettingsFromFlags(flags, request.mutable_settings());
        !s.ok()) {
      return UsageError(s.message());
    }
    return client.Call(&v1::KhetService::Stub::CreateSession, request,
                       [](const v1::CreateSessionResponse& r) {
                         return absl::StrCat(
                             SessionText(r.session()),
                             "owner token: ", r.owner_token(),
                             "\n(keep it: it is shown only once)\n");
                       });
  }
  if (name == "get") {
    v1::GetSessionRequest request;
    request.set_session_id(session);
    return client.Call(&v1::KhetService::Stub::GetSession, request,
                       SessionText);
  }
  if (name == "list") {
    v1::ListSessionsRequest request;
    absl::StatusOr<int64_t> page_size = flags.GetInt("page_size", 0, 0, 1000);
    if (!page_size.ok()) return UsageError(page_size.status().message());
    request.set_page_size(static_cast<int32_t>(*page_size));
    request.set_page_token(flags.Get("page_token"));
    if (flags.Has("status")) {
      const std::string status = absl::AsciiStrToLower(flags.Get("status"));
      if (status == "waiting") {
        request.set_status(v1::WAITING_FOR_PLAYERS);
      } else if (status == "in_progress") {
        request.set_status(v1::IN_PROGRESS);
      } else if (status == "finished") {
        request.set_status(v1::FINISHED);
      } else {
        return UsageError(absl::StrCat(
            "--status=", status, ": must be waiting, in_progress or finished"));
      }
    }
    return client.Call(
        &v1::KhetService::Stub::ListSessions, request,
        [](const v1::ListSessionsResponse& r) {
          std::string out;
          for (const v1::Session& s : r.sessions()) {
            absl::StrAppend(
                &out, absl::StrFormat("%-14s %-20s v%-5d %-12s %s\n", s.id(),
                                      StatusName(s.status()), s.version(),
                                      s.setup_id(), s.name()));
          }
          if (!r.next_page_token().empty()) {
            absl::StrAppend(&out, "more: --page_token ", r.next_page_token(),
                            "\n");
          }
          return out;
        });
  }
  if (name == "delete") {
    v1::DeleteSessionRequest request;
    request.set_session_id(session);
    return client.Call(&v1::KhetService::Stub::DeleteSession, request,
                       [&](const v1::DeleteSessionResponse&) {
                         return absl::StrCat("deleted ", session, "\n");
                       });
  }
  if (name == "join") {
    v1::JoinSeatRequest request;
    request.set_session_id(session);
    request.set_player_name(flags.Get("name"));
    if (flags.Has("color")) {
      absl::StatusOr<v1::Color> color = ParseColor(flags.Get("color"));
      if (!color.ok()) return UsageError(color.status().message());
      request.set_color(*color);
    }
    return client.Call(&v1::KhetService::Stub::JoinSeat, request,
                       [](const v1::JoinSeatResponse& r) {
                         return absl::StrCat(
                             "joined ", r.session().id(), " as ",
                             SideName(r.color()),
                             "\nplayer token: ", r.player_token(),
                             "\n(keep it: it is shown only once)\n");
                       });
  }
  if (name == "leave") {
    v1::LeaveSeatRequest request;
    request.set_session_id(session);
    if (flags.Has("color")) {
      absl::StatusOr<v1::Color> color = ParseColor(flags.Get("color"));
      if (!color.ok()) return UsageError(color.status().message());
      request.set_color(*color);
    }
    return client.Call(&v1::KhetService::Stub::LeaveSeat, request, SessionText);
  }
  if (name == "computer") {
    v1::SeatComputerRequest request;
    request.set_session_id(session);
    if (!flags.Has("level")) return UsageError("`computer` needs --level 1-5");
    absl::StatusOr<int64_t> level = flags.GetInt("level", 0, 1, 5);
    if (!level.ok()) return UsageError(level.status().message());
    request.set_level(static_cast<int32_t>(*level));
    if (flags.Has("color")) {
      absl::StatusOr<v1::Color> color = ParseColor(flags.Get("color"));
      if (!color.ok()) return UsageError(color.status().message());
      request.set_color(*color);
    }
    return client.Call(&v1::KhetService::Stub::SeatComputer, request,
                       SessionText);
  }
  if (name == "health") {
    return RunHealth(flags, **channel, static_cast<int>(*deadline));
  }
  if (name == "levels") {
    return client.Call(&v1::KhetService::Stub::ListLevels,
                       v1::ListLevelsRequest(), LevelsText);
  }
  if (name == "suggest") {
    v1::SuggestMoveRequest request;
    request.set_session_id(session);
    const bool limits =
        flags.Has("depth") || flags.Has("nodes") || flags.Has("time_ms");
    if (limits && flags.Has("level")) {
      return UsageError(
          "`suggest` takes --level or --depth/--nodes/--time_ms, not both");
    }
    if (flags.Has("level")) {
      absl::StatusOr<int64_t> level = flags.GetInt("level", 0, 1, 5);
      if (!level.ok()) return UsageError(level.status().message());
      request.set_level(static_cast<int32_t>(*level));
    } else if (limits) {
      absl::StatusOr<int64_t> depth = flags.GetInt("depth", 0, 0, 64);
      absl::StatusOr<int64_t> nodes =
          flags.GetInt("nodes", 0, 0, int64_t{1} << 40);
      absl::StatusOr<int64_t> time_ms =
          flags.GetInt("time_ms", 0, 0, 86'400'000);
      for (const auto* value : {&depth, &nodes, &time_ms}) {
        if (!value->ok()) return UsageError(value->status().message());
      }
      v1::SearchLimits* l = request.mutable_limits();
      l->set_max_depth(static_cast<int32_t>(*depth));
      l->set_max_nodes(*nodes);
      l->set_max_time_ms(*time_ms);
    }
    return client.Call(&v1::KhetService::Stub::SuggestMove, request,
                       SuggestionText);
  }
  if (name == "setup") {
    v1::ChooseSetupRequest request;
    request.set_session_id(session);
    request.set_setup_id(flags.Get("setup"));
    request.set_position(flags.Get("position"));
    if (absl::Status s = RulesFromFlags(flags, request.mutable_rules());
        !s.ok()) {
      return UsageError(s.message());
    }
    return client.Call(&v1::KhetService::Stub::ChooseSetup, request,
                       SessionText);
  }
  if (name == "move") {
    v1::MakeMoveRequest request;
    request.set_session_id(session);
    request.mutable_move()->set_notation(args[0]);
    if (flags.Has("expected_version")) {
      absl::StatusOr<int64_t> version = flags.GetInt(
          "expected_version", 0, 0, std::numeric_limits<int64_t>::max());
      if (!version.ok()) return UsageError(version.status().message());
      request.set_expected_version(*version);
    }
    request.set_request_id(flags.Get("request_id"));
    return client.Call(&v1::KhetService::Stub::MakeMove, request, MoveText);
  }
  if (name == "moves") {
    v1::ListLegalMovesRequest request;
    request.set_session_id(session);
    request.set_square(flags.Get("square"));
    return client.Call(&v1::KhetService::Stub::ListLegalMoves, request,
                       [](const v1::ListLegalMovesResponse& r) {
                         std::string out;
                         for (const v1::Move& m : r.moves()) {
                           absl::StrAppend(&out, m.notation(), "\n");
                         }
                         return out;
                       });
  }
  if (name == "resign") {
    v1::ResignRequest request;
    request.set_session_id(session);
    return client.Call(&v1::KhetService::Stub::Resign, request, SessionText);
  }
  if (name == "offer-draw") {
    v1::OfferDrawRequest request;
    request.set_session_id(session);
    return client.Call(&v1::KhetService::Stub::OfferDraw, request, SessionText);
  }
  if (name == "accept-draw") {
    v1::AcceptDrawRequest request;
    request.set_session_id(session);
    return client.Call(&v1::KhetService::Stub::AcceptDraw, request,
                       SessionText);
  }
  if (name == "claim-draw") {
    v1::ClaimRepetitionDrawRequest request;
    request.set_session_id(session);
    return client.Call(&v1::KhetService::Stub::ClaimRepetitionDraw, request,
                       SessionText);
  }
  if (name == "settings") {
    v1::UpdateSettingsRequest request;
    request.set_session_id(session);
    if (absl::Status s = SettingsFromFlags(flags, request.mutable_settings());
        !s.ok()) {
      return UsageError(s.message());
    }
    return client.Call(&v1::KhetService::Stub::UpdateSettings, request,
                       SessionText);
  }
  if (name == "reset") {
    v1::ResetGameRequest request;
    request.set_session_id(session);
    return client.Call(&v1::KhetService::Stub::ResetGame, request, SessionText);
  }
  if (name == "board") {
    v1::RenderBoardRequest request;
    request.set_session_id(session);
    request.set_without_laser(flags.Switch("without_laser"));
    return client.Call(
        &v1::KhetService::Stub::RenderBoard, request,
        [](const v1::RenderBoardResponse& r) { return r.text(); });
  }
  if (name == "watch") {
    absl::StatusOr<int64_t> after = flags.GetInt(
        "after_version", 0, 0, std::numeric_limits<int64_t>::max());
    if (!after.ok()) return UsageError(after.status().message());
    return RunWatch(client, session, *after);
  }
  if (name == "play") {
    std::optional<v1::Color> mine;
    if (flags.Has("color")) {
      absl::StatusOr<v1::Color> color = ParseColor(flags.Get("color"));
      if (!color.ok()) return UsageError(color.status().message());
      mine = *color;
    }
    if (flags.Has("vs_computer")) {
      absl::StatusOr<int64_t> level = flags.GetInt("vs_computer", 0, 1, 5);
      if (!level.ok()) return UsageError(level.status().message());
      return RunPlayVsComputer(client, flags, session, static_cast<int>(*level),
                               mine);
    }
    for (const std::string& flag : Union({{"name", "setup"}, kRulesFlags})) {
      if (flags.Has(flag)) {
        return UsageError(
            absl::StrCat("`play` takes --", flag, " only with --vs_computer"));
      }
    }
    return RunPlay(client, session, mine);
  }
  return UsageError(absl::StrCat("unknown command \"", name, "\""));
}

}  // namespace
}  // namespace khet

int main(int argc, char** argv) { return khet::Run(argc, argv); }
