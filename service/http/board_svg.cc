// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/board_svg.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "engine/bitboard.h"
#include "engine/types.h"

namespace khet {
namespace {

constexpr double kSquare = 60;  // a square's side, in SVG units
constexpr double kMargin = 30;  // around the board, for the coordinates
constexpr double kWidth = 2 * kMargin + 10 * kSquare;
constexpr double kHeight = 2 * kMargin + 8 * kSquare;
constexpr absl::string_view kMirror = "#eaf6ff";
constexpr absl::string_view kOutline = "#202020";

std::string Xml(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The centre of a board point (file 0-9, rank 0-7); points beyond the edge
// are drawn on it.
double X(double file) {
  return kMargin + (std::clamp(file, -0.5, 9.5) + 0.5) * kSquare;
}
double Y(double rank) {
  return kMargin + (7.5 - std::clamp(rank, -0.5, 7.5)) * kSquare;
}

// The file and rank of "e4".
std::pair<int, int> FileRank(absl::string_view square) {
  return {square[0] - 'a', square[1] - '1'};
}

// "x,y" of a point in a square with centre (cx, cy), (dx, dy) in units of
// half a square's inner part, north up.
std::string At(double cx, double cy, double dx, double dy) {
  constexpr double kHalf = kSquare / 2 - 7;
  return absl::StrFormat("%.1f,%.1f", cx + dx * kHalf, cy - dy * kHalf);
}

// The unit step (dx, dy) of "N", "E", "S", "W" (north is +dy).
std::pair<int, int> Facing(absl::string_view orientation) {
  if (orientation == "N") return {0, 1};
  if (orientation == "E") return {1, 0};
  if (orientation == "S") return {0, -1};
  return {-1, 0};
}

std::string PieceShape(const v1::Piece& piece, absl::string_view fill,
                       double cx, double cy) {
  const std::string style = absl::StrCat("fill=\"", fill, "\" stroke=\"",
                                         kOutline, "\" stroke-width=\"1.5\"");
  const std::string& o = piece.orientation();
  switch (piece.type()) {
    case v1::PHARAOH:
      return absl::StrFormat(
          R"(<circle cx="%.1f" cy="%.1f" r="20" %s/>)"
          R"(<circle cx="%.1f" cy="%.1f" r="8" fill="none" stroke="%s" stroke-width="3"/>)",
          cx, cy, style, cx, cy, kOutline);
    case v1::PYRAMID: {
      // The right angle sits opposite the way the mirror faces.
      const int fx = o.find('E') != std::string::npos ? 1 : -1;
      const int fy = o.find('N') != std::string::npos ? 1 : -1;
      return absl::StrCat(
          "<polygon points=\"", At(cx, cy, -fx, -fy), " ", At(cx, cy, fx, -fy),
          " ", At(cx, cy, -fx, fy), "\" ", style, "/>", "<polyline points=\"",
          At(cx, cy, fx, -fy), " ", At(cx, cy, -fx, fy), "\" stroke=\"",
          kMirror, "\" stroke-width=\"4\" fill=\"none\"/>");
    }
    case v1::SCARAB:
    case v1::EYE_OF_HORUS: {
      const int s =
          o == "/" ? 1 : -1;  // "/" runs from south-west to north-east
      std::string out = absl::StrCat(
          "<polyline points=\"", At(cx, cy, -s, -1), " ", At(cx, cy, s, 1),
          "\" stroke=\"", fill, "\" stroke-width=\"14\" fill=\"none\"/>",
          "<polyline points=\"", At(cx, cy, -s, -1), " ", At(cx, cy, s, 1),
          "\" stroke=\"", kMirror, "\" stroke-width=\"4\" fill=\"none\"/>");
      if (piece.type() == v1::EYE_OF_HORUS) {
        absl::StrAppend(
            &out, absl::StrFormat(R"(<circle cx="%.1f" cy="%.1f" r="9" %s/>)",
                                  cx, cy, style));
      }
      return out;
    }
    case v1::ANUBIS: {
      const auto [dx, dy] = Facing(o);
      return absl::StrCat(
          absl::StrFormat(
              R"(<rect x="%.1f" y="%.1f" width="36" height="36" %s/>)", cx - 18,
              cy - 18, style),
          // Its head: a wedge pointing the way it faces.
          "<polygon points=\"",
          At(cx, cy, dx * 0.4 + dy * 0.5, dy * 0.4 - dx * 0.5), " ",
          At(cx, cy, dx * 0.4 - dy * 0.5, dy * 0.4 + dx * 0.5), " ",
          At(cx, cy, dx, dy), "\" fill=\"", kOutline, "\"/>");
    }
    case v1::SPHINX: {
      const auto [dx, dy] = Facing(o);
      return absl::StrCat(
          absl::StrFormat(
              R"(<rect x="%.1f" y="%.1f" width="40" height="40" rx="8" %s/>)",
              cx - 20, cy - 20, style),
          "<polyline points=\"", At(cx, cy, 0, 0), " ", At(cx, cy, dx, dy),
          "\" stroke=\"", kOutline, "\" stroke-width=\"6\" fill=\"none\"/>");
    }
    case v1::OBELISK: {
      std::string out = absl::StrFormat(
          R"(<rect x="%.1f" y="%.1f" width="30" height="30" %s/>)", cx - 15,
          cy - 15, style);
      if (piece.height() > 1) {
        absl::StrAppend(
            &out, absl::StrFormat(
                      R"(<rect x="%.1f" y="%.1f" width="18" height="18" %s/>)",
                      cx - 9, cy - 9, style));
      }
      return out;
    }
    default:
      return "";
  }
}

}  // namespace

std::string BoardSvg(const v1::Session& session, bool with_laser) {
  const v1::ColorScheme& scheme = session.color_scheme();
  std::string out = absl::StrFormat(
      R"(<?xml version="1.0" encoding="UTF-8"?>)"
      "\n"
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f">)",
      kWidth, kHeight, kWidth, kHeight);
  absl::StrAppend(&out, "<title>", Xml(session.name()), "</title>");
  absl::StrAppend(
      &out,
      absl::StrFormat(
          R"(<rect x="0" y="0" width="%.0f" height="%.0f" fill="#3a3026"/>)",
          kWidth, kHeight));

  // Squares, those reserved for one colour tinted with it.
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 10; ++file) {
      const Square square = MakeSquare(file, rank);
      const bool dark = (file + rank) % 2 == 0;
      absl::StrAppend(
          &out,
          absl::StrFormat(
              R"(<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="%s"/>)",
              X(file) - kSquare / 2, Y(rank) - kSquare / 2, kSquare, kSquare,
              dark ? "#5b5b5b" : "#6b6b6b"));
      absl::string_view tint;
      if (!(AllowedSquares(Color::kRed) & SquareBit(square))) {
        tint = scheme.silver().hex();
      } else if (!(AllowedSquares(Color::kSilver) & SquareBit(square))) {
        tint = scheme.red().hex();
      }
      if (!tint.empty()) {
        absl::StrAppend(
            &out,
            absl::StrFormat(
                R"(<rect class="reserved" x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="%s" fill-opacity="0.3"/>)",
                X(file) - kSquare / 2, Y(rank) - kSquare / 2, kSquare, kSquare,
                tint));
      }
    }
  }
  for (int file = 0; file < 10; ++file) {
    absl::StrAppend(
        &out,
        absl::StrFormat(
            R"(<text x="%.0f" y="%.0f" font-size="16" text-anchor="middle" fill="#e0e0e0">%c</text>)",
            X(file), kHeight - 9, 'a' + file));
  }
  for (int rank = 0; rank < 8; ++rank) {
    absl::StrAppend(
        &out,
        absl::StrFormat(
            R"(<text x="%.0f" y="%.0f" font-size="16" text-anchor="middle" fill="#e0e0e0">%d</text>)",
            kMargin / 2, Y(rank) + 6, rank + 1));
  }

  // The pieces, by square; with the laser, the hit ones still standing.
  std::map<std::string, v1::Piece> pieces;
  for (const v1::Piece& piece : session.board().pieces()) {
    pieces[piece.square()] = piece;
  }
  const v1::LaserShot& shot = session.last_shot();
  if (with_laser) {
    for (const v1::Beam& beam : shot.beams()) {
      if (beam.end() == v1::HIT) {
        v1::Piece piece = beam.end_piece();
        piece.set_square(beam.end_square());
        pieces[beam.end_square()] = piece;
      }
    }
  }
  for (const auto& [square, piece] : pieces) {
    if (square.size() != 2) continue;
    const auto [file, rank] = FileRank(square);
    const std::string& fill = piece.color() == v1::SILVER
                                  ? scheme.silver().hex()
                                  : scheme.red().hex();
    absl::StrAppend(&out, "<g class=\"piece\" data-square=\"", Xml(square),
                    "\" data-token=\"", Xml(piece.token()), "\"><title>",
                    Xml(piece.description()), "</title>",
                    PieceShape(piece, fill, X(file), Y(rank)), "</g>");
  }

  if (with_laser) {
    for (const v1::Beam& beam : shot.beams()) {
      std::string points;
      for (const v1::BeamSegment& segment : shot.segments()) {
        if (segment.beam_id() != beam.id()) continue;
        if (points.empty()) {
          points = absl::StrFormat("%.1f,%.1f", X(segment.from().file()),
                                   Y(segment.from().rank()));
        }
        absl::StrAppend(&points,
                        absl::StrFormat(" %.1f,%.1f", X(segment.to().file()),
                                        Y(segment.to().rank())));
      }
      if (points.empty()) continue;
      absl::StrAppend(
          &out,
          absl::StrFormat(
              R"(<polyline class="beam" data-beam="%d" points="%s" fill="none" stroke="%s" stroke-width="4" stroke-opacity="0.85" stroke-linecap="round" stroke-linejoin="round"/>)",
              beam.id(), points, scheme.beam().hex()));
    }
    for (const std::string& square : shot.hit_squares()) {
      if (square.size() != 2) continue;
      const auto [file, rank] = FileRank(square);
      const double cx = X(file), cy = Y(rank);
      absl::StrAppend(
          &out,
          absl::StrFormat(
              R"(<g class="hit" data-square="%s"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="5"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="5"/></g>)",
              Xml(square), cx - 22, cy - 22, cx + 22, cy + 22,
              scheme.beam().hex(), cx - 22, cy + 22, cx + 22, cy - 22,
              scheme.beam().hex()));
    }
  }
  out += "</svg>\n";
  return out;
}

}  // namespace khet
