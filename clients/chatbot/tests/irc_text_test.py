# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""IRC lines: parsing what the server sends, and cutting what the bot says
into PRIVMSG lines within the protocol's limits."""

import unittest

from khet_chatbot import Message
from khet_chatbot.irc_text import (is_channel, parse_line, privmsg_lines,
                                   split_text)


class ParseLineTest(unittest.TestCase):

    def test_privmsg_with_prefix_and_trailing_text(self):
        line = parse_line(":alice!~a@127.0.0.1 PRIVMSG #khet :!move j1L now")
        self.assertEqual(line.prefix, "alice!~a@127.0.0.1")
        self.assertEqual(line.nick, "alice")
        self.assertEqual(line.command, "PRIVMSG")
        self.assertEqual(line.params, ("#khet", "!move j1L now"))

    def test_ping_without_prefix(self):
        line = parse_line("PING :irc.khet.test")
        self.assertEqual((line.prefix, line.command, line.params),
                         ("", "PING", ("irc.khet.test",)))

    def test_numeric_reply_and_lower_case_command(self):
        self.assertEqual(parse_line(":srv 001 khetbot :Welcome").params,
                         ("khetbot", "Welcome"))
        self.assertEqual(parse_line("privmsg #a :x").command, "PRIVMSG")

    def test_trailing_text_may_be_empty_or_start_with_a_colon(self):
        self.assertEqual(parse_line(":a PRIVMSG #k :").params, ("#k", ""))
        self.assertEqual(parse_line(":a PRIVMSG #k ::)").params, ("#k", ":)"))

    def test_channels_and_nicks(self):
        self.assertTrue(is_channel("#khet"))
        self.assertTrue(is_channel("&local"))
        self.assertFalse(is_channel("alice"))


class PrivmsgLinesTest(unittest.TestCase):

    def test_each_line_of_a_message_is_one_privmsg_keeping_its_spaces(self):
        board = Message.of("    a   b", " 8  xs  .s", "", monospace=True)
        self.assertEqual(privmsg_lines("#khet", board),
                         ["PRIVMSG #khet :    a   b", "PRIVMSG #khet : 8  xs  .s"])

    def test_long_lines_are_cut_at_spaces_within_the_limit(self):
        moves = " ".join(f"e{n % 8 + 1}-e{n % 7 + 1}" for n in range(200))
        lines = privmsg_lines("#khet", Message.of(moves))
        self.assertGreater(len(lines), 3)
        texts = [line.split(" :", 1)[1] for line in lines]
        for line in lines:
            self.assertLessEqual(len(line.encode()) + 2, 512 - 100)
        self.assertEqual(" ".join(texts), moves)
        self.assertTrue(all(not t.startswith(" ") and not t.endswith(" ")
                            for t in texts))

    def test_a_word_longer_than_the_limit_is_cut_between_characters(self):
        text = "\u2659" * 300  # three bytes each in UTF-8
        pieces = split_text(text, 400)
        self.assertEqual("".join(pieces), text)
        self.assertTrue(all(len(p.encode()) <= 400 for p in pieces))
        self.assertEqual(len(pieces[0]), 133)

    def test_line_breaks_and_nul_cannot_inject_commands(self):
        lines = privmsg_lines("#k", Message.of("hi\r\nQUIT :bye\0"))
        self.assertEqual(lines, ["PRIVMSG #k :hiQUIT :bye"])


if __name__ == "__main__":
    unittest.main()
