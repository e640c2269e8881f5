// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/laser.h"

#include <array>
#include <optional>

namespace khet {
namespace {

// What a piece does to a beam travelling in a given direction.
enum Action : uint8_t { kReflect, kHitPiece, kBlock, kAbsorb, kSplitBeam };

struct Interaction {
  Action action = kHitPiece;
  Direction out = Direction::kNorth;  // for kReflect and kSplitBeam
};

constexpr Direction Dir(int d) { return static_cast<Direction>(d & 3); }

// The reflection table of section 4 of the rules.
constexpr Interaction Interact(Piece p, Direction travel) {
  const int d = static_cast<int>(travel);
  const int o = p.orientation();
  switch (p.type()) {
    case PieceType::kPyramid: {
      // Facing o has mirror faces o and o+1 (NE: north and east, ...). The
      // beam strikes the face opposite to its travel.
      const int face = static_cast<int>(Reverse(travel));
      if (face == o) return {kReflect, Dir(o + 1)};
      if (face == ((o + 1) & 3)) return {kReflect, Dir(o)};
      return {kHitPiece};
    }
    case PieceType::kScarab:  // only the diagonal counts, in either form
      return {kReflect, ScarabDiagonal(o) == kSlash ? Dir(d ^ 1) : Dir(3 - d)};
    case PieceType::kEye:
      return {kSplitBeam,
              ScarabDiagonal(o) == kSlash ? Dir(d ^ 1) : Dir(3 - d)};
    case PieceType::kAnubis:
      return travel == Reverse(Dir(o)) ? Interaction{kBlock}
                                       : Interaction{kHitPiece};
    case PieceType::kSphinx:
      return {kAbsorb};
    case PieceType::kPharaoh:
    case PieceType::kObelisk:
    case PieceType::kNone:
      return {kHitPiece};
  }
  return {kHitPiece};
}

using InteractionTable = std::array<std::array<Interaction, 4>, kPieceCodes>;
constexpr InteractionTable MakeInteractionTable() {
  InteractionTable t{};
  for (int code = 0; code < kPieceCodes; ++code) {
    for (int d = 0; d < 4; ++d) {
      t[code][d] =
          Interact(Piece::FromCode(static_cast<uint8_t>(code)), Dir(d));
    }
  }
  return t;
}
constexpr InteractionTable kInteraction = MakeInteractionTable();

// The Khet 1.0 emitters sit one step off the board and fire along the
// shooter's protected file.
constexpr Square kSilverEmitterFirst = MakeSquare(9, 0);  // j1
constexpr Square kRedEmitterFirst = MakeSquare(0, 7);     // a8

struct Source {
  BeamPoint point;
  Direction dir;
  Bitboard ray;  // squares the first segment may reach
  bool valid;
};

Source LaserSource(const Position& pos, Color shooter) {
  if (pos.edition() == Edition::kKhet1) {
    if (shooter == Color::kSilver) {
      return {{9, -1},
              Direction::kNorth,
              Ray(kSilverEmitterFirst, Direction::kNorth) |
                  SquareBit(kSilverEmitterFirst),
              true};
    }
    return {
        {0, 8},
        Direction::kSouth,
        Ray(kRedEmitterFirst, Direction::kSouth) | SquareBit(kRedEmitterFirst),
        true};
  }
  const Square s = SphinxSquare(shooter);
  const Piece p = pos.at(s);
  if (p.type() != PieceType::kSphinx || p.color() != shooter) {
    return {{0, 0}, Direction::kNorth, 0, false};
  }
  const auto dir = static_cast<Direction>(p.orientation());
  return {{static_cast<int8_t>(FileOf(s)), static_cast<int8_t>(RankOf(s))},
          dir,
          Ray(s, dir),
          true};
}

// The nearest occupied square of `targets` in direction d.
inline Square Nearest(Bitboard targets, Direction d) {
  return (d == Direction::kNorth || d == Direction::kEast)
             ? LowestSquare(targets)
             : HighestSquare(targets);
}

BeamPoint PointOf(Square s) {
  return {static_cast<int8_t>(FileOf(s)), static_cast<int8_t>(RankOf(s))};
}

// The first point beyond the edge on the line through `from` in direction d.
BeamPoint OffBoardPoint(BeamPoint from, Direction d) {
  switch (d) {
    case Direction::kNorth:
      return {from.file, kRanks};
    case Direction::kEast:
      return {kFiles, from.rank};
    case Direction::kSouth:
      return {from.file, -1};
    case Direction::kWest:
      return {-1, from.rank};
  }
  return from;
}

constexpr int kMaxStates = kSquares * 4;

// The general tracer: a work list of beams, a visited set of (occupied
// square, travel direction) and, if out != nullptr, the recorded beams and
// segments, and if crossed != nullptr, every square the beams cross. Returns
// the hit squares.
Bitboard TraceBeams(const Position& pos, const Source& source, BeamTrace* out,
                    Bitboard* crossed = nullptr) {
  if (!source.valid) return 0;
  struct Pending {  // a beam waiting to be traced; no initialisers: the
                    // queue below stays uninitialised until used
    BeamPoint start;
    Direction dir;
    Bitboard ray;
    int id;
    int parent;
  };
  // Each split uses up one of the kMaxStates states and queues two beams,
  // so this bounds the queue.
  union Slot {
    Slot() {}
    Pending beam;
  };
  std::array<Slot, 2 * kMaxStates + 1> queue;
  int head = 0, tail = 0, next_id = 1;
  queue[tail++].beam = {source.point, source.dir, source.ray, 0, -1};
  uint64_t visited[(kMaxStates + 63) / 64] = {};
  const Bitboard occupied = pos.occupied();
  Bitboard hits = 0;

  while (head < tail) {
    const Pending beam = queue[head++].beam;
    BeamPoint start = beam.start;
    Direction dir = beam.dir;
    Bitboard ray = beam.ray;
    Beam result{beam.id, beam.parent, BeamEnd::kLeftBoard, -1, Piece()};
    auto segment_to = [&](BeamPoint end) {
      if (out != nullptr) out->segments.push_back({beam.id, start, end, dir});
    };
    for (;;) {
      const Bitboard targets = occupied & ray;
      if (targets == 0) {
        if (crossed != nullptr) *crossed |= ray;
        segment_to(OffBoardPoint(start, dir));
        result.end_square = -1;
        result.end_piece = Piece();
        break;
      }
      const Square s = Nearest(targets, dir);
      if (crossed != nullptr) *crossed |= ray & ~Ray(s, dir);
      const Piece piece = pos.at(s);
      const int state = s * 4 + static_cast<int>(dir);
      result.end_square = s;
      result.end_piece = piece;
      if ((visited[state / 64] >> (state % 64)) & 1) {
        result.end = BeamEnd::kLooped;
        segment_to(PointOf(s));
        break;
      }
      visited[state / 64] |= uint64_t{1} << (state % 64);
      const Interaction in = kInteraction[piece.code()][static_cast<int>(dir)];
      if (in.action == kReflect) {
        segment_to(PointOf(s));
        start = PointOf(s);
        dir = in.out;
        ray = Ray(s, dir);
        continue;
      }
      segment_to(PointOf(s));
      if (in.action == kHitPiece) {
        result.end = BeamEnd::kHit;
        hits |= SquareBit(s);
      } else if (in.action == kBlock) {
        result.end = BeamEnd::kBlocked;
      } else if (in.action == kAbsorb) {
        result.end = BeamEnd::kAbsorbed;
      } else {  // kSplitBeam: the reflected child first, then the straight one
        result.end = BeamEnd::kSplit;
        queue[tail++].beam = {PointOf(s), in.out, Ray(s, in.out), next_id++,
                              beam.id};
        queue[tail++].beam = {PointOf(s), dir, Ray(s, dir), next_id++, beam.id};
      }
      break;
    }
    if (out != nullptr) out->beams.push_back(result);
  }
  return hits;
}

// Follows a beam that meets no Eye, calling on_segment(from, to, dir) for
// each straight run as on_segment(ray, dir, stop): `ray` holds the squares
// from the run's start (excluded) to the edge, `stop` is where it ended, -1
// if it left the board. Returns the hit squares, or nullopt if an Eye was met.
template <typename OnSegment>
std::optional<Bitboard> FollowSingleBeam(const Position& pos,
                                         const Source& source,
                                         OnSegment on_segment) {
  // Without an Eye the beam never splits, and since every mirror maps
  // directions one to one it cannot loop either. The bound only guards
  // against a broken invariant.
  const Bitboard occupied = pos.occupied();
  Direction dir = source.dir;
  Bitboard ray = source.ray;
  for (int steps = 0; steps < kMaxStates; ++steps) {
    const Bitboard targets = occupied & ray;
    if (targets == 0) {
      on_segment(ray, dir, -1);
      return Bitboard{0};
    }
    const Square s = Nearest(targets, dir);
    const Interaction in =
        kInteraction[pos.at(s).code()][static_cast<int>(dir)];
    on_segment(ray, dir, s);
    switch (in.action) {
      case kReflect:
        dir = in.out;
        ray = Ray(s, dir);
        break;
      case kHitPiece:
        return SquareBit(s);
      case kBlock:
      case kAbsorb:
        return Bitboard{0};
      case kSplitBeam:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

BeamTrace TraceLaser(const Position& pos, Color shooter) {
  BeamTrace trace;
  trace.shooter = shooter;
  // Room for a typical shot at once, rather than growing step by step.
  trace.beams.reserve(4);
  trace.segments.reserve(16);
  trace.hit = TraceBeams(pos, LaserSource(pos, shooter), &trace);
  return trace;
}

Bitboard LaserHits(const Position& pos, Color shooter) {
  const Source source = LaserSource(pos, shooter);
  if (!source.valid) return 0;
  const std::optional<Bitboard> hits =
      FollowSingleBeam(pos, source, [](Bitboard, Direction, Square) {});
  return hits.has_value() ? *hits : TraceBeams(pos, source, nullptr);
}

namespace {

// The path of the beams from `source`, starting from `path` (which may
// already hold the source square).
BeamPath TracePathFrom(const Position& pos, const Source& source,
                       BeamPath path) {
  // `ray` runs from the segment's start to the board edge; the segment
  // covers it up to and including its stop `s`.
  const std::optional<Bitboard> hits =
      FollowSingleBeam(pos, source, [&](Bitboard ray, Direction d, Square s) {
        path.squares |= s < 0 ? ray : ray & ~Ray(s, d);
      });
  if (hits.has_value()) {
    path.hits = *hits;
  } else {  // the beam splits: trace the whole tree
    path.hits = TraceBeams(pos, source, nullptr, &path.squares);
  }
  return path;
}

}  // namespace

BeamPath TraceBeamPath(const Position& pos, Color shooter) {
  const Source source = LaserSource(pos, shooter);
  if (!source.valid) return {};
  BeamPath path;
  if (pos.edition() == Edition::kKhet2) {
    path.squares = SquareBit(SphinxSquare(shooter));  // it may turn
  }
  return TracePathFrom(pos, source, path);
}

BeamPath TraceBeamFrom(const Position& pos, Square from, Direction dir) {
  const Source source{PointOf(from), dir, Ray(from, dir), true};
  return TracePathFrom(pos, source, BeamPath{});
}

}  // namespace khet
