// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/setups.h"

#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "engine/names.h"

namespace khet {
namespace {

// The pieces of one side, written as in section 7 of the rules: a letter,
// a square and an orientation, e.g. "X j1 N; K e1; P c1 NW; S e4 /".
struct Layout {
  const char* silver;
  const char* red;
};

constexpr Layout kClassic = {
    "X j1 N; K e1; A d1 N; A f1 N; S e4 /; S f4 \\; P c1 NW; P h2 NE; "
    "P c4 NW; P j4 SW; P c5 SW; P j5 NW; P d6 NW",
    "X a8 S; K f8; A e8 S; A g8 S; S e5 \\; S f5 /; P g3 SE; P a4 SE; "
    "P h4 NE; P a5 NE; P h5 SE; P c7 SW; P h8 SE"};
constexpr Layout kImhotep = {
    "X j1 N; K e1; A d1 N; A f1 N; S c1 /; S e4 /; P d3 SW; P b4 NW; "
    "P j4 SW; P b5 SW; P e5 SE; P j5 NW; P d6 NW",
    "X a8 S; K f8; A e8 S; A g8 S; S f5 /; S h8 /; P g3 SE; P a4 SE; "
    "P f4 NW; P i4 NE; P a5 NE; P i5 SE; P g6 NE"};
constexpr Layout kDynasty = {
    "X j1 N; K e2; A e1 N; A e3 N; S d3 /; S h4 \\; P d1 NW; P f1 NE; "
    "P f3 NE; P j3 SW; P j4 NW; P e5 NW; P g5 SE",
    "X a8 S; K f7; A f6 S; A f8 S; S c5 \\; S g6 /; P d4 NW; P f4 SE; "
    "P a5 SE; P a6 NE; P e6 SW; P e8 SW; P g8 SE"};
constexpr Layout kOsiris = {
    "X j1 N; K d1; A d2 N; A h2 N; S e4 \\; S b8 /; E f4 /; P b1 NW; "
    "P e1 NE; P c2 NW; P j4 SW; P j5 NW; P g6 NW; P j8 SW",
    "X a8 S; K g8; A c7 S; A g7 S; S i1 /; S f5 \\; E e5 /; P a1 NE; "
    "P d3 SE; P a4 SE; P a5 NE; P h7 SE; P f8 SW; P i8 SE"};
constexpr Layout kIsis = {
    "X j1 N; K c1; A d1 N; A c2 N; S h2 \\; S b6 \\; E f5 /; P b1 NW; "
    "P d2 NE; P j2 SW; P b4 NE; P h4 SW; P j4 SW; P e5 NW",
    "X a8 S; K h8; A g8 S; A h7 S; S i3 \\; S c7 \\; E e4 /; P f4 SE; "
    "P a5 NE; P c5 NE; P i5 SW; P a7 NE; P g7 SW; P i8 SE"};

struct SetupDef {
  SetupInfo info;
  const Layout* layout;
  const char* eyes;  // Scarab squares that hold an Eye instead, e.g. "e4 f5"
};

constexpr std::string_view kClassicText =
    "The recommended first setup: Anubis guard the Pharaohs and the Scarabs "
    "start in the centre.";
constexpr std::string_view kImhotepText =
    "A variation on Classic that opens new defensive possibilities.";
constexpr std::string_view kDynastyText =
    "A balance of offence and defence that develops quickly.";

const std::array<SetupDef, 14> kSetups = {{
    {{"classic-2", "Classic 2", Edition::kKhet2, false, kClassicText},
     &kClassic,
     ""},
    {{"imhotep-2", "Imhotep 2", Edition::kKhet2, false, kImhotepText},
     &kImhotep,
     ""},
    {{"dynasty-2", "Dynasty 2", Edition::kKhet2, false, kDynastyText},
     &kDynasty,
     ""},
    {{"classic-2b", "Classic 2b", Edition::kKhet2, true,
      "Classic with the centre Scarabs e4 and f5 replaced by Eyes of Horus."},
     &kClassic,
     "e4 f5"},
    {{"imhotep-2b", "Imhotep 2b", Edition::kKhet2, true,
      "Imhotep with the Scarabs e4 and f5 replaced by Eyes of Horus."},
     &kImhotep,
     "e4 f5"},
    {{"dynasty-2b", "Dynasty 2b", Edition::kKhet2, true,
      "Dynasty with the Scarabs h4 and c5 replaced by Eyes of Horus."},
     &kDynasty,
     "h4 c5"},
    {{"osiris", "Osiris", Edition::kKhet2, true,
      "A beam-splitter setup with the Eyes of Horus in the centre."},
     &kOsiris,
     ""},
    {{"isis", "Isis", Edition::kKhet2, true,
      "A beam-splitter setup with the Pharaohs off centre."},
     &kIsis,
     ""},
    {{"classic-1", "Classic 1", Edition::kKhet1, false,
      "Classic with fixed lasers, Djeds and stacked Obelisks (Khet 1.0)."},
     &kClassic,
     ""},
    {{"imhotep-1", "Imhotep 1", Edition::kKhet1, false,
      "Imhotep with fixed lasers, Djeds and stacked Obelisks (Khet 1.0)."},
     &kImhotep,
     ""},
    {{"dynasty-1", "Dynasty 1", Edition::kKhet1, false,
      "Dynasty with fixed lasers, Djeds and stacked Obelisks (Khet 1.0)."},
     &kDynasty,
     ""},
    {{"classic-1b", "Classic 1b", Edition::kKhet1, true,
      "Classic 1 with the Djeds e4 and f5 replaced by Eyes of Horus."},
     &kClassic,
     "e4 f5"},
    {{"imhotep-1b", "Imhotep 1b", Edition::kKhet1, true,
      "Imhotep 1 with the Djeds e4 and f5 replaced by Eyes of Horus."},
     &kImhotep,
     "e4 f5"},
    {{"dynasty-1b", "Dynasty 1b", Edition::kKhet1, true,
      "Dynasty 1 with the Djeds h4 and c5 replaced by Eyes of Horus."},
     &kDynasty,
     "h4 c5"},
}};

Square SquareAt(absl::string_view name) {
  return MakeSquare(name[0] - 'a', name[1] - '1');
}

int Orientation(PieceType type, absl::string_view o) {
  if (type == PieceType::kPyramid) {
    constexpr std::array<absl::string_view, 4> kFacings = {"NE", "SE", "SW",
                                                           "NW"};
    for (int i = 0; i < 4; ++i) {
      if (o == kFacings[i]) return i;
    }
  }
  if (type == PieceType::kScarab || type == PieceType::kEye) {
    return o == "/" ? kSlash : kBackslash;
  }
  if (type == PieceType::kAnubis || type == PieceType::kSphinx) {
    return static_cast<int>(absl::string_view("NESW").find(o));
  }
  return 0;
}

PieceType TypeOf(char letter) {
  switch (letter) {
    case 'X':
      return PieceType::kSphinx;
    case 'K':
      return PieceType::kPharaoh;
    case 'A':
      return PieceType::kAnubis;
    case 'S':
      return PieceType::kScarab;
    case 'E':
      return PieceType::kEye;
    default:
      return PieceType::kPyramid;
  }
}

// Places one side's layout, converted to the edition: in Khet 1.0 each
// Anubis becomes a stack of two Obelisks and there is no Sphinx.
void PlaceLayout(const char* text, Color color, const SetupDef& def,
                 Position* pos) {
  const std::vector<absl::string_view> eyes =
      absl::StrSplit(def.eyes, ' ', absl::SkipEmpty());
  for (absl::string_view item : absl::StrSplit(text, "; ")) {
    const std::vector<absl::string_view> parts = absl::StrSplit(item, ' ');
    PieceType type = TypeOf(parts[0][0]);
    const Square s = SquareAt(parts[1]);
    int orientation = parts.size() > 2 ? Orientation(type, parts[2]) : 0;
    if (type == PieceType::kScarab) {
      for (absl::string_view eye : eyes) {
        if (SquareAt(eye) == s) type = PieceType::kEye;
      }
    }
    if (def.info.edition == Edition::kKhet1) {
      if (type == PieceType::kSphinx) continue;
      if (type == PieceType::kAnubis) {
        type = PieceType::kObelisk;
        orientation = 1;  // a stack of two
      }
    }
    pos->Set(s, Piece(color, type, orientation));
  }
}

}  // namespace

absl::Span<const SetupInfo> AllSetups() {
  static const std::vector<SetupInfo>* const kInfos = [] {
    auto* infos = new std::vector<SetupInfo>;
    for (const SetupDef& def : kSetups) infos->push_back(def.info);
    return infos;
  }();
  return *kInfos;
}

absl::StatusOr<SetupInfo> FindSetup(std::string_view id) {
  for (const SetupDef& def : kSetups) {
    if (def.info.id == id) return def.info;
  }
  return absl::NotFoundError(absl::StrCat("no setup with id ", QuotedText(id)));
}

absl::StatusOr<Position> SetupPosition(std::string_view id) {
  for (const SetupDef& def : kSetups) {
    if (def.info.id != id) continue;
    Position pos;
    pos.set_edition(def.info.edition);
    PlaceLayout(def.layout->silver, Color::kSilver, def, &pos);
    PlaceLayout(def.layout->red, Color::kRed, def, &pos);
    return pos;
  }
  return absl::NotFoundError(absl::StrCat("no setup with id ", QuotedText(id)));
}

}  // namespace khet
