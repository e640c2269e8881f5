# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The chat bot on a real IRC server: Debian's ngircd on a free loopback
port (NGIRCD names the binary), a real khetd (KHETD), the bot as its own
process, and the test's IRC clients alice and bob playing in the channel."""

import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from khet_client import LocalKhetd

BOT = "khetbot"
# Classic 2, won by Silver's 9th move: its laser runs up file j and along
# rank 8 into Red's Pharaoh on f8 (khet-engine play --seed 287).
PHARAOH_HIT_GAME = [
    "j5-j6", "h4-i3", "f1-e2", "e5-d4", "f4-e3", "d4=c4", "c1-b2", "c4=c5",
    "j6L", "a5-a6", "j6-j7", "h8R", "j7-j8", "a6-a7", "d4-d5", "a4-b4",
    "h2-g3",
]
NGIRCD_CONFIG = """\
[Global]
Name = irc.khet.test
Info = the Khet chat bot's test server
Listen = 127.0.0.1
Ports = {port}
MotdPhrase = khet test
[Limits]
MaxConnectionsIP = 0
PingTimeout = 120
# The bot paces itself; the test would rather not wait for penalties.
MaxPenaltyTime = 0
[Options]
DNS = no
Ident = no
PAM = no
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_ngircd(directory, port=None):
    """ngircd in the foreground on `port`, or a free one; (process, port). A
    free port taken between the probe and ngircd's bind is tried again with
    another; a given one is tried again while the last ngircd lets go of
    it."""
    config = os.path.join(directory, "ngircd.conf")
    log = os.path.join(directory, "ngircd.log")
    wanted = port
    for _ in range(5):
        port = wanted or free_port()
        with open(config, "w") as out:
            out.write(NGIRCD_CONFIG.format(port=port))
        with open(log, "w") as out:
            process = subprocess.Popen(
                [os.environ.get("NGIRCD", "/usr/sbin/ngircd"), "-n", "-f",
                 config], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return process, port
            except OSError:
                time.sleep(0.05)
        stop_process(process)
    with open(log) as out:
        raise RuntimeError(f"ngircd did not start listening:\n{out.read()}")


def stop_process(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class IrcClient:
    """A test's IRC user: registers, joins, says lines and records every
    PRIVMSG it sees as (sender, target, text)."""

    def __init__(self, port, nick):
        self.nick = nick
        self.heard = []
        self.names = {}  # channel -> nicks listed by NAMES
        self._changed = threading.Condition()
        self._socket = socket.create_connection(("127.0.0.1", port), timeout=10)
        self._socket.settimeout(None)
        threading.Thread(target=self._read, daemon=True).start()
        self.send(f"NICK {nick}")
        self.send(f"USER {nick} 0 * :test player")
        self._wait(lambda: self._welcomed, "the server's welcome")

    _welcomed = False

    def send(self, line):
        self._socket.sendall(line.encode() + b"\r\n")

    def say(self, channel, text):
        self.send(f"PRIVMSG {channel} :{text}")

    def join(self, channel):
        """Joins `channel` and waits until the bot is in it too."""
        self.send(f"JOIN {channel}")
        deadline = time.monotonic() + 20
        while BOT not in self.names.get(channel, ()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{BOT} never joined {channel}")
            self.send(f"NAMES {channel}")
            time.sleep(0.1)

    def close(self):
        try:
            self.send("QUIT :done")
        except OSError:
            pass
        self._socket.close()

    def _read(self):
        buffer = b""
        while True:
            try:
                data = self._socket.recv(4096)
            except OSError:
                return
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\r\n")
            for line in lines:
                self._on_line(line.decode("utf-8", errors="replace"))

    def _on_line(self, line):
        if line.startswith("PING"):
            self.send("PONG" + line[4:])
            return
        words = line.split(" ", 3)
        with self._changed:
            if len(words) > 1 and words[1] == "001":
                self._welcomed = True
            elif len(words) > 3 and words[1] == "353":
                channel, nicks = words[3].split(" :", 1)[0].split()[-1], \
                    words[3].split(" :", 1)[1]
                self.names[channel] = {n.lstrip("@+") for n in nicks.split()}
            elif len(words) > 3 and words[1] == "PRIVMSG":
                sender = words[0][1:].split("!", 1)[0]
                target, text = words[2], words[3][1:]
                self.heard.append((sender, target, text))
            self._changed.notify_all()

    def _wait(self, ready, what, timeout=20):
        with self._changed:
            if not self._changed.wait_for(ready, timeout):
                raise AssertionError(f"{self.nick} waited in vain for {what}")

    def bot_lines(self, channel, start=0):
        with self._changed:
            return [text for sender, target, text in self.heard[start:]
                    if sender == BOT and target == channel]

    def wait_for_bot(self, channel, pattern, start=0, timeout=20):
        """The index, in all the bot said in `channel`, of its first line
        from `start` on that matches `pattern`."""
        regex = re.compile(pattern)
        found = []

        def seen():
            lines = self.bot_lines(channel)
            for index in range(start, len(lines)):
                if regex.search(lines[index]):
                    found.append(index)
                    return True
            return False

        with self._changed:
            if not self._changed.wait_for(seen, timeout):
                raise AssertionError(
                    f"{self.nick} never saw {BOT} say /{pattern}/ in {channel}"
                    f"; it said:\n" + "\n".join(self.bot_lines(channel, 0)
                                                [start:]))
        return found[0]


class ChatBotOnIrcTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        directory = tempfile.TemporaryDirectory()
        cls.addClassCleanup(directory.cleanup)
        khetd = LocalKhetd().start()
        cls.addClassCleanup(khetd.stop)
        ngircd, port = start_ngircd(directory.name)
        cls.addClassCleanup(stop_process, ngircd)
        bot = subprocess.Popen(
            [sys.executable, "-m", "khet_chatbot", "--khetd", khetd.target,
             "--irc", f"127.0.0.1:{port}", "--nick", BOT,
             "--channel", "#khet", "--channel", "#computer",
             "--line-interval", "0.02", "--burst", "20",
             "--web_url", "https://khet.example.org/"])
        cls.addClassCleanup(stop_process, bot)
        cls.bot = bot
        cls.alice = IrcClient(port, "alice")
        cls.addClassCleanup(cls.alice.close)
        cls.bob = IrcClient(port, "bob")
        cls.addClassCleanup(cls.bob.close)

    def test_two_players_to_a_pharaoh_hit(self):
        alice, bob, channel = self.alice, self.bob, "#khet"
        alice.join(channel)
        bob.join(channel)
        alice.say(channel, "!new classic-2")
        bob.wait_for_bot(channel, r"^A new game of Classic 2 here")
        alice.say(channel, "!join silver")
        bob.wait_for_bot(channel, r"^alice takes the Silver seat")
        bob.say(channel, "!join")
        start = bob.wait_for_bot(channel, r"^Silver to move: !move")

        # The board arrives whole, one PRIVMSG a line, in order.
        top = bob.wait_for_bot(channel, r"^ 8  xs  \.s", start)
        bottom = bob.wait_for_bot(channel, r"^Silver to move, Khet 2\.0$", top)
        self.assertEqual(bottom, top + 9)
        board = bob.bot_lines(channel)[top - 1:bottom + 1]
        self.assertEqual(board[0].split(), list("abcdefghij"))
        self.assertEqual([line.split()[0] for line in board[1:9]],
                         list("87654321"))
        self.assertEqual(board[10], "Silver to move, Khet 2.0")

        # The bot vouches for its players as irc:<network>/<nick>.
        alice.say(channel, "!rating")
        bob.wait_for_bot(channel, r"^alice \(irc:[^/ ]+/alice\) has no rating "
                                  r"yet", start)

        # Refusals come back with the server's reason.
        alice.say(channel, "!move e3-e2")
        bob.wait_for_bot(channel, r"^alice: !move e3-e2: e3: ", start)
        bob.say(channel, "!move h4-i3")
        bob.wait_for_bot(channel, r"^bob: !move h4-i3: .*Silver", start)

        # A long answer is cut into several lines, none over 400 bytes.
        bob.say(channel, "!moves")
        first = bob.wait_for_bot(
            channel, r"^Legal moves for Silver \((\d+)\): ", start)
        count = int(re.search(r"\((\d+)\)",
                              bob.bot_lines(channel)[first]).group(1))
        deadline = time.monotonic() + 20
        while True:  # until every move has arrived
            moves_said = bob.bot_lines(channel)[first:first + 4]
            listed = " ".join(moves_said).split(": ", 1)[1].split()
            if len(listed) >= count or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertGreater(count, 60)
        self.assertEqual(len(listed[:count]), count)
        self.assertIn("j5-j6", listed[:count])
        self.assertGreater(len(moves_said), 1)
        self.assertTrue(all(len(line.encode()) <= 400 for line in moves_said))

        seen = start
        for ply, move in enumerate(PHARAOH_HIT_GAME):
            (alice if ply % 2 == 0 else bob).say(channel, f"!move {move}")
            seen = alice.wait_for_bot(channel, rf"plays {re.escape(move)}\.",
                                      seen)
            alice.wait_for_bot(channel, r"^laser: beam 0 from (j1|a8)", seen)
        bob.wait_for_bot(channel, r"^laser: .*; hit Red Pharaoh on f8", seen)
        bob.wait_for_bot(channel, r"^hit: Red Pharaoh on f8", seen)
        over = bob.wait_for_bot(
            channel, r"^Game over: Silver wins: Red's Pharaoh was hit", seen)
        bob.wait_for_bot(channel, r"^ 8  .*k\*", over)  # the final board
        bob.say(channel, "!move a8L")
        bob.wait_for_bot(channel, r"^bob: !move a8L: .*over", over)

        # With --web_url the record is a link on one line.
        bob.say(channel, "!record")
        bob.wait_for_bot(
            channel, r"^Game (\S+)-g1: Silver alice v Red bob, Silver wins: "
            r"Red's Pharaoh was hit \(1-0\), 17 plies: "
            r"https://khet\.example\.org/v1/sessions/\1/games/\1-g1/record$",
            over)

    def test_against_the_computer_until_a_resignation(self):
        alice, channel = self.alice, "#computer"
        alice.join(channel)
        alice.say(channel, "!new")
        alice.wait_for_bot(channel, r"^A new game of Classic 2")
        alice.say(channel, "!join silver")
        alice.say(channel, "!computer 1")
        alice.wait_for_bot(channel, r"computer.*takes the Red seat")
        start = alice.wait_for_bot(channel, r"^Silver to move")
        alice.say(channel, "!move j5-j6")
        reply = alice.wait_for_bot(channel, r"^Red \(computer, level 1\) plays",
                                   start)
        alice.wait_for_bot(channel, r"^laser: beam 0 from a8", reply)
        alice.say(channel, "!status")
        alice.wait_for_bot(channel, r"^Classic 2: Silver alice v Red the "
                           r"computer .*moves played: 2, Silver to move", reply)
        alice.say(channel, "!resign")
        alice.wait_for_bot(channel, r"^Game over: Red wins: Silver resigned",
                           reply)
        self.assertIsNone(self.bot.poll(), "the bot is still running")


if __name__ == "__main__":
    unittest.main()
