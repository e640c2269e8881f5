// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include <algorithm>
#include <string>
#include <vector>

#include "engine/notation.h"
#include "gtest/gtest.h"
#include "service/i18n/catalog.h"
#include "service/i18n/messages.h"
#include "service/i18n/names.h"

namespace khet {
namespace {

using i18n_internal::Catalog;
using i18n_internal::CatalogEntry;

std::vector<std::string> SortedPlaceholders(std::string_view text) {
  absl::StatusOr<std::vector<std::string>> names = Placeholders(text);
  EXPECT_TRUE(names.ok()) << names.status();
  if (!names.ok()) return {};
  std::sort(names->begin(), names->end());
  return *names;
}

TEST(CatalogTest, EveryLanguageHasEveryMessageOnce) {
  for (Language language : kLanguages) {
    std::vector<int> seen(kMessageCount, 0);
    for (const CatalogEntry& e : Catalog(language)) {
      ASSERT_LT(static_cast<int>(e.message), kMessageCount);
      ++seen[static_cast<int>(e.message)];
      EXPECT_FALSE(e.text.empty()) << LanguageCode(language) << " message "
                                   << static_cast<int>(e.message);
    }
    for (int m = 0; m < kMessageCount; ++m) {
      EXPECT_EQ(seen[m], 1)
          << LanguageCode(language) << " message " << m << " (English: "
          << MessageTemplate(Language::kEnglish, static_cast<Message>(m))
          << ")";
    }
  }
}

TEST(CatalogTest, EveryLanguageHasTheSamePlaceholders) {
  for (int m = 0; m < kMessageCount; ++m) {
    const Message message = static_cast<Message>(m);
    const std::string_view english =
        MessageTemplate(Language::kEnglish, message);
    const std::vector<std::string> expected = SortedPlaceholders(english);
    for (Language language : kLanguages) {
      const std::string_view text = MessageTemplate(language, message);
      EXPECT_EQ(SortedPlaceholders(text), expected)
          << LanguageCode(language) << ": \"" << text << "\" against \""
          << english << "\"";
    }
  }
}

TEST(CatalogTest, LanguagesDifferFromEnglish) {
  // A translation copied from English by mistake shows as many equal
  // templates; only placeholder-only ones and units may coincide.
  for (Language language :
       {Language::kGerman, Language::kFrench, Language::kDutch}) {
    int same = 0;
    for (int m = 0; m < kMessageCount; ++m) {
      const Message message = static_cast<Message>(m);
      same += MessageTemplate(language, message) ==
              MessageTemplate(Language::kEnglish, message);
    }
    EXPECT_LE(same, 5) << LanguageCode(language);
  }
}

TEST(LanguageTest, ParsesItsCodes) {
  for (Language language : kLanguages) {
    absl::StatusOr<Language> parsed = ParseLanguage(LanguageCode(language));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, language);
  }
  EXPECT_EQ(LanguageCode(Language::kGerman), "de");
  EXPECT_EQ(LanguageCode(Language::kFrench), "fr");
  EXPECT_EQ(LanguageCode(Language::kDutch), "nl");
  EXPECT_EQ(*ParseLanguage("NL"), Language::kDutch);
}

TEST(LanguageTest, NamesABadCode) {
  for (std::string_view bad : {"xx", "", "english", "de-CH"}) {
    absl::StatusOr<Language> parsed = ParseLanguage(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("\"" + std::string(bad) + "\""),
              std::string::npos)
        << parsed.status();
    EXPECT_NE(parsed.status().message().find("en, de, fr, nl"),
              std::string::npos);
  }
}

TEST(FormatTest, FillsPlaceholders) {
  EXPECT_EQ(Format(Language::kEnglish, Message::kSeatTaken,
                   {{"name", "ada"}, {"color", "Red"}}),
            "ada takes the Red seat.");
  EXPECT_EQ(Format(Language::kGerman, Message::kSeatTaken,
                   {{"color", "Rot"}, {"name", "ada"}}),
            "ada nimmt den Platz von Rot ein.");
  // Values are not searched for placeholders; unused arguments are ignored.
  EXPECT_EQ(Format(Language::kEnglish, Message::kDrawOffer,
                   {{"player", "{player}"}, {"other", "x"}}),
            "{player} offers a draw.");
  // A placeholder without a value stays as written.
  EXPECT_EQ(Format(Language::kEnglish, Message::kSeatTaken, {{"name", "ada"}}),
            "ada takes the {color} seat.");
  EXPECT_EQ(Format(Language::kFrench, Message::kRepetition),
            "La disposition est apparue trois fois : la partie est nulle.");
}

TEST(FormatTest, ParsesPlaceholders) {
  EXPECT_EQ(*Placeholders("{a} x {b_c} {a}"),
            (std::vector<std::string>{"a", "b_c", "a"}));
  EXPECT_TRUE(Placeholders("none").value().empty());
  for (std::string_view bad : {"a } b", "{Name}", "{", "{}", "{a b}", "x {a"}) {
    EXPECT_EQ(Placeholders(bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

// English piece names are the engine's DescribePiece, for every piece.
TEST(NamesTest, EnglishPiecesAreTheEngines) {
  for (Edition edition : {Edition::kKhet1, Edition::kKhet2}) {
    for (Color color : {Color::kSilver, Color::kRed}) {
      for (int type = 1; type <= 7; ++type) {
        for (int o = 0; o < 4; ++o) {
          const Piece piece(color, static_cast<PieceType>(type), o);
          EXPECT_EQ(PieceText(Language::kEnglish, piece, edition),
                    DescribePiece(piece, edition));
        }
      }
    }
  }
  EXPECT_EQ(PieceText(Language::kGerman, Piece(), Edition::kKhet2),
            DescribePiece(Piece(), Edition::kKhet2));
}

TEST(NamesTest, PiecesAndColoursPerLanguage) {
  const Piece pyramid(Color::kRed, PieceType::kPyramid, 3);
  const Piece djed(Color::kSilver, PieceType::kScarab, 1);
  const Piece stack(Color::kRed, PieceType::kObelisk, 1);
  const Piece eye(Color::kSilver, PieceType::kEye, 0);
  const Piece pharaoh(Color::kSilver, PieceType::kPharaoh);
  EXPECT_EQ(PieceText(Language::kGerman, pyramid, Edition::kKhet2),
            "die rote Pyramide NW");
  EXPECT_EQ(PieceText(Language::kGerman, djed, Edition::kKhet1),
            "der silberne Djed \\");
  EXPECT_EQ(PieceText(Language::kGerman, pharaoh, Edition::kKhet1),
            "der silberne Pharaon");
  EXPECT_EQ(PieceText(Language::kFrench, stack, Edition::kKhet1),
            "la pile d'obélisques rouge");
  EXPECT_EQ(PieceText(Language::kFrench, eye, Edition::kKhet2),
            "l'Œil d'Horus argent /");
  EXPECT_EQ(PieceText(Language::kDutch, pyramid, Edition::kKhet2),
            "de rode piramide NW");
  EXPECT_EQ(PieceText(Language::kDutch, eye, Edition::kKhet2),
            "het zilveren Oog van Horus /");
  EXPECT_EQ(PieceText(Language::kDutch, pharaoh, Edition::kKhet1),
            "de zilveren farao");
  const std::vector<std::pair<Language, std::vector<std::string>>> colours = {
      {Language::kEnglish, {"Silver", "Red", "Silver's", "Red's"}},
      {Language::kGerman, {"Silber", "Rot", "von Silber", "von Rot"}},
      {Language::kFrench, {"Argent", "Rouge", "d'Argent", "de Rouge"}},
      {Language::kDutch, {"Zilver", "Rood", "van Zilver", "van Rood"}}};
  for (const auto& [language, names] : colours) {
    EXPECT_EQ(ColorText(language, Color::kSilver), names[0]);
    EXPECT_EQ(ColorText(language, Color::kRed), names[1]);
    EXPECT_EQ(ColorOwnerText(language, Color::kSilver), names[2]);
    EXPECT_EQ(ColorOwnerText(language, Color::kRed), names[3]);
  }
}

}  // namespace
}  // namespace khet
