# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The bot keeps its games through a dropped IRC connection and through its
own restart: ngircd killed and started again on the same port (the bot
connects again by itself), then the bot process stopped and started again
on the same --state file (the game and the seats' tokens carry on)."""

import os
import signal
import subprocess
import sys
import tempfile
import unittest

from irc_test import BOT, IrcClient, start_ngircd, stop_process
from khet_client import LocalKhetd


class ReconnectAndRestartTest(unittest.TestCase):

    def setUp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.directory = directory.name
        self.state = os.path.join(self.directory, "bot.sqlite")
        self.khetd = LocalKhetd().start()
        self.addCleanup(self.khetd.stop)
        self.ngircd, self.port = start_ngircd(self.directory)
        self.addCleanup(lambda: stop_process(self.ngircd))

    def start_bot(self):
        bot = subprocess.Popen(
            [sys.executable, "-m", "khet_chatbot", "--khetd",
             self.khetd.target, "--irc", f"127.0.0.1:{self.port}", "--nick",
             BOT, "--channel", "#khet", "--line-interval", "0.02", "--burst",
             "20", "--state", self.state, "--reconnect-max", "2"])
        self.addCleanup(stop_process, bot)
        return bot

    def player(self, nick):
        client = IrcClient(self.port, nick)
        self.addCleanup(client.close)
        client.join("#khet")
        return client

    def test_a_dropped_server_and_a_restarted_bot_keep_the_game(self):
        bot = self.start_bot()
        alice = self.player("alice")
        alice.say("#khet", "!new")
        alice.wait_for_bot("#khet", r"^A new game of Classic 2")
        alice.say("#khet", "!join silver")
        alice.say("#khet", "!computer 1")
        alice.wait_for_bot("#khet", r"^Silver to move: !move")

        # The IRC server dies and comes back: the bot finds it again.
        self.ngircd.send_signal(signal.SIGKILL)
        self.ngircd.wait()
        self.ngircd, _ = start_ngircd(self.directory, self.port)
        alice = self.player("alice")  # waits until the bot has joined
        alice.say("#khet", "!status")
        alice.wait_for_bot("#khet", r"Silver alice v Red the computer .*"
                                    r"moves played: 0, Silver to move")

        # The bot itself restarts on its state: alice's seat is still hers.
        stop_process(bot)
        self.assertEqual(bot.returncode, 0)
        start = len(alice.bot_lines("#khet"))
        self.start_bot()
        alice.names.pop("#khet")  # the old bot's; wait for the new one
        alice.join("#khet")
        alice.say("#khet", "!move j5-j6")
        alice.wait_for_bot("#khet", r"plays j5-j6\.$", start)
        alice.wait_for_bot("#khet", r"computer.*plays ", start)


if __name__ == "__main__":
    unittest.main()
