# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The chat bot's platform-neutral core against a real khetd (KHETD names the
binary), without any chat server: lines in, messages out."""

import os
import re
import tempfile
import threading
import time
import unittest
import urllib.request

from khet_chatbot import MAX_MESSAGE_CHARS, KhetBot
from khet_chatbot.catalogue import LANGUAGES, Words
from khet_chatbot.describe import score_words
from khet_chatbot.identity import irc_player_id, xmpp_player_id
from khet_chatbot.state import BotState
from khet_client import Client, LocalKhetd, game

# Classic 2, won by Silver's 9th move: its laser runs up file j and along
# rank 8 into Red's Pharaoh on f8 (khet-engine play --seed 287).
PHARAOH_HIT_GAME = [
    "j5-j6", "h4-i3", "f1-e2", "e5-d4", "f4-e3", "d4=c4", "c1-b2", "c4=c5",
    "j6L", "a5-a6", "j6-j7", "h8R", "j7-j8", "a6-a7", "d4-d5", "a4-b4",
    "h2-g3",
]
# Rotations off both lasers' paths in Classic 2: four plies that come back
# to the start, as often as a long game needs.
ROTATION_CYCLE = ["c1R", "h8R", "c1L", "h8L"]


class Channel:
    """What the bot said into each channel, in order, from any thread."""

    def __init__(self):
        self.lines = []  # (channel, line)
        self._changed = threading.Condition()

    def say(self, channel, message):
        with self._changed:
            self.lines += [(channel, line) for line in message.lines]
            self._changed.notify_all()

    def wait_for(self, pattern, channel="#khet", timeout=20, start=0):
        """The index of the first line from `start` on matching `pattern`."""
        regex = re.compile(pattern)
        end = time.monotonic() + timeout
        with self._changed:
            while True:
                for index in range(start, len(self.lines)):
                    said_in, line = self.lines[index]
                    if said_in == channel and regex.search(line):
                        return index
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"nobody said /{pattern}/ in {channel}; said: "
                        + "\n".join(l for c, l in self.lines[start:]))
                self._changed.wait(left)


class BotTestCase(unittest.TestCase):
    """One khetd (its HTTP gateway on too) for every test of the module; a
    new bot and channel for each test."""

    @classmethod
    def setUpClass(cls):
        cls.server = LocalKhetd(http=True).start()
        cls.addClassCleanup(cls.server.stop)
        cls.client = Client(cls.server.target)
        cls.addClassCleanup(cls.client.close)

    def setUp(self):
        self.channel = Channel()
        self.bot = self.make_bot()
        self.addCleanup(self.bot.close)

    def make_bot(self, **options):
        return KhetBot(self.client, self.channel.say, **options)

    def command(self, nick, text, channel="#khet"):
        """The bot's direct replies to one line, as text."""
        replies = self.bot.handle(channel, nick, text)
        for reply in replies:
            self.assertLessEqual(len(reply.text), MAX_MESSAGE_CHARS)
        return "\n".join(reply.text for reply in replies)

    def start_game(self, setup=""):
        self.assertIn("A new game of", self.command("alice", f"!new {setup}"))
        self.assertEqual(self.command("alice", "!join"), "")
        self.assertEqual(self.command("bob", "!join"), "")
        return self.channel.wait_for(r"Silver to move")

    def play_to_a_pharaoh_hit(self):
        """The Pharaoh-hit game through the bot; its session id."""
        self.start_game()
        for ply, move in enumerate(PHARAOH_HIT_GAME):
            self.assertEqual(self.command("alice" if ply % 2 == 0 else "bob",
                                          f"!move {move}"), "")
        self.channel.wait_for(r"^Game over: Silver wins")
        return self.bot.table("#khet").session_id


class CoreTest(BotTestCase):

    def test_a_game_to_a_pharaoh_hit(self):
        self.start_game()
        self.channel.wait_for(r"^ 8  xs  \.s")  # the board at the start
        seen = 0
        for ply, move in enumerate(PHARAOH_HIT_GAME):
            nick = "alice" if ply % 2 == 0 else "bob"
            self.assertEqual(self.command(nick, f"!move {move}"), "")
            seen = self.channel.wait_for(rf"plays {re.escape(move)}\.",
                                         start=seen)
            self.channel.wait_for(r"^laser: beam 0 from ", start=seen)
        self.channel.wait_for(r"^laser: .*hit Red Pharaoh on f8", start=seen)
        self.channel.wait_for(r"^hit: Red Pharaoh on f8, taken off",
                              start=seen)
        over = self.channel.wait_for(
            r"^Game over: Silver wins: Red's Pharaoh was hit", start=seen)
        self.channel.wait_for(r"k\*", start=over)  # the final board
        self.assertIn("finished: Silver wins", self.command("bob", "!status"))
        self.assertIn("is over", self.command("bob", "!move a8L"))

    def test_the_example_moves_are_legal_and_lose_nothing(self):
        """The moves the help, the legend, the key line and the usage show,
        the same in every language, are legal at the start of Classic 2 (of
        Classic 1 for an Obelisk's) and their shot takes nothing off."""
        notation = re.compile(r"\b[a-j][1-8](?:[-=^][a-j][1-8]|[LR])\b")
        shown = {}
        for language in LANGUAGES:
            words = Words(language)
            shown[language] = sorted({
                move for name in ("help_move", "legend_moves", "board_key",
                                  "move_usage", "to_move")
                for move in notation.findall(
                    words(name, prefix="!", mover="Silver"))})
        self.assertEqual(shown["en"], ["c1L", "c1R", "d1^d2", "f4=g3", "j4-j3"])
        for language in LANGUAGES:
            self.assertEqual(shown[language], shown["en"], language)
        for move in shown["en"]:
            with self.subTest(move=move):
                owner = self.client.create_session(
                    "examples",
                    setup_id="classic-1" if "^" in move else "classic-2")
                silver = self.client.join(owner.session_id, "alice", "silver")
                self.client.join(owner.session_id, "bob", "red")
                played = silver.move(move)
                self.assertEqual(played.move.notation, move)
                self.assertEqual(len(played.removals), 0)

    def test_refused_commands_answer_with_the_reason(self):
        self.assertIn("no game here yet",
                      self.command("alice", "!move j4-j3"))
        self.start_game()
        self.assertRegex(self.command("alice", "!move e3-e2"),
                         r"^alice: !move e3-e2: .*e3")
        self.assertRegex(self.command("alice", "!move e4-e6"),
                         r"e6 is not next to e4")
        self.assertRegex(self.command("bob", "!move h4-i3"), r"Silver's turn")
        self.assertIn("no seat", self.command("carol", "!move j5-j6"))
        self.assertIn("already play Silver", self.command("alice", "!join"))
        self.assertIn("!move needs a move", self.command("alice", "!move"))
        self.assertIn("a game is running here", self.command("bob", "!new"))
        self.assertIn("there is no command !fly", self.command("bob", "!fly"))
        self.assertIn("silver or red", self.command("carol", "!computer 1 blue"))
        self.assertEqual(self.command("alice", "just chatting"), "")

    def test_unknown_setup_and_bad_level_are_the_servers_words(self):
        self.assertRegex(self.command("alice", "!new atlantis"),
                         r"^alice: !new atlantis: .*atlantis")
        self.command("alice", "!new")
        self.command("alice", "!join silver")
        self.assertRegex(self.command("alice", "!computer 9"),
                         r"^alice: !computer 9: .*9")
        self.assertIn("takes a level", self.command("alice", "!computer x"))

    def test_playing_the_computer_and_resigning(self):
        self.command("alice", "!new classic-2")
        self.command("alice", "!join silver")
        self.assertEqual(self.command("alice", "!computer 1"), "")
        self.channel.wait_for(r"computer .*takes the Red seat")
        start = self.channel.wait_for(r"Silver to move")
        self.command("alice", "!move j5-j6")
        reply = self.channel.wait_for(r"^Red \(computer, level 1\) plays ",
                                      start=start)
        self.channel.wait_for(r"^laser: beam 0 from a8", start=reply)
        self.assertIn("Silver to move",
                      self.command("alice", "!status"))
        self.assertEqual(self.command("alice", "!resign"), "")
        self.channel.wait_for(r"^Game over: Red wins: Silver resigned")

    def test_a_draw_offered_and_accepted(self):
        self.start_game()
        self.command("alice", "!move j5-j6")
        self.command("bob", "!draw")
        self.channel.wait_for(r"offers a draw\. !draw accepts it")
        self.command("alice", "!draw")
        self.channel.wait_for(r"^Game over: .*[Dd]raw")

    def test_board_moves_hint_and_lists(self):
        self.start_game()
        board = self.command("carol", "!board")
        self.assertEqual(len(board.split("\n")), 12)  # and the key line
        self.assertIn("Silver to move, Khet 2.0", board)
        self.assertIn("Legal moves of the piece on j1 (1): j1L",
                      self.command("carol", "!moves j1"))
        self.assertRegex(self.command("carol", "!moves"),
                         r"^Legal moves for Silver \(\d+\): .*j5-j6")
        hint = self.command("carol", "!hint 1")
        self.assertRegex(hint, r"^Hint for Silver \(.*level 1\): \S+\. "
                               r"Outlook: (about even|.* ahead)")
        self.assertIn("!legend", board.split("\n")[-1])
        legend = self.command("carol", "!legend")
        self.assertIn("K Pharaoh", legend)
        self.assertIn("right (clockwise)", legend)
        self.assertIn("classic-2 (Classic 2)", self.command("carol", "!setups"))
        self.assertRegex(self.command("carol", "!levels"), r"^Levels: 1 .*5 ")
        help_text = self.command("carol", "!help")
        for word in ("!new", "!join", "!move", "!board", "!computer",
                     "!resign", "!draw", "!record", "!games", "!analyse"):
            self.assertIn(word, help_text)

    def test_moves_of_a_piece_out_of_turn_say_whose_turn_it_is(self):
        self.start_game()
        self.assertEqual(self.command("carol", "!moves a8"),
                         "It is Silver's turn; the piece on a8 is Red's, so "
                         "it moves on Red's turn.")
        self.assertEqual(self.command("bob", "!moves a8"),
                         "bob: it is Silver's turn, not yours: your piece on "
                         "a8 can move on your next turn.")
        self.assertRegex(self.command("alice", "!moves a8"),
                         r"^alice: the piece on a8 is Red's, not yours; it "
                         r"is your turn")
        self.assertEqual(self.command("alice", "!moves e3"),
                         "There is no piece on e3.")

    def test_a_finished_games_board_says_who_won(self):
        self.start_game()
        self.command("alice", "!resign")
        self.channel.wait_for(r"^Game over: Red wins: Silver resigned$")
        board = self.command("carol", "!board").split("\n")
        self.assertEqual(board[-2], "Game over: Red wins: Silver resigned")

    def test_the_channel_speaks_its_sessions_language(self):
        self.start_game()
        self.assertIn("I speak English here",
                      self.command("carol", "!language"))
        self.assertIn("en, de, fr", self.command("alice", "!language xx"))
        self.assertEqual(self.command("alice", "!language de"),
                         "Ich spreche hier jetzt Deutsch.")
        self.assertRegex(self.command("carol", "!status"),
                         r"Silber alice .* Rot bob; .*Silber am Zug")
        self.assertIn("Legende", self.command("carol", "!legend"))
        self.command("alice", "!move j5-j6")
        self.channel.wait_for(r"^Laser: ")
        # A new game in the channel keeps its language.
        self.command("alice", "!resign")
        self.channel.wait_for(r"^Partie vorbei")
        self.assertIn("Eine neue Partie", self.command("alice", "!new"))

    def test_a_bot_restarted_on_its_state_carries_on(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "bot.sqlite")
            first = self.make_bot(state=BotState(path))
            self.bot.close()
            self.bot = first
            self.start_game()
            self.command("alice", "!move j5-j6")
            self.channel.wait_for(r"plays j5-j6\.$")
            first.close()
            first._state.close()

            said = len(self.channel.lines)
            second = self.make_bot(state=BotState(path))
            self.addCleanup(second.close)
            self.bot = second
            # The same game, the same seats: bob's token was kept.
            self.assertIn("moves played: 1, Red to move",
                          self.command("carol", "!status"))
            self.assertEqual(self.command("bob", "!move h4-i3"), "")
            self.channel.wait_for(r"plays h4-i3\.$", start=said)
            # Events already relayed are not said again.
            self.assertFalse([line for _, line in self.channel.lines[said:]
                              if "j5-j6" in line])
            self.assertIn("a game is running here",
                          self.command("carol", "!new"))

    def test_score_words(self):
        en = Words("en")
        self.assertEqual(score_words(en, 8, game.SILVER), "about even (+0.08)")
        self.assertEqual(score_words(en, -120, game.SILVER),
                         "Red ahead by about a Pyramid (-1.20)")
        self.assertEqual(score_words(en, 29999, game.RED),
                         "Red wins with this move")
        self.assertEqual(score_words(en, 29995, game.SILVER),
                         "Silver wins in 3 moves")
        self.assertEqual(score_words(en, -29998, game.SILVER),
                         "Red wins with its next move, whatever Silver plays")

    def test_a_reset_frees_the_seats(self):
        self.start_game()
        self.bot.table("#khet").owner.reset_game()
        self.channel.wait_for(r"[Rr]eset")
        self.assertEqual(self.command("alice", "!join red"), "")
        self.channel.wait_for(r"^alice takes the Red seat")
        self.assertEqual(self.command("bob", "!join"), "")
        self.channel.wait_for(r"^bob takes the Silver seat")

    def test_a_session_deleted_on_the_server_makes_way_for_a_new_one(self):
        self.start_game()
        self.bot.table("#khet").owner.delete()
        self.channel.wait_for(r"deleted on the server")
        self.assertIn("A new game of", self.command("alice", "!new"))
        self.assertFalse([line for _, line in self.channel.lines
                          if line.startswith("Lost")])

    def test_one_game_per_channel(self):
        self.start_game()
        self.assertIn("no game here yet",
                      self.command("alice", "!board", channel="#other"))
        self.command("alice", "!move j5-j6")
        self.channel.wait_for(r"plays j5-j6")
        self.assertEqual(
            [c for c, line in self.channel.lines if "plays" in line],
            ["#khet"])


class TakebackTest(BotTestCase):

    def test_a_takeback_declined_then_accepted(self):
        self.start_game()
        self.assertIn("your opponent has not asked",
                      self.command("bob", "!accept"))
        self.command("alice", "!move j5-j6")
        start = self.channel.wait_for(r"plays j5-j6")
        self.assertEqual(self.command("alice", "!takeback"), "")
        asked = self.channel.wait_for(
            r"take back .*1.* Red: !accept grants it, !decline refuses it",
            start=start)
        self.assertIn("asks for a takeback", self.command("bob", "!status"))
        self.assertIn("your opponent has not asked",
                      self.command("alice", "!accept"))
        self.assertEqual(self.command("bob", "!decline"), "")
        self.channel.wait_for(r"takeback request is declined", start=asked)
        self.assertIn("moves played: 1", self.command("bob", "!status"))
        self.command("alice", "!takeback")
        asked = self.channel.wait_for(r"!accept grants it", start=asked + 1)
        self.assertEqual(self.command("bob", "!accept"), "")
        done = self.channel.wait_for(r"takes back", start=asked)
        self.channel.wait_for(r"^Silver to move", start=done)
        self.channel.wait_for(r"^ 8  xs  \.s", start=done)  # the board again
        self.assertIn("moves played: 0", self.command("bob", "!status"))
        # Draws still go by !draw.
        self.command("alice", "!move j5-j6")
        self.command("bob", "!draw")
        self.channel.wait_for(r"offers a draw\. !draw accepts it")
        self.command("alice", "!draw")
        self.channel.wait_for(r"^Game over: .*[Dd]raw")

    def test_the_computer_grants_a_takeback(self):
        self.command("alice", "!new classic-2")
        self.command("alice", "!join silver")
        self.command("alice", "!computer 1")
        start = self.channel.wait_for(r"Silver to move")
        self.command("alice", "!move j5-j6")
        reply = self.channel.wait_for(r"^Red \(computer, level 1\) plays ",
                                      start=start)
        self.assertEqual(self.command("alice", "!takeback"), "")
        self.channel.wait_for(r"takes back 2", start=reply)
        self.assertIn("moves played: 0", self.command("alice", "!status"))


class RatingTest(BotTestCase):
    """Rated games with player ids the bot vouches for."""

    def make_bot(self, **options):
        # Ids of their own for each test's players: one khetd serves them all.
        self.network = f"net{time.monotonic_ns()}"
        return KhetBot(self.client, self.channel.say,
                       identify=lambda channel, nick: irc_player_id(
                           self.network, nick), **options)

    def test_a_rated_game_rates_both_players(self):
        self.command("alice", "!new classic-2")
        self.assertIn("not rated", self.command("alice", "!rated"))
        self.assertIn("Games here are rated", self.command("alice", "!rated on"))
        self.assertIn("!rated takes on or off",
                      self.command("alice", "!rated maybe"))
        alice_id = f"irc:{self.network}/alice"
        self.assertIn(f"alice ({alice_id}) has no rating yet",
                      self.command("alice", "!rating"))
        self.command("alice", "!join")
        self.command("bob", "!join")
        self.channel.wait_for(r"Silver to move")
        session = self.client.session(self.bot.table("#khet").session_id)
        self.assertEqual([seat.player_id for seat in session.seats],
                         [alice_id, f"irc:{self.network}/bob"])
        self.assertIn("; rated", self.command("bob", "!status"))
        self.assertIn("This game is rated", self.command("bob", "!rated"))
        self.command("alice", "!move j5-j6")
        self.assertIn("rated game", self.command("alice", "!takeback"))
        self.command("bob", "!resign")
        self.channel.wait_for(r"^Game over: Silver wins")
        rating = self.command("bob", "!rating alice")
        self.assertRegex(rating, rf"^alice \({re.escape(alice_id)}\): "
                                 r"rating 1[5-9]\d\d ± \d+; 1 rated games, "
                                 r"1 won, 0 drawn, 0 lost\.$")
        self.assertIn("0 won, 0 drawn, 1 lost", self.command("bob", "!rating"))
        top = self.command("carol", "!top")
        self.assertRegex(top, r"^Best rated: 1\. ")
        self.assertLess(top.index("alice"), top.index("bob"))

    def test_only_seated_players_change_rated_while_seated(self):
        self.command("alice", "!new classic-2")
        self.command("alice", "!join")
        self.assertIn("only they can turn rating on or off",
                      self.command("carol", "!rated on"))
        session = self.client.session(self.bot.table("#khet").session_id)
        self.assertFalse(session.settings.rated)
        # Asking is open to anyone; a seated player may change it.
        self.assertIn("not rated", self.command("carol", "!rated"))
        self.assertIn("Games here are rated", self.command("alice", "!rated on"))
        session = self.client.session(self.bot.table("#khet").session_id)
        self.assertTrue(session.settings.rated)

    def test_without_an_identity_nobody_is_rated(self):
        self.bot.identify = None
        self.command("alice", "!new classic-2")
        self.command("alice", "!join")
        session = self.client.session(self.bot.table("#khet").session_id)
        self.assertEqual(session.seats[0].player_id, "")
        self.assertIn("I cannot tell who alice is",
                      self.command("alice", "!rating"))

    def test_chat_identities_as_player_ids(self):
        self.assertEqual(irc_player_id("Libera.Chat", "Alice"),
                         "irc:libera.chat/alice")
        # IRC's case mapping, and characters a player id may not hold.
        self.assertEqual(irc_player_id("net", "[Bob]"),
                         irc_player_id("net", "{bob}"))
        self.assertEqual(irc_player_id("net", "a|b^"), "irc:net/a+7cb+5e")
        self.assertNotEqual(irc_player_id("net", "a+7c"),
                            irc_player_id("net", "a|"))
        self.assertEqual(xmpp_player_id("Carol@Example.org"),
                         "xmpp:carol@example.org")
        self.assertIsNone(xmpp_player_id(None))
        self.assertIsNone(irc_player_id("net", "n" * 200))


class RecordTest(BotTestCase):
    """!record, !games and !analyse, in lines of IRC's length."""

    def make_bot(self, **options):
        return KhetBot(self.client, self.channel.say, line_chars=400,
                       analysis_ms_per_ply=20, **options)

    def test_the_record_in_moves_then_the_last_game_after_a_new_one(self):
        self.assertIn("no game here yet", self.command("carol", "!record"))
        session_id = self.play_to_a_pharaoh_hit()
        game_id = f"{session_id}-g1"
        record = self.command("carol", "!record").split("\n")
        self.assertEqual(record, [
            f"Game {game_id}: Silver alice v Red bob, Silver wins: Red's "
            f"Pharaoh was hit (1-0), 17 plies.",
            "1. j5-j6 h4-i3 2. f1-e2 e5-d4 3. f4-e3 d4=c4 4. c1-b2 c4=c5 "
            "5. j6L a5-a6 6. j6-j7 h8R 7. j7-j8 a6-a7 8. d4-d5 a4-b4 "
            "9. h2-g3 1-0"])
        # The record the server writes has the same moves and numbers; it
        # also says what each shot hit, and numbers a Red move after that.
        movetext = re.sub(r"\{[^}]*\}\s*\d+\.\.\.|\{[^}]*\}", "",
                          self.client.record(session_id).split("\n\n", 1)[1])
        self.assertEqual(" ".join(movetext.split()), record[1])

        # A new game without moves: the record is the last one's, named.
        self.assertIn("A new game of", self.command("alice", "!new"))
        after = self.command("carol", "!record").split("\n")
        self.assertEqual(after[0], f"No moves in this game yet; the last one "
                         f"was {game_id}. " + record[0])
        self.assertEqual(after[1:], record[1:])
        games = self.command("carol", "!games").split("\n")
        self.assertEqual(games[0], "Games here, newest first:")
        self.assertRegex(games[1], rf"^1\. Game {re.escape(game_id)}: Silver "
                         rf"alice v Red bob, .*\(1-0\), 17 plies, ended ")
        self.assertEqual(len(games), 3)
        self.assertEqual(self.command("carol", "!record 1").split("\n"),
                         record)
        self.assertIn("no game 2 here: !games lists 1",
                      self.command("carol", "!record 2"))

    def test_a_link_to_the_record_with_a_web_url(self):
        self.bot.close()
        self.bot = self.make_bot(web_url=f"http://{self.server.http_target}/")
        self.addCleanup(self.bot.close)
        session_id = self.play_to_a_pharaoh_hit()
        game_id = f"{session_id}-g1"
        link = (f"http://{self.server.http_target}/v1/sessions/{session_id}"
                f"/games/{game_id}/record")
        self.assertEqual(
            self.command("carol", "!record"),
            f"Game {game_id}: Silver alice v Red bob, Silver wins: Red's "
            f"Pharaoh was hit (1-0), 17 plies: {link}")
        with urllib.request.urlopen(link, timeout=10) as download:
            self.assertEqual(download.read().decode(),
                             self.client.record(session_id, game_id))

    def test_a_long_game_is_cut_saying_how_many_plies_were_left_out(self):
        self.start_game()
        played = ROTATION_CYCLE * 60
        for ply, move in enumerate(played):
            self.assertEqual(self.command("alice" if ply % 2 == 0 else "bob",
                                          f"!move {move}"), "")
        lines = self.command("carol", "!record").split("\n")
        session_id = self.bot.table("#khet").session_id
        self.assertEqual(lines[0], f"Game {session_id}-g1: Silver alice v Red "
                         f"bob, still going, 240 plies.")
        self.assertEqual(len(lines), 4)
        self.assertTrue(all(len(line) <= 400 for line in lines), lines)
        self.assertTrue(lines[1].startswith("1. c1R h8R 2. c1L h8L 3. c1R"))
        cut = re.fullmatch(r"\.\.\. (\d+) plies left out \.\.\. (.*) \*",
                           lines[3])
        self.assertIsNotNone(cut, lines[3])
        self.assertTrue(cut.group(2).endswith(" 120. c1L h8L"), lines[3])
        # The first lines' moves, the plies left out and the last line's
        # moves are the game's, in order.
        head = moves_of(" ".join(lines[1:3]))
        tail = moves_of(cut.group(2))
        left_out = int(cut.group(1))
        self.assertGreater(left_out, 0)
        self.assertEqual(len(head) + left_out + len(tail), len(played))
        self.assertEqual(head, played[:len(head)])
        self.assertEqual(tail, played[len(head) + left_out:])

    def test_unknown_games_are_refused_with_the_servers_reason(self):
        self.start_game()
        session_id = self.bot.table("#khet").session_id
        self.assertEqual(
            self.command("carol", f"!record {session_id}-g9"),
            f'carol: !record {session_id}-g9: session "{session_id}" has no '
            f'game "{session_id}-g9"; !games lists the games here.')
        self.assertRegex(self.command("carol", "!record nobody-g1"),
                         r'^carol: !record nobody-g1: no session "nobody"; ')
        self.assertIn('"j5-j6" is not a game id',
                      self.command("carol", "!record j5-j6"))
        self.assertIn("the game here has no moves yet",
                      self.command("carol", "!record"))
        self.assertIn("!games takes nothing",
                      self.command("carol", "!games 3"))

    def test_a_session_deleted_on_the_server_took_its_games_along(self):
        self.start_game()
        self.command("alice", "!move j5-j6")
        table = self.bot.table("#khet")
        table.owner.reset_game()
        self.assertRegex(self.command("carol", "!games"), r"\n1\. Game ")
        table.owner.delete()
        self.channel.wait_for(r"deleted on the server")
        self.assertEqual(self.command("carol", "!games"),
                         "No past games here yet.")
        self.assertIn("the game here has no moves yet",
                      self.command("carol", "!record"))

    def test_the_computer_analyses_the_game_when_asked(self):
        self.start_game()
        self.command("alice", "!move j5-j6")
        self.assertRegex(self.command("carol", "!analyse"),
                         r'^carol: !analyse: game "\S+-g1" is still going')
        for ply, move in enumerate(PHARAOH_HIT_GAME[1:], start=1):
            self.command("alice" if ply % 2 == 0 else "bob", f"!move {move}")
        self.channel.wait_for(r"^Game over: Silver wins")
        game_id = f"{self.bot.table('#khet').session_id}-g1"
        self.assertEqual(
            self.command("carol", "!analyze"),
            f"The computer is analysing game {game_id} (0 of 17 plies done); "
            f"its findings come here when it is done.")
        silver = self.channel.wait_for(
            rf"^Analysis of game {re.escape(game_id)} \(20 ms a ply\): "
            r"Silver: ", timeout=40)
        red = self.channel.wait_for(r"^Red: ", start=silver)
        # Red's a6-a7 let Silver hit the Pharaoh in three plies.
        self.assertRegex(self.channel.lines[red][1],
                         r"^Red: blunder 7\.\.\. a6-a7 \(better \S+\)")
        again = self.command("carol", "!analyse 1").split("\n")
        self.assertEqual(again, [self.channel.lines[silver][1],
                                 self.channel.lines[red][1]])


def moves_of(text):
    """The moves in record text, without move numbers."""
    return [word for word in text.split()
            if not re.fullmatch(r"\d+\.(\.\.)?", word)]


if __name__ == "__main__":
    unittest.main()
