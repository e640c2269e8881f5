#include "engine/notation.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/types.h"

namespace khet {
namespace {

// Abseil 20220623 has its own string_view; this bridges std::string_view.
absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }

// A token of a record (a move, a header name) as messages show it: as it
// is when short and printable, else quoted and cut (QuotedText).
std::string Shown(std::string_view token) {
  constexpr size_t kMaxPlain = 64;
  bool plain = token.size() <= kMaxPlain;
  for (char c : token) plain = plain && c > 0x20 && c < 0x7F;
  return plain ? std::string(token) : QuotedText(token);
}

std::string_view TrimWhitespace(std::string_view s) {
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s[0]))) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         absl::ascii_isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() &&
           absl::ascii_isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    }
    const size_t start = i;
    while (i < s.size() &&
           !absl::ascii_isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    }
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool IsScarabLike(PieceType t) {
  return t == PieceType::kScarab || t == PieceType::kEye;
}

constexpr std::array<std::string_view, 4> kPyramidAttr = {"ne", "se", "sw",
                                                          "nw"};
constexpr std::array<std::string_view, 4> kDirectionAttr = {"n", "e", "s", "w"};
constexpr std::array<std::string_view, 4> kDirectionWord = {"north", "east",
                                                            "south", "west"};

char PieceLetter(PieceType t) {
  switch (t) {
    case PieceType::kPharaoh:
      return 'K';
    case PieceType::kPyramid:
      return 'P';
    case PieceType::kScarab:
      return 'S';
    case PieceType::kAnubis:
      return 'A';
    case PieceType::kSphinx:
      return 'X';
    case PieceType::kObelisk:
      return 'O';
    case PieceType::kEye:
      return 'E';
    case PieceType::kNone:
      break;
  }
  return '?';
}

std::optional<PieceType> PieceTypeFromLetter(char upper) {
  switch (upper) {
    case 'K':
      return PieceType::kPharaoh;
    case 'P':
      return PieceType::kPyramid;
    case 'S':
      return PieceType::kScarab;
    case 'A':
      return PieceType::kAnubis;
    case 'X':
      return PieceType::kSphinx;
    case 'O':
      return PieceType::kObelisk;
    case 'E':
      return PieceType::kEye;
    default:
      return std::nullopt;
  }
}

// The attribute that follows a piece's letter in the position notation.
std::string PieceAttribute(Piece p) {
  const int o = p.orientation();
  switch (p.type()) {
    case PieceType::kPyramid:
      return std::string(kPyramidAttr[o]);
    case PieceType::kAnubis:
    case PieceType::kSphinx:
      return std::string(kDirectionAttr[o]);
    case PieceType::kScarab:
    case PieceType::kEye:
      return (o & 1) == kSlash ? "/" : "\\";
    case PieceType::kObelisk:
      return std::string(1, static_cast<char>('0' + p.height()));
    case PieceType::kPharaoh:
    case PieceType::kNone:
      break;
  }
  return "";
}

// "e4", or for a point just off the board, where it lies: "below j1".
std::string PointName(BeamPoint p) {
  if (IsOnBoard(p.file, p.rank)) return SquareName(MakeSquare(p.file, p.rank));
  const int file = p.file < 0 ? 0 : (p.file >= kFiles ? kFiles - 1 : p.file);
  const int rank = p.rank < 0 ? 0 : (p.rank >= kRanks ? kRanks - 1 : p.rank);
  const std::string edge = SquareName(MakeSquare(file, rank));
  if (p.rank < 0) return absl::StrCat("below ", edge);
  if (p.rank >= kRanks) return absl::StrCat("above ", edge);
  if (p.file < 0) return absl::StrCat("left of ", edge);
  return absl::StrCat("right of ", edge);
}

std::string SquareOrNone(Square s) {
  return s >= 0 && s < kSquares ? SquareName(s) : std::string("?");
}

// ---- Game records ----------------------------------------------------------

constexpr std::string_view kSetupHeader = "Setup";
constexpr std::string_view kPositionHeader = "Position";
constexpr std::string_view kEditionHeader = "Edition";
constexpr std::string_view kBothPharaohsHeader = "BothPharaohsHit";
constexpr std::string_view kRepetitionHeader = "Repetition";
constexpr std::string_view kPlyLimitHeader = "PlyLimit";
constexpr std::string_view kResultHeader = "Result";
constexpr std::string_view kTerminationHeader = "Termination";

bool IsReservedHeader(std::string_view name) {
  for (std::string_view reserved :
       {kSetupHeader, kPositionHeader, kEditionHeader, kBothPharaohsHeader,
        kRepetitionHeader, kPlyLimitHeader, kResultHeader,
        kTerminationHeader}) {
    if (name == reserved) return true;
  }
  return false;
}

std::string_view EditionName(Edition e) {
  return e == Edition::kKhet1 ? "Khet 1.0" : "Khet 2.0";
}

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
    return absl::InvalidArgumentError(absl::StrCat(
        "header line ", line_number, " ", QuotedText(line), ": ", Av(why)));
  };
  if (line.size() < 2 || line.front() != '[' || line.back() != ']') {
    return error("a header is written [Name \"value\"]");
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

// The full-move number and the marker written before a move: "3." before
// Silver's move, "3..." before Red's.
int MoveNumber(int ply, Color first_mover) {
  return 1 + (ply + (first_mover == Color::kRed ? 1 : 0)) / 2;
}
std::string MoveLabel(int ply, Color first_mover, Color mover) {
  return absl::StrCat(MoveNumber(ply, first_mover),
                      mover == Color::kSilver ? "." : "...");
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
  *line_length += token.size();
}

const std::string* FindHeader(const GameHeaders& headers,
                              std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (key == name) return &value;
  }
  return nullptr;
}

absl::StatusOr<RuleOptions> RuleOptionsFromHeaders(const GameHeaders& headers) {
  RuleOptions options;
  if (const std::string* v = FindHeader(headers, kBothPharaohsHeader)) {
    if (*v == "mover loses") {
      options.both_pharaohs_hit_draws = false;
    } else if (*v == "draw") {
      options.both_pharaohs_hit_draws = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("header BothPharaohsHit ", QuotedText(*v),
                       ": must be \"mover loses\" or \"draw\""));
    }
  }
  if (const std::string* v = FindHeader(headers, kRepetitionHeader)) {
    if (*v == "claim") {
      options.automatic_repetition_draw = false;
    } else if (*v == "automatic") {
      options.automatic_repetition_draw = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("header Repetition ", QuotedText(*v),
                       ": must be \"claim\" or \"automatic\""));
    }
  }
  if (const std::string* v = FindHeader(headers, kPlyLimitHeader)) {
    int limit = 0;
    if (!absl::SimpleAtoi(*v, &limit) || limit < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("header PlyLimit ", QuotedText(*v),
                       ": must be a whole number, 0 for no limit"));
    }
    options.ply_limit = limit;
  }
  return options;
}

absl::StatusOr<Position> StartFromHeaders(const GameHeaders& headers) {
  const std::string* setup = FindHeader(headers, kSetupHeader);
  const std::string* position = FindHeader(headers, kPositionHeader);
  if (setup != nullptr && position != nullptr) {
    return absl::InvalidArgumentError(
        "a game record has either a Setup or a Position header, not both");
  }
  absl::StatusOr<Position> start;
  if (setup != nullptr) {
    start = SetupPosition(*setup);
    if (!start.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "header Setup ", QuotedText(*setup), ": ", start.status().message()));
    }
  } else if (position != nullptr) {
    start = ParsePosition(*position);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("header Position ", QuotedText(*position), ": ",
                       start.status().message()));
    }
  } else {
    return absl::InvalidArgumentError(
        "a game record needs a Setup or a Position header for its start");
  }
  if (const std::string* v = FindHeader(headers, kEditionHeader)) {
    std::optional<Edition> edition;
    if (*v == "Khet 1.0" || *v == "1") edition = Edition::kKhet1;
    if (*v == "Khet 2.0" || *v == "2") edition = Edition::kKhet2;
    if (!edition.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("header Edition ", QuotedText(*v),
                       ": must be \"Khet 1.0\" or \"Khet 2.0\""));
    }
    if (*edition != start->edition()) {
      return absl::InvalidArgumentError(
          absl::StrCat("header Edition ", QuotedText(*v),
                       " disagrees with the start, which is ",
                       Av(EditionName(start->edition()))));
    }
  }
  return start;
}

// Applies the Termination header's resignation, agreed draw or claimed
// repetition to the replayed game, and checks any other reason against it.
absl::Status ApplyTermination(const GameHeaders& headers,
                              std::optional<Outcome> claimed, Game* game) {
  const std::string* termination = FindHeader(headers, kTerminationHeader);
  if (termination == nullptr) return absl::OkStatus();
  std::optional<ResultReason> reason;
  for (ResultReason r : kAllReasons) {
    if (ResultReasonName(r) == *termination) reason = r;
  }
  if (!reason.has_value()) {
    std::string known;
    for (ResultReason r : kAllReasons) {
      absl::StrAppend(&known, known.empty() ? "" : ", ",
                      QuotedText(ResultReasonName(r)));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("header Termination ", QuotedText(*termination),
                     ": not a known reason (", known, ")"));
  }
  const std::string where =
      absl::StrCat("header Termination ", QuotedText(*termination), ": ");
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
            game->over() ? absl::StrCat(QuotedText(
                               ResultReasonName(game->result().reason)))
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

}  // namespace

// ---- Squares ---------------------------------------------------------------

absl::StatusOr<Square> ParseSquare(std::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("empty square name");
  if (text.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        QuotedText(text), ": a square is a file a..j and a rank 1..8"));
  }
  if (text[0] < 'a' || text[0] > 'j') {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(text), ": file must be a..j"));
  }
  if (text[1] < '1' || text[1] > '8') {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(text), ": rank must be 1..8"));
  }
  return MakeSquare(text[0] - 'a', text[1] - '1');
}

// ---- Moves -----------------------------------------------------------------

std::string FormatMove(const Position& pos, Move move) {
  if (move.is_null()) return "(none)";
  const std::string from = SquareName(move.from());
  switch (move.kind()) {
    case MoveKind::kRotateClockwise:
      return from + "R";
    case MoveKind::kRotateAnticlockwise:
      return from + "L";
    case MoveKind::kMoveTop:
      return absl::StrCat(from, "^", SquareName(move.to()));
    case MoveKind::kMove:
      break;
  }
  const bool swap = move.to() >= 0 && move.to() < kSquares &&
                    IsScarabLike(pos.at(move.from()).type()) &&
                    !pos.at(move.to()).empty();
  return absl::StrCat(from, swap ? "=" : "-", SquareName(move.to()));
}

absl::StatusOr<Move> ParseMove(const Position& pos, std::string_view text) {
  const std::string_view t = TrimWhitespace(text);
  const std::string usage =
      "a move is written e4-e5 (step), e4=f5 (swap), d1^d2 (top obelisk), "
      "e4R or e4L (turn)";
  if (t.size() == 3) {
    absl::StatusOr<Square> square = ParseSquare(t.substr(0, 2));
    if (!square.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(QuotedText(t), ": ", square.status().message()));
    }
    const char turn = t[2];
    if (turn == 'R' || turn == 'r') return Move::Rotate(*square, true);
    if (turn == 'L' || turn == 'l') return Move::Rotate(*square, false);
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t),
                     ": a turn ends in R (clockwise) or L "
                     "(anticlockwise)"));
  }
  if (t.size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": not a move; ", usage));
  }
  const char sep = t[2];
  if (sep != '-' && sep != '=' && sep != '^') {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", QuotedText(t.substr(2, 1)),
                     " is not -, = or ^; ", usage));
  }
  absl::StatusOr<Square> from = ParseSquare(t.substr(0, 2));
  if (!from.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", from.status().message()));
  }
  absl::StatusOr<Square> to = ParseSquare(t.substr(3, 2));
  if (!to.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", to.status().message()));
  }
  if (*from == *to || !Contains(Neighbours(*from), *to)) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", SquareName(*to), " is not next to ",
                     SquareName(*from)));
  }
  if (sep == '=' && pos.at(*to).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": nothing on ", SquareName(*to),
                     " to swap with; a step is written ", SquareName(*from),
                     "-", SquareName(*to)));
  }
  return Move(*from, *to, sep == '^' ? MoveKind::kMoveTop : MoveKind::kMove);
}

// ---- Positions -------------------------------------------------------------

std::string FormatPosition(const Position& pos) {
  std::string out;
  for (int rank = kRanks - 1; rank >= 0; --rank) {
    int empty_run = 0;
    for (int file = 0; file < kFiles; ++file) {
      const Piece p = pos.at(MakeSquare(file, rank));
      if (p.empty()) {
        ++empty_run;
        continue;
      }
      if (empty_run > 0) absl::StrAppend(&out, empty_run);
      empty_run = 0;
      out += PieceToken(p);
    }
    if (empty_run > 0) absl::StrAppend(&out, empty_run);
    if (rank > 0) out.push_back('/');
  }
  out += pos.side_to_move() == Color::kSilver ? " s" : " r";
  out += pos.edition() == Edition::kKhet1 ? " 1" : " 2";
  return out;
}

absl::StatusOr<Position> ParsePosition(std::string_view text) {
  const std::vector<std::string_view> fields = SplitWhitespace(text);
  if (fields.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a position has 3 fields, \"<ranks> <side> <edition>\", got ",
        fields.size(), " in ", QuotedText(TrimWhitespace(text))));
  }
  Position pos;
  if (fields[2] == "1") {
    pos.set_edition(Edition::kKhet1);
  } else if (fields[2] == "2") {
    pos.set_edition(Edition::kKhet2);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("position edition must be \"1\" or \"2\", got ",
                     QuotedText(fields[2])));
  }
  if (fields[1] == "s") {
    pos.set_side_to_move(Color::kSilver);
  } else if (fields[1] == "r") {
    pos.set_side_to_move(Color::kRed);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("position side to move must be \"s\" or \"r\", got ",
                     QuotedText(fields[1])));
  }

  // Reads the ranks left to right. "/" separates ranks except right after a
  // Scarab's or Eye's letter, where it is the piece's diagonal.
  const std::string_view board = fields[0];
  size_t j = 0;
  for (int rank = kRanks - 1; rank >= 0; --rank) {
    int file = 0;  // counts on past the board to report the width
    // Where a piece at `file` is: "position e3", or the rank past the edge.
    auto where = [&](int f) {
      return f < kFiles
                 ? absl::StrCat("position ", SquareName(MakeSquare(f, rank)))
                 : absl::StrCat("position rank ", rank + 1);
    };
    while (j < board.size() && board[j] != '/') {
      const char c = board[j];
      if (absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        size_t k = j;
        while (k < board.size() &&
               absl::ascii_isdigit(static_cast<unsigned char>(board[k]))) {
          ++k;
        }
        int run = 0;
        if (!absl::SimpleAtoi(Av(board.substr(j, k - j)), &run) || run < 1 ||
            run > kFiles) {
          return absl::InvalidArgumentError(
              absl::StrCat("position rank ", rank + 1, ": ",
                           QuotedText(board.substr(j, k - j)),
                           " is not a run of 1..10 empty squares"));
        }
        file += run;
        j = k;
        continue;
      }
      const std::optional<PieceType> type = PieceTypeFromLetter(
          absl::ascii_toupper(static_cast<unsigned char>(c)));
      if (!type.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            where(file), ": ", QuotedText(board.substr(j, 1)),
            " is not a piece letter (K, P, A, X, S, E, O) or a number"));
      }
      const Color color = absl::ascii_isupper(static_cast<unsigned char>(c))
                              ? Color::kSilver
                              : Color::kRed;
      ++j;
      int orientation = 0;
      // Reads the attribute: one of `choices`, each `length` characters.
      auto read_attribute = [&](const auto& choices, size_t length,
                                std::string_view what) -> absl::Status {
        const std::string_view attr = board.substr(j, length);
        for (size_t o = 0; o < choices.size(); ++o) {
          if (attr == choices[o]) {
            orientation = static_cast<int>(o);
            j += length;
            return absl::OkStatus();
          }
        }
        std::string list;
        for (size_t o = 0; o < choices.size(); ++o) {
          absl::StrAppend(&list,
                          o == 0                    ? ""
                          : o + 1 == choices.size() ? " or "
                                                    : ", ",
                          Av(choices[o]));
        }
        return absl::InvalidArgumentError(absl::StrCat(
            where(file), ": ", QuotedText(board.substr(j - 1, length + 1)),
            ": the letter ", std::string(1, c), " needs ", Av(what), " ",
            list));
      };
      absl::Status status;
      switch (*type) {
        case PieceType::kPharaoh:
          break;
        case PieceType::kPyramid:
          status = read_attribute(kPyramidAttr, 2, "a mirror facing");
          break;
        case PieceType::kAnubis:
        case PieceType::kSphinx:
          status = read_attribute(kDirectionAttr, 1, "a facing");
          break;
        case PieceType::kScarab:
        case PieceType::kEye: {
          constexpr std::array<std::string_view, 2> kDiagonals = {"/", "\\"};
          status = read_attribute(kDiagonals, 1, "a diagonal");
          break;
        }
        case PieceType::kObelisk: {
          constexpr std::array<std::string_view, 2> kHeights = {"1", "2"};
          status = read_attribute(kHeights, 1, "a stack height");
          break;
        }
        case PieceType::kNone:
          break;
      }
      if (!status.ok()) return status;
      if (file < kFiles) {
        pos.Set(MakeSquare(file, rank), Piece(color, *type, orientation));
      }
      ++file;
    }
    if (file != kFiles) {
      return absl::InvalidArgumentError(absl::StrCat(
          "position rank ", rank + 1, " has ", file, " files, needs ", kFiles));
    }
    if (rank > 0) {
      if (j == board.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "position has ", kRanks - rank, " ranks, needs ", kRanks));
      }
      ++j;  // the "/"
    }
  }
  if (j != board.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "position has more than ", kRanks,
        " ranks: ", QuotedText(board.substr(j)), " follows rank 1"));
  }
  if (absl::Status status = pos.Validate(); !status.ok()) return status;
  return pos;
}

// ---- Pieces and beam traces ------------------------------------------------

std::string PieceToken(Piece piece) {
  if (piece.empty()) return "";
  char letter = PieceLetter(piece.type());
  if (piece.color() == Color::kRed) letter = absl::ascii_tolower(letter);
  return std::string(1, letter) + PieceAttribute(piece);
}

std::string DescribePiece(Piece piece, Edition edition) {
  if (piece.empty()) return "nothing";
  const std::string color(ColorName(piece.color()));
  const int o = piece.orientation();
  switch (piece.type()) {
    case PieceType::kPharaoh:
      return color + " Pharaoh";
    case PieceType::kPyramid:
      return absl::StrCat(color, " Pyramid ",
                          absl::AsciiStrToUpper(Av(kPyramidAttr[o])));
    case PieceType::kScarab:
      return absl::StrCat(color,
                          edition == Edition::kKhet1 ? " Djed " : " Scarab ",
                          (o & 1) == kSlash ? "/" : "\\");
    case PieceType::kAnubis:
      return absl::StrCat(color, " Anubis ",
                          absl::AsciiStrToUpper(Av(kDirectionAttr[o])));
    case PieceType::kSphinx:
      return absl::StrCat(color, " Sphinx ",
                          absl::AsciiStrToUpper(Av(kDirectionAttr[o])));
    case PieceType::kObelisk:
      return color + (piece.height() >= 2 ? " Obelisk stack" : " Obelisk");
    case PieceType::kEye:
      return absl::StrCat(color, " Eye of Horus ",
                          (o & 1) == kSlash ? "/" : "\\");
    case PieceType::kNone:
      break;
  }
  return color + " piece";
}

std::string FormatTrace(const BeamTrace& trace) {
  // A Khet 1.0 laser starts off the board; a Sphinx's on it. The edition
  // only changes the name of the Scarab/Djed.
  Edition edition = Edition::kKhet2;
  for (const BeamSegment& seg : trace.segments) {
    if (seg.beam == 0) {
      if (!IsOnBoard(seg.from.file, seg.from.rank)) edition = Edition::kKhet1;
      break;
    }
  }
  std::string out;
  for (const Beam& beam : trace.beams) {
    absl::StrAppend(&out, "beam ", beam.id);
    if (beam.parent >= 0)
      absl::StrAppend(&out, " (split from ", beam.parent, ")");
    bool first = true;
    for (const BeamSegment& seg : trace.segments) {
      if (seg.beam != beam.id) continue;
      if (first) absl::StrAppend(&out, " from ", PointName(seg.from), ":");
      absl::StrAppend(&out, first ? " " : ", ",
                      Av(kDirectionWord[static_cast<int>(seg.travel)]));
      if (IsOnBoard(seg.to.file, seg.to.rank)) {
        absl::StrAppend(&out, " to ",
                        SquareName(MakeSquare(seg.to.file, seg.to.rank)));
      } else {
        absl::StrAppend(&out, " off the board");
      }
      first = false;
    }
    out += first ? ": " : "; ";
    const std::string on = absl::StrCat(" on ", SquareOrNone(beam.end_square));
    const std::string piece = DescribePiece(beam.end_piece, edition);
    switch (beam.end) {
      case BeamEnd::kLeftBoard:
        out += "left the board";
        break;
      case BeamEnd::kHit:
        absl::StrAppend(&out, "hit ", piece, on);
        break;
      case BeamEnd::kAbsorbed:
        absl::StrAppend(&out, "absorbed by ", piece, on);
        break;
      case BeamEnd::kBlocked:
        absl::StrAppend(&out, "blocked by ", piece, " front", on);
        break;
      case BeamEnd::kSplit:
        absl::StrAppend(&out, "split", on);
        break;
      case BeamEnd::kLooped:
        absl::StrAppend(&out, "looped", on);
        break;
    }
    out.push_back('\n');
  }
  return out;
}

// ---- Game records ----------------------------------------------------------

std::string FormatGameRecord(const Game& game, const GameHeaders& headers) {
  GameHeaders all;
  const Position& start = game.start();
  std::string setup_id;
  for (const SetupInfo& info : AllSetups()) {
    absl::StatusOr<Position> setup = SetupPosition(info.id);
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
  for (const auto& header : headers) {
    if (!IsReservedHeader(header.first)) all.push_back(header);
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

  Position pos = start;
  const Color first_mover = start.side_to_move();
  size_t line_length = 0;
  for (int ply = 0; ply < game.ply(); ++ply) {
    const Move move = game.moves()[ply];
    const Color mover = pos.side_to_move();
    // A move number stays on the line of its move.
    const std::string label = mover == Color::kSilver || ply == 0
                                  ? MoveLabel(ply, first_mover, mover) + " "
                                  : std::string();
    AppendWrapped(label + FormatMove(pos, move), &line_length, &out);
    MakeMove(&pos, move);
  }
  AppendWrapped(ResultToken(result.outcome), &line_length, &out);
  out.push_back('\n');
  return out;
}

absl::StatusOr<GameRecord> ParseGameRecord(std::string_view text) {
  GameHeaders headers;
  std::string movetext;
  bool in_moves = false;
  int line_number = 0;
  for (std::string_view rest = text; !rest.empty();) {
    const size_t eol = rest.find('\n');
    const std::string_view raw = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view()
                                         : rest.substr(eol + 1);
    ++line_number;
    const std::string_view line = TrimWhitespace(raw);
    if (!in_moves && line.empty()) continue;
    if (!in_moves && line.front() == '[') {
      absl::StatusOr<std::pair<std::string, std::string>> header =
          ParseHeaderLine(line, line_number);
      if (!header.ok()) return header.status();
      if (FindHeader(headers, header->first) != nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("header ", Shown(header->first), " appears twice"));
      }
      headers.push_back(*std::move(header));
      continue;
    }
    if (!line.empty() && line.front() == '[') {
      return absl::InvalidArgumentError(
          absl::StrCat("header line ", line_number, " ", QuotedText(line),
                       " comes after the moves"));
    }
    in_moves = true;
    absl::StrAppend(&movetext, Av(line), "\n");
  }

  absl::StatusOr<Position> start = StartFromHeaders(headers);
  if (!start.ok()) return start.status();
  absl::StatusOr<RuleOptions> options = RuleOptionsFromHeaders(headers);
  if (!options.ok()) return options.status();

  std::optional<Outcome> claimed;
  if (const std::string* v = FindHeader(headers, kResultHeader)) {
    claimed = OutcomeFromToken(*v);
    if (!claimed.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("header Result ", QuotedText(*v),
                       ": must be \"1-0\", \"0-1\", \"1/2-1/2\" or \"*\""));
    }
  }

  Game game(*start, *options);
  const Color first_mover = start->side_to_move();
  const std::vector<std::string_view> tokens = SplitWhitespace(movetext);
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string_view token = tokens[i];
    if (const std::optional<Outcome> outcome = OutcomeFromToken(token)) {
      if (i + 1 != tokens.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("result ", QuotedText(token),
                         " must be the last thing in the moves"));
      }
      if (claimed.has_value() && *claimed != *outcome) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the moves end in ", QuotedText(token), " but header Result is ",
            QuotedText(ResultToken(*claimed))));
      }
      claimed = outcome;
      break;
    }
    if (absl::ascii_isdigit(static_cast<unsigned char>(token[0]))) {
      size_t digits = 0;
      while (digits < token.size() &&
             absl::ascii_isdigit(static_cast<unsigned char>(token[digits]))) {
        ++digits;
      }
      size_t dots = digits;
      while (dots < token.size() && token[dots] == '.') ++dots;
      int number = 0;
      if (dots == digits ||
          !absl::SimpleAtoi(Av(token.substr(0, digits)), &number)) {
        return absl::InvalidArgumentError(absl::StrCat(
            QuotedText(token), " after move ", game.ply(),
            " is neither a move number (\"3.\"), a move nor a result"));
      }
      const int expected = MoveNumber(game.ply(), first_mover);
      if (number != expected) {
        return absl::InvalidArgumentError(
            absl::StrCat("move number ", QuotedText(token.substr(0, dots)),
                         " where ", expected, " was expected"));
      }
      token.remove_prefix(dots);  // "1.j1L" also reads as "1. j1L"
      if (token.empty()) continue;
    }
    const Position& pos = game.position();
    const std::string label = absl::StrCat(
        "move ", MoveLabel(game.ply(), first_mover, pos.side_to_move()), " ",
        Shown(token), ": ");
    absl::StatusOr<Move> move = ParseMove(pos, token);
    if (!move.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, move.status().message()));
    }
    absl::StatusOr<MoveEffects> played = game.Play(*move);
    if (!played.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, game.over() ? "" : "illegal: ", played.status().message()));
    }
  }

  if (absl::Status status = ApplyTermination(headers, claimed, &game);
      !status.ok()) {
    return status;
  }
  const Outcome replayed = game.result().outcome;
  if (claimed.has_value() && *claimed != replayed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the record gives the result ", QuotedText(ResultToken(*claimed)),
        " but replaying it gives ", QuotedText(ResultToken(replayed)),
        game.over() ? absl::StrCat(
                          " (", Av(ResultReasonName(game.result().reason)), ")")
                    : std::string(" (the game is still going)")));
  }
  return GameRecord{std::move(headers), std::move(game)};
}

}  // namespace khet
