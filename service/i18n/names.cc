// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/i18n/names.h"

namespace khet {
namespace {

// The orientation as the notation writes it; empty for pieces without one.
std::string_view OrientationText(Piece piece) {
  static constexpr std::string_view kPyramid[] = {"NE", "SE", "SW", "NW"};
  static constexpr std::string_view kFacing[] = {"N", "E", "S", "W"};
  const int o = piece.orientation() & 3;
  switch (piece.type()) {
    case PieceType::kPyramid:
      return kPyramid[o];
    case PieceType::kAnubis:
    case PieceType::kSphinx:
      return kFacing[o];
    case PieceType::kScarab:
    case PieceType::kEye:
      return (o & 1) == kSlash ? "/" : "\\";
    case PieceType::kPharaoh:
    case PieceType::kObelisk:
    case PieceType::kNone:
      break;
  }
  return "";
}

// The message naming a piece of this type.
Message PieceMessage(Piece piece, Edition edition) {
  switch (piece.type()) {
    case PieceType::kPharaoh:
      return Message::kPharaoh;
    case PieceType::kPyramid:
      return Message::kPyramid;
    case PieceType::kScarab:
      return edition == Edition::kKhet1 ? Message::kDjed : Message::kScarab;
    case PieceType::kAnubis:
      return Message::kAnubis;
    case PieceType::kSphinx:
      return Message::kSphinx;
    case PieceType::kObelisk:
      return piece.height() >= 2 ? Message::kObeliskStack : Message::kObelisk;
    case PieceType::kEye:
    case PieceType::kNone:
      break;
  }
  return Message::kEyeOfHorus;
}

}  // namespace

std::string ColorText(Language language, Color color) {
  return Format(language,
                color == Color::kSilver ? Message::kSilver : Message::kRed);
}

std::string ColorOwnerText(Language language, Color color) {
  return Format(language, color == Color::kSilver ? Message::kSilverOwner
                                                  : Message::kRedOwner);
}

std::string PieceText(Language language, Piece piece, Edition edition) {
  if (piece.empty()) return "nothing";
  const std::string color = Format(language, piece.color() == Color::kSilver
                                                 ? Message::kSilverAdjective
                                                 : Message::kRedAdjective);
  std::string out =
      Format(language, PieceMessage(piece, edition), {{"color", color}});
  const std::string_view orientation = OrientationText(piece);
  if (!orientation.empty()) out.append(" ").append(orientation);
  return out;
}

}  // namespace khet
