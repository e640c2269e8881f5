// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-convert: the conversion benchmark. Does the computer finish the
// games it has won? Run `khet-convert --help` for the usage.
//
//   harvest  plays games between levels from the setups and writes, for
//            each game, the first position where one side is kWonLead
//            pieces up (tools/conversion_positions.h), stays so for the
//            next four plies of the game and is scored at least +150 by a
//            500,000-node search, and the side to move cannot hit a
//            Pharaoh at once: the benchmark's position set
//   run      plays each position of a set out, level 5 (the converter) on
//            the winning side against each opponent level, and reports
//            wins, draws and losses and the plies the wins took
//
// Without --use-time the levels' time limits are left out and only their
// depth and node limits apply, so a run replays exactly whatever the load.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/search.h"
#include "engine/setups.h"
#include "tools/conversion_positions.h"
#include "tools/random_opening.h"

namespace khet {
namespace {

constexpr std::string_view kUsage =
    R"(usage: khet-convert harvest [flags] > positions.txt
       khet-convert run --positions FILE [flags]

harvest flags:
  --games N          games to play (default 120), one position from each
  --setups LIST      comma-separated setup ids, cycled by game (default:
                     three families, Khet 2.0, Khet 1.0, Eye of Horus)
  --seed S           seed for the openings and the levels' noise (default 1)
  --nodes-scale F    multiply the levels' node limits by F (default 0.2)

run flags:
  --positions FILE   the position set (tools/data/conversion_positions.txt)
  --levels LIST      opponent levels (default 1,2,3,4,5)
  --converter L      the level playing the winning side (default 5)
  --plies N          plies to win in; then a draw (default 100)
  --first N          only the set's first N positions
  --nodes-scale F    multiply every node limit by F (default 1)
  --use-time         keep the levels' time limits (results depend on load)
  --require PCT      exit 1 unless every opponent's conversion is at least
                     PCT percent and no game is lost
  --verbose          print every game that was not won, with its moves
)";

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int UsageError(std::string_view message) {
  std::cerr << "khet-convert: " << message << "\n\n" << kUsage;
  return kExitUsage;
}

// A level's limits and style, with its node limit scaled and, unless
// use_time, its time limit left out.
struct Player {
  SearchLimits limits;
  SearchStyle style;
};

Player LevelPlayer(int number, double nodes_scale, bool use_time) {
  const Level level = *FindLevel(number);
  Player p{level.limits, level.style};
  if (p.limits.max_nodes > 0) {
    p.limits.max_nodes = std::max<uint64_t>(
        1, static_cast<uint64_t>(p.limits.max_nodes * nodes_scale));
  }
  if (!use_time && (p.limits.max_depth > 0 || p.limits.max_nodes > 0)) {
    p.limits.max_time = absl::ZeroDuration();
  }
  return p;
}

// True if the side to move has a move whose shot hits a Pharaoh.
bool PharaohHitInOne(const Position& pos) {
  MoveList moves;
  GenerateMoves(pos, &moves);
  for (const Move m : moves) {
    Position child = pos;
    if (MakeMove(&child, m) != 0) return true;
  }
  return false;
}

// Plays the game from `start` to its end and returns it; adds each side's
// search time and moves to seconds[] and moves[] (by Color).
Game PlayOut(const Position& start, const RuleOptions& rules,
             const Player* players /* by Color */, uint64_t seed,
             double* seconds, int* moves) {
  Game game(start, rules);
  std::vector<uint64_t> history;
  while (!game.over()) {
    const Position& pos = game.position();
    const int c = static_cast<int>(pos.side_to_move());
    SearchStyle style = players[c].style;
    style.seed = Mix(seed, game.ply());
    style.history = history;
    const SearchResult result = Search(pos, players[c].limits, style);
    seconds[c] += absl::ToDoubleSeconds(result.elapsed);
    moves[c] += 1;
    history.push_back(pos.hash());
    if (!game.Play(result.best_move).ok()) {
      std::cerr << "khet-convert: the engine's move was refused\n";
      std::abort();
    }
  }
  return game;
}

constexpr int kSettledPlies = 4;
// The judge of "clearly won": a fixed search's score for the winner.
constexpr uint64_t kJudgeNodes = 500000;
constexpr int kClearlyWon = 150;

int WinnerScore(const ConversionPosition& p) {
  SearchLimits limits;
  limits.max_nodes = kJudgeNodes;
  const int score = Search(p.position, limits).score;
  return p.position.side_to_move() == p.winner ? score : -score;
}

// The position a harvested game is cut at, if it reached one: the first
// where one side is kWonLead pieces up, stays so for kSettledPlies, the
// side to move cannot hit a Pharaoh at once, and a fixed search
// (kJudgeNodes) scores it kClearlyWon or more for the side ahead.
std::optional<ConversionPosition> HarvestGame(const std::string& setup,
                                              int game_number, int a, int b,
                                              double nodes_scale,
                                              uint64_t seed) {
  const Position start = *SetupPosition(setup);
  RuleOptions rules;
  rules.ply_limit = 200;
  rules.automatic_repetition_draw = true;
  Game game(start, rules);
  for (const Move m : RandomOpening(start, 2, Mix(seed, game_number))) {
    if (!game.Play(m).ok()) break;
  }
  const Player players[2] = {LevelPlayer(a, nodes_scale, false),
                             LevelPlayer(b, nodes_scale, false)};
  std::vector<uint64_t> history;
  // The lead must hold for kSettledPlies of the game's own continuation:
  // not a piece taken in an exchange the other side is about to answer.
  std::optional<ConversionPosition> candidate;
  while (!game.over()) {
    const Position& pos = game.position();
    if (candidate.has_value() && PieceLead(pos, candidate->winner) < kWonLead) {
      candidate.reset();
    }
    if (candidate.has_value() && game.ply() - candidate->ply >= kSettledPlies) {
      if (WinnerScore(*candidate) >= kClearlyWon) return candidate;
      candidate.reset();
    }
    for (const Color c : {Color::kSilver, Color::kRed}) {
      if (!candidate.has_value() && PieceLead(pos, c) >= kWonLead &&
          !PharaohHitInOne(pos)) {
        candidate = ConversionPosition{setup, game_number, game.ply(), c, pos};
      }
    }
    const int c = static_cast<int>(pos.side_to_move());
    SearchStyle style = players[c].style;
    style.seed = Mix(Mix(seed, game_number), game.ply());
    style.history = history;
    const SearchResult result = Search(pos, players[c].limits, style);
    history.push_back(pos.hash());
    if (!game.Play(result.best_move).ok()) std::abort();
  }
  return std::nullopt;
}

int Harvest(int games, const std::vector<std::string>& setups, uint64_t seed,
            double nodes_scale) {
  // Level pairs (Silver, Red), weaker and stronger on either side, so that
  // both colours win and the winners' play differs.
  constexpr int kPairs[][2] = {{3, 1}, {1, 4}, {4, 2}, {2, 3},
                               {3, 4}, {2, 1}, {4, 3}, {1, 2}};
  constexpr int kPairCount = sizeof(kPairs) / sizeof(kPairs[0]);
  std::cout << absl::StrFormat(
      "# khet-convert harvest --games %d --seed %d --nodes-scale %g "
      "--setups %s\n# setup game ply winner position\n",
      games, seed, nodes_scale, absl::StrJoin(setups, ","));
  int found = 0;
  for (int g = 1; g <= games; ++g) {
    const std::string& setup = setups[(g - 1) % setups.size()];
    const int* pair = kPairs[((g - 1) / setups.size()) % kPairCount];
    const std::optional<ConversionPosition> p =
        HarvestGame(setup, g, pair[0], pair[1], nodes_scale, seed);
    if (p.has_value()) {
      std::cout << FormatConversionPosition(*p) << "\n";
      ++found;
    }
  }
  std::cerr << absl::StrFormat("khet-convert: %d games, %d positions\n", games,
                               found);
  return kExitOk;
}

struct Tally {
  int wins = 0, limit_draws = 0, other_draws = 0, losses = 0;
  std::vector<int> win_plies;
  double converter_seconds = 0;
  int converter_moves = 0;
};

double Median(std::vector<int> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

struct RunOptions {
  std::vector<ConversionPosition> positions;
  std::vector<int> levels;
  int converter = 5;
  int plies = 100;
  double nodes_scale = 1.0;
  bool use_time = false;
  std::optional<double> require;
  bool verbose = false;
};

int RunBenchmark(const RunOptions& options) {
  const Player converter =
      LevelPlayer(options.converter, options.nodes_scale, options.use_time);
  RuleOptions rules;
  rules.ply_limit = options.plies;
  rules.automatic_repetition_draw = true;
  std::map<int, Tally> tallies;
  const absl::Time began = absl::Now();
  int played = 0;
  const int total =
      static_cast<int>(options.positions.size() * options.levels.size());
  for (const int level : options.levels) {
    Tally& t = tallies[level];
    const Player opponent =
        LevelPlayer(level, options.nodes_scale, options.use_time);
    for (size_t i = 0; i < options.positions.size(); ++i) {
      const ConversionPosition& p = options.positions[i];
      Player players[2];
      players[static_cast<int>(p.winner)] = converter;
      players[static_cast<int>(Opponent(p.winner))] = opponent;
      double seconds[2] = {0, 0};
      int moves[2] = {0, 0};
      const Game game =
          PlayOut(p.position, rules, players, Mix(level, i), seconds, moves);
      t.converter_seconds += seconds[static_cast<int>(p.winner)];
      t.converter_moves += moves[static_cast<int>(p.winner)];
      const Outcome won =
          p.winner == Color::kSilver ? Outcome::kSilverWins : Outcome::kRedWins;
      const GameResult& r = game.result();
      if (r.outcome == won) {
        ++t.wins;
        t.win_plies.push_back(game.ply());
      } else if (r.outcome == Outcome::kDraw) {
        (r.reason == ResultReason::kPlyLimit ? t.limit_draws : t.other_draws) +=
            1;
      } else {
        ++t.losses;
      }
      if (options.verbose && r.outcome != won) {
        std::vector<std::string> line;
        Position pos = p.position;
        for (const Move m : game.moves()) {
          line.push_back(FormatMove(pos, m));
          MakeMove(&pos, m);
        }
        std::cout << absl::StrFormat(
            "level %d v %d, position %d (%s game %d ply %d, %s wins): %s, "
            "%s, %d plies: %s\n",
            options.converter, level, i + 1, p.setup, p.game, p.ply,
            p.winner == Color::kSilver ? "silver" : "red",
            OutcomeName(r.outcome), ResultReasonName(r.reason), game.ply(),
            absl::StrJoin(line, " "));
      }
      ++played;
      if (played % 50 == 0) {
        std::cerr << absl::StrFormat(
            "khet-convert: %d/%d games, %.0f s\n", played, total,
            absl::ToDoubleSeconds(absl::Now() - began));
      }
    }
  }
  std::cout << absl::StrFormat(
      "converter level %d; %d positions; %d plies to win in; nodes x %g%s\n",
      options.converter, options.positions.size(), options.plies,
      options.nodes_scale, options.use_time ? ", time limits kept" : "");
  std::cout << "opponent  won  draw(limit)  draw(other)  lost  converted  "
               "plies(median)  plies(max)  converter ms/move\n";
  bool met = true;
  for (const int level : options.levels) {
    const Tally& t = tallies[level];
    const int n = static_cast<int>(options.positions.size());
    const double pct = n > 0 ? 100.0 * t.wins / n : 0;
    const int max_plies =
        t.win_plies.empty()
            ? 0
            : *std::max_element(t.win_plies.begin(), t.win_plies.end());
    std::cout << absl::StrFormat(
        "level %d   %4d  %11d  %11d  %4d  %8.1f%%  %13.1f  %10d  %17.1f\n",
        level, t.wins, t.limit_draws, t.other_draws, t.losses, pct,
        Median(t.win_plies), max_plies,
        t.converter_moves > 0 ? 1000 * t.converter_seconds / t.converter_moves
                              : 0.0);
    if (options.require.has_value() &&
        (pct < *options.require || t.losses > 0)) {
      met = false;
    }
  }
  std::cout << absl::StrFormat("time %.0f s\n",
                               absl::ToDoubleSeconds(absl::Now() - began));
  if (!met) {
    std::cout << absl::StrFormat(
        "FAILED: below %.1f%% converted, or a game lost\n", *options.require);
    return kExitFailed;
  }
  return kExitOk;
}

int Main(int argc, char** argv) {
  if (argc < 2) return UsageError("give a mode: harvest or run");
  const std::string mode = argv[1];
  if (mode == "--help" || mode == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  if (mode != "harvest" && mode != "run") {
    return UsageError("unknown mode \"" + mode + "\"");
  }
  const std::set<std::string> valued = {
      "games",  "setups",    "seed",  "nodes-scale", "positions",
      "levels", "converter", "plies", "first",       "require"};
  const std::set<std::string> switches = {"use-time", "verbose"};
  std::map<std::string, std::string> flags;
  for (int i = 2; i < argc; ++i) {
    std::string name = argv[i];
    if (name.size() < 3 || name.substr(0, 2) != "--") {
      return UsageError("unexpected argument \"" + name + "\"");
    }
    name = name.substr(2);
    if (switches.count(name) != 0) {
      flags[name] = "";
    } else if (valued.count(name) != 0 && i + 1 < argc) {
      flags[name] = argv[++i];
    } else {
      return UsageError("unknown flag, or no value: --" + name);
    }
  }
  auto int_flag = [&](const std::string& name, int fallback, int min,
                      int* out) {
    *out = fallback;
    return flags.count(name) == 0 ||
           (absl::SimpleAtoi(flags[name], out) && *out >= min);
  };
  double nodes_scale = mode == "harvest" ? 0.2 : 1.0;
  if (flags.count("nodes-scale") != 0 &&
      (!absl::SimpleAtod(flags["nodes-scale"], &nodes_scale) ||
       nodes_scale <= 0)) {
    return UsageError("--nodes-scale: a positive number");
  }
  if (mode == "harvest") {
    int games = 0, seed = 0;
    if (!int_flag("games", 120, 1, &games) || !int_flag("seed", 1, 0, &seed)) {
      return UsageError("--games and --seed: whole numbers");
    }
    std::vector<std::string> setups = {
        "classic-2", "classic-1",  "classic-2b", "imhotep-2",
        "imhotep-1", "osiris",     "dynasty-2",  "dynasty-1",
        "isis",      "imhotep-2b", "dynasty-1b", "classic-1b"};
    if (flags.count("setups") != 0) {
      setups = absl::StrSplit(flags["setups"], ',', absl::SkipEmpty());
    }
    for (const std::string& id : setups) {
      if (!FindSetup(id).ok()) return UsageError("no setup \"" + id + "\"");
    }
    if (setups.empty()) return UsageError("--setups: none given");
    return Harvest(games, setups, static_cast<uint64_t>(seed), nodes_scale);
  }

  RunOptions options;
  if (flags.count("positions") == 0) return UsageError("give --positions");
  std::ifstream in(flags["positions"]);
  if (!in) return UsageError("cannot read " + flags["positions"]);
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<ConversionPosition>> positions =
      ParseConversionPositions(text.str());
  if (!positions.ok()) {
    std::cerr << "khet-convert: " << flags["positions"] << ": "
              << positions.status().message() << "\n";
    return kExitUsage;
  }
  options.positions = *std::move(positions);
  int first = 0;
  if (!int_flag("first", 0, 1, &first) ||
      !int_flag("plies", 100, 1, &options.plies) ||
      !int_flag("converter", 5, 1, &options.converter) ||
      !FindLevel(options.converter).ok()) {
    return UsageError("--first, --plies, --converter: bad value");
  }
  if (first > 0 && first < static_cast<int>(options.positions.size())) {
    options.positions.resize(first);
  }
  for (const absl::string_view item : absl::StrSplit(
           flags.count("levels") != 0 ? flags["levels"] : "1,2,3,4,5", ',',
           absl::SkipEmpty())) {
    int level = 0;
    if (!absl::SimpleAtoi(item, &level) || !FindLevel(level).ok()) {
      return UsageError("--levels: levels are 1 to 5");
    }
    options.levels.push_back(level);
  }
  double require = 0;
  if (flags.count("require") != 0) {
    if (!absl::SimpleAtod(flags["require"], &require)) {
      return UsageError("--require: a percentage");
    }
    options.require = require;
  }
  options.nodes_scale = nodes_scale;
  options.use_time = flags.count("use-time") != 0;
  options.verbose = flags.count("verbose") != 0;
  return RunBenchmark(options);
}

}  // namespace
}  // namespace khet

int main(int argc, char** argv) { return khet::Main(argc, argv); }
