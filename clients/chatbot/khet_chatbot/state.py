# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""BotState: what the bot must remember across restarts, in SQLite.

Each channel's game (its session, owner token, setup name and the last event
relayed), the seats its nicks took (their player tokens) and the sessions
made in the channel (for !games). ":memory:" keeps it for the process only.
Safe from any thread; after close() it forgets what it is told.
"""

import sqlite3
import threading

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
  channel TEXT PRIMARY KEY,   -- lower case
  name TEXT NOT NULL,         -- as first written, for saying things there
  session_id TEXT NOT NULL,
  owner_token TEXT NOT NULL,
  setup_name TEXT NOT NULL,
  last_version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
  channel TEXT NOT NULL,
  nick TEXT NOT NULL,         -- lower case
  name TEXT NOT NULL,
  token TEXT NOT NULL,
  color INTEGER NOT NULL,
  PRIMARY KEY (channel, nick)
);
CREATE TABLE IF NOT EXISTS sessions (
  number INTEGER PRIMARY KEY AUTOINCREMENT,
  channel TEXT NOT NULL,
  session_id TEXT NOT NULL
);
"""


class BotState:

    def __init__(self, path=":memory:"):
        self._db = sqlite3.connect(path, check_same_thread=False,
                                   isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.executescript(SCHEMA)

    def close(self):
        with self._lock:
            self._db.close()
            self._db = None

    def _run(self, sql, *args):
        return self._transaction((sql, args))

    def _transaction(self, *statements):
        """Runs (sql, args) statements as one; the last one's rows."""
        with self._lock:
            if self._db is None:
                return []
            rows = []
            with self._db:
                self._db.execute("BEGIN")
                for sql, args in statements:
                    rows = self._db.execute(sql, args).fetchall()
            return rows

    def save_table(self, channel, session_id, owner_token, setup_name,
                   version):
        """The channel's new game; its old seats go."""
        self._transaction(
            ("DELETE FROM seats WHERE channel = ?", (channel.lower(),)),
            ("INSERT OR REPLACE INTO tables VALUES (?, ?, ?, ?, ?, ?)",
             (channel.lower(), channel, session_id, owner_token, setup_name,
              version)))

    def forget_table(self, channel):
        self._transaction(
            ("DELETE FROM tables WHERE channel = ?", (channel.lower(),)),
            ("DELETE FROM seats WHERE channel = ?", (channel.lower(),)))

    def save_version(self, channel, version):
        self._run("UPDATE tables SET last_version = ? WHERE channel = ?",
                  version, channel.lower())

    def tables(self):
        """(channel, session id, owner token, setup name, last version) of
        every channel's game."""
        return self._run("SELECT name, session_id, owner_token, setup_name, "
                         "last_version FROM tables ORDER BY channel")

    def save_seat(self, channel, nick, token, color):
        self._run("INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?, ?)",
                  channel.lower(), nick.lower(), nick, token, color)

    def forget_seats(self, channel, color=None):
        """The channel's seats of `color`, or all of them."""
        if color is None:
            self._run("DELETE FROM seats WHERE channel = ?", channel.lower())
        else:
            self._run("DELETE FROM seats WHERE channel = ? AND color = ?",
                      channel.lower(), color)

    def seats(self, channel):
        """(nick, token, color) of the channel's seated nicks."""
        return self._run("SELECT name, token, color FROM seats "
                         "WHERE channel = ? ORDER BY nick", channel.lower())

    def add_session(self, channel, session_id, kept):
        """Remembers a session made in the channel, keeping the newest
        `kept`."""
        self._transaction(
            ("INSERT INTO sessions (channel, session_id) VALUES (?, ?)",
             (channel.lower(), session_id)),
            ("DELETE FROM sessions WHERE channel = ? AND number NOT IN "
             "(SELECT number FROM sessions WHERE channel = ? "
             "ORDER BY number DESC LIMIT ?)",
             (channel.lower(), channel.lower(), kept)))

    def sessions(self, channel):
        """The session ids made in the channel, oldest first."""
        return [row[0] for row in self._run(
            "SELECT session_id FROM sessions WHERE channel = ? "
            "ORDER BY number", channel.lower())]
