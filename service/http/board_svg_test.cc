// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The SVG board: well-formed standalone XML with the squares, the pieces
// turned as they stand and the last shot.
#include "service/http/board_svg.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/laser.h"
#include "engine/setups.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/sessions/color_schemes.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

using ::testing::HasSubstr;

// A small well-formedness check: one root element, every tag closed in
// order, attributes quoted and unique, only the five predefined entities
// and character references, no stray '<' or '&'. Empty if fine, else the
// problem.
std::string XmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  size_t i = 0;
  int roots = 0;
  const auto name_char = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' ||
           c == '_' || c == ':' || c == '.';
  };
  const auto check_text = [](absl::string_view text) -> std::string {
    for (size_t k = 0; k < text.size(); ++k) {
      if (text[k] == '<') return "a stray <";
      if (text[k] != '&') continue;
      const size_t end = text.find(';', k);
      if (end == absl::string_view::npos) return "an unterminated entity";
      const absl::string_view entity = text.substr(k + 1, end - k - 1);
      if (entity != "amp" && entity != "lt" && entity != "gt" &&
          entity != "quot" && entity != "apos" &&
          !(entity.size() > 1 && entity[0] == '#')) {
        return absl::StrCat("the entity &", std::string(entity), ";");
      }
    }
    return "";
  };
  if (absl::StartsWith(xml, "<?xml")) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    const size_t lt = xml.find('<', i);
    const std::string text =
        xml.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (open.empty() && !absl::StripAsciiWhitespace(text).empty()) {
      return "text outside the root";
    }
    if (std::string problem = check_text(text); !problem.empty())
      return problem;
    if (lt == std::string::npos) break;
    const size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) return "an unterminated tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (!tag.empty() && tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) {
        return absl::StrCat("</", tag.substr(1), "> closes nothing open");
      }
      open.pop_back();
      continue;
    }
    const bool empty_element = !tag.empty() && tag.back() == '/';
    if (empty_element) tag.pop_back();
    size_t k = 0;
    while (k < tag.size() && name_char(tag[k])) ++k;
    if (k == 0) return absl::StrCat("a tag without a name: <", tag, ">");
    const std::string name = tag.substr(0, k);
    std::vector<std::string> attributes;
    while (true) {
      while (k < tag.size() && tag[k] == ' ') ++k;
      if (k >= tag.size()) break;
      const size_t start = k;
      while (k < tag.size() && name_char(tag[k])) ++k;
      if (k == start || k + 1 >= tag.size() || tag[k] != '=' ||
          tag[k + 1] != '"') {
        return absl::StrCat("a malformed attribute in <", name, ">");
      }
      const std::string attribute = tag.substr(start, k - start);
      for (const std::string& a : attributes) {
        if (a == attribute) return absl::StrCat("a repeated ", attribute);
      }
      attributes.push_back(attribute);
      const size_t close = tag.find('"', k + 2);
      if (close == std::string::npos) return "an unterminated attribute";
      if (std::string problem = check_text(tag.substr(k + 2, close - k - 2));
          !problem.empty()) {
        return problem;
      }
      k = close + 1;
    }
    if (open.empty()) ++roots;
    if (!empty_element) open.push_back(name);
  }
  if (!open.empty()) return absl::StrCat("<", open.back(), "> is not closed");
  if (roots != 1) return absl::StrCat(roots, " root elements");
  return "";
}

TEST(XmlProblemTest, FindsProblems) {
  EXPECT_EQ(XmlProblem("<a><b x=\"1\"/>&amp;</a>"), "");
  EXPECT_NE(XmlProblem("<a><b></a>"), "");
  EXPECT_NE(XmlProblem("<a x=1></a>"), "");
  EXPECT_NE(XmlProblem("<a>&nbsp;</a>"), "");
  EXPECT_NE(XmlProblem("<a></a><b></b>"), "");
  EXPECT_NE(XmlProblem("<a x=\"1\" x=\"2\"></a>"), "");
}

// Osiris after Silver's laser: a session as GetSession gives it.
v1::Session OsirisSession() {
  const Position pos = SetupPosition("osiris").value();
  v1::Session session;
  session.set_id("s1");
  session.set_name("Tom & Jerry's <board>");
  *session.mutable_board() = BoardToProto(pos);
  *session.mutable_last_shot() =
      ShotToProto(TraceLaser(pos, Color::kSilver), pos.edition());
  *session.mutable_color_scheme() = FindColorScheme("nile").value();
  return session;
}

TEST(BoardSvgTest, IsWellFormedWithPiecesAndBeams) {
  const v1::Session session = OsirisSession();
  const std::string svg = BoardSvg(session, /*with_laser=*/true);
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("<title>Tom &amp; Jerry's &lt;board&gt;</title>"));
  // Silver's Sphinx on j1 and every piece, in the scheme's colours.
  EXPECT_THAT(svg, HasSubstr("data-square=\"j1\" data-token=\"Xn\""));
  size_t pieces = 0;
  for (size_t at = svg.find("class=\"piece\""); at != std::string::npos;
       at = svg.find("class=\"piece\"", at + 1)) {
    ++pieces;
  }
  EXPECT_EQ(pieces, static_cast<size_t>(session.board().pieces_size()));
  EXPECT_THAT(svg, HasSubstr(session.color_scheme().silver().hex()));
  EXPECT_THAT(svg, HasSubstr(session.color_scheme().red().hex()));
  // One polyline per beam in the beam colour, from j1's centre.
  size_t beams = 0;
  for (size_t at = svg.find("class=\"beam\""); at != std::string::npos;
       at = svg.find("class=\"beam\"", at + 1)) {
    ++beams;
  }
  EXPECT_EQ(beams, static_cast<size_t>(session.last_shot().beams_size()));
  EXPECT_THAT(svg, HasSubstr("data-beam=\"0\" points=\"600.0,480.0 "));
  EXPECT_THAT(svg, HasSubstr(absl::StrCat(
                       "stroke=\"", session.color_scheme().beam().hex())));
  // The squares reserved for one colour.
  EXPECT_THAT(svg, HasSubstr("class=\"reserved\""));
}

TEST(BoardSvgTest, ShowsTheHitPieceStandingAndMarked) {
  // Classic 2 after j1L: the beam runs west and hits the Anubis on f1.
  const Position pos = SetupPosition("classic-2").value();
  v1::Session session;
  *session.mutable_board() = BoardToProto(pos);
  Position turned = pos;
  turned.Set(MakeSquare(9, 0), Piece(Color::kSilver, PieceType::kSphinx, 3));
  *session.mutable_last_shot() =
      ShotToProto(TraceLaser(turned, Color::kSilver), pos.edition());
  ASSERT_EQ(session.last_shot().hit_squares(0), "f1");
  // The board after the shot has no f1 piece; the SVG still draws it.
  v1::Board& board = *session.mutable_board();
  for (int i = 0; i < board.pieces_size(); ++i) {
    if (board.pieces(i).square() == "f1") {
      board.mutable_pieces()->DeleteSubrange(i, 1);
      break;
    }
  }
  *session.mutable_color_scheme() = FindColorScheme("classic").value();
  const std::string svg = BoardSvg(session, true);
  EXPECT_EQ(XmlProblem(svg), "");
  EXPECT_THAT(svg, HasSubstr("data-square=\"f1\" data-token=\"An\""));
  EXPECT_THAT(svg, HasSubstr("class=\"hit\" data-square=\"f1\""));
  const std::string without = BoardSvg(session, false);
  EXPECT_EQ(XmlProblem(without), "");
  EXPECT_THAT(without, Not(HasSubstr("data-square=\"f1\"")));
  EXPECT_THAT(without, Not(HasSubstr("class=\"beam\"")));
}

TEST(BoardSvgTest, EverySetupIsWellFormed) {
  for (const SetupInfo& setup : AllSetups()) {
    const Position pos = SetupPosition(setup.id).value();
    v1::Session session;
    *session.mutable_board() = BoardToProto(pos);
    *session.mutable_last_shot() =
        ShotToProto(TraceLaser(pos, Color::kRed), pos.edition());
    *session.mutable_color_scheme() = FindColorScheme("royal").value();
    EXPECT_EQ(XmlProblem(BoardSvg(session, true)), "") << setup.id;
  }
}

}  // namespace
}  // namespace khet
