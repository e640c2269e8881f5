// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Announcements in German, French and Dutch (English: announcements_test).
#include <string>
#include <vector>

#include "engine/notation.h"
#include "engine/setups.h"
#include "gtest/gtest.h"
#include "service/sessions/announcements.h"

namespace khet {
namespace {

struct Expected {
  Language language;
  std::string move_with_hits;
  std::string move_with_one_hit;
  std::string resignation;
  std::string pharaoh_hit;
  std::string seat_taken;
  std::string computer_left;
  std::string game_start;
  std::string settings;
  std::string reset;
};

const std::vector<Expected>& Cases() {
  static const auto* cases = new std::vector<Expected>{
      {Language::kGerman,
       "Rot zieht a8L. Vom Laser getroffen: die rote Pyramide NE auf h5, der "
       "rote Obeliskenstapel auf d8 (der oberste Obelisk fällt) und der rote "
       "Pharaon auf f8.",
       "Silber (alice) zieht e4-e5. Vom Laser getroffen: die rote Pyramide NE "
       "auf h5.",
       "Rot (bob) gibt auf: Silber gewinnt.",
       "Der Pharaon von Silber ist getroffen: Rot gewinnt.",
       "bob nimmt den Platz von Rot ein.",
       "Der Computer (Stufe 2, SCARAB'S APPRENTICE) verlässt den Platz von "
       "Silber.",
       "Ein neues Spiel mit der Aufstellung Osiris beginnt: Silber (a) gegen "
       "Rot (b). Rot fängt an.",
       "Einstellungen: Zeitlimit 90 min, leise, Farben Classic, Maßstab 2,5 m.",
       "Kein Zug seit 2 d: das Spiel wird zurückgesetzt; beide Plätze sind "
       "frei."},
      {Language::kFrench,
       "Rouge joue a8L. Le rayon frappe la pyramide rouge NE en h5, la pile "
       "d'obélisques rouge en d8 (l'obélisque du haut tombe) et le pharaon "
       "rouge en f8.",
       "Argent (alice) joue e4-e5. Le rayon frappe la pyramide rouge NE en h5.",
       "Rouge (bob) abandonne : Argent gagne.",
       "Le pharaon d'Argent est frappé : Rouge gagne.",
       "bob prend place côté Rouge.",
       "L'ordinateur (niveau 2, SCARAB'S APPRENTICE) quitte sa place côté "
       "Argent.",
       "Une nouvelle partie en configuration Osiris commence : Argent (a) "
       "contre Rouge (b). Rouge commence.",
       "Réglages : réinitialisation après 90 min d'inactivité, discret, "
       "couleurs Classic, échelle 2,5 m.",
       "Aucun coup depuis 2 j : la partie est réinitialisée ; les deux places "
       "sont libres."},
      {Language::kDutch,
       "Rood speelt a8L. De laser raakt de rode piramide NE op h5, de rode "
       "stapel obelisken op d8 (de bovenste obelisk valt) en de rode farao op "
       "f8.",
       "Zilver (alice) speelt e4-e5. De laser raakt de rode piramide NE op h5.",
       "Rood (bob) geeft op: Zilver wint.",
       "De farao van Zilver is geraakt: Rood wint.",
       "bob neemt de plaats van Rood in.",
       "De computer (niveau 2, SCARAB'S APPRENTICE) verlaat de plaats van "
       "Zilver.",
       "Een nieuw spel met de opstelling Osiris begint: Zilver (a) tegen Rood "
       "(b). Rood begint.",
       "Instellingen: time-out na 90 min, stil, kleuren Classic, schaal 2,5 m.",
       "Geen zet in 2 d: het spel begint opnieuw; beide plaatsen zijn vrij."},
  };
  return *cases;
}

class AnnouncementsLanguageTest : public testing::TestWithParam<int> {
 protected:
  const Expected& expected() const { return Cases()[GetParam()]; }
  Language language() const { return expected().language; }
};

TEST_P(AnnouncementsLanguageTest, MovesWithHits) {
  std::vector<Removal> hits = {
      {MakeSquare(7, 4), Piece(Color::kRed, PieceType::kPyramid, kNE), {}}};
  EXPECT_EQ(MoveAnnouncement(Color::kSilver, "alice", "e4-e5", hits,
                             Edition::kKhet2, /*quiet=*/true, language()),
            expected().move_with_one_hit);
  EXPECT_EQ(MoveAnnouncement(Color::kSilver, "alice", "e4-e5", {},
                             Edition::kKhet2, /*quiet=*/true, language()),
            "");
  hits.push_back({MakeSquare(3, 7), Piece(Color::kRed, PieceType::kObelisk, 1),
                  Piece(Color::kRed, PieceType::kObelisk, 0)});
  hits.push_back(
      {MakeSquare(5, 7), Piece(Color::kRed, PieceType::kPharaoh), {}});
  EXPECT_EQ(MoveAnnouncement(Color::kRed, "", "a8L", hits, Edition::kKhet1,
                             false, language()),
            expected().move_with_hits);
}

TEST_P(AnnouncementsLanguageTest, GameOver) {
  Game game(*SetupPosition("classic-2"));
  ASSERT_TRUE(game.Resign(Color::kRed).ok());
  EXPECT_EQ(GameOverAnnouncement(game, "alice", "bob", language()),
            expected().resignation);
  Game hit(*SetupPosition("classic-2"));
  for (const char* m : {"j1L", "a8L", "j1R", "a8R", "j1L"}) {
    ASSERT_TRUE(hit.Play(*ParseMove(hit.position(), m)).ok()) << m;
  }
  ASSERT_TRUE(hit.over());
  EXPECT_EQ(GameOverAnnouncement(hit, "alice", "bob", language()),
            expected().pharaoh_hit);
}

TEST_P(AnnouncementsLanguageTest, SeatsStartsSettingsAndResets) {
  EXPECT_EQ(SeatAnnouncement(Color::kRed, "bob", true, language()),
            expected().seat_taken);
  EXPECT_EQ(ComputerSeatAnnouncement(Color::kSilver, 2, "SCARAB'S APPRENTICE",
                                     false, language()),
            expected().computer_left);
  EXPECT_EQ(GameStartAnnouncement("Osiris", "a", "b", Color::kRed, language()),
            expected().game_start);
  v1::Settings settings;
  settings.set_timeout_enabled(true);
  settings.set_timeout_seconds(5400);
  settings.set_quiet(true);
  settings.set_scale_meters(2.5);
  EXPECT_EQ(SettingsAnnouncement(settings, "Classic", language()),
            expected().settings);
  EXPECT_EQ(ResetAnnouncement(true, 2 * 86400, language()), expected().reset);
}

INSTANTIATE_TEST_SUITE_P(Languages, AnnouncementsLanguageTest,
                         testing::Range(0, 3),
                         [](const testing::TestParamInfo<int>& param) {
                           return std::string(
                               LanguageCode(Cases()[param.param].language));
                         });

// The English default is the explicit English.
TEST(AnnouncementsDefaultTest, EnglishIsTheDefault) {
  EXPECT_EQ(DrawOfferAnnouncement(Color::kRed, "bob"),
            DrawOfferAnnouncement(Color::kRed, "bob", Language::kEnglish));
  EXPECT_EQ(DrawOfferAnnouncement(Color::kRed, "bob", Language::kGerman),
            "Rot (bob) bietet ein Unentschieden an.");
  EXPECT_EQ(DeletedAnnouncement("lunch", Language::kFrench),
            "Le plateau « lunch » est fermé.");
  EXPECT_EQ(DeletedAnnouncement("lunch"), "The board \"lunch\" is closed.");
  RuleOptions options;
  options.both_pharaohs_hit_draws = true;
  options.ply_limit = 200;
  EXPECT_EQ(SetupAnnouncement("Classic 1", options, Language::kDutch),
            "De opstelling is nu Classic 1. Beide farao's geraakt: gelijkspel. "
            "Gelijkspel na 200 halve zetten.");
  EXPECT_EQ(DurationText(3600, Language::kGerman), "1 h");
}

}  // namespace
}  // namespace khet
