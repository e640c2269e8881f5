#include "engine/game_record.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/types.h"

namespace khet {
namespace {

// Abseil 20220623 has its own string_view; this bridges std::string_view.
absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }

bool IsSpace(char c) {
  return absl::ascii_isspace(static_cast<unsigned char>(c));
}
bool IsDigit(char c) {
  return absl::ascii_isdigit(static_cast<unsigned char>(c));
}

// A token of a record (a move, a header name) as messages show it: as it
// is when short and printable, else quoted and cut (QuotedText).
std::string Shown(std::string_view token) {
  constexpr size_t kMaxPlain = 64;
  bool plain = token.size() <= kMaxPlain;
  for (char c : token) plain = plain && c > 0x20 && c < 0x7F;
  return plain ? std::string(token) : QuotedText(token);
}

std::string_view TrimWhitespace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

absl::Status LineError(int line, std::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", line, ": ", Av(message)));
}

// ---- Headers ---------------------------------------------------------------

constexpr std::string_view kSetupHeader = "Setup";
constexpr std::string_view kPositionHeader = "Position";
constexpr std::string_view kEditionHeader = "Edition";
constexpr std::string_view kBothPharaohsHeader = "BothPharaohsHit";
constexpr std::string_view kRepetitionHeader = "Repetition";
constexpr std::string_view kPlyLimitHeader = "PlyLimit";
constexpr std::string_view kFacingsHeader = "Facings";
constexpr std::string_view kTimeControlHeader = "TimeControl";
constexpr std::string_view kResultHeader = "Result";
constexpr std::string_view kTerminationHeader = "Termination";

// Written first, in this order, when the caller gives them.
constexpr std::string_view kRosterHeaders[] = {"Event", "Site", "Date",
                                               "Silver", "Red"};

bool IsGameHeader(std::string_view name) {
  for (std::string_view reserved :
       {kSetupHeader, kPositionHeader, kEditionHeader, kBothPharaohsHeader,
        kRepetitionHeader, kPlyLimitHeader, kFacingsHeader, kResultHeader,
        kTerminationHeader}) {
    if (name == reserved) return true;
  }
  return false;
}

bool IsRosterHeader(std::string_view name) {
  for (std::string_view roster : kRosterHeaders) {
    if (name == roster) return true;
  }
  return false;
}

std::string_view EditionName(Edition e) {
  return e == Edition::kKhet1 ? "Khet 1.0" : "Khet 2.0";
}

std::optional<Outcome> OutcomeFromToken(std::string_view token) {
  for (Outcome o : {Outcome::kOngoing, Outcome::kSilverWins, Outcome::kRedWins,
                    Outcome::kDraw}) {
    if (ResultToken(o) == token) return o;
  }
  return std::nullopt;
}

constexpr ResultReason kAllReasons[] = {
    ResultReason::kNone,
    ResultReason::kPharaohHit,
    ResultReason::kBothPharaohsHit,
    ResultReason::kResignation,
    ResultReason::kAgreedDraw,
    ResultReason::kRepetitionClaimed,
    ResultReason::kRepetition,
    ResultReason::kPlyLimit,
    ResultReason::kTimeForfeit,
};

std::string EscapeHeaderValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '"' || c == '\\') out.push_back('\\');
    // A header is one line: a line break in a value becomes a space.
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  }
  return out;
}

bool IsHeaderNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '-';
}

// Parses one `[Name "value"]` line (already trimmed).
absl::StatusOr<std::pair<std::string, std::string>> ParseHeaderLine(
    std::string_view line, int line_number) {
  auto error = [&](std::string_view why) {
    return LineError(line_number,
                     absl::StrCat("header ", QuotedText(line), ": ", Av(why)));
  };
  if (line.size() < 2 || line.front() != '[' || line.back() != ']') {
    return error("a header is written [Name \"value\"] on a line of its own");
  }
  std::string_view inner = TrimWhitespace(line.substr(1, line.size() - 2));
  size_t i = 0;
  while (i < inner.size() && IsHeaderNameChar(inner[i])) ++i;
  if (i == 0) return error("the header has no name");
  std::string name(inner.substr(0, i));
  std::string_view rest = TrimWhitespace(inner.substr(i));
  if (rest.size() < 2 || rest.front() != '"' || rest.back() != '"') {
    return error("the value must be in double quotes");
  }
  rest = rest.substr(1, rest.size() - 2);
  std::string value;
  for (size_t j = 0; j < rest.size(); ++j) {
    char c = rest[j];
    if (c == '\\') {
      if (j + 1 == rest.size()) return error("the value ends with a lone \\");
      c = rest[++j];
    } else if (c == '"') {
      return error("a \" inside the value must be written \\\"");
    }
    value.push_back(c);
  }
  return std::make_pair(std::move(name), std::move(value));
}

// The headers of one record as read, with the line of each.
struct ReadHeaders {
  GameHeaders headers;
  std::vector<int> lines;

  // The index of the header called `name`, or -1.
  int Find(std::string_view name) const {
    for (size_t i = 0; i < headers.size(); ++i) {
      if (headers[i].first == name) return static_cast<int>(i);
    }
    return -1;
  }
  // "line 3: header Name "value": ", the start of a message about it.
  std::string Where(int index) const {
    return absl::StrCat("line ", lines[index], ": header ",
                        headers[index].first, " ",
                        QuotedText(headers[index].second), ": ");
  }
};

absl::StatusOr<RuleOptions> RuleOptionsFromHeaders(const ReadHeaders& read) {
  RuleOptions options;
  if (const int i = read.Find(kBothPharaohsHeader); i >= 0) {
    const std::string& v = read.headers[i].second;
    if (v == "mover loses" || v == "draw") {
      options.both_pharaohs_hit_draws = v == "draw";
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "must be \"mover loses\" or \"draw\""));
    }
  }
  if (const int i = read.Find(kRepetitionHeader); i >= 0) {
    const std::string& v = read.headers[i].second;
    if (v == "claim" || v == "automatic") {
      options.automatic_repetition_draw = v == "automatic";
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "must be \"claim\" or \"automatic\""));
    }
  }
  if (const int i = read.Find(kPlyLimitHeader); i >= 0) {
    int limit = 0;
    if (!absl::SimpleAtoi(read.headers[i].second, &limit) || limit < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i), "must be a whole number, 0 for no limit"));
    }
    options.ply_limit = limit;
  }
  if (const int i = read.Find(kFacingsHeader); i >= 0) {
    if (read.headers[i].second != "physical") {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i), "must be \"physical\" (left out: two-state facings)"));
    }
    options.physical_facings = true;
  }
  return options;
}

absl::StatusOr<Position> StartFromHeaders(const ReadHeaders& read,
                                          int record_line) {
  const int setup = read.Find(kSetupHeader);
  const int position = read.Find(kPositionHeader);
  if (setup >= 0 && position >= 0) {
    return LineError(
        read.lines[std::max(setup, position)],
        "a game record has either a Setup or a Position header, not both");
  }
  absl::StatusOr<Position> start;
  if (setup >= 0) {
    start = SetupPosition(read.headers[setup].second);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(setup), start.status().message()));
    }
  } else if (position >= 0) {
    start = ParsePosition(read.headers[position].second);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(position), start.status().message()));
    }
  } else {
    return LineError(
        record_line,
        "a game record needs a Setup or a Position header for its start");
  }
  if (const int i = read.Find(kEditionHeader); i >= 0) {
    const std::string& v = read.headers[i].second;
    std::optional<Edition> edition;
    if (v == "Khet 1.0" || v == "1") edition = Edition::kKhet1;
    if (v == "Khet 2.0" || v == "2") edition = Edition::kKhet2;
    if (!edition.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "must be \"Khet 1.0\" or \"Khet 2.0\""));
    }
    if (*edition != start->edition()) {
      return absl::InvalidArgumentError(
          absl::StrCat(read.Where(i), "disagrees with the start, which is ",
                       Av(EditionName(start->edition()))));
    }
  }
  return start;
}

// Applies the Termination header's resignation, time forfeit, agreed draw
// or claimed repetition to the replayed game, and checks any other reason
// against it.
absl::Status ApplyTermination(const ReadHeaders& read,
                              std::optional<Outcome> claimed, Game* game) {
  const int index = read.Find(kTerminationHeader);
  if (index < 0) return absl::OkStatus();
  const std::string& termination = read.headers[index].second;
  const std::string where = read.Where(index);
  std::optional<ResultReason> reason;
  for (ResultReason r : kAllReasons) {
    if (ResultReasonName(r) == termination) reason = r;
  }
  if (!reason.has_value()) {
    std::string known;
    for (ResultReason r : kAllReasons) {
      absl::StrAppend(&known, known.empty() ? "" : ", ",
                      QuotedText(ResultReasonName(r)));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(where, "not a known reason (", known, ")"));
  }
  absl::Status status;
  switch (*reason) {
    case ResultReason::kResignation:
      if (claimed == Outcome::kSilverWins) {
        status = game->Resign(Color::kRed);
      } else if (claimed == Outcome::kRedWins) {
        status = game->Resign(Color::kSilver);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "needs a result of \"1-0\" or \"0-1\" to say who resigned"));
      }
      break;
    case ResultReason::kTimeForfeit:
      if (claimed == Outcome::kSilverWins) {
        status = game->LoseOnTime(Color::kRed);
      } else if (claimed == Outcome::kRedWins) {
        status = game->LoseOnTime(Color::kSilver);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            where,
            "needs a result of \"1-0\" or \"0-1\" to say whose time ran out"));
      }
      break;
    case ResultReason::kAgreedDraw:
      status = game->AgreeDraw();
      break;
    case ResultReason::kRepetitionClaimed:
      status = game->ClaimRepetitionDraw(game->position().side_to_move());
      break;
    default:
      if (game->result().reason != *reason) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "the moves end with ",
            game->over() ? QuotedText(ResultReasonName(game->result().reason))
                         : std::string("the game still going")));
      }
      return absl::OkStatus();
  }
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "after the last move: ", status.message()));
  }
  return absl::OkStatus();
}

// ---- Moves and comments ----------------------------------------------------

// The full-move number and the marker written before a move: "3." before
// Silver's move, "3..." before Red's.
int MoveNumber(int ply, Color first_mover) {
  return 1 + (ply + (first_mover == Color::kRed ? 1 : 0)) / 2;
}
std::string MoveLabel(int ply, Color first_mover, Color mover) {
  return absl::StrCat(MoveNumber(ply, first_mover),
                      mover == Color::kSilver ? "." : "...");
}

// A comment as written between its braces that claims what a shot hit.
bool IsHitClaim(std::string_view raw) {
  return absl::EndsWith(Av(raw), " hit") && raw.front() != '\\';
}

// `text` as written between braces: `}` and `\` escaped, and a backslash
// in front when it would read as a hit comment.
std::string EscapeComment(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '}' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  if (IsHitClaim(out)) out.insert(out.begin(), '\\');
  return out;
}

std::string UnescapeComment(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
    out.push_back(raw[i]);
  }
  return out;
}

// "A", "A and B", "A, B and C".
std::string JoinedList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

// HitComment of a move that `effects` reports, played from `before`.
std::string HitText(const Position& before, const MoveEffects& effects) {
  if (effects.removals.empty()) return "";
  const Edition edition = before.edition();
  std::vector<std::string> hits;
  for (const Removal& r : effects.removals) {
    const Piece p = r.before;
    const std::string name = absl::StrCat(ColorName(p.color()), " ",
                                          PieceTypeName(p.type(), edition));
    hits.push_back(absl::StrCat(r.after.empty() ? "" : "top of the ", name,
                                r.after.empty() ? "" : " stack", " on ",
                                SquareName(r.square)));
  }
  // The board as the laser saw it: the move made, nothing removed yet.
  Position shot = before;
  MakeMove(&shot, effects.move);
  for (const Removal& r : effects.removals) shot.Set(r.square, r.before);
  std::vector<std::string> squares;
  for (const Beam& beam : TraceLaser(shot, before.side_to_move()).beams) {
    if (beam.end != BeamEnd::kSplit) continue;
    const std::string square = SquareName(beam.end_square);
    bool seen = false;
    for (const std::string& s : squares) seen = seen || s == square;
    if (!seen) squares.push_back(square);
  }
  const std::string splits =
      squares.empty()
          ? std::string()
          : absl::StrCat("beam split on ", JoinedList(squares), "; ");
  return absl::StrCat(splits, JoinedList(hits), " hit");
}

// Appends `token` to `text`, wrapping lines at 80 columns.
void AppendWrapped(std::string_view token, size_t* line_length,
                   std::string* text) {
  constexpr size_t kWidth = 80;
  if (*line_length > 0 && *line_length + 1 + token.size() > kWidth) {
    text->push_back('\n');
    *line_length = 0;
  } else if (*line_length > 0) {
    text->push_back(' ');
    ++*line_length;
  }
  text->append(token);
  const size_t newline = token.rfind('\n');
  *line_length = newline == std::string_view::npos ? *line_length + token.size()
                                                   : token.size() - newline - 1;
}

// ---- Reading ---------------------------------------------------------------

// The text of a file being read, with the line of its next character.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  bool AtEnd() const { return pos_ == text_.size(); }
  char Peek() const { return text_[pos_]; }
  int line() const { return line_; }

  void SkipWhitespace() {
    while (!AtEnd() && IsSpace(Peek())) Advance();
  }
  // The rest of the current line, the line break consumed.
  std::string_view RestOfLine() {
    const size_t start = pos_;
    while (!AtEnd() && Peek() != '\n') Advance();
    const std::string_view line = text_.substr(start, pos_ - start);
    if (!AtEnd()) Advance();
    return line;
  }
  // Characters up to whitespace or a brace.
  std::string_view Token() {
    const size_t start = pos_;
    while (!AtEnd() && !IsSpace(Peek()) && Peek() != '{' && Peek() != '}') {
      Advance();
    }
    return text_.substr(start, pos_ - start);
  }
  // Characters up to whitespace.
  std::string_view Word() {
    const size_t start = pos_;
    while (!AtEnd() && !IsSpace(Peek())) Advance();
    return text_.substr(start, pos_ - start);
  }
  // At a "{": the text up to the matching unescaped "}", both consumed, or
  // nullopt (and nothing consumed) if the comment is not closed.
  std::optional<std::string_view> Comment() {
    size_t end = pos_ + 1;
    while (end < text_.size() && text_[end] != '}') {
      end += text_[end] == '\\' ? 2 : 1;
    }
    if (end >= text_.size()) return std::nullopt;
    const std::string_view raw = text_.substr(pos_ + 1, end - pos_ - 1);
    while (pos_ <= end) Advance();
    return raw;
  }
  std::string_view Rest() const { return text_.substr(pos_); }

 private:
  void Advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

// Reads the record that starts at the reader's next character, which is
// not whitespace, up to its result token or the end of the text.
absl::StatusOr<GameRecord> ReadRecord(Reader* reader) {
  const int record_line = reader->line();
  ReadHeaders read;
  for (reader->SkipWhitespace(); !reader->AtEnd() && reader->Peek() == '[';
       reader->SkipWhitespace()) {
    const int line = reader->line();
    absl::StatusOr<std::pair<std::string, std::string>> header =
        ParseHeaderLine(TrimWhitespace(reader->RestOfLine()), line);
    if (!header.ok()) return header.status();
    if (read.Find(header->first) >= 0) {
      return LineError(line, absl::StrCat("header ", Shown(header->first),
                                          " appears twice"));
    }
    read.headers.push_back(*std::move(header));
    read.lines.push_back(line);
  }

  absl::StatusOr<Position> start = StartFromHeaders(read, record_line);
  if (!start.ok()) return start.status();
  absl::StatusOr<RuleOptions> options = RuleOptionsFromHeaders(read);
  if (!options.ok()) return options.status();
  if (start->physical_facings() != options->physical_facings) {
    // A named setup takes the option's facings; a written position has its
    // own and must agree.
    if (const int i = read.Find(kPositionHeader); i >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i),
          options->physical_facings
              ? "has two-state facings, but the Facings header is \"physical\""
              : "has physical facings (\"f\"), but there is no Facings "
                "header"));
    }
    start->SetPhysicalFacings(options->physical_facings);
  }
  std::optional<Outcome> claimed;
  int claimed_line = 0;
  if (const int i = read.Find(kResultHeader); i >= 0) {
    claimed = OutcomeFromToken(read.headers[i].second);
    claimed_line = read.lines[i];
    if (!claimed.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          read.Where(i), "must be \"1-0\", \"0-1\", \"1/2-1/2\" or \"*\""));
    }
  }

  GameRecord record{read.headers, Game(*start, *options), GameComments(1),
                    record_line};
  Game& game = record.game;
  const Color first_mover = start->side_to_move();
  std::string last_move;     // "move 3. e4-e3", for messages
  std::string expected_hit;  // the last move's hit comment
  bool hit_seen = false;     // whether the record gave it
  std::string pending_number;
  int pending_line = 0;
  bool ended = false;
  for (reader->SkipWhitespace(); !reader->AtEnd() && !ended;
       reader->SkipWhitespace()) {
    const int line = reader->line();
    const char c = reader->Peek();
    if (c == '[') {
      return LineError(
          line, absl::StrCat("header ",
                             QuotedText(TrimWhitespace(reader->RestOfLine())),
                             " comes after the moves; a record ends with its "
                             "result token before the next one's headers"));
    }
    if (c == '}') return LineError(line, "\"}\" without a \"{\" before it");
    if (c == '{') {
      const std::optional<std::string_view> raw = reader->Comment();
      if (!raw.has_value()) {
        return LineError(
            line, absl::StrCat("the comment ", QuotedText(reader->Rest()),
                               " is not closed with \"}\""));
      }
      std::vector<std::string>& after = record.comments.back();
      if (!IsHitClaim(*raw)) {
        after.push_back(UnescapeComment(*raw));
        continue;
      }
      const std::string said = QuotedText(UnescapeComment(*raw));
      if (game.ply() == 0) {
        return LineError(line, absl::StrCat("the comment ", said,
                                            " reads as a hit comment, but "
                                            "no move has been played"));
      }
      const std::string where = absl::StrCat(last_move, ": the comment ", said);
      if (hit_seen || !after.empty()) {
        return LineError(line, absl::StrCat(where,
                                            " reads as a hit comment, which "
                                            "comes first after its move"));
      }
      if (UnescapeComment(*raw) != expected_hit) {
        return LineError(
            line, absl::StrCat(where, " disagrees with the replay: ",
                               expected_hit.empty()
                                   ? std::string("the laser hit nothing")
                                   : absl::StrCat("\"", expected_hit, "\"")));
      }
      hit_seen = true;
      continue;
    }
    std::string_view token = reader->Token();
    if (const std::optional<Outcome> outcome = OutcomeFromToken(token)) {
      if (!pending_number.empty()) {
        return LineError(pending_line, absl::StrCat("move number ",
                                                    QuotedText(pending_number),
                                                    " has no move after it"));
      }
      if (claimed.has_value() && *claimed != *outcome) {
        return LineError(line,
                         absl::StrCat("the moves end in ", QuotedText(token),
                                      " but header Result is ",
                                      QuotedText(ResultToken(*claimed))));
      }
      claimed = outcome;
      claimed_line = line;
      ended = true;
      continue;
    }
    if (IsDigit(token[0])) {
      if (!pending_number.empty()) {
        return LineError(pending_line, absl::StrCat("move number ",
                                                    QuotedText(pending_number),
                                                    " has no move after it"));
      }
      size_t digits = 0;
      while (digits < token.size() && IsDigit(token[digits])) ++digits;
      size_t dots = digits;
      while (dots < token.size() && token[dots] == '.') ++dots;
      int number = 0;
      if (dots == digits ||
          !absl::SimpleAtoi(Av(token.substr(0, digits)), &number)) {
        return LineError(
            line,
            absl::StrCat(QuotedText(token), " after move ", game.ply(),
                         " is neither a move number (\"3.\"), a move nor a "
                         "result"));
      }
      const int expected = MoveNumber(game.ply(), first_mover);
      if (number != expected) {
        return LineError(
            line,
            absl::StrCat("move number ", QuotedText(token.substr(0, dots)),
                         " where ", expected, " was expected"));
      }
      token.remove_prefix(dots);  // "1.j1L" also reads as "1. j1L"
      if (token.empty()) {
        pending_number = absl::StrCat(number, std::string(dots - digits, '.'));
        pending_line = line;
        continue;
      }
    }
    pending_number.clear();
    const Position before = game.position();
    last_move = absl::StrCat(
        "move ", MoveLabel(game.ply(), first_mover, before.side_to_move()), " ",
        Shown(token));
    absl::StatusOr<Move> move = ParseMove(before, token);
    if (!move.ok()) {
      return LineError(line,
                       absl::StrCat(last_move, ": ", move.status().message()));
    }
    absl::StatusOr<MoveEffects> played = game.Play(*move);
    if (!played.ok()) {
      return LineError(
          line, absl::StrCat(last_move, ": ", game.over() ? "" : "illegal: ",
                             played.status().message()));
    }
    expected_hit = HitText(before, *played);
    hit_seen = false;
    record.comments.emplace_back();
  }
  if (!pending_number.empty()) {
    return LineError(pending_line,
                     absl::StrCat("move number ", QuotedText(pending_number),
                                  " has no move after it"));
  }

  if (absl::Status status = ApplyTermination(read, claimed, &game);
      !status.ok()) {
    return status;
  }
  const Outcome replayed = game.result().outcome;
  if (claimed.has_value() && *claimed != replayed) {
    return LineError(
        claimed_line,
        absl::StrCat(
            "the record gives the result ", QuotedText(ResultToken(*claimed)),
            " but replaying it gives ", QuotedText(ResultToken(replayed)),
            game.over()
                ? absl::StrCat(" (", Av(ResultReasonName(game.result().reason)),
                               ")")
                : std::string(" (the game is still going)")));
  }
  if (ended) {
    reader->SkipWhitespace();
    if (!reader->AtEnd() && reader->Peek() != '[') {
      const int line = reader->line();
      return LineError(line, absl::StrCat(QuotedText(reader->Word()),
                                          " after the result: a record ends "
                                          "with its result token, the next "
                                          "one starts with its headers"));
    }
  }
  return record;
}

// Reads up to `limit` records (0: any number).
absl::StatusOr<std::vector<GameRecord>> ReadRecords(std::string_view text,
                                                    size_t limit) {
  Reader reader(text);
  std::vector<GameRecord> records;
  for (reader.SkipWhitespace(); !reader.AtEnd(); reader.SkipWhitespace()) {
    if (limit > 0 && records.size() == limit) {
      return LineError(reader.line(),
                       "a second game record starts here; "
                       "ParseGameRecords reads several");
    }
    absl::StatusOr<GameRecord> record = ReadRecord(&reader);
    if (!record.ok()) return record.status();
    records.push_back(*std::move(record));
  }
  return records;
}

}  // namespace

std::string_view ResultToken(Outcome o) {
  switch (o) {
    case Outcome::kSilverWins:
      return "1-0";
    case Outcome::kRedWins:
      return "0-1";
    case Outcome::kDraw:
      return "1/2-1/2";
    case Outcome::kOngoing:
      break;
  }
  return "*";
}

std::string HitComment(const Position& before, Move move) {
  Position after = before;
  const absl::StatusOr<MoveEffects> effects = ApplyMove(&after, move);
  return effects.ok() ? HitText(before, *effects) : std::string();
}

std::string FormatGameRecord(const Game& game, const GameHeaders& headers,
                             const GameComments& comments) {
  // The caller's headers, first of each name, the game's own left out.
  GameHeaders given;
  for (const auto& header : headers) {
    if (IsGameHeader(header.first)) continue;
    bool seen = false;
    for (const auto& kept : given) seen = seen || kept.first == header.first;
    if (!seen) given.push_back(header);
  }
  auto given_value = [&](std::string_view name) -> const std::string* {
    for (const auto& [key, value] : given) {
      if (key == name) return &value;
    }
    return nullptr;
  };

  GameHeaders all;
  for (std::string_view name : kRosterHeaders) {
    if (const std::string* value = given_value(name)) {
      all.emplace_back(name, *value);
    }
  }
  const Position& start = game.start();
  std::string setup_id;
  for (const SetupInfo& info : AllSetups()) {
    absl::StatusOr<Position> setup = SetupPosition(info.id);
    if (setup.ok()) setup->SetPhysicalFacings(start.physical_facings());
    if (setup.ok() && *setup == start) {
      setup_id = std::string(info.id);
      break;
    }
  }
  if (!setup_id.empty()) {
    all.emplace_back(kSetupHeader, setup_id);
  } else {
    all.emplace_back(kPositionHeader, FormatPosition(start));
  }
  const RuleOptions& options = game.options();
  all.emplace_back(kEditionHeader, EditionName(start.edition()));
  all.emplace_back(kBothPharaohsHeader,
                   options.both_pharaohs_hit_draws ? "draw" : "mover loses");
  all.emplace_back(kRepetitionHeader,
                   options.automatic_repetition_draw ? "automatic" : "claim");
  all.emplace_back(kPlyLimitHeader, absl::StrCat(options.ply_limit));
  if (options.physical_facings) all.emplace_back(kFacingsHeader, "physical");
  if (const std::string* value = given_value(kTimeControlHeader)) {
    all.emplace_back(kTimeControlHeader, *value);
  }
  for (const auto& header : given) {
    if (!IsRosterHeader(header.first) && header.first != kTimeControlHeader) {
      all.push_back(header);
    }
  }
  const GameResult& result = game.result();
  all.emplace_back(kResultHeader, ResultToken(result.outcome));
  if (game.over()) {
    all.emplace_back(kTerminationHeader, ResultReasonName(result.reason));
  }

  std::string out;
  for (const auto& [name, value] : all) {
    absl::StrAppend(&out, "[", name, " \"", EscapeHeaderValue(value), "\"]\n");
  }
  out.push_back('\n');

  size_t line_length = 0;
  // Writes comments[n]; returns whether there were any.
  auto write_comments = [&](size_t n) {
    if (n >= comments.size()) return false;
    for (const std::string& comment : comments[n]) {
      AppendWrapped(absl::StrCat("{", EscapeComment(comment), "}"),
                    &line_length, &out);
    }
    return !comments[n].empty();
  };
  bool after_comment = write_comments(0);
  Position pos = start;
  const Color first_mover = start.side_to_move();
  for (int ply = 0; ply < game.ply(); ++ply) {
    const Move move = game.moves()[ply];
    const Color mover = pos.side_to_move();
    // A move number stays on the line of its move.
    const std::string label =
        mover == Color::kSilver || ply == 0 || after_comment
            ? MoveLabel(ply, first_mover, mover) + " "
            : std::string();
    AppendWrapped(label + FormatMove(pos, move), &line_length, &out);
    const std::string hit = HitComment(pos, move);
    if (!hit.empty()) AppendWrapped("{" + hit + "}", &line_length, &out);
    after_comment = write_comments(ply + 1) || !hit.empty();
    MakeMove(&pos, move);
  }
  AppendWrapped(ResultToken(result.outcome), &line_length, &out);
  out.push_back('\n');
  return out;
}

std::string FormatGameRecord(const GameRecord& record) {
  return FormatGameRecord(record.game, record.headers, record.comments);
}

std::string FormatGameRecords(absl::Span<const GameRecord> records) {
  std::string out;
  for (const GameRecord& record : records) {
    if (!out.empty()) out.push_back('\n');
    out += FormatGameRecord(record);
  }
  return out;
}

absl::StatusOr<GameRecord> ParseGameRecord(std::string_view text) {
  absl::StatusOr<std::vector<GameRecord>> records = ReadRecords(text, 1);
  if (!records.ok()) return records.status();
  if (records->empty()) {
    return LineError(1, "no game record: a record starts with its headers");
  }
  return std::move(records->front());
}

absl::StatusOr<std::vector<GameRecord>> ParseGameRecords(
    std::string_view text) {
  return ReadRecords(text, 0);
}

}  // namespace khet
