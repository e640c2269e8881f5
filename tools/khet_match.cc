// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet-match: plays two engine configurations against each other over many
// games and reports wins, draws, losses and the Elo difference with its
// 95% error margin. Run `khet-match --help` for the usage.
//
// Games come in pairs: both games of a pair start from the same setup and
// the same short random opening, with the colours swapped, so neither side
// gains from the setup or the opening. Pairs cycle through the setups.
// Without --use-time the levels' time limits are left out and only their
// depth and node limits apply: a match then replays exactly, whatever the
// machine's load.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/game_record.h"
#include "engine/move.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/search.h"
#include "engine/setups.h"
#include "tools/random_opening.h"

namespace khet {
namespace {

constexpr std::string_view kUsage =
    R"(usage: khet-match --a SPEC --b SPEC [flags]
       khet-match --round-robin LEVELS [flags]

Plays SPEC A against SPEC B and reports the result from A's view. With
--round-robin (e.g. 1,2,3,4,5) every pair of those levels plays --games
games, the higher level as A, and a table of the pairs' Elo differences
and the levels' ratings follows.

SPEC is a level number 1..5, or comma-separated settings:
  level=L      start from level L's limits and style (1..5)
  depth=N      search depth limit (plies)
  nodes=N      node limit per move
  time-ms=T    time limit per move (used only with --use-time)
  noise=N      score noise at the root (+-N)
  blunder=P    chance 0..1 of a careless move
e.g. --a 3, --a level=4,nodes=100000, --b depth=3.

flags:
  --games N          games to play (default 100); pairs share an opening
  --threads T        games played at once (default 2)
  --nodes-scale F    multiply every node limit by F (default 1), for
                     quicker runs with the levels' proportions kept
  --plies N          ply limit: a game this long is a draw (default 200)
  --setups LIST      comma-separated setup ids, cycled by pair (default
                     classic-2,imhotep-2,dynasty-2,classic-1,classic-2b)
  --opening-plies N  random opening plies shared by a pair (default 2)
  --seed S           seed for openings and noise (default 1)
  --use-time         keep time limits (results then depend on the load)
  --verbose          print every game's result and moves
)";

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;

int UsageError(absl::string_view message) {
  std::cerr << "khet-match: " << message << "\n\n" << kUsage;
  return kExitUsage;
}

// One side of the match.
struct Player {
  std::string label;  // for the report
  SearchLimits limits;
  SearchStyle style;
};

absl::StatusOr<Player> ParsePlayer(absl::string_view spec) {
  Player player;
  int64_t level_number = 0;
  if (absl::SimpleAtoi(spec, &level_number)) {
    spec = "";
  }
  std::vector<std::pair<std::string, std::string>> settings;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    const std::vector<std::string> kv = absl::StrSplit(item, '=');
    if (kv.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrFormat("\"%s\": a setting is name=value", item));
    }
    if (kv[0] == "level") {
      if (!absl::SimpleAtoi(kv[1], &level_number)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("level \"%s\": not a number", kv[1]));
      }
    } else {
      settings.emplace_back(kv[0], kv[1]);
    }
  }
  std::string label;
  if (level_number != 0) {
    const absl::StatusOr<Level> level =
        FindLevel(static_cast<int>(level_number));
    if (!level.ok()) return level.status();
    player.limits = level->limits;
    player.style = level->style;
    label = absl::StrFormat("level %d %s", level->number, level->name);
  } else {
    player.limits = SearchLimits();
  }
  for (const auto& [name, value] : settings) {
    int64_t n = 0;
    double x = 0;
    const bool is_int = absl::SimpleAtoi(value, &n) && n >= 0;
    if (name == "depth" && is_int) {
      player.limits.max_depth = static_cast<int>(n);
    } else if (name == "nodes" && is_int) {
      player.limits.max_nodes = static_cast<uint64_t>(n);
    } else if (name == "time-ms" && is_int) {
      player.limits.max_time = absl::Milliseconds(n);
    } else if (name == "noise" && is_int) {
      player.style.score_noise = static_cast<int>(n);
    } else if (name == "blunder" && absl::SimpleAtod(value, &x) && x >= 0 &&
               x <= 1) {
      player.style.blunder_chance = x;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "setting %s=%s: unknown, or a bad value", name, value));
    }
    label += absl::StrFormat("%s%s=%s", label.empty() ? "" : ", ", name, value);
  }
  if (player.limits.max_depth == 0 && player.limits.max_nodes == 0 &&
      player.limits.max_time == absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("\"%s\": give a level or some limit", spec));
  }
  player.label = label;
  return player;
}

std::string LimitsText(const SearchLimits& l, const SearchStyle& s) {
  std::vector<std::string> parts;
  if (l.max_depth > 0)
    parts.push_back(absl::StrFormat("depth %d", l.max_depth));
  if (l.max_nodes > 0)
    parts.push_back(absl::StrFormat("%d nodes", l.max_nodes));
  if (l.max_time > absl::ZeroDuration()) {
    parts.push_back(
        absl::StrFormat("%d ms", absl::ToInt64Milliseconds(l.max_time)));
  }
  if (s.score_noise > 0)
    parts.push_back(absl::StrFormat("noise %d", s.score_noise));
  if (s.blunder_chance > 0) {
    parts.push_back(absl::StrFormat("blunders %.0f%%", s.blunder_chance * 100));
  }
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
  return text;
}

struct GameRecordLine {
  int index = 0;
  std::string setup;
  bool a_is_silver = true;
  double a_score = 0;  // 1, 0.5 or 0
  GameResult result;
  int plies = 0;
  uint64_t nodes[2] = {0, 0};  // by player: A, B
  int moves[2] = {0, 0};
  double seconds[2] = {0, 0};
  std::string record;
};

struct MatchOptions {
  Player players[2];  // A, B
  int games = 100;
  int threads = 2;
  int plies = 200;
  int opening_plies = 2;
  uint64_t seed = 1;
  bool verbose = false;
  std::vector<std::string> setups;
};

GameRecordLine PlayOne(const MatchOptions& options, int index) {
  GameRecordLine line;
  line.index = index;
  const int pair = index / 2;
  line.setup = options.setups[pair % options.setups.size()];
  line.a_is_silver = index % 2 == 0;
  const Position start = *SetupPosition(line.setup);
  RuleOptions rules;
  rules.ply_limit = options.plies;
  rules.automatic_repetition_draw = true;
  Game game(start, rules);
  for (const Move m :
       RandomOpening(start, options.opening_plies, Mix(options.seed, pair))) {
    if (!game.Play(m).ok() || game.over()) break;
  }
  std::vector<uint64_t> history;
  for (int ply = 0; ply < game.ply(); ++ply) {
    Position p = start;
    for (int i = 0; i < ply; ++i) MakeMove(&p, game.moves()[i]);
    history.push_back(p.hash());
  }
  while (!game.over()) {
    const Position& pos = game.position();
    const bool silver_to_move = pos.side_to_move() == Color::kSilver;
    const int who = silver_to_move == line.a_is_silver ? 0 : 1;
    const Player& player = options.players[who];
    SearchStyle style = player.style;
    style.seed = Mix(Mix(options.seed, index), who);
    style.history = history;
    const SearchResult result = Search(pos, player.limits, style);
    line.nodes[who] += result.nodes;
    line.moves[who] += 1;
    line.seconds[who] += absl::ToDoubleSeconds(result.elapsed);
    history.push_back(pos.hash());
    const absl::StatusOr<MoveEffects> played = game.Play(result.best_move);
    if (!played.ok()) {
      std::cerr << "khet-match: game " << index << ": engine move "
                << FormatMove(pos, result.best_move)
                << " refused: " << played.status().message() << "\n";
      std::abort();
    }
  }
  line.result = game.result();
  line.plies = game.ply();
  const Outcome a_wins =
      line.a_is_silver ? Outcome::kSilverWins : Outcome::kRedWins;
  line.a_score = game.result().outcome == Outcome::kDraw ? 0.5
                 : game.result().outcome == a_wins       ? 1.0
                                                         : 0.0;
  if (options.verbose) {
    line.record =
        FormatGameRecord(game, {{"Silver", line.a_is_silver ? "A" : "B"},
                                {"Red", line.a_is_silver ? "B" : "A"}});
  }
  return line;
}

double Elo(double score) { return -400.0 * std::log10(1.0 / score - 1.0); }

std::string EloText(double score) {
  if (score <= 0) return "-inf";
  if (score >= 1) return "+inf";
  return absl::StrFormat("%+.0f", Elo(score));
}

// A match's result from A's view, for the round robin's table.
struct MatchScore {
  int wins = 0, draws = 0, losses = 0;
  double score = 0;
  std::string elo;  // the difference with its 95% interval
};

// Plays the match, prints its report and returns its result.
MatchScore Run(const MatchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<GameRecordLine> lines(options.games);
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::mutex print_mu;
  auto worker = [&]() {
    for (;;) {
      const int i = next.fetch_add(1);
      if (i >= options.games) return;
      lines[i] = PlayOne(options, i);
      const int finished = done.fetch_add(1) + 1;
      std::lock_guard<std::mutex> lock(print_mu);
      if (options.verbose) {
        std::cout << absl::StrFormat(
                         "game %d (%s, A %s): A scores %.1f, %s, %d plies\n",
                         i + 1, lines[i].setup,
                         lines[i].a_is_silver ? "Silver" : "Red",
                         lines[i].a_score,
                         ResultReasonName(lines[i].result.reason),
                         lines[i].plies)
                  << lines[i].record << "\n";
      }
      if (finished % 10 == 0 || finished == options.games) {
        std::cerr << absl::StrFormat(
            "khet-match: %d/%d games, %.0f s\n", finished, options.games,
            std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count());
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < options.threads; ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  int wins = 0, draws = 0, losses = 0;
  double nodes[2] = {0, 0}, moves[2] = {0, 0}, secs[2] = {0, 0}, plies = 0;
  std::map<std::string, std::array<int, 3>> by_setup;
  std::map<std::string, int> reasons;
  int as_silver[3] = {0, 0, 0};
  for (const GameRecordLine& l : lines) {
    const int k = l.a_score == 1.0 ? 0 : l.a_score == 0.5 ? 1 : 2;
    (k == 0 ? wins : k == 1 ? draws : losses) += 1;
    by_setup[l.setup][k] += 1;
    if (l.a_is_silver) as_silver[k] += 1;
    reasons[std::string(ResultReasonName(l.result.reason))] += 1;
    for (int w = 0; w < 2; ++w) {
      nodes[w] += static_cast<double>(l.nodes[w]);
      moves[w] += l.moves[w];
      secs[w] += l.seconds[w];
    }
    plies += l.plies;
  }
  const int n = options.games;
  const double score = (wins + 0.5 * draws) / n;
  // The 95% interval of the score from the spread of the game results,
  // turned into Elo.
  const double variance =
      (wins * std::pow(1 - score, 2) + draws * std::pow(0.5 - score, 2) +
       losses * std::pow(0 - score, 2)) /
      n;
  const double margin = 1.959964 * std::sqrt(variance / n);
  const double lo = score - margin, hi = score + margin;

  for (int w = 0; w < 2; ++w) {
    const Player& p = options.players[w];
    std::cout << absl::StrFormat("%s: %s (%s): %.0f nodes/move, %.1f ms/move\n",
                                 w == 0 ? "A" : "B", p.label,
                                 LimitsText(p.limits, p.style),
                                 moves[w] > 0 ? nodes[w] / moves[w] : 0,
                                 moves[w] > 0 ? 1000 * secs[w] / moves[w] : 0);
  }
  std::cout << absl::StrFormat(
      "games %d: A wins %d, draws %d, losses %d (A as Silver %d-%d-%d)\n", n,
      wins, draws, losses, as_silver[0], as_silver[1], as_silver[2]);
  for (const auto& [setup, wdl] : by_setup) {
    std::cout << absl::StrFormat("  %-11s %d-%d-%d\n", setup, wdl[0], wdl[1],
                                 wdl[2]);
  }
  std::string reason_text;
  for (const auto& [reason, count] : reasons) {
    reason_text += absl::StrFormat("%s%s %d", reason_text.empty() ? "" : ", ",
                                   reason, count);
  }
  std::cout << absl::StrFormat("endings: %s; %.1f plies a game\n", reason_text,
                               plies / n);
  std::cout << absl::StrFormat("score %.1f%% (95%%: %.1f%% .. %.1f%%)\n",
                               100 * score, 100 * std::max(lo, 0.0),
                               100 * std::min(hi, 1.0));
  std::string elo = EloText(score);
  if (score > 0 && score < 1 && lo > 0 && hi < 1) {
    elo += absl::StrFormat(" +- %.0f (95%%)", (Elo(hi) - Elo(lo)) / 2);
  } else {
    // Every game alike, or the interval reaching 0 or 100%: the Wilson
    // interval still bounds the score away from it.
    const double z = 1.959964, z2 = z * z;
    const double centre = (score + z2 / (2 * n)) / (1 + z2 / n);
    const double half =
        z * std::sqrt(score * (1 - score) / n + z2 / (4.0 * n * n)) /
        (1 + z2 / n);
    elo += absl::StrFormat(" (95%%: %s .. %s)", EloText(centre - half),
                           EloText(centre + half));
  }
  std::cout << "Elo difference " << elo << "\n";
  std::cout << absl::StrFormat("time %.0f s with %d threads\n", seconds,
                               options.threads);
  return MatchScore{wins, draws, losses, score, elo};
}

// Every pair of `players` (weakest first) plays a match, the stronger as
// A; then the table of pairs and the ratings that the adjacent pairs'
// differences add up to (the first player at 0).
int RoundRobin(MatchOptions options, const std::vector<Player>& players) {
  std::vector<std::string> table;
  std::vector<double> adjacent;  // Elo of player i+1 over player i
  for (size_t i = 0; i < players.size(); ++i) {
    for (size_t j = i + 1; j < players.size(); ++j) {
      options.players[0] = players[j];
      options.players[1] = players[i];
      std::cout << absl::StrFormat("== %s v %s ==\n", players[j].label,
                                   players[i].label);
      const MatchScore m = Run(options);
      table.push_back(
          absl::StrFormat("%-54s %3d-%d-%-3d %6.1f%%  %s",
                          players[j].label + " v " + players[i].label, m.wins,
                          m.draws, m.losses, 100 * m.score, m.elo));
      if (j == i + 1) {
        const double s =
            std::clamp(m.score, 0.5 / options.games, 1 - 0.5 / options.games);
        adjacent.push_back(Elo(s));
      }
    }
  }
  std::cout << absl::StrFormat("\nround robin, %d games a pair:\n",
                               options.games);
  for (const std::string& line : table) std::cout << line << "\n";
  std::cout << "ratings, the adjacent pairs' differences added up (a score "
               "of 100% counted as half a game short of it):\n";
  double rating = 0;
  for (size_t i = 0; i < players.size(); ++i) {
    if (i > 0) rating += adjacent[i - 1];
    std::cout << absl::StrFormat("  %-32s %+5.0f\n", players[i].label, rating);
  }
  return kExitOk;
}

int Main(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  const std::set<std::string> valued = {
      "a",     "b",      "games",         "threads", "nodes-scale",
      "plies", "setups", "opening-plies", "seed",    "round-robin"};
  const std::set<std::string> switches = {"use-time", "verbose", "help"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h") arg = "--help";
    if (arg.size() < 3 || arg.substr(0, 2) != "--") {
      return UsageError("unexpected argument \"" + arg + "\"");
    }
    std::string name = arg.substr(2), value;
    const size_t eq = name.find('=');
    const bool has_value = eq != std::string::npos;
    if (has_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (switches.count(name) != 0) {
      flags[name] = "";
      continue;
    }
    if (valued.count(name) == 0) return UsageError("unknown flag --" + name);
    if (!has_value) {
      if (i + 1 >= argc) return UsageError("--" + name + " needs a value");
      value = argv[++i];
    }
    flags[name] = value;
  }
  if (flags.count("help") != 0) {
    std::cout << kUsage;
    return kExitOk;
  }
  const bool round_robin = flags.count("round-robin") != 0;
  if (round_robin == (flags.count("a") != 0 || flags.count("b") != 0) ||
      (!round_robin && (flags.count("a") == 0 || flags.count("b") == 0))) {
    return UsageError("give --a SPEC and --b SPEC, or --round-robin LEVELS");
  }
  MatchOptions options;
  std::vector<Player> players;
  if (round_robin) {
    for (absl::string_view level :
         absl::StrSplit(flags["round-robin"], ',', absl::SkipEmpty())) {
      absl::StatusOr<Player> p = ParsePlayer(absl::StrCat("level=", level));
      if (!p.ok()) {
        return UsageError(
            absl::StrFormat("--round-robin: %s", p.status().message()));
      }
      players.push_back(*p);
    }
    if (players.size() < 2) return UsageError("--round-robin: two levels");
  } else {
    for (int w = 0; w < 2; ++w) {
      const std::string& spec = flags[w == 0 ? "a" : "b"];
      absl::StatusOr<Player> p = ParsePlayer(spec);
      if (!p.ok()) {
        return UsageError(absl::StrFormat("--%s: %s", w == 0 ? "a" : "b",
                                          p.status().message()));
      }
      players.push_back(*p);
    }
  }
  auto int_flag = [&](const std::string& name, int64_t fallback, int64_t min,
                      int64_t max, int64_t* out) -> std::optional<std::string> {
    *out = fallback;
    if (flags.count(name) == 0) return std::nullopt;
    if (!absl::SimpleAtoi(flags[name], out) || *out < min || *out > max) {
      return absl::StrFormat(
          "--%s \"%s\": must be a whole number from %d to %d", name,
          flags[name], min, max);
    }
    return std::nullopt;
  };
  int64_t games, threads, plies, opening, seed;
  for (const auto& [name, fallback, min, max, out] : std::vector<
           std::tuple<std::string, int64_t, int64_t, int64_t, int64_t*>>{
           {"games", 100, 1, 1000000, &games},
           {"threads", 2, 1, 256, &threads},
           {"plies", 200, 1, 100000, &plies},
           {"opening-plies", 2, 0, 40, &opening},
           {"seed", 1, 0, INT64_MAX, &seed}}) {
    if (auto error = int_flag(name, fallback, min, max, out)) {
      return UsageError(*error);
    }
  }
  options.games = static_cast<int>(games);
  options.threads = static_cast<int>(threads);
  options.plies = static_cast<int>(plies);
  options.opening_plies = static_cast<int>(opening);
  options.seed = static_cast<uint64_t>(seed);
  options.verbose = flags.count("verbose") != 0;
  double scale = 1.0;
  if (flags.count("nodes-scale") != 0 &&
      (!absl::SimpleAtod(flags["nodes-scale"], &scale) || scale <= 0)) {
    return UsageError("--nodes-scale: a positive number, e.g. 0.25");
  }
  const bool use_time = flags.count("use-time") != 0;
  for (Player& p : players) {
    if (p.limits.max_nodes > 0) {
      p.limits.max_nodes = std::max<uint64_t>(
          1, static_cast<uint64_t>(std::llround(p.limits.max_nodes * scale)));
    }
    if (!use_time && (p.limits.max_depth > 0 || p.limits.max_nodes > 0)) {
      p.limits.max_time = absl::ZeroDuration();
    }
  }
  std::string setups = "classic-2,imhotep-2,dynasty-2,classic-1,classic-2b";
  if (flags.count("setups") != 0) setups = flags["setups"];
  for (absl::string_view id : absl::StrSplit(setups, ',', absl::SkipEmpty())) {
    if (!FindSetup(std::string(id)).ok()) {
      return UsageError(absl::StrFormat("--setups: no setup \"%s\"", id));
    }
    options.setups.emplace_back(id);
  }
  if (options.setups.empty()) return UsageError("--setups: none given");
  if (round_robin) return RoundRobin(options, players);
  options.players[0] = players[0];
  options.players[1] = players[1];
  Run(options);
  return kExitOk;
}

}  // namespace
}  // namespace khet

int main(int argc, char** argv) { return khet::Main(argc, argv); }
