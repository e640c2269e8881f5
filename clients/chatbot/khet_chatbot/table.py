# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Table: one channel's game.

It holds the session's owner token and the seats' player tokens (the
players themselves only ever give their nicks), and relays the session's
events to the channel from a thread of its own, resuming the Watch stream
after the last event seen if the server breaks it off. The last event seen
and the seats' tokens go to the bot's state as they change, so that a bot
restarted on the same state takes the table up where it was. It follows the
session's language setting for the words of the channel.
"""

import threading

from khet_client import KhetError

from .catalogue import Words
from .describe import event_messages
from .message import Message

# Seconds between attempts to resume a broken event stream, doubling up to
# the second figure.
RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 30.0


class Table:
    """`owner` is the khet_client.Owner of the channel's session; `say`
    is called as say(channel, Message) from the relay thread; `prefix`
    starts the commands the messages mention. Events after `version` are
    relayed; `state` (a BotState) keeps the table. `language` is the
    session's, if known (else it is read from the session)."""

    def __init__(self, client, channel, owner, setup_name, say, prefix,
                 state, version, language=""):
        self.client = client
        self.channel = channel
        self.owner = owner
        self.setup_name = setup_name
        self._say = say
        self._prefix = prefix
        self._players = {}  # nick, lower case -> khet_client.Player
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._state = state
        self._last_version = version
        self.language = language or owner.session.settings.language
        self._events = None
        self._relay = threading.Thread(target=self._relay_events, daemon=True,
                                       name=f"relay {channel}")
        self._relay.start()

    @property
    def session_id(self):
        return self.owner.session_id

    def player(self, nick):
        """The seat `nick` took at this table, or None."""
        with self._lock:
            return self._players.get(nick.lower())

    def has_players(self):
        """Whether anyone took a seat at this table through the bot."""
        with self._lock:
            return bool(self._players)

    def seat(self, nick, player):
        with self._lock:
            self._players[nick.lower()] = player

    def words(self):
        return Words(self.language)

    def close(self):
        """Stops relaying. The session stays on the server."""
        self._closed.set()
        with self._lock:
            events = self._events
        if events:
            events.cancel()

    def _relay_events(self):
        delay = RETRY_FIRST_SECONDS
        while not self._closed.is_set():
            try:
                self._relay_stream()
                return  # the stream ended: closed, or the session deleted
            except KhetError as error:
                if self._closed.is_set():
                    return
                self._say(self.channel, Message.of(self.words()(
                    "events_lost", reason=error.message,
                    seconds=f"{delay:.0f}")))
            if self._closed.wait(delay):
                return
            delay = min(delay * 2, RETRY_MAX_SECONDS)

    def _relay_stream(self):
        events = self.client.watch(self.session_id, self._last_version)
        with self._lock:
            self._events = events
        if self._closed.is_set():
            events.cancel()
        for event in events:
            self._last_version = event.version
            self._state.save_version(self.channel, event.version)
            self._forget_freed_seats(event)
            if event.WhichOneof("kind") == "settings_changed":
                self.language = event.settings_changed.settings.language
            for message in event_messages(event, self._board, self._prefix,
                                          self.words()):
                self._say(self.channel, message)

    def _forget_freed_seats(self, event):
        """A reset empties both seats and a player may leave one: their
        tokens are then void, and the nicks may take a seat again."""
        kind = event.WhichOneof("kind")
        with self._lock:
            if kind == "game_reset":
                self._players.clear()
                self._state.forget_seats(self.channel)
            elif kind == "seat_changed" and not event.seat_changed.joined:
                freed = event.seat_changed.seat.color
                self._state.forget_seats(self.channel, freed)
                self._players = {nick: player for nick, player
                                 in self._players.items()
                                 if player.color != freed}

    def _board(self):
        return self.client.board_text(self.session_id)
