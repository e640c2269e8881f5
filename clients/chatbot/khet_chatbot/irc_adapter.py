# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""IrcAdapter: the bot on an IRC server, over a plain TCP socket.

It registers (NICK, USER), joins its channels once welcomed (001), answers
PING with PONG, hands every PRIVMSG to the core in the order heard, and says
the core's messages as PRIVMSG lines of at most MAX_TEXT_BYTES, paced so
the server's flood control never throttles or drops it: `burst` lines at
once, then one every `line_interval` seconds. Each run() is one connection;
the core outlives it, so a Reconnector (reconnect.py) can run it again
after a drop and the games go on. Lines said while disconnected wait for
the next connection.

It vouches for its players as "irc:<network>/<nick>" (identity.py): the
network's name as the server announces it (ISUPPORT NETWORK=), else the
server's host. A nick is only as much one person's as the network makes it
(nick registration with services); the bot takes the nick it hears.
"""

import queue
import socket
import threading

from .identity import irc_player_id
from .irc_text import is_channel, parse_line, privmsg_lines
from .message import Message
from .pacing import LinePacer

ERR_NICKNAMEINUSE = "433"
RPL_ISUPPORT = "005"
RPL_WELCOME = "001"


class IrcAdapter:
    """`make_core(say)` builds the platform-neutral bot (e.g. a KhetBot)
    given the adapter's say(channel, Message); the core must have
    handle(channel, nick, text) and close()."""

    def __init__(self, host, port, nick, channels, make_core, *,
                 line_interval=0.5, burst=5, log=lambda line: None):
        self.host = host
        self.port = port
        self.nick = nick
        self.channels = list(channels)
        self._pacer = LinePacer(burst, line_interval)
        self._log = log
        self._socket = None
        self._send_lock = threading.Lock()
        # Lines to pace; a connection's own end marker ends its sender.
        self._outgoing = queue.Queue()
        # (channel, nick, text); a connection's end marker ends its answerer.
        self._heard = queue.Queue()
        self.network = None  # ISUPPORT NETWORK=, once the server said it
        self.core = make_core(self.say)
        self.core.identify = self.player_id

    def player_id(self, channel, nick):
        """The player id the bot vouches for as `nick`'s on this network."""
        return irc_player_id(self.network or self.host, nick)

    def say(self, channel, message):
        """Queues `message` for `channel` (or a nick); safe from any thread."""
        for line in privmsg_lines(channel, message):
            self._outgoing.put(line)

    def run(self):
        """Connects and serves until the server closes the connection or
        stop() is called. Raises OSError if the server cannot be reached or
        the connection breaks."""
        self._socket = socket.create_connection((self.host, self.port),
                                                timeout=30)
        self._socket.settimeout(None)
        end = object()  # this connection's end marker
        # Set once the server welcomed the bot and it asked to join: lines
        # to channels wait for it.
        self._welcomed = threading.Event()
        over = threading.Event()
        workers = [threading.Thread(target=self._send_paced,
                                    args=(end, self._welcomed, over),
                                    daemon=True),
                   threading.Thread(target=self._answer, args=(end,),
                                    daemon=True)]
        for worker in workers:
            worker.start()
        try:
            self._send_now(f"NICK {self.nick}")
            self._send_now(f"USER {self.nick} 0 * :Khet bot")
            self._read()
        finally:
            over.set()
            self._outgoing.put(end)
            self._heard.put(end)
            for worker in workers:
                worker.join(timeout=5)
            self._socket.close()

    def close(self):
        """Ends the core: its games stop relaying (the state keeps them)."""
        self.core.close()

    def stop(self, reason="bye"):
        """Says QUIT; run() returns once the server closes the connection."""
        if self._socket is None:
            return
        try:
            self._send_now(f"QUIT :{reason}")
            self._socket.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _read(self):
        buffer = b""
        while True:
            data = self._socket.recv(4096)
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                line = raw.rstrip(b"\r").decode("utf-8", errors="replace")
                if line:
                    self._on_line(parse_line(line))

    def _on_line(self, line):
        if line.command == "PING":
            self._send_now("PONG :" + (line.params[-1] if line.params else ""))
        elif line.command == RPL_WELCOME:
            self.nick = line.params[0] if line.params else self.nick
            self._log(f"registered as {self.nick}")
            for channel in self.channels:
                self._send_now(f"JOIN {channel}")
            self._welcomed.set()
        elif line.command == RPL_ISUPPORT:
            for token in line.params[1:]:
                if token.startswith("NETWORK="):
                    self.network = token[len("NETWORK="):] or None
        elif line.command == ERR_NICKNAMEINUSE:
            self.nick += "_"
            self._send_now(f"NICK {self.nick}")
        elif line.command == "PRIVMSG" and len(line.params) == 2:
            target, text = line.params
            channel = target if is_channel(target) else line.nick
            self._heard.put((channel, line.nick, text))
        elif line.command == "ERROR":
            self._log(f"server says: {' '.join(line.params)}")

    def _answer(self, end):
        """Hands what was heard to the core, in order, off the reading
        thread so that a slow command never delays a PONG."""
        while True:
            item = self._heard.get()
            if item is end:
                return
            if not isinstance(item, tuple):
                continue  # an earlier connection's end marker
            channel, nick, text = item
            try:
                replies = self.core.handle(channel, nick, text)
            except Exception as error:  # a bug: say so, keep serving
                self._log(f"command {text!r} from {nick} failed: {error!r}")
                replies = [Message.of(f"{nick}: that failed: {error}")]
            for message in replies:
                self.say(channel, message)

    def _send_paced(self, end, welcomed, over):
        while True:
            line = self._outgoing.get()
            if line is end:
                return
            if not isinstance(line, str):
                continue  # an earlier connection's end marker
            while not welcomed.wait(0.1):  # lines wait for the welcome
                if over.is_set():
                    self._outgoing.put(line)  # for the next connection
                    return
            self._pacer.wait_turn()
            try:
                self._send_now(line)
            except OSError:
                self._outgoing.put(line)  # for the next connection
                return

    def _send_now(self, line):
        with self._send_lock:
            self._socket.sendall(line.encode("utf-8") + b"\r\n")
