// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/compact_view.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "service/http/compact_moves.h"
#include "service/http/http_status.h"

namespace khet {
namespace {

// How a field may shrink when its object is over the limit; tried in this
// order.
enum class Cut {
  kNever,
  kText,   // the announcement loses its end
  kNames,  // player and session names lose their ends
  kMoves,  // the legal moves give way to "+" (ask for them per square)
  kBeams,  // the laser loses its last beams
};

// A JSON object of fields in order, written within a byte limit.
class CompactObject {
 public:
  void Number(absl::string_view key, int64_t value) {
    fields_.push_back({std::string(key), absl::StrCat(value), "", Cut::kNever});
  }
  void Decimal(absl::string_view key, double value) {
    fields_.push_back({std::string(key), absl::StrCat(value), "", Cut::kNever});
  }
  void Bool(absl::string_view key, bool value) {
    fields_.push_back(
        {std::string(key), value ? "true" : "false", "", Cut::kNever});
  }
  void String(absl::string_view key, absl::string_view value,
              Cut cut = Cut::kNever) {
    fields_.push_back(
        {std::string(key), JsonQuote(value), std::string(value), cut});
  }

  // The object; fields shrink as Cut says until it fits in `limit`: the
  // announcement down to kKeptText bytes, then names, then the legal moves,
  // then the laser, then the rest of the announcement.
  std::string Build(size_t limit) {
    constexpr size_t kKeptText = 160;
    const struct {
      Cut cut;
      size_t floor;  // the JSON bytes the field keeps in this pass
    } passes[] = {{Cut::kText, kKeptText},
                  {Cut::kNames, 2},
                  {Cut::kMoves, 3},
                  {Cut::kBeams, 2},
                  {Cut::kText, 2}};
    for (const auto& pass : passes) {
      for (Field& field : fields_) {
        const size_t size = Size();
        if (size <= limit) break;
        if (field.cut != pass.cut || field.json.size() <= pass.floor) continue;
        const size_t excess = size - limit;
        const size_t target = std::max(
            pass.floor,
            field.json.size() > excess + 2 ? field.json.size() - excess : 2);
        switch (pass.cut) {
          case Cut::kBeams:
            field.json = QuotedBeams(field.raw, target);
            break;
          case Cut::kMoves:
            field.json = "\"+\"";
            break;
          default:
            field.json = QuotedText(field.raw, target);
        }
      }
    }
    std::string out = "{";
    for (const Field& field : fields_) {
      if (out.size() > 1) out += ',';
      absl::StrAppend(&out, JsonQuote(field.key), ":", field.json);
    }
    out += '}';
    return out;
  }

 private:
  struct Field {
    std::string key;
    std::string json;  // the value as written
    std::string raw;   // a string's text, for cutting
    Cut cut;
  };

  size_t Size() const {
    size_t size = 2 + (fields_.empty() ? 0 : fields_.size() - 1);
    for (const Field& field : fields_) {
      size += field.key.size() + 3 + field.json.size();
    }
    return size;
  }

  // The longest start of `text` ending in "..." whose JSON is at most
  // `target` bytes; "" if none.
  static std::string QuotedText(absl::string_view text, size_t target) {
    constexpr absl::string_view kEllipsis = "...";
    if (target < 2 + kEllipsis.size()) return "\"\"";
    size_t used = 2 + kEllipsis.size();
    std::string kept;
    for (size_t i = 0; i < text.size();) {
      size_t n = 1;  // the length of the UTF-8 sequence at i
      while (i + n < text.size() &&
             (static_cast<unsigned char>(text[i + n]) & 0xc0) == 0x80) {
        ++n;
      }
      const std::string piece = JsonQuote(text.substr(i, n));
      if (used + piece.size() - 2 > target) break;
      used += piece.size() - 2;
      kept.append(piece, 1, piece.size() - 2);
      i += n;
    }
    return absl::StrCat("\"", kept, kEllipsis, "\"");
  }

  // The first beams of a laser string, then "+", within `target` bytes.
  static std::string QuotedBeams(absl::string_view laser, size_t target) {
    std::vector<absl::string_view> beams = absl::StrSplit(laser, ' ');
    while (!beams.empty()) {
      beams.pop_back();
      std::string cut = absl::StrJoin(beams, " ");
      absl::StrAppend(&cut, cut.empty() ? "+" : " +");
      std::string json = JsonQuote(cut);
      if (json.size() <= target) return json;
    }
    return "\"+\"";
  }

  std::vector<Field> fields_;
};

absl::string_view Side(v1::Color color) {
  switch (color) {
    case v1::SILVER:
      return "s";
    case v1::RED:
      return "r";
    default:
      return "";
  }
}

absl::string_view StatusLetter(v1::GameStatus status) {
  switch (status) {
    case v1::WAITING_FOR_PLAYERS:
      return "W";
    case v1::IN_PROGRESS:
      return "P";
    case v1::FINISHED:
      return "F";
    default:
      return "";
  }
}

// "S", "R", "D"; "" while the game goes on.
absl::string_view Winner(const v1::GameResult& result) {
  switch (result.outcome()) {
    case v1::SILVER_WINS:
      return "S";
    case v1::RED_WINS:
      return "R";
    case v1::DRAW:
      return "D";
    default:
      return "";
  }
}

absl::string_view Reason(const v1::GameResult& result) {
  switch (result.reason()) {
    case v1::PHARAOH_HIT:
      return "pharaoh_hit";
    case v1::BOTH_PHARAOHS_HIT:
      return "both_pharaohs_hit";
    case v1::RESIGNATION:
      return "resignation";
    case v1::AGREED_DRAW:
      return "agreed_draw";
    case v1::REPETITION_CLAIMED:
      return "repetition_claimed";
    case v1::REPETITION:
      return "repetition";
    case v1::PLY_LIMIT:
      return "ply_limit";
    case v1::TIME_FORFEIT:
      return "time_forfeit";
    default:
      return "";
  }
}

// "<Silver's seconds> <Red's seconds> <running side>": the time left on
// each clock at `now` in whole seconds, and whose clock runs ("" none).
std::string CompactClocks(const v1::Clocks& clocks, absl::Time now) {
  int64_t silver = clocks.silver_ms(), red = clocks.red_ms();
  if (clocks.running() != v1::COLOR_UNSPECIFIED) {
    const absl::Time flag = absl::FromUnixSeconds(clocks.flag_at().seconds()) +
                            absl::Nanoseconds(clocks.flag_at().nanos());
    const int64_t left =
        std::max<int64_t>(0, absl::ToInt64Milliseconds(flag - now));
    (clocks.running() == v1::SILVER ? silver : red) = left;
  }
  return absl::StrCat(silver / 1000, " ", red / 1000, " ",
                      Side(clocks.running()));
}

char DirectionLetter(v1::Direction direction) {
  switch (direction) {
    case v1::NORTH:
      return 'N';
    case v1::EAST:
      return 'E';
    case v1::SOUTH:
      return 'S';
    default:
      return 'W';
  }
}

char EndLetter(v1::BeamEnd end) {
  switch (end) {
    case v1::HIT:
      return 'x';
    case v1::ABSORBED:
      return 'a';
    case v1::BLOCKED:
      return 'b';
    case v1::SPLIT:
      return 'y';
    case v1::LOOPED:
      return 'o';
    default:
      return '?';
  }
}

// A point as the square it lies on, off-board points drawn to the edge.
std::string PointSquare(const v1::BeamPoint& point) {
  const int file = std::clamp(point.file(), 0, 9);
  const int rank = std::clamp(point.rank(), 0, 7);
  return {static_cast<char>('a' + file), static_cast<char>('1' + rank)};
}

// "f8k e5s\" : the square and token of each piece the shot took off.
std::string Removals(
    const google::protobuf::RepeatedPtrField<v1::Removal>& removals) {
  return absl::StrJoin(removals, " ",
                       [](std::string* out, const v1::Removal& r) {
                         absl::StrAppend(out, r.square(), r.before().token());
                       });
}

// The same from a session's last shot: the pieces its beams hit.
std::string HitPieces(const v1::LaserShot& shot) {
  std::vector<std::string> hits;
  for (const v1::Beam& beam : shot.beams()) {
    if (beam.end() == v1::HIT) {
      hits.push_back(absl::StrCat(beam.end_square(), beam.end_piece().token()));
    }
  }
  return absl::StrJoin(hits, " ");
}

absl::string_view SeatName(const v1::Session& session, v1::Color color) {
  for (const v1::Seat& seat : session.seats()) {
    if (seat.color() == color && seat.occupied()) return seat.player_name();
  }
  return "";
}

void AddResult(const v1::GameResult& result, CompactObject& out) {
  out.String("res", Winner(result));
  out.String("why", Reason(result));
}

// The fields a move shares in a reply and an event.
// "lm": the side to move's legal moves (compact_moves.h), for a position
// whose game is in progress; the first field to give way after the names.
void AddLegalMoves(absl::string_view position, CompactObject& out) {
  out.String("lm", CompactMoveList(position), Cut::kMoves);
}

void AddMove(const v1::Move& move, const v1::LaserShot& shot,
             const google::protobuf::RepeatedPtrField<v1::Removal>& removals,
             const v1::GameResult& result, const v1::Board& board,
             CompactObject& out) {
  out.String("move", move.notation());
  out.String("laser", CompactLaser(shot), Cut::kBeams);
  out.String("rm", Removals(removals));
  const bool over = !Winner(result).empty();
  out.String("st", over ? "F" : "P");
  out.String("turn", Side(board.side_to_move()));
  AddResult(result, out);
  out.String("pos", board.position());
  if (!over) AddLegalMoves(board.position(), out);
}

// The settings a board shows or follows: the colour scheme, quiet, the
// scale, the language of its words ("en" for the default "") and whether
// hints are on.
void AddBoardSettings(const v1::Settings& settings, CompactObject& out) {
  out.String("scheme", settings.color_scheme());
  out.Bool("quiet", settings.quiet());
  out.Decimal("scale", settings.scale_meters());
  out.String("lang", settings.language().empty() ? "en" : settings.language());
  out.Bool("hints", !settings.hints_off());
}

// GetSession's fields, in order.
void AddSession(const v1::Session& session, CompactObject& out) {
  out.String("id", session.id());
  out.String("name", session.name(), Cut::kNames);
  out.Number("v", session.version());
  out.String("st", StatusLetter(session.status()));
  out.String("turn", Side(session.board().side_to_move()));
  out.String("pos", session.board().position());
  if (session.status() == v1::IN_PROGRESS) {
    AddLegalMoves(session.board().position(), out);
  }
  out.String("last", session.moves().empty() ? "" : *session.moves().rbegin());
  out.String("laser", CompactLaser(session.last_shot()), Cut::kBeams);
  out.String("rm", HitPieces(session.last_shot()));
  AddResult(session.result(), out);
  out.String("silver", SeatName(session, v1::SILVER), Cut::kNames);
  out.String("red", SeatName(session, v1::RED), Cut::kNames);
  out.String("draw", Side(session.draw_offered_by()));
  out.String("tb", Side(session.takeback_requested_by()));
  out.String("setup", session.setup_id());
  AddBoardSettings(session.settings(), out);
  if (session.has_clocks()) {
    out.String("clk", CompactClocks(session.clocks(), absl::Now()));
  }
}

absl::string_view KindName(v1::Event::KindCase kind) {
  switch (kind) {
    case v1::Event::kSeatChanged:
      return "seat";
    case v1::Event::kSetupChosen:
      return "setup";
    case v1::Event::kGameStarted:
      return "start";
    case v1::Event::kMoveMade:
      return "move";
    case v1::Event::kGameOver:
      return "over";
    case v1::Event::kGameReset:
      return "reset";
    case v1::Event::kDrawOffered:
      return "draw";
    case v1::Event::kSettingsChanged:
      return "settings";
    case v1::Event::kSessionDeleted:
      return "deleted";
    case v1::Event::kTakebackRequested:
      return "takeback";
    case v1::Event::kTakebackAnswered:
      return "takeback-answer";
    default:
      return "";
  }
}

}  // namespace

std::string CompactLaser(const v1::LaserShot& shot) {
  std::vector<std::string> beams;
  for (const v1::Beam& beam : shot.beams()) {
    std::string path;
    v1::Direction last_travel = v1::DIRECTION_UNSPECIFIED;
    const auto add = [&path](const std::string& square) {
      if (path.size() < 2 || path.compare(path.size() - 2, 2, square) != 0) {
        path += square;
      }
    };
    for (const v1::BeamSegment& segment : shot.segments()) {
      if (segment.beam_id() != beam.id()) continue;
      add(PointSquare(segment.from()));
      add(PointSquare(segment.to()));
      last_travel = segment.travel();
    }
    if (path.empty() && !beam.end_square().empty()) path = beam.end_square();
    path += beam.end() == v1::LEFT_BOARD ? DirectionLetter(last_travel)
                                         : EndLetter(beam.end());
    beams.push_back(std::move(path));
  }
  return absl::StrJoin(beams, " ");
}

std::string CompactSession(const v1::Session& session) {
  CompactObject out;
  AddSession(session, out);
  return out.Build(kCompactLimit);
}

std::string CompactCreated(const v1::CreateSessionResponse& created) {
  CompactObject out;
  out.String("owner", created.owner_token());
  AddSession(created.session(), out);
  return out.Build(kCompactLimit);
}

std::string CompactJoined(const v1::JoinSeatResponse& joined) {
  CompactObject out;
  out.String("token", joined.player_token());
  out.String("color", Side(joined.color()));
  AddSession(joined.session(), out);
  return out.Build(kCompactLimit);
}

std::string CompactMoveReply(const v1::MakeMoveResponse& reply) {
  CompactObject out;
  out.Number("v", reply.version());
  AddMove(reply.move(), reply.shot(), reply.removals(), reply.result(),
          reply.board(), out);
  if (reply.has_clocks()) {
    out.String("clk", CompactClocks(reply.clocks(), absl::Now()));
  }
  out.String("ann", reply.announcement(), Cut::kText);
  return out.Build(kCompactLimit);
}

std::string CompactLegalMoves(const v1::ListLegalMovesResponse& moves) {
  // {"moves":"...","more":false} around the list.
  constexpr size_t kFrame = 32;
  std::string list;
  bool more = false;
  for (const v1::Move& move : moves.moves()) {
    const size_t size = list.size() + 1 + JsonQuote(move.notation()).size();
    if (size + kFrame > kCompactLimit) {
      more = true;
      break;
    }
    if (!list.empty()) list += ' ';
    list += move.notation();
  }
  CompactObject out;
  out.String("moves", list);
  out.Bool("more", more);
  return out.Build(kCompactLimit);
}

std::string CompactEvent(const v1::Event& event, size_t limit) {
  CompactObject out;
  out.Number("v", event.version());
  out.String("kind", KindName(event.kind_case()));
  switch (event.kind_case()) {
    case v1::Event::kSeatChanged: {
      const v1::Seat& seat = event.seat_changed().seat();
      out.String("color", Side(seat.color()));
      out.String("name", seat.player_name(), Cut::kNames);
      out.Bool("joined", event.seat_changed().joined());
      out.Number("computer", seat.computer() ? seat.computer_level() : 0);
      break;
    }
    case v1::Event::kSetupChosen:
      out.String("setup", event.setup_chosen().setup_id());
      out.String("pos", event.setup_chosen().board().position());
      break;
    case v1::Event::kGameStarted: {
      absl::string_view silver, red;
      for (const v1::Seat& seat : event.game_started().seats()) {
        (seat.color() == v1::SILVER ? silver : red) = seat.player_name();
      }
      out.String("pos", event.game_started().board().position());
      AddLegalMoves(event.game_started().board().position(), out);
      out.String("silver", silver, Cut::kNames);
      out.String("red", red, Cut::kNames);
      break;
    }
    case v1::Event::kMoveMade: {
      const v1::MoveMade& made = event.move_made();
      out.String("by", Side(made.mover()));
      AddMove(made.move(), made.shot(), made.removals(), made.result(),
              made.board(), out);
      break;
    }
    case v1::Event::kGameOver:
      AddResult(event.game_over().result(), out);
      break;
    case v1::Event::kGameReset:
      out.Bool("timedOut", event.game_reset().timed_out());
      break;
    case v1::Event::kDrawOffered:
      out.String("by", Side(event.draw_offered().by()));
      break;
    case v1::Event::kTakebackRequested:
      out.String("by", Side(event.takeback_requested().by()));
      out.Number("plies", event.takeback_requested().plies());
      break;
    case v1::Event::kTakebackAnswered: {
      const v1::TakebackAnswered& answered = event.takeback_answered();
      out.String("by", Side(answered.requested_by()));
      out.Bool("accepted", answered.accepted());
      out.Number("plies", answered.plies());
      out.String("turn", Side(answered.board().side_to_move()));
      out.String("pos", answered.board().position());
      AddLegalMoves(answered.board().position(), out);
      break;
    }
    case v1::Event::kSettingsChanged: {
      AddBoardSettings(event.settings_changed().settings(), out);
      break;
    }
    default:
      break;
  }
  if (event.has_clocks()) {
    // As they stood at the event.
    const absl::Time at = absl::FromUnixSeconds(event.time().seconds()) +
                          absl::Nanoseconds(event.time().nanos());
    out.String("clk", CompactClocks(event.clocks(), at));
  }
  out.String("ann", event.announcement(), Cut::kText);
  return out.Build(limit);
}

CompactEventList CompactEvents(absl::Span<const v1::Event> events,
                               int64_t after_version, bool events_follow) {
  // {"v":<up to 20 digits>,"events":[...],"more":false} around the events.
  constexpr size_t kFrame = 64;
  CompactEventList list;
  std::string joined;
  int64_t version = after_version;
  for (const v1::Event& event : events) {
    std::string json = CompactEvent(event, kCompactLimit - kFrame);
    if (list.count > 0 &&
        joined.size() + 1 + json.size() + kFrame > kCompactLimit) {
      break;
    }
    if (!joined.empty()) joined += ',';
    joined += json;
    version = event.version();
    ++list.count;
  }
  list.json = absl::StrCat(
      R"({"v":)", version, R"(,"events":[)", joined, R"(],"more":)",
      events_follow || list.count < static_cast<int>(events.size()) ? "true"
                                                                    : "false",
      "}");
  return list;
}

}  // namespace khet
