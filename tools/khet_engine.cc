// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-engine: the rules engine on the command line. Lists the setups,
// counts perft, shows a laser's path, plays a demonstration game, searches a
// position, checks files of game records and runs a fixed benchmark. Run
// `khet-engine help` for the usage.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "engine/bitboard.h"
#include "engine/board_text.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/perft.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/search.h"
#include "engine/setups.h"
#include "khet_version.h"

namespace khet {
namespace {

constexpr std::string_view kUsage =
    R"(usage: khet-engine <command> [flags]

commands:
  setups
      List the named starting setups: id, name, edition.
  perft (--setup ID | --position TEXT) --depth N [--divide] [--no-bulk]
        [--physical-facings]
      Count the leaf positions N moves deep, with the time taken.
      --divide   also the count below each first move
      --no-bulk  play every last move instead of counting them
      --physical-facings  the rule option: Pharaohs, Scarabs and Eyes have
                 four facings, each quarter turn a move (a position written
                 with the "f" field has them already)
  trace (--setup ID | --position TEXT) [--shooter silver|red]
        [--physical-facings]
      Show the board with the path of one laser (default: the side to move's)
      as if it fired now, and the beams as text.
  play [--setup ID | --position TEXT] [--plies N] [--seed S] [--delay-ms D]
      A demonstration game between two simple players, shown move by move,
      ending with its game record. Defaults: classic-2, 200 plies (then a
      draw by the ply limit), a random seed, 300 ms between moves on a
      terminal and none otherwise.
  search (--setup ID | --position TEXT) [--depth N] [--nodes N]
         [--time-ms T] [--level L] [--seed S]
      The computer opponent's choice: best move, score (hundredths of a
      Pyramid, side to move's view; "win in N"/"loss in N" when forced),
      principal variation, depth, nodes and speed. --level 1..5 takes that
      level's limits and style; --depth, --nodes and --time-ms then replace
      its limits. Without any: depth 5.
  records --file PATH [--format]
      Read a file of game records (docs/notation.md; PATH - for standard
      input) and replay every one: a line for each (the line it starts on,
      its start, plies and result), or the first error, naming its line and
      move, and exit status 1. --format prints the records as the engine
      writes them instead.
  bench
      Fixed perft runs on Classic 2 (depth 5 bulk, depth 4 without bulk
      counting: every last move played and fired) and fixed searches
      (depths 5 and 7 from Classic 2, median of five runs), with times and
      speed.
  help
      This text.
  --version
      The release: "khet-engine MAJOR.MINOR.PATCH".

Positions are in the notation of docs/notation.md, e.g. --position
'xs3askaspse2/... s 2' (in single quotes: it holds spaces and backslashes).
)";

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

int UsageError(absl::string_view message) {
  std::cerr << "khet-engine: " << message << "\n\n" << kUsage;
  return kExitUsage;
}

// The flags given to a command: "--name value", "--name=value" or, for the
// switches, "--name".
class Flags {
 public:
  // Reads argv[first..argc). `valued` and `switches` are the flag names the
  // command accepts, without the dashes. On error returns the message.
  std::optional<std::string> Parse(int argc, char** argv, int first,
                                   const std::set<std::string>& valued,
                                   const std::set<std::string>& switches) {
    for (int i = first; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg.size() < 3 || arg.substr(0, 2) != "--") {
        return "unexpected argument \"" + arg + "\"";
      }
      std::string name = arg.substr(2);
      std::optional<std::string> value;
      if (const size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      if (switches.count(name) != 0) {
        if (value.has_value()) return "--" + name + " takes no value";
        values_[name] = "";
        continue;
      }
      if (valued.count(name) == 0) return "unknown flag --" + name;
      if (!value.has_value()) {
        if (i + 1 >= argc) return "--" + name + " needs a value";
        value = argv[++i];
      }
      if (values_.count(name) != 0) return "--" + name + " is given twice";
      values_[name] = *value;
    }
    return std::nullopt;
  }

  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  const std::string& Get(const std::string& name) const {
    return values_.at(name);
  }

  // The flag as a whole number in [min, max]; `fallback` if absent.
  absl::StatusOr<int64_t> GetInt(const std::string& name, int64_t fallback,
                                 int64_t min, int64_t max) const {
    if (!Has(name)) return fallback;
    int64_t value = 0;
    if (!absl::SimpleAtoi(Get(name), &value) || value < min || value > max) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--%s \"%s\": must be a whole number from %d to %d",
                          name, Get(name), min, max));
    }
    return value;
  }

 private:
  std::map<std::string, std::string> values_;
};

// The position given by --setup or --position; `fallback_setup` if neither
// (empty: one of them is required).
absl::StatusOr<Position> PositionFromFlags(const Flags& flags,
                                           std::string_view fallback_setup) {
  if (flags.Has("setup") && flags.Has("position")) {
    return absl::InvalidArgumentError("give --setup or --position, not both");
  }
  if (flags.Has("position")) {
    absl::StatusOr<Position> pos = ParsePosition(flags.Get("position"));
    if (!pos.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--position: %s", pos.status().message()));
    }
    if (flags.Has("physical-facings")) pos->SetPhysicalFacings(true);
    return pos;
  }
  std::string id(fallback_setup);
  if (flags.Has("setup")) id = flags.Get("setup");
  if (id.empty()) {
    return absl::InvalidArgumentError("give --setup ID or --position TEXT");
  }
  absl::StatusOr<Position> pos = SetupPosition(id);
  if (!pos.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--setup: %s (see khet-engine setups)", pos.status().message()));
  }
  if (flags.Has("physical-facings")) pos->SetPhysicalFacings(true);
  return pos;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string Speed(uint64_t nodes, double seconds) {
  if (seconds <= 0) return "-";
  return absl::StrFormat("%.2f Mnodes/s", nodes / seconds / 1e6);
}

// ---- setups ----------------------------------------------------------------

int RunSetups() {
  for (const SetupInfo& info : AllSetups()) {
    std::cout << absl::StrFormat(
        "%-12s %-12s %s%s\n", info.id, info.name,
        info.edition == Edition::kKhet1 ? "Khet 1.0" : "Khet 2.0",
        info.beam_splitter ? ", Eye of Horus" : "");
  }
  return kExitOk;
}

// ---- perft -----------------------------------------------------------------

int RunPerft(const Flags& flags) {
  absl::StatusOr<Position> pos = PositionFromFlags(flags, "");
  if (!pos.ok()) return UsageError(pos.status().message());
  if (!flags.Has("depth")) return UsageError("perft needs --depth N");
  absl::StatusOr<int64_t> depth = flags.GetInt("depth", 0, 1, 20);
  if (!depth.ok()) return UsageError(depth.status().message());
  const bool bulk = !flags.Has("no-bulk");
  const int d = static_cast<int>(*depth);

  const auto start = std::chrono::steady_clock::now();
  uint64_t nodes = 0;
  if (flags.Has("divide")) {
    // PerftDivide counts in bulk; without bulk, divide by hand the same way.
    std::vector<std::pair<Move, uint64_t>> divide;
    if (bulk) {
      divide = PerftDivide(*pos, d);
    } else {
      MoveList moves;
      GenerateMoves(*pos, &moves);
      for (Move m : moves) {
        Position child = *pos;
        const bool over = MakeMove(&child, m) != 0;
        divide.emplace_back(m, d == 1 ? 1
                               : over
                                   ? 0
                                   : Perft(child, d - 1, /*bulk_count=*/false));
      }
    }
    for (const auto& [move, count] : divide) {
      std::cout << FormatMove(*pos, move) << ": " << count << "\n";
      nodes += count;
    }
    std::cout << "moves " << divide.size() << "\n";
  } else {
    nodes = Perft(*pos, d, bulk);
  }
  const double seconds = SecondsSince(start);
  std::cout << absl::StrFormat("depth %d%s: %d nodes\n", d,
                               bulk ? "" : " (no bulk)", nodes);
  std::cout << absl::StrFormat("time %.3f s, %s\n", seconds,
                               Speed(nodes, seconds));
  return kExitOk;
}

// ---- trace -----------------------------------------------------------------

int RunTrace(const Flags& flags) {
  absl::StatusOr<Position> pos = PositionFromFlags(flags, "");
  if (!pos.ok()) return UsageError(pos.status().message());
  Color shooter = pos->side_to_move();
  if (flags.Has("shooter")) {
    const std::string& s = flags.Get("shooter");
    if (s == "silver") {
      shooter = Color::kSilver;
    } else if (s == "red") {
      shooter = Color::kRed;
    } else {
      return UsageError("--shooter \"" + s + "\": must be silver or red");
    }
  }
  const BeamTrace trace = TraceLaser(*pos, shooter);
  std::cout << RenderBoard(*pos, &trace)
            << (shooter == Color::kSilver ? "Silver" : "Red") << "'s laser:\n"
            << FormatTrace(trace);
  return kExitOk;
}

// ---- play ------------------------------------------------------------------

// The demonstration player: wins at once if it can, never shoots its own
// Pharaoh, avoids moves after which the opponent can hit its Pharaoh with
// one move, prefers taking more enemy pieces than it loses, and otherwise
// picks at random.
class DemoPlayer {
 public:
  explicit DemoPlayer(uint64_t seed) : random_(seed) {}

  Move Choose(const Game& game) {
    const Position& pos = game.position();
    const Color me = pos.side_to_move();
    const Color them = Opponent(me);
    const bool both_draw = game.options().both_pharaohs_hit_draws;
    MoveList moves;
    GenerateMoves(pos, &moves);
    int best_score = INT32_MIN;
    std::vector<Move> best;
    for (Move m : moves) {
      Position child = pos;
      const PharaohsHit hit = MakeMove(&child, m);
      const int score = Score(pos, child, hit, me, them, both_draw);
      if (score > best_score) {
        best_score = score;
        best.clear();
      }
      if (score == best_score) best.push_back(m);
    }
    std::uniform_int_distribution<size_t> pick(0, best.size() - 1);
    return best[pick(random_)];
  }

 private:
  static int Score(const Position& before, const Position& after,
                   PharaohsHit hit, Color me, Color them, bool both_draw) {
    const bool mine = PharaohWasHit(hit, me);
    const bool theirs = PharaohWasHit(hit, them);
    if (mine && theirs) return both_draw ? 0 : -100000;
    if (mine) return -100000;
    if (theirs) return 100000;
    const int taken =
        PopCount(before.occupied(them)) - PopCount(after.occupied(them));
    const int lost =
        PopCount(before.occupied(me)) - PopCount(after.occupied(me));
    const int material = 10 * (taken - lost);
    return OpponentCanHitMe(after, me) ? material - 1000 : material;
  }

  // Whether `pos` (the opponent to move) has a move that hits me.
  static bool OpponentCanHitMe(const Position& pos, Color me) {
    MoveList replies;
    GenerateMoves(pos, &replies);
    for (Move r : replies) {
      Position child = pos;
      const PharaohsHit hit = MakeMove(&child, r);
      if (PharaohWasHit(hit, me) && !PharaohWasHit(hit, Opponent(me))) {
        return true;
      }
    }
    return false;
  }

  std::mt19937_64 random_;
};

std::string ResultText(const GameResult& result) {
  std::string_view token = "*";
  if (result.outcome == Outcome::kSilverWins) token = "1-0";
  if (result.outcome == Outcome::kRedWins) token = "0-1";
  if (result.outcome == Outcome::kDraw) token = "1/2-1/2";
  return absl::StrFormat("%s (%s, %s)", token, OutcomeName(result.outcome),
                         ResultReasonName(result.reason));
}

int RunPlay(const Flags& flags) {
  absl::StatusOr<Position> start = PositionFromFlags(flags, "classic-2");
  if (!start.ok()) return UsageError(start.status().message());
  absl::StatusOr<int64_t> plies = flags.GetInt("plies", 200, 1, 100000);
  if (!plies.ok()) return UsageError(plies.status().message());
  // Watchable in a terminal; instant when the output goes to a file or pipe.
  const int64_t default_delay = isatty(STDOUT_FILENO) ? 300 : 0;
  absl::StatusOr<int64_t> delay_ms =
      flags.GetInt("delay-ms", default_delay, 0, 60000);
  if (!delay_ms.ok()) return UsageError(delay_ms.status().message());
  const uint64_t random_seed = std::random_device{}();
  absl::StatusOr<int64_t> seed = flags.GetInt(
      "seed", static_cast<int64_t>(random_seed & 0x7fffffff), 0, UINT32_MAX);
  if (!seed.ok()) return UsageError(seed.status().message());

  RuleOptions options;
  options.ply_limit = static_cast<int>(*plies);
  Game game(*start, options);
  DemoPlayer player(static_cast<uint64_t>(*seed));
  std::cout << absl::StrFormat(
                   "Demonstration game, seed %d (--seed %d "
                   "replays it)\n",
                   *seed, *seed)
            << RenderBoard(game.position(), nullptr) << "\n";

  while (!game.over()) {
    const Color mover = game.position().side_to_move();
    if (game.RepetitionCount() >= 3) {
      if (absl::Status s = game.ClaimRepetitionDraw(mover); !s.ok()) {
        std::cerr << "khet-engine: " << s.message() << "\n";
        return kExitError;
      }
      std::cout << ColorName(mover) << " claims a draw by repetition.\n";
      break;
    }
    const Position before = game.position();
    const Move move = player.Choose(game);
    absl::StatusOr<MoveEffects> effects = game.Play(move);
    if (!effects.ok()) {
      std::cerr << "khet-engine: the demo player chose "
                << FormatMove(before, move)
                << ", which failed: " << effects.status().message() << "\n";
      return kExitError;
    }
    // The board as the laser saw it: after the move, before the removals.
    Position shot = game.position();
    for (const Removal& r : effects->removals) shot.Set(r.square, r.before);
    const BeamTrace trace = TraceLaser(shot, mover);
    std::cout << absl::StrFormat("ply %d: %s plays %s\n", game.ply(),
                                 ColorName(mover), FormatMove(before, move))
              << RenderBoard(shot, &trace) << FormatTrace(trace);
    for (const Removal& r : effects->removals) {
      std::cout << "removed: " << DescribePiece(r.before, shot.edition())
                << " on " << SquareName(r.square)
                << (r.after.empty() ? "" : " (one of the stack)") << "\n";
    }
    std::cout << "\n" << std::flush;
    if (*delay_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(*delay_ms));
    }
  }

  std::cout << "Result: " << ResultText(game.result()) << "\n\n"
            << FormatGameRecord(game, {{"Event", "khet-engine demo"},
                                       {"Seed", absl::StrFormat("%d", *seed)}});
  return kExitOk;
}

// ---- records ---------------------------------------------------------------

int RunRecords(const Flags& flags) {
  if (!flags.Has("file")) return UsageError("records needs --file PATH");
  const std::string path = flags.Get("file");
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) {
      std::cerr << "khet-engine: cannot read " << path << "\n";
      return kExitError;
    }
  }
  std::stringstream text;
  text << (path == "-" ? std::cin.rdbuf() : file.rdbuf());
  const absl::StatusOr<std::vector<GameRecord>> records =
      ParseGameRecords(text.str());
  if (!records.ok()) {
    std::cerr << "khet-engine: " << path << ": " << records.status().message()
              << "\n";
    return kExitError;
  }
  if (flags.Has("format")) {
    std::cout << FormatGameRecords(*records);
    return kExitOk;
  }
  for (const GameRecord& record : *records) {
    std::string start = FormatPosition(record.game.start());
    for (const SetupInfo& info : AllSetups()) {
      const absl::StatusOr<Position> setup = SetupPosition(info.id);
      if (setup.ok() && *setup == record.game.start()) {
        start = std::string(info.id);
      }
    }
    std::cout << absl::StrFormat("line %d: %s, %d plies, %s\n", record.line,
                                 start, record.game.ply(),
                                 ResultText(record.game.result()));
  }
  return kExitOk;
}

// ---- search ----------------------------------------------------------------

std::string ScoreText(int score) {
  if (score >= kMateThreshold) {
    return absl::StrFormat("win in %d", kMateScore - score);
  }
  if (score <= -kMateThreshold) {
    return absl::StrFormat("loss in %d", kMateScore + score);
  }
  return absl::StrFormat("%+d", score);
}

// The moves of `pv` in notation, each read in the position it is played in.
std::string PvText(const Position& start, const std::vector<Move>& pv) {
  std::string text;
  Position pos = start;
  for (const Move m : pv) {
    if (!text.empty()) text += " ";
    text += FormatMove(pos, m);
    if (!ApplyMove(&pos, m).ok()) break;
  }
  return text;
}

int RunSearch(const Flags& flags) {
  absl::StatusOr<Position> pos = PositionFromFlags(flags, "");
  if (!pos.ok()) return UsageError(pos.status().message());
  SearchLimits limits;
  SearchStyle style;
  std::string level_name;
  if (flags.Has("level")) {
    absl::StatusOr<int64_t> number = flags.GetInt("level", 0, 1, 5);
    if (!number.ok()) return UsageError(number.status().message());
    const absl::StatusOr<Level> level = FindLevel(static_cast<int>(*number));
    if (!level.ok()) return UsageError(level.status().message());
    limits = level->limits;
    style = level->style;
    level_name = absl::StrFormat("level %d %s, ", level->number, level->name);
  }
  absl::StatusOr<int64_t> depth = flags.GetInt("depth", 0, 1, 60);
  absl::StatusOr<int64_t> nodes = flags.GetInt("nodes", 0, 1, INT64_MAX);
  absl::StatusOr<int64_t> time_ms = flags.GetInt("time-ms", 0, 1, 86400000);
  absl::StatusOr<int64_t> seed = flags.GetInt("seed", 0, 0, INT64_MAX);
  for (const auto* v : {&depth, &nodes, &time_ms, &seed}) {
    if (!v->ok()) return UsageError(v->status().message());
  }
  if (flags.Has("depth") || flags.Has("nodes") || flags.Has("time-ms")) {
    limits = SearchLimits();
    limits.max_depth = static_cast<int>(*depth);
    limits.max_nodes = static_cast<uint64_t>(*nodes);
    if (*time_ms > 0) limits.max_time = absl::Milliseconds(*time_ms);
  } else if (!flags.Has("level")) {
    limits.max_depth = 5;
  }
  if (flags.Has("seed")) style.seed = static_cast<uint64_t>(*seed);

  const SearchResult result = Search(*pos, limits, style);
  const double seconds = absl::ToDoubleSeconds(result.elapsed);
  std::cout << absl::StrFormat("%sdepth %d, %d nodes, %.3f s, %s\n", level_name,
                               result.depth, result.nodes, seconds,
                               Speed(result.nodes, seconds));
  if (result.best_move.is_null()) {
    std::cout << "no legal move\n";
    return kExitOk;
  }
  std::cout << "best move " << FormatMove(*pos, result.best_move) << "\n"
            << "score " << ScoreText(result.score) << "\n"
            << "pv " << PvText(*pos, result.principal_variation) << "\n";
  return kExitOk;
}

// ---- bench -----------------------------------------------------------------

int RunBench() {
  absl::StatusOr<Position> pos = SetupPosition("classic-2");
  if (!pos.ok()) {
    std::cerr << "khet-engine: " << pos.status().message() << "\n";
    return kExitError;
  }
  struct Run {
    int depth;
    bool bulk;
  };
  uint64_t total_nodes = 0;
  double total_seconds = 0;
  for (const Run run : {Run{5, true}, Run{4, false}}) {
    const auto start = std::chrono::steady_clock::now();
    const uint64_t nodes = Perft(*pos, run.depth, run.bulk);
    const double seconds = SecondsSince(start);
    total_nodes += nodes;
    total_seconds += seconds;
    std::cout << absl::StrFormat(
        "classic-2 perft %d %-8s %12d nodes %8.3f s %s\n", run.depth,
        run.bulk ? "bulk" : "no-bulk", nodes, seconds, Speed(nodes, seconds));
  }
  std::cout << absl::StrFormat("total %d nodes %.3f s %s\n", total_nodes,
                               total_seconds,
                               Speed(total_nodes, total_seconds));

  // The computer opponent: fixed searches, the same nodes every run; the
  // median time of five runs of each.
  for (const int depth : {5, 7}) {
    SearchLimits limits;
    limits.max_depth = depth;
    SearchResult result;
    std::vector<double> times;
    for (int run = 0; run < 5; ++run) {
      result = Search(*pos, limits);
      times.push_back(absl::ToDoubleSeconds(result.elapsed));
    }
    std::sort(times.begin(), times.end());
    const double seconds = times[times.size() / 2];
    std::cout << absl::StrFormat(
        "classic-2 search %d %12d nodes %8.3f s %s, best %s, score %s\n", depth,
        result.nodes, seconds, Speed(result.nodes, seconds),
        FormatMove(*pos, result.best_move), ScoreText(result.score));
  }
  return kExitOk;
}

int Main(int argc, char** argv) {
  if (argc < 2) return UsageError("no command given");
  const std::string command = argv[1];
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "khet-engine " << kVersion << "\n";
    return kExitOk;
  }
  struct Command {
    std::set<std::string> valued;
    std::set<std::string> switches;
  };
  const std::map<std::string, Command> commands = {
      {"setups", {}},
      {"perft",
       {{"setup", "position", "depth"},
        {"divide", "no-bulk", "physical-facings"}}},
      {"trace", {{"setup", "position", "shooter"}, {"physical-facings"}}},
      {"play", {{"setup", "position", "plies", "seed", "delay-ms"}, {}}},
      {"search",
       {{"setup", "position", "depth", "nodes", "time-ms", "level", "seed"},
        {}}},
      {"records", {{"file"}, {"format"}}},
      {"bench", {}},
  };
  const auto it = commands.find(command);
  if (it == commands.end()) {
    return UsageError("unknown command \"" + command + "\"");
  }
  Flags flags;
  if (std::optional<std::string> error =
          flags.Parse(argc, argv, 2, it->second.valued, it->second.switches)) {
    return UsageError(command + ": " + *error);
  }
  if (command == "setups") return RunSetups();
  if (command == "perft") return RunPerft(flags);
  if (command == "trace") return RunTrace(flags);
  if (command == "play") return RunPlay(flags);
  if (command == "search") return RunSearch(flags);
  if (command == "records") return RunRecords(flags);
  return RunBench();
}

}  // namespace
}  // namespace khet

int main(int argc, char** argv) { return khet::Main(argc, argv); }
