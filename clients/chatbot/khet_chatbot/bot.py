"""KhetBot: Khet games in chat channels by text commands, on any platform.

The platform's adapter passes every line it hears to handle(channel, nick,
text) and says the Messages it returns in that channel; events of a game
(moves, the laser, hits, results, the computer's moves) reach the channel
through the `say(channel, Message)` callback, from the table's own thread.
One game per channel; players are their nicks, and the bot keeps their
tokens.
"""

import itertools
import re
import threading
import time

from khet_client import KhetError, color_name, service

from .describe import board_message, is_running, status_message
from .message import Message
from .records import (analysis_lines, games_message, link_message,
                      record_message)
from .table import Table

DEFAULT_SETUP = "classic-2"
# The longest line an adapter says whole, unless it gives its own (IRC's is
# irc_text.MAX_TEXT_BYTES).
DEFAULT_LINE_CHARS = 400
# The archived games !games lists and !record N counts in, newest first.
RECENT_GAMES = 5
# The sessions remembered per channel, newest last: each !new makes one, and
# the channel's archive is their games.
SESSIONS_KEPT = 20
# Seconds between the questions about an analysis the bot waits for, and
# the longest it waits before leaving the asking to the players.
ANALYSIS_POLL_SECONDS = 1.0
ANALYSIS_WAIT_SECONDS = 900.0
GAME_ID = re.compile(r"^(.+)-g[0-9]+$")  # "<session id>-g<N>"


class CommandError(Exception):
    """A command that cannot be carried out; the text says why."""


class KhetBot:
    """`client` is a khet_client.Client; `prefix` starts every command.

    `web_url` is the base URL of khetd's HTTP gateway as players reach it
    (e.g. "https://khet.example.org"): !record then answers with the
    record's download link; without it, with the moves. `line_chars` is
    the longest line the adapter says whole. `analysis_ms_per_ply` is the
    search's budget per ply for !analyse, 0 for the server's default.
    """

    def __init__(self, client, say, prefix="!", *, web_url=None,
                 line_chars=DEFAULT_LINE_CHARS, analysis_ms_per_ply=0):
        self.client = client
        self.prefix = prefix
        self.web_url = web_url.rstrip("/") if web_url else None
        self.line_chars = line_chars
        self.analysis_ms_per_ply = analysis_ms_per_ply
        self._say = say
        self._tables = {}  # channel, lower case -> Table
        self._sessions = {}  # channel, lower case -> session ids, newest last
        self._analysing = set()  # (channel, game id) awaited by a thread
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._setup_names = None
        self._commands = {
            "help": (self._help, "", "this list"),
            "new": (self._new, "[SETUP]",
                    f"a new game here (default {DEFAULT_SETUP})"),
            "setups": (self._setups, "", "the setups a game can start from"),
            "join": (self._join, "[silver|red]", "take a seat"),
            "computer": (self._computer, "LEVEL [silver|red]",
                         "the computer takes a seat (levels 1-5)"),
            "levels": (self._levels, "", "the computer's levels"),
            "move": (self._move, "MOVE",
                     "play a move: e4-e5, f4=g3 (swap), d1^d2, j1L, j1R"),
            "m": (self._move, "MOVE", None),
            "board": (self._board, "", "the board with the last laser"),
            "moves": (self._moves, "[SQUARE]",
                      "the legal moves of the side to move"),
            "hint": (self._hint, "[LEVEL]", "the computer's suggestion"),
            "status": (self._status, "", "who plays and whose turn it is"),
            "resign": (self._resign, "", "give up the game"),
            "draw": (self._draw, "",
                     "offer a draw, or accept your opponent's offer"),
            "claim": (self._claim, "",
                      "claim a draw on the third repetition"),
            "record": (self._record, "[N|GAME]",
                       "the game's record: this one, the N-th of !games, or "
                       "a game id"),
            "games": (self._games, "", "the games played here, newest first"),
            "analyse": (self._analyse, "[N|GAME]",
                        "the computer judges a finished game's moves (also "
                        "!analyze)"),
            "analyze": (self._analyse, "[N|GAME]", None),
        }

    def handle(self, channel, nick, text):
        """The replies to one line said by `nick` in `channel` (a private
        conversation counts as a channel of its own). Lines that are not
        commands get none."""
        text = text.strip()
        if not text.startswith(self.prefix) or len(text) == len(self.prefix):
            return []
        word, _, argument = text[len(self.prefix):].partition(" ")
        argument = argument.strip()
        entry = self._commands.get(word.lower())
        if entry is None:
            return [Message.of(
                f"{nick}: there is no command {self.prefix}{word}; "
                f"{self.prefix}help lists them.")]
        try:
            return entry[0](channel, nick, argument)
        except CommandError as error:
            return [Message.of(f"{nick}: {error}")]
        except KhetError as error:
            said = f"{self.prefix}{word} {argument}".strip()
            return [Message.of(f"{nick}: {said}: {error.message}")]

    def close(self):
        """Stops relaying every table's events and waiting for analyses."""
        self._closed.set()
        with self._lock:
            tables = list(self._tables.values())
            self._tables.clear()
        for table in tables:
            table.close()

    # ---- Lookups ------------------------------------------------------------

    def table(self, channel):
        """The channel's Table, or None."""
        with self._lock:
            return self._tables.get(channel.lower())

    def _table(self, channel):
        table = self.table(channel)
        if table is None:
            raise CommandError(f"no game here yet: {self.prefix}new [SETUP] "
                               f"starts one.")
        return table

    def _player(self, channel, nick):
        table = self._table(channel)
        player = table.player(nick)
        if player is None:
            raise CommandError(f"you have no seat in this game: "
                               f"{self.prefix}join takes one.")
        return player

    def _setup_name(self, setup_id):
        if self._setup_names is None:
            self._setup_names = {s.id: s.name for s in self.client.setups()}
        return self._setup_names.get(setup_id, setup_id)

    # ---- Commands -----------------------------------------------------------

    def _help(self, channel, nick, argument):
        lines = [f"Khet by text. Commands (prefix {self.prefix}):"]
        for word, (_, usage, about) in self._commands.items():
            if about:
                lines.append(f"{self.prefix}{word} {usage}".rstrip()
                             + f": {about}")
        lines.append("Moves are in the engine's notation: squares a1-j8, "
                     "Silver at the bottom and first to move.")
        return [Message(tuple(lines))]

    def _new(self, channel, nick, argument):
        setup_id = argument or DEFAULT_SETUP
        old = self.table(channel)
        if old is not None and self._running(old):
            raise CommandError(f"a game is running here; it must end first "
                               f"({self.prefix}resign, {self.prefix}draw).")
        owner = self.client.create_session(f"{channel} ({nick})"[:64],
                                           setup_id=setup_id)
        table = Table(self.client, channel, owner,
                      self._setup_name(owner.session.setup_id), self._say,
                      self.prefix)
        with self._lock:
            self._tables[channel.lower()] = table
            sessions = self._sessions.setdefault(channel.lower(), [])
            sessions.append(owner.session_id)
            del sessions[:-SESSIONS_KEPT]
        if old is not None:
            old.close()
        return [Message.of(
            f"A new game of {table.setup_name} here (session "
            f"{owner.session_id}). {self.prefix}join [silver|red] takes a "
            f"seat; {self.prefix}computer LEVEL seats the computer (1-5).")]

    def _running(self, table):
        try:
            return is_running(self.client.session(table.session_id))
        except KhetError as error:
            if error.code_name == "NOT_FOUND":  # deleted on the server
                return False
            raise

    def _setups(self, channel, nick, argument):
        setups = self.client.setups()
        return [Message.of("Setups: " + ", ".join(
            f"{s.id} ({s.name})" for s in setups) + ".")]

    def _join(self, channel, nick, argument):
        table = self._table(channel)
        held = table.player(nick)
        if held is not None:
            raise CommandError(f"you already play {color_name(held.color)} "
                               f"here.")
        player = self.client.join(table.session_id, nick,
                                  _color(argument or None))
        table.seat(nick, player)
        return []  # the table relays "nick takes the ... seat"

    def _computer(self, channel, nick, argument):
        table = self._table(channel)
        words = argument.split()
        if not words or not words[0].isdigit() or len(words) > 2:
            raise CommandError(f"{self.prefix}computer takes a level 1-5 and "
                               f"optionally a colour, e.g. "
                               f"{self.prefix}computer 2 red.")
        color = _color(words[1]) if len(words) == 2 else None
        table.owner.seat_computer(int(words[0]), color)
        return []

    def _levels(self, channel, nick, argument):
        return [Message.of("Levels: " + ", ".join(
            f"{level.number} {level.name}" for level in self.client.levels())
            + ".")]

    def _move(self, channel, nick, argument):
        if not argument:
            raise CommandError(f"{self.prefix}move needs a move, e.g. "
                               f"{self.prefix}move j1L.")
        self._player(channel, nick).move(argument)
        return []  # the table relays the move, its laser and any hit

    def _board(self, channel, nick, argument):
        table = self._table(channel)
        return [board_message(self.client.board_text(table.session_id))]

    def _moves(self, channel, nick, argument):
        table = self._table(channel)
        moves = self.client.legal_moves(table.session_id, argument)
        where = f" of the piece on {argument}" if argument else ""
        if not moves:
            return [Message.of(f"No legal moves{where}.")]
        return [Message.of(f"{len(moves)} legal moves{where}: "
                           + " ".join(moves))]

    def _hint(self, channel, nick, argument):
        table = self._table(channel)
        if argument and not argument.isdigit():
            raise CommandError(f"{self.prefix}hint takes a level 1-5, got "
                               f'"{argument}".')
        level = int(argument) if argument else None
        hint = self.client.suggest(table.session_id, level, timeout=15)
        line = " ".join(move.notation for move in hint.principal_variation)
        return [Message.of(
            f"Hint ({hint.level_name}, level {hint.level}) for "
            f"{color_name(hint.side_to_move)}: {hint.move.notation} "
            f"(score {hint.score / 100:+.2f}; expected line: {line}).")]

    def _status(self, channel, nick, argument):
        table = self._table(channel)
        return [status_message(self.client.session(table.session_id),
                               table.setup_name)]

    def _resign(self, channel, nick, argument):
        self._player(channel, nick).resign()
        return []  # the table relays the result

    def _draw(self, channel, nick, argument):
        player = self._player(channel, nick)
        session = self.client.session(player.session_id)
        if session.draw_offered_by and session.draw_offered_by != player.color:
            player.accept_draw()
        else:
            player.offer_draw()
        return []

    def _claim(self, channel, nick, argument):
        self._player(channel, nick).claim_draw()
        return []

    def _record(self, channel, nick, argument):
        session_id, game_id, note = self._game(channel, argument)
        try:
            record = self.client.game_record(session_id, game_id)
        except KhetError as error:
            raise self._unknown_game(error, "record", argument) from None
        if self.web_url:
            message = link_message(record, self.web_url)
            if note:
                message = Message.of(f"{note} {message.text}")
            return [message]
        return [record_message(record, self.line_chars, note)]

    def _games(self, channel, nick, argument):
        if argument:
            raise CommandError(f"{self.prefix}games takes nothing; "
                               f"{self.prefix}record N says one of them.")
        return [games_message(self._recent_games(channel), self.prefix)]

    def _analyse(self, channel, nick, argument):
        session_id, game_id, note = self._game(channel, argument)
        try:
            analysis = self.client.analyze_game(session_id, game_id,
                                                self.analysis_ms_per_ply)
        except KhetError as error:
            raise self._unknown_game(error, "analyse", argument) from None
        lead = (note,) if note else ()
        if analysis.state == service.GameAnalysis.DONE:
            return [Message(lead + tuple(analysis_lines(analysis,
                                                        self.line_chars)))]
        key = (channel.lower(), analysis.game_id)
        with self._lock:
            waiting = key in self._analysing
            self._analysing.add(key)
        if not waiting:
            threading.Thread(target=self._await_analysis, daemon=True,
                             args=(channel, session_id, analysis.game_id),
                             name=f"analysis {analysis.game_id}").start()
        return [Message(lead + (
            f"The computer is analysing game {analysis.game_id} "
            f"({analysis.plies_analyzed} of {analysis.plies} plies done); "
            f"its findings come here when it is done.",))]

    # ---- Games of the archive -------------------------------------------

    def _game(self, channel, argument):
        """(session id, game id, note) of the game `argument` names: "" the
        channel's current game, or the last one when the current game has
        no moves yet (the note then says so); N the N-th of !games; else a
        game id."""
        if argument.isdigit():
            games = self._recent_games(channel)
            number = int(argument)
            if not 1 <= number <= len(games):
                raise CommandError(
                    f"no game {number} here: {self.prefix}games lists "
                    f"{len(games)}.")
            chosen = games[number - 1]
            return chosen.session_id, chosen.id, ""
        if argument:
            match = GAME_ID.match(argument)
            if match is None:
                raise CommandError(
                    f'"{argument}" is not a game id (SESSION-gN, as '
                    f"{self.prefix}games shows them) nor a number.")
            return match.group(1), argument, ""
        table = self._table(channel)
        try:
            session = self.client.session(table.session_id)
            if session.moves:
                return session.id, session.game_id, ""
        except KhetError as error:
            if error.code_name != "NOT_FOUND":  # not deleted on the server
                raise
        games = self._recent_games(channel, 1)
        if not games:
            raise CommandError("the game here has no moves yet.")
        return (games[0].session_id, games[0].id,
                f"No moves in this game yet; the last one was {games[0].id}.")

    def _recent_games(self, channel, count=RECENT_GAMES):
        """The channel's archived games, newest first, at most `count`. A
        session deleted on the server took its games along."""
        with self._lock:
            sessions = list(self._sessions.get(channel.lower(), ()))
        games = []
        for session_id in reversed(sessions):
            try:
                games += itertools.islice(
                    self.client.games(session_id, page_size=count), count)
            except KhetError as error:
                if error.code_name != "NOT_FOUND":
                    raise
        games.sort(key=lambda g: (g.ended_at.seconds, g.ended_at.nanos),
                   reverse=True)
        return games[:count]

    def _unknown_game(self, error, word, argument):
        """A refusal of !record or !analyse in plain words: an unknown game
        names the place to find the channel's games."""
        said = f"{self.prefix}{word} {argument}".strip()
        hint = (f"; {self.prefix}games lists the games here"
                if error.code_name == "NOT_FOUND" else "")
        return CommandError(f"{said}: {error.message}{hint}.")

    def _await_analysis(self, channel, session_id, game_id):
        """Says the analysis of `game_id` in `channel` once it is DONE, or
        why it failed, or after ANALYSIS_WAIT_SECONDS that it is still
        going; gives up silently when the bot closes."""
        deadline = time.monotonic() + ANALYSIS_WAIT_SECONDS
        try:
            while not self._closed.wait(ANALYSIS_POLL_SECONDS):
                analysis = self.client.analyze_game(
                    session_id, game_id, self.analysis_ms_per_ply)
                if analysis.state == service.GameAnalysis.DONE:
                    self._say(channel, Message(tuple(
                        analysis_lines(analysis, self.line_chars))))
                    return
                if time.monotonic() > deadline:
                    self._say(channel, Message.of(
                        f"The analysis of game {game_id} is still going "
                        f"({analysis.plies_analyzed} of {analysis.plies} "
                        f"plies done); {self.prefix}analyse {game_id} asks "
                        f"again."))
                    return
        except KhetError as error:
            self._say(channel, Message.of(
                f"The analysis of game {game_id} failed: {error.message}."))
        finally:
            with self._lock:
                self._analysing.discard((channel.lower(), game_id))


def _color(word):
    if word is None:
        return None
    if word.lower() not in ("silver", "red"):
        raise CommandError(f'a colour is silver or red, got "{word}".')
    return word.lower()
