# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""XmppAdapter: the bot in XMPP multi-user chat rooms (XEP-0045), on slixmpp.

It logs in as `jid`, joins its rooms as `nick` without their history, hands
every room message (but its own) and every direct chat message to the core
in the order heard, and says each of the core's Messages as one message
body, a board's lines together. A room is a channel (its bare JID) and the
speaker's room nick is the nick; a direct chat is a channel of its own.
Each run() is one connection; the core outlives it, so a Reconnector
(reconnect.py) can run it again after a drop. Messages said while no
connection is up wait for the next one.

It vouches for its players as "xmpp:<bare JID>" (identity.py): the sender's
own JID in a direct chat, an occupant's real JID in a room that shows it to
the bot (a non-anonymous room, or one where the bot is a moderator). In a
room that hides it the player has no id and plays unrated.
"""

import asyncio
import queue
import threading

import slixmpp

from .identity import xmpp_player_id
from .message import Message


class XmppAdapter:
    """`make_core(say)` builds the platform-neutral bot given the adapter's
    say(channel, Message); the core must have handle(channel, nick, text)
    and close(). `server` is (host, port), or None to find it from the
    JID's domain."""

    def __init__(self, jid, password, rooms, nick, make_core, *, server=None,
                 log=lambda line: None):
        self.jid = jid
        self.rooms = [room.lower() for room in rooms]
        self.nick = nick
        self._password = password
        self._server = server
        self._log = log
        self._lock = threading.Lock()
        self._client = None   # the connected slixmpp client, once in rooms
        self._connection = None  # the slixmpp client of the running run()
        self._waiting = []    # (channel, Message) said while disconnected
        self._heard = queue.Queue()  # (channel, nick, text); None ends
        self._answerer = threading.Thread(target=self._answer, daemon=True)
        self._jids = {}  # (channel, nick), lower case -> bare JID
        self.core = make_core(self.say)
        self.core.identify = self.player_id
        self._answerer.start()

    def player_id(self, channel, nick):
        """The player id the bot vouches for as `nick`'s in `channel`, or
        None while it does not know the nick's JID."""
        with self._lock:
            jid = self._jids.get((channel.lower(), nick.lower()))
        if jid is None:
            client = self._client
            if client is not None and channel.lower() in self.rooms:
                try:
                    real = client.plugin["xep_0045"].get_jid_property(
                        slixmpp.JID(channel), nick, "jid")
                except Exception:  # the roster does not know the nick
                    real = None
                jid = slixmpp.JID(real).bare if real else None
        return xmpp_player_id(jid)

    def say(self, channel, message):
        """Sends `message` to `channel`; safe from any thread."""
        with self._lock:
            client = self._client
            if client is None:
                self._waiting.append((channel, message))
                return
        client.loop.call_soon_threadsafe(self._send, client, channel, message)

    def run(self):
        """Connects and serves until the server ends the connection or
        stop() is called. Raises OSError if the server cannot be reached or
        refuses the login."""
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        client = slixmpp.ClientXMPP(self.jid, self._password)
        client.register_plugin("xep_0045")  # multi-user chat
        client.register_plugin("xep_0199")  # answers pings
        ended = loop.create_future()

        def end(error=None):
            if not ended.done():
                ended.set_result(error)

        def failed(reason):
            client.cancel_connection_attempt()
            end(OSError(f"cannot connect: {reason}"))

        def refused(_):
            client.abort()
            end(OSError("the server refused the login"))

        client.add_event_handler("session_start",
                                 lambda _: self._start(client))
        client.add_event_handler("groupchat_message", self._on_room_message)
        client.add_event_handler("message", self._on_direct_message)
        client.add_event_handler("connection_failed", failed)
        client.add_event_handler("failed_auth", refused)
        client.add_event_handler("disconnected", lambda _: end())
        self._connection = client
        try:
            client.connect(self._server, force_starttls=False,
                           disable_starttls=True)
            error = loop.run_until_complete(ended)
        finally:
            with self._lock:
                self._client = None
            # slixmpp leaves tasks waiting on the closed connection.
            leftover = asyncio.all_tasks(loop)
            for task in leftover:
                task.cancel()
            loop.run_until_complete(
                asyncio.gather(*leftover, return_exceptions=True))
            loop.close()
            asyncio.set_event_loop(None)
        if error is not None:
            raise error

    def stop(self):
        """Leaves the server; run() returns once the connection is closed.
        Safe from a signal handler."""
        client = self._connection
        if client is not None and not client.loop.is_closed():
            client.loop.call_soon_threadsafe(client.disconnect)

    def close(self):
        """Ends the core: its games stop relaying (the state keeps them)."""
        self._heard.put(None)
        self._answerer.join(timeout=5)
        self.core.close()

    def _start(self, client):
        client.send_presence()
        for room in self.rooms:
            client.plugin["xep_0045"].join_muc(room, self.nick,
                                               maxhistory="0")
        self._log(f"logged in as {self.jid}, in {', '.join(self.rooms)}")
        with self._lock:
            self._client = client
            waiting, self._waiting = self._waiting, []
        for channel, message in waiting:
            self._send(client, channel, message)

    def _send(self, client, channel, message):
        kind = "groupchat" if channel.lower() in self.rooms else "chat"
        client.send_message(mto=channel, mbody=message.text, mtype=kind)

    def _on_room_message(self, message):
        room = message["from"].bare.lower()
        speaker = message["mucnick"]
        if room in self.rooms and speaker and speaker != self.nick and \
                message["body"]:
            self._heard.put((room, speaker, message["body"]))

    def _on_direct_message(self, message):
        if message["type"] not in ("chat", "normal") or not message["body"]:
            return
        sender = message["from"]
        if sender.bare.lower() in self.rooms:  # privately, through a room
            channel, nick = str(sender), sender.resource
        else:
            channel, nick = sender.bare, sender.user
            with self._lock:
                self._jids[(channel.lower(), nick.lower())] = sender.bare
        self._heard.put((channel, nick, message["body"]))

    def _answer(self):
        """Hands what was heard to the core, in order, off the connection's
        loop so that a slow command never holds the connection up."""
        while True:
            item = self._heard.get()
            if item is None:
                return
            channel, nick, text = item
            try:
                replies = self.core.handle(channel, nick, text)
            except Exception as error:  # a bug: say so, keep serving
                self._log(f"command {text!r} from {nick} failed: {error!r}")
                replies = [Message.of(f"{nick}: that failed: {error}")]
            for reply in replies:
                self.say(channel, reply)
