# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The chat bot in XMPP rooms: Debian's prosody on a free loopback port (a
generated config and accounts in a temp dir; PROSODY and PROSODYCTL name the
binaries), a real khetd (KHETD), the bot as its own process with --xmpp, and
the test's own XMPP users alice and bob playing in a multi-user chat room."""

import asyncio
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import slixmpp

from irc_test import free_port, stop_process
from khet_client import LocalKhetd

DOMAIN = "localhost"
ROOM = f"khet@conference.{DOMAIN}"
BOT = "khetbot"
PROSODY_CONFIG = """\
run_as_root = true  -- a test's server, in its own folder
daemonize = false
pidfile = "{folder}/prosody.pid"
data_path = "{folder}/data"
certificates = "{folder}/certs"
interfaces = {{ "127.0.0.1" }}
c2s_ports = {{ {port} }}
c2s_direct_tls_ports = {{}}
s2s_ports = {{}}
http_ports = {{}}
https_ports = {{}}
c2s_require_encryption = false
allow_unencrypted_plain_auth = true
authentication = "internal_plain"
modules_enabled = {{ "roster", "saslauth", "disco", "ping" }}
modules_disabled = {{ "s2s", "tls", "posix" }}
log = {{ info = "{folder}/prosody.log" }}
VirtualHost "{domain}"
Component "conference.{domain}" "muc"
  muc_room_locking = false  -- a new room is open at once
  muc_room_default_public_jids = true  -- the bot sees who is who
"""


def start_prosody(folder):
    """prosody in the foreground on a free port, with accounts for the bot,
    alice and bob (password "secret"); (process, port)."""
    for name in ("data", "certs"):
        os.makedirs(os.path.join(folder, name), exist_ok=True)
    config = os.path.join(folder, "prosody.cfg.lua")
    port = free_port()
    with open(config, "w") as out:
        out.write(PROSODY_CONFIG.format(folder=folder, port=port,
                                        domain=DOMAIN))
    ctl = os.environ.get("PROSODYCTL", "/usr/bin/prosodyctl")
    for user in (BOT, "alice", "bob"):
        subprocess.run([ctl, "--config", config, "register", user, DOMAIN,
                        "secret"], check=True, capture_output=True)
    process = subprocess.Popen(
        [os.environ.get("PROSODY", "/usr/bin/prosody"), "--config", config],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            time.sleep(0.05)
    stop_process(process)
    with open(os.path.join(folder, "prosody.log")) as log:
        raise RuntimeError(f"prosody did not start listening:\n{log.read()}")


class XmppUser:
    """A test's XMPP user in ROOM, on a thread of its own: says lines there
    and records what the bot says there."""

    def __init__(self, port, user):
        self.user = user
        self.heard = []  # the bot's room messages, in order
        self._changed = threading.Condition()
        self._joined = threading.Event()
        threading.Thread(target=self._run, args=(port,), daemon=True).start()
        if not self._joined.wait(20):
            raise AssertionError(f"{user} never joined {ROOM}")

    def _run(self, port):
        asyncio.set_event_loop(asyncio.new_event_loop())
        self.client = slixmpp.ClientXMPP(f"{self.user}@{DOMAIN}/test",
                                         "secret")
        self.client.register_plugin("xep_0045")
        self.client.add_event_handler("session_start", self._start)
        self.client.add_event_handler("groupchat_message", self._message)
        self.client.add_event_handler("groupchat_presence", self._presence)
        self.client.connect(("127.0.0.1", port), force_starttls=False,
                            disable_starttls=True)
        self.client.loop.run_until_complete(self.client.disconnected)

    def _start(self, _):
        self.client.send_presence()
        self.client.plugin["xep_0045"].join_muc(ROOM, self.user,
                                                maxhistory="0")

    def _presence(self, presence):
        if presence["muc"]["nick"] == self.user and \
                presence["type"] != "unavailable":
            self._joined.set()
        with self._changed:
            self._changed.notify_all()

    def _message(self, message):
        if message["mucnick"] == BOT:
            with self._changed:
                self.heard.append(message["body"])
                self._changed.notify_all()

    def bot_in_room(self):
        return BOT in self.client.plugin["xep_0045"].get_roster(ROOM)

    def wait_for_bot_in_room(self, timeout=20):
        with self._changed:
            if not self._changed.wait_for(self.bot_in_room, timeout):
                raise AssertionError(f"{BOT} never joined {ROOM}")

    def say(self, text):
        self.client.loop.call_soon_threadsafe(
            lambda: self.client.send_message(mto=ROOM, mbody=text,
                                             mtype="groupchat"))

    def wait_for_bot(self, pattern, start=0, timeout=20):
        """The index of the bot's first message from `start` on matching
        `pattern`."""
        regex = re.compile(pattern, re.MULTILINE)
        found = []

        def seen():
            for index in range(start, len(self.heard)):
                if regex.search(self.heard[index]):
                    found.append(index)
                    return True
            return False

        with self._changed:
            if not self._changed.wait_for(seen, timeout):
                raise AssertionError(
                    f"{self.user} never saw {BOT} say /{pattern}/; it said:\n"
                    + "\n".join(self.heard[start:]))
        return found[0]

    def close(self):
        self.client.loop.call_soon_threadsafe(self.client.disconnect)


class ChatBotOnXmppTest(unittest.TestCase):

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        khetd = LocalKhetd().start()
        self.addCleanup(khetd.stop)
        prosody, port = start_prosody(folder.name)
        self.addCleanup(stop_process, prosody)
        secret = os.path.join(folder.name, "bot-password")
        with open(secret, "w") as out:
            out.write("secret\n")
        self.bot = subprocess.Popen(
            [sys.executable, "-m", "khet_chatbot", "--khetd", khetd.target,
             "--xmpp", f"{BOT}@{DOMAIN}", "--xmpp-password-file", secret,
             "--xmpp-server", f"127.0.0.1:{port}", "--nick", BOT,
             "--channel", ROOM, "--state",
             os.path.join(folder.name, "bot.sqlite")])
        self.addCleanup(stop_process, self.bot)
        self.alice = XmppUser(port, "alice")
        self.addCleanup(self.alice.close)
        self.bob = XmppUser(port, "bob")
        self.addCleanup(self.bob.close)

    def test_two_players_in_a_room(self):
        alice, bob = self.alice, self.bob
        alice.wait_for_bot_in_room()
        alice.say("!new")
        bob.wait_for_bot(r"^A new game of Classic 2 here")
        alice.say("!join silver")
        bob.say("!join red")
        start = bob.wait_for_bot(r"^Silver to move: !move")
        # A board is one message: its lines and the key together.
        board = bob.wait_for_bot(r"^ 8  xs  \.s", start)
        self.assertEqual(len(bob.heard[board].split("\n")), 12)
        self.assertRegex(bob.heard[board], r"\nKey: ")

        # The room shows its occupants' JIDs: the bot vouches for them.
        alice.say("!rating bob")
        alice.wait_for_bot(rf"^bob \(xmpp:bob@{re.escape(DOMAIN)}\) has no "
                           r"rating yet", start)
        alice.say("!move j5-j6")
        bob.wait_for_bot(r"plays j5-j6\.\nlaser: beam 0 from j1", start)
        bob.say("!moves a8")
        alice.wait_for_bot(r"^Legal moves of the piece on a8 \(1\): a8L$",
                           start)
        alice.say("!moves j1")
        bob.wait_for_bot(r"^alice: it is Red's turn, not yours", start)
        # The room's language follows the session's.
        alice.say("!language fr")
        bob.wait_for_bot(r"^Je parle désormais français ici\.$", start)
        bob.say("!resign")
        alice.wait_for_bot(r"^Partie terminée : ", start)
        alice.say("!status")
        alice.wait_for_bot(r"terminée", start)

        # The bot leaves cleanly on SIGTERM.
        stop_process(self.bot)
        self.assertEqual(self.bot.returncode, 0)


if __name__ == "__main__":
    unittest.main()
