// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/wire/convert.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/bitboard.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "service/text/quoted_input.h"
#include "service/wire/wire_bytes.h"

namespace khet {
namespace {

constexpr const char* kPyramidFacing[4] = {"NE", "SE", "SW", "NW"};
constexpr const char* kDirectionLetter[4] = {"N", "E", "S", "W"};

std::string Orientation(Piece piece) {
  const int o = piece.orientation();
  switch (piece.type()) {
    case PieceType::kPyramid:
      return kPyramidFacing[o];
    case PieceType::kAnubis:
    case PieceType::kSphinx:
      return kDirectionLetter[o];
    case PieceType::kScarab:
    case PieceType::kEye:
      return (o & 1) == kSlash ? "/" : "\\";
    default:
      return "";
  }
}

v1::BeamPoint PointToProto(BeamPoint p) {
  v1::BeamPoint out;
  out.set_file(p.file);
  out.set_rank(p.rank);
  return out;
}

v1::BeamEnd EndToProto(BeamEnd end) {
  switch (end) {
    case BeamEnd::kLeftBoard:
      return v1::LEFT_BOARD;
    case BeamEnd::kHit:
      return v1::HIT;
    case BeamEnd::kAbsorbed:
      return v1::ABSORBED;
    case BeamEnd::kBlocked:
      return v1::BLOCKED;
    case BeamEnd::kSplit:
      return v1::SPLIT;
    case BeamEnd::kLooped:
      return v1::LOOPED;
  }
  return v1::BEAM_END_UNSPECIFIED;
}

v1::Direction DirectionToProto(Direction d) {
  switch (d) {
    case Direction::kNorth:
      return v1::NORTH;
    case Direction::kEast:
      return v1::EAST;
    case Direction::kSouth:
      return v1::SOUTH;
    case Direction::kWest:
      return v1::WEST;
  }
  return v1::DIRECTION_UNSPECIFIED;
}

std::string ResultText(const Game& game) {
  const GameResult& r = game.result();
  const Color to_move = game.position().side_to_move();
  const Color last_mover = Opponent(to_move);
  std::string head;
  switch (r.outcome) {
    case Outcome::kOngoing:
      return "The game goes on";
    case Outcome::kSilverWins:
      head = "Silver wins";
      break;
    case Outcome::kRedWins:
      head = "Red wins";
      break;
    case Outcome::kDraw:
      head = "Draw";
      break;
  }
  const Color loser =
      r.outcome == Outcome::kSilverWins ? Color::kRed : Color::kSilver;
  switch (r.reason) {
    case ResultReason::kNone:
      return head;
    case ResultReason::kPharaohHit:
      return absl::StrCat(head, ": ", ColorName(loser), "'s Pharaoh was hit");
    case ResultReason::kBothPharaohsHit:
      return absl::StrCat(head, ": both Pharaohs were hit by ",
                          ColorName(last_mover), "'s laser");
    case ResultReason::kResignation:
      return absl::StrCat(head, ": ", ColorName(loser), " resigned");
    case ResultReason::kAgreedDraw:
      return head + ": agreed by both players";
    case ResultReason::kRepetitionClaimed:
      return absl::StrCat(head, ": claimed by ", ColorName(to_move),
                          " on the third repetition");
    case ResultReason::kRepetition:
      return head + ": the position occurred for the third time";
    case ResultReason::kPlyLimit:
      return absl::StrCat(head, ": the limit of ", game.options().ply_limit,
                          " plies was reached");
    case ResultReason::kTimeForfeit:
      return absl::StrCat(head, ": ", ColorName(loser), "'s time ran out");
  }
  return head;
}

}  // namespace

v1::Color ToProto(Color c) {
  return c == Color::kSilver ? v1::SILVER : v1::RED;
}

absl::StatusOr<Color> FromProto(v1::Color c) {
  if (c == v1::SILVER) return Color::kSilver;
  if (c == v1::RED) return Color::kRed;
  return absl::InvalidArgumentError(
      absl::StrCat("not a colour: ", static_cast<int>(c)));
}

v1::Edition ToProto(Edition e) {
  return e == Edition::kKhet1 ? v1::KHET_1 : v1::KHET_2;
}

namespace {

// Every field of PieceToProto's answer but the square.
v1::Piece PieceFields(Piece piece, Edition edition) {
  v1::Piece out;
  out.set_color(ToProto(piece.color()));
  // The engine's piece types are numbered as the contract's.
  out.set_type(static_cast<v1::PieceType>(static_cast<int>(piece.type())));
  out.set_orientation(Orientation(piece));
  out.set_height(piece.type() == PieceType::kObelisk ? piece.height() : 1);
  out.set_token(PieceToken(piece));
  out.set_description(DescribePiece(piece, edition));
  return out;
}

// PieceFields of every piece code in both editions, made once: building
// their strings was most of the cost of a board (and so of a move).
const v1::Piece& CachedPieceFields(Piece piece, Edition edition) {
  constexpr int kCodes = 64;
  static const auto* const kFields = [] {
    auto* fields = new std::vector<v1::Piece>(2 * kCodes);
    for (int code = 1; code < kCodes; ++code) {
      for (Edition e : {Edition::kKhet1, Edition::kKhet2}) {
        (*fields)[2 * code + (e == Edition::kKhet2)] =
            PieceFields(Piece::FromCode(static_cast<uint8_t>(code)), e);
      }
    }
    return fields;
  }();
  return (*kFields)[2 * piece.code() + (edition == Edition::kKhet2)];
}

// The serialization of every CachedPieceFields (all but the square, which
// as field 1 comes first in a Piece's bytes), made once.
const std::string& CachedPieceWire(Piece piece, Edition edition) {
  constexpr int kCodes = 64;
  static const auto* const kWire = [] {
    auto* wire = new std::vector<std::string>(2 * kCodes);
    for (int code = 1; code < kCodes; ++code) {
      for (Edition e : {Edition::kKhet1, Edition::kKhet2}) {
        (*wire)[2 * code + (e == Edition::kKhet2)] =
            CachedPieceFields(Piece::FromCode(static_cast<uint8_t>(code)), e)
                .SerializeAsString();
      }
    }
    return wire;
  }();
  return (*kWire)[2 * piece.code() + (edition == Edition::kKhet2)];
}

}  // namespace

v1::Piece PieceToProto(Square square, Piece piece, Edition edition) {
  v1::Piece out = CachedPieceFields(piece, edition);
  out.set_square(SquareName(square));
  return out;
}

v1::Board BoardToProto(const Position& pos) {
  v1::Board out;
  out.set_position(FormatPosition(pos));
  // Each piece is filled where it lies, with no temporary message.
  out.mutable_pieces()->Reserve(PopCount(pos.occupied()));
  for (Square s = 0; s < kSquares; ++s) {
    const Piece p = pos.at(s);
    if (p.empty()) continue;
    v1::Piece* piece = out.add_pieces();
    *piece = CachedPieceFields(p, pos.edition());
    piece->set_square(SquareName(s));
  }
  out.set_side_to_move(ToProto(pos.side_to_move()));
  out.set_edition(ToProto(pos.edition()));
  return out;
}

std::string BoardWire(const Position& pos) {
  // Board: position = 1, pieces = 2, side_to_move = 3, edition = 4; Piece:
  // square = 1 (proto/khet/v1/game.proto). Fields in number order, and
  // proto3's defaults (empty, 0) left out, as protobuf writes them.
  const std::string position = FormatPosition(pos);
  std::string out;
  out.reserve(position.size() + 40 * PopCount(pos.occupied()) + 16);
  if (!position.empty()) wire::AppendLengthDelimited(out, 1, position);
  for (Square s = 0; s < kSquares; ++s) {
    const Piece p = pos.at(s);
    if (p.empty()) continue;
    const std::string square = SquareName(s);
    const std::string& rest = CachedPieceWire(p, pos.edition());
    wire::AppendTag(out, 2, wire::kLengthDelimited);
    // The square's field: its tag, its length (one byte: a short name) and
    // the name.
    wire::AppendVarint(out, 2 + square.size() + rest.size());
    wire::AppendLengthDelimited(out, 1, square);
    out.append(rest);
  }
  if (const int side = ToProto(pos.side_to_move()); side != 0) {
    wire::AppendTag(out, 3, wire::kVarint);
    wire::AppendVarint(out, static_cast<uint64_t>(side));
  }
  if (const int edition = ToProto(pos.edition()); edition != 0) {
    wire::AppendTag(out, 4, wire::kVarint);
    wire::AppendVarint(out, static_cast<uint64_t>(edition));
  }
  return out;
}

v1::Move MoveToProto(const Position& before, Move move) {
  v1::Move out;
  out.set_from(SquareName(move.from()));
  switch (move.kind()) {
    case MoveKind::kMove: {
      out.set_kind(v1::MOVE);
      out.set_to(SquareName(move.to()));
      const Piece mover = before.at(move.from());
      const Piece target = before.at(move.to());
      out.set_swap(!target.empty() && (mover.type() == PieceType::kScarab ||
                                       mover.type() == PieceType::kEye));
      break;
    }
    case MoveKind::kMoveTop:
      out.set_kind(v1::MOVE_TOP);
      out.set_to(SquareName(move.to()));
      break;
    case MoveKind::kRotateClockwise:
      out.set_kind(v1::ROTATE_CLOCKWISE);
      break;
    case MoveKind::kRotateAnticlockwise:
      out.set_kind(v1::ROTATE_ANTICLOCKWISE);
      break;
  }
  out.set_notation(FormatMove(before, move));
  return out;
}

absl::StatusOr<Move> MoveFromProto(const Position& pos, const v1::Move& move) {
  if (!move.notation().empty()) return ParseMove(pos, move.notation());
  if (move.from().empty()) {
    return absl::InvalidArgumentError(
        "the move needs either notation or a from square");
  }
  absl::StatusOr<Square> from = ParseSquare(move.from());
  if (!from.ok()) return from.status();
  v1::MoveKind kind = move.kind();
  if (kind == v1::MOVE_KIND_UNSPECIFIED) {
    if (move.to().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "move from ", move.from(), ": give a kind or a to square"));
    }
    kind = v1::MOVE;
  }
  switch (kind) {
    case v1::ROTATE_CLOCKWISE:
    case v1::ROTATE_ANTICLOCKWISE:
      if (!move.to().empty() && move.to() != move.from()) {
        return absl::InvalidArgumentError(absl::StrCat("a rotation stays on ",
                                                       move.from(), "; to is ",
                                                       QuoteInput(move.to())));
      }
      return Move::Rotate(*from, kind == v1::ROTATE_CLOCKWISE);
    case v1::MOVE:
    case v1::MOVE_TOP: {
      if (move.to().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("move from ", move.from(), " has no to square"));
      }
      absl::StatusOr<Square> to = ParseSquare(move.to());
      if (!to.ok()) return to.status();
      const int df = FileOf(*to) - FileOf(*from);
      const int dr = RankOf(*to) - RankOf(*from);
      if ((df == 0 && dr == 0) || df < -1 || df > 1 || dr < -1 || dr > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            move.from(), " and ", move.to(), " are not neighbours"));
      }
      return Move(*from, *to,
                  kind == v1::MOVE ? MoveKind::kMove : MoveKind::kMoveTop);
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unknown move kind ", static_cast<int>(kind)));
  }
}

v1::LaserShot ShotToProto(const BeamTrace& trace, Edition edition) {
  v1::LaserShot out;
  out.set_shooter(ToProto(trace.shooter));
  for (const Beam& beam : trace.beams) {
    v1::Beam* b = out.add_beams();
    b->set_id(beam.id);
    b->set_parent_id(beam.parent);
    b->set_end(EndToProto(beam.end));
    if (beam.end_square >= 0) {
      b->set_end_square(SquareName(beam.end_square));
      if (!beam.end_piece.empty()) {
        *b->mutable_end_piece() =
            PieceToProto(beam.end_square, beam.end_piece, edition);
      }
    }
  }
  for (const BeamSegment& seg : trace.segments) {
    v1::BeamSegment* s = out.add_segments();
    s->set_beam_id(seg.beam);
    *s->mutable_from() = PointToProto(seg.from);
    *s->mutable_to() = PointToProto(seg.to);
    s->set_travel(DirectionToProto(seg.travel));
  }
  Bitboard hits = trace.hit;
  while (hits != 0) out.add_hit_squares(SquareName(PopLowest(hits)));
  out.set_text(FormatTrace(trace));
  return out;
}

v1::Removal RemovalToProto(const Removal& removal, Edition edition) {
  v1::Removal out;
  out.set_square(SquareName(removal.square));
  *out.mutable_before() = PieceToProto(removal.square, removal.before, edition);
  if (!removal.after.empty()) {
    *out.mutable_after() = PieceToProto(removal.square, removal.after, edition);
  }
  return out;
}

v1::GameResult ResultToProto(const Game& game) {
  v1::GameResult out;
  const GameResult& r = game.result();
  switch (r.outcome) {
    case Outcome::kOngoing:
      out.set_outcome(v1::ONGOING);
      break;
    case Outcome::kSilverWins:
      out.set_outcome(v1::SILVER_WINS);
      break;
    case Outcome::kRedWins:
      out.set_outcome(v1::RED_WINS);
      break;
    case Outcome::kDraw:
      out.set_outcome(v1::DRAW);
      break;
  }
  // ResultReason values match the contract's numbering, kNone being unset.
  out.set_reason(static_cast<v1::ResultReason>(static_cast<int>(r.reason)));
  out.set_text(ResultText(game));
  return out;
}

absl::StatusOr<GameResult> ResultFromProto(const v1::GameResult& result) {
  GameResult out;
  switch (result.outcome()) {
    case v1::OUTCOME_UNSPECIFIED:
    case v1::ONGOING:
      out.outcome = Outcome::kOngoing;
      break;
    case v1::SILVER_WINS:
      out.outcome = Outcome::kSilverWins;
      break;
    case v1::RED_WINS:
      out.outcome = Outcome::kRedWins;
      break;
    case v1::DRAW:
      out.outcome = Outcome::kDraw;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unknown outcome ", static_cast<int>(result.outcome())));
  }
  const int reason = static_cast<int>(result.reason());
  if (reason < 0 || reason > static_cast<int>(ResultReason::kTimeForfeit)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown result reason ", reason));
  }
  out.reason = static_cast<ResultReason>(reason);
  return out;
}

v1::RuleOptions OptionsToProto(const RuleOptions& options) {
  v1::RuleOptions out;
  out.set_both_pharaohs_hit_draws(options.both_pharaohs_hit_draws);
  out.set_automatic_repetition_draw(options.automatic_repetition_draw);
  out.set_ply_limit(options.ply_limit);
  out.set_physical_facings(options.physical_facings);
  return out;
}

absl::StatusOr<RuleOptions> OptionsFromProto(const v1::RuleOptions& options) {
  if (options.ply_limit() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rules.ply_limit must be 0 (none) or more, not ", options.ply_limit()));
  }
  RuleOptions out;
  out.both_pharaohs_hit_draws = options.both_pharaohs_hit_draws();
  out.automatic_repetition_draw = options.automatic_repetition_draw();
  out.ply_limit = options.ply_limit();
  out.physical_facings = options.physical_facings();
  return out;
}

google::protobuf::Timestamp TimeToProto(absl::Time t) {
  google::protobuf::Timestamp out;
  const int64_t seconds = absl::ToUnixSeconds(t);
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>(
      absl::ToInt64Nanoseconds(t - absl::FromUnixSeconds(seconds))));
  return out;
}

absl::Time TimeFromProto(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

v1::Setup SetupToProto(const SetupInfo& info) {
  v1::Setup out;
  out.set_id(std::string(info.id));
  out.set_name(std::string(info.name));
  out.set_edition(ToProto(info.edition));
  out.set_beam_splitter(info.beam_splitter);
  out.set_description(std::string(info.description));
  absl::StatusOr<Position> start = SetupPosition(info.id);
  if (start.ok()) out.set_position(FormatPosition(*start));
  return out;
}

v1::SearchLimits SearchLimitsToProto(const SearchLimits& limits) {
  v1::SearchLimits out;
  out.set_max_depth(limits.max_depth);
  out.set_max_nodes(static_cast<int64_t>(limits.max_nodes));
  out.set_max_time_ms(absl::ToInt64Milliseconds(limits.max_time));
  return out;
}

v1::Level LevelToProto(const Level& level) {
  v1::Level out;
  out.set_number(level.number);
  out.set_name(std::string(level.name));
  out.set_description(std::string(level.description));
  *out.mutable_limits() = SearchLimitsToProto(level.limits);
  return out;
}

}  // namespace khet
