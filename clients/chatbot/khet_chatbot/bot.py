# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""KhetBot: Khet games in chat channels by text commands, on any platform.

The platform's adapter passes every line it hears to handle(channel, nick,
text) and says the Messages it returns in that channel; events of a game
(moves, the laser, hits, results, the computer's moves) reach the channel
through the `say(channel, Message)` callback, from the table's own thread.
One game per channel; players are their nicks, and the bot keeps their
tokens in its BotState (state.py), so that a restarted bot carries on. It
speaks each channel's session language (catalogue.py).

Players are seated with a player id the bot vouches for (identity.py), when
the adapter can tell who a nick is: `identify(channel, nick)` gives it (the
adapters set it: IRC "irc:<network>/<nick>", XMPP "xmpp:<bare JID>"), so
that rated games rate the same person from game to game.
"""

import itertools
import re
import threading
import time

from khet_client import KhetError, Owner, Player, service

from .catalogue import LANGUAGES, Words
from .describe import (board_message, is_running, piece_owner, score_words,
                       side_name, status_message)
from .message import Message
from .records import (analysis_lines, games_message, link_message,
                      record_message)
from .state import BotState
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
# The players !top lists.
TOP_PLAYERS = 10
GAME_ID = re.compile(r"^(.+)-g[0-9]+$")  # "<session id>-g<N>"


class CommandError(Exception):
    """A command that cannot be carried out: the catalogue's message
    `name` with `fields` says why."""

    def __init__(self, name, **fields):
        super().__init__(name)
        self.name = name
        self.fields = fields


class KhetBot:
    """`client` is a khet_client.Client; `prefix` starts every command.

    `web_url` is the base URL of khetd's HTTP gateway as players reach it
    (e.g. "https://khet.example.org"): !record then answers with the
    record's download link; without it, with the moves. `line_chars` is
    the longest line the adapter says whole. `analysis_ms_per_ply` is the
    search's budget per ply for !analyse, 0 for the server's default.
    `state` is the BotState to keep the channels' games in (default: in
    memory only); the games it holds are taken up again at once.
    `identify(channel, nick)` is the player id the bot vouches for as
    `nick`'s, or None when it cannot tell (that player plays unrated);
    without it nobody has one. Adapters set it on the bot they build.
    """

    def __init__(self, client, say, prefix="!", *, web_url=None,
                 line_chars=DEFAULT_LINE_CHARS, analysis_ms_per_ply=0,
                 state=None, identify=None):
        self.client = client
        self.identify = identify
        self.prefix = prefix
        self.web_url = web_url.rstrip("/") if web_url else None
        self.line_chars = line_chars
        self.analysis_ms_per_ply = analysis_ms_per_ply
        self._say = say
        self._state = state or BotState()
        self._tables = {}  # channel, lower case -> Table
        self._analysing = set()  # (channel, game id) awaited by a thread
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._setup_names = None
        # word -> (function, usage, the catalogue's help text or None)
        self._commands = {
            "help": (self._help, "", "help_help"),
            "new": (self._new, "[SETUP]", "help_new"),
            "setups": (self._setups, "", "help_setups"),
            "join": (self._join, "[silver|red]", "help_join"),
            "computer": (self._computer, "LEVEL [silver|red]",
                         "help_computer"),
            "levels": (self._levels, "", "help_levels"),
            "move": (self._move, "MOVE", "help_move"),
            "m": (self._move, "MOVE", None),
            "board": (self._board, "", "help_board"),
            "legend": (self._legend, "", "help_legend"),
            "moves": (self._moves, "[SQUARE]", "help_moves"),
            "hint": (self._hint, "[LEVEL]", "help_hint"),
            "status": (self._status, "", "help_status"),
            "resign": (self._resign, "", "help_resign"),
            "draw": (self._draw, "", "help_draw"),
            "claim": (self._claim, "", "help_claim"),
            "takeback": (self._takeback, "", "help_takeback"),
            "accept": (self._accept, "", "help_accept"),
            "decline": (self._decline, "", "help_decline"),
            "rated": (self._rated, "[on|off]", "help_rated"),
            "rating": (self._rating, "[NICK]", "help_rating"),
            "top": (self._top, "", "help_top"),
            "record": (self._record, "[N|GAME]", "help_record"),
            "games": (self._games, "", "help_games"),
            "analyse": (self._analyse, "[N|GAME]", "help_analyse"),
            "analyze": (self._analyse, "[N|GAME]", None),
            "language": (self._language, "[en|de|fr|nl]", "help_language"),
        }
        self._restore()

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
        words = self.words(channel)
        if entry is None:
            return [Message.of(words("unknown_command", nick=nick,
                                     prefix=self.prefix, word=word))]
        try:
            return entry[0](channel, nick, argument)
        except CommandError as error:
            return [Message.of(words(
                "addressed", nick=nick,
                text=words(error.name, prefix=self.prefix, **error.fields)))]
        except KhetError as error:
            said = f"{self.prefix}{word} {argument}".strip()
            return [Message.of(words("refused", nick=nick, command=said,
                                     reason=error.message))]

    def words(self, channel):
        """The catalogue in the language of the channel's game."""
        table = self.table(channel)
        return Words(table.language if table else None)

    def close(self):
        """Stops relaying every table's events and waiting for analyses.
        The state stays as it is, for the next bot."""
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
            raise CommandError("no_game")
        return table

    def _player(self, channel, nick):
        table = self._table(channel)
        player = table.player(nick)
        if player is None:
            raise CommandError("no_seat")
        return player

    def _restore(self):
        """Takes up the games the state holds; a session deleted on the
        server meanwhile is forgotten."""
        for channel, session_id, token, setup_name, version in \
                self._state.tables():
            try:
                session = self.client.session(session_id)
            except KhetError as error:
                if error.code_name == "NOT_FOUND":
                    self._state.forget_table(channel)
                    continue
                raise
            owner = Owner(self.client, session_id, token, session)
            table = Table(self.client, channel, owner, setup_name, self._say,
                          self.prefix, self._state, version)
            for nick, player_token, color in self._state.seats(channel):
                table.seat(nick, Player(self.client, session_id,
                                        player_token, color, nick, session))
            with self._lock:
                self._tables[channel.lower()] = table

    def _setup_name(self, setup_id):
        if self._setup_names is None:
            self._setup_names = {s.id: s.name for s in self.client.setups()}
        return self._setup_names.get(setup_id, setup_id)

    # ---- Commands -----------------------------------------------------------

    def _help(self, channel, nick, argument):
        words = self.words(channel)
        lines = [words("help_title", prefix=self.prefix)]
        for word, (_, usage, about) in self._commands.items():
            if about:
                text = words(about, prefix=self.prefix, setup=DEFAULT_SETUP)
                lines.append(f"{self.prefix}{word} {usage}".rstrip()
                             + f": {text}")
        lines.append(words("help_notation", prefix=self.prefix))
        return [Message(tuple(lines))]

    def _legend(self, channel, nick, argument):
        words = self.words(channel)
        return [Message.of(words("legend_pieces"), words("legend_marks"),
                           words("legend_moves", prefix=self.prefix))]

    def _language(self, channel, nick, argument):
        table = self._table(channel)
        if not argument:
            words = self.words(channel)
            return [Message.of(words("language_now", prefix=self.prefix,
                                     language=words("language_name")))]
        code = argument.lower()
        if code not in LANGUAGES:
            raise CommandError("language_unknown", text=argument)
        table.owner.update_settings(language=code)
        table.language = code
        return [Message.of(Words(code)("language_set"))]

    def _new(self, channel, nick, argument):
        setup_id = argument or DEFAULT_SETUP
        old = self.table(channel)
        if old is not None and self._running(old):
            raise CommandError("game_running")
        owner = self.client.create_session(f"{channel} ({nick})"[:64],
                                           setup_id=setup_id)
        if old is not None and old.language:  # the channel keeps its language
            owner.update_settings(language=old.language)
        setup_name = self._setup_name(owner.session.setup_id)
        self._state.save_table(channel, owner.session_id, owner.token,
                               setup_name, owner.session.version)
        self._state.add_session(channel, owner.session_id, SESSIONS_KEPT)
        table = Table(self.client, channel, owner, setup_name, self._say,
                      self.prefix, self._state, owner.session.version,
                      old.language if old is not None else "")
        with self._lock:
            self._tables[channel.lower()] = table
        if old is not None:
            old.close()
        return [Message.of(self.words(channel)(
            "new_game", setup=table.setup_name, session=owner.session_id,
            prefix=self.prefix))]

    def _running(self, table):
        try:
            return is_running(self.client.session(table.session_id))
        except KhetError as error:
            if error.code_name == "NOT_FOUND":  # deleted on the server
                return False
            raise

    def _setups(self, channel, nick, argument):
        setups = ", ".join(f"{s.id} ({s.name})" for s in self.client.setups())
        return [Message.of(self.words(channel)("setups", setups=setups))]

    def _join(self, channel, nick, argument):
        table = self._table(channel)
        held = table.player(nick)
        if held is not None:
            raise CommandError("already_seated", color=side_name(
                self.words(channel), held.color))
        player = self.client.join(table.session_id, nick,
                                  _color(argument or None),
                                  player_id=self._player_id(channel, nick)
                                  or "")
        table.seat(nick, player)
        self._state.save_seat(channel, nick, player.token, player.color)
        return []  # the table relays "nick takes the ... seat"

    def _computer(self, channel, nick, argument):
        table = self._table(channel)
        words = argument.split()
        if not words or not words[0].isdigit() or len(words) > 2:
            raise CommandError("computer_usage")
        color = _color(words[1]) if len(words) == 2 else None
        table.owner.seat_computer(int(words[0]), color)
        return []

    def _levels(self, channel, nick, argument):
        levels = ", ".join(f"{level.number} {level.name}"
                           for level in self.client.levels())
        return [Message.of(self.words(channel)("levels", levels=levels))]

    def _move(self, channel, nick, argument):
        if not argument:
            raise CommandError("move_usage")
        self._player(channel, nick).move(argument)
        return []  # the table relays the move, its laser and any hit

    def _board(self, channel, nick, argument):
        table = self._table(channel)
        return [board_message(self.client.board_text(table.session_id),
                              self.words(channel), self.prefix,
                              self.client.session(table.session_id))]

    def _moves(self, channel, nick, argument):
        """The legal moves; for a square without any, why: no piece there,
        or a piece of the side whose turn it is not."""
        table = self._table(channel)
        words = self.words(channel)
        square = argument.lower()
        moves = self.client.legal_moves(table.session_id, square)
        session = self.client.session(table.session_id)
        mover = session.board.side_to_move
        if not square:
            if not moves:
                return [Message.of(words("moves_none", mover=side_name(
                    words, mover)))]
            return [Message.of(words(
                "moves_all", mover=side_name(words, mover), count=len(moves),
                moves=" ".join(moves)))]
        if moves:
            return [Message.of(words("moves_piece", square=square,
                                     count=len(moves), moves=" ".join(moves)))]
        owner = piece_owner(self.client.board_text(table.session_id,
                                                   laser=False), square)
        if owner is None:
            return [Message.of(words("moves_no_piece", square=square))]
        if owner == mover or not is_running(session):
            return [Message.of(words("moves_piece_none", square=square))]
        player = table.player(nick)
        names = {"mover": side_name(words, mover),
                 "owner": side_name(words, owner), "square": square,
                 "prefix": self.prefix}
        if player is not None and player.color == owner:
            return [Message.of(words("addressed", nick=nick, text=words(
                "moves_yours_wait", **names)))]
        if player is not None:
            return [Message.of(words("addressed", nick=nick, text=words(
                "moves_not_yours", **names)))]
        return [Message.of(words("moves_other_side", **names))]

    def _hint(self, channel, nick, argument):
        table = self._table(channel)
        if argument and not argument.isdigit():
            raise CommandError("hint_usage", text=argument)
        level = int(argument) if argument else None
        hint = self.client.suggest(table.session_id, level, timeout=15)
        line = " ".join(move.notation for move in hint.principal_variation)
        words = self.words(channel)
        return [Message.of(words(
            "hint", color=side_name(words, hint.side_to_move),
            level_name=hint.level_name, level=hint.level,
            move=hint.move.notation, line=line,
            outlook=score_words(words, hint.score, hint.side_to_move)))]

    def _status(self, channel, nick, argument):
        table = self._table(channel)
        return [status_message(self.client.session(table.session_id),
                               table.setup_name, self.words(channel))]

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

    def _takeback(self, channel, nick, argument):
        self._player(channel, nick).request_takeback()
        return []  # the table relays the request, or the computer's grant

    def _standing_takeback(self, channel, nick):
        """The player who may answer a takeback request standing now."""
        player = self._player(channel, nick)
        asker = self.client.session(player.session_id).takeback_requested_by
        if not asker or asker == player.color:
            raise CommandError("no_takeback")
        return player

    def _accept(self, channel, nick, argument):
        self._standing_takeback(channel, nick).accept_takeback()
        return []  # the table relays the takeback and the board

    def _decline(self, channel, nick, argument):
        self._standing_takeback(channel, nick).decline_takeback()
        return []

    def _rated(self, channel, nick, argument):
        """The board's owner setting `rated`, set by the bot (which holds
        the owner token) for the channel; it counts from the next game.
        While anyone is seated, only the seated players may change it, so
        that nobody else decides whether their game rates them."""
        table = self._table(channel)
        words = self.words(channel)
        if argument.lower() not in ("", "on", "off"):
            raise CommandError("rated_usage")
        if argument and table.has_players() and table.player(nick) is None:
            raise CommandError("rated_players_only")
        if argument:
            table.owner.update_settings(rated=argument.lower() == "on")
        session = self.client.session(table.session_id)
        text = words("rated_on" if session.settings.rated else "rated_off",
                     prefix=self.prefix)
        if session.game_rated:
            text += " " + words("rated_this_game")
        return [Message.of(text)]

    def _rating(self, channel, nick, argument):
        who = argument or nick
        words = self.words(channel)
        player_id = self._player_id(channel, who)
        if player_id is None:
            raise CommandError("rating_no_identity", nick=who)
        try:
            player = self.client.get_player(player_id)
        except KhetError as error:
            if error.code_name != "NOT_FOUND":
                raise
            return [Message.of(words("rating_none", nick=who, id=player_id))]
        return [Message.of(words(
            "rating", nick=who, id=player_id, rating=round(player.rating),
            deviation=round(player.deviation), games=player.games,
            wins=player.wins, draws=player.draws, losses=player.losses))]

    def _top(self, channel, nick, argument):
        words = self.words(channel)
        best = list(itertools.islice(
            self.client.list_players(page_size=TOP_PLAYERS), TOP_PLAYERS))
        if not best:
            return [Message.of(words("top_none"))]
        entries = ", ".join(
            words("top_entry", rank=rank, name=player.name or player.player_id,
                  rating=round(player.rating), games=player.games)
            for rank, player in enumerate(best, 1))
        return [Message.of(words("top", players=entries))]

    def _player_id(self, channel, nick):
        return self.identify(channel, nick) if self.identify else None

    def _record(self, channel, nick, argument):
        session_id, game_id, note = self._game(channel, argument)
        try:
            record = self.client.game_record(session_id, game_id)
        except KhetError as error:
            raise self._unknown_game(channel, error, "record",
                                         argument) from None
        if self.web_url:
            message = link_message(record, self.web_url, self.words(channel))
            if note:
                message = Message.of(f"{note} {message.text}")
            return [message]
        return [record_message(record, self.line_chars, self.words(channel),
                               note)]

    def _games(self, channel, nick, argument):
        if argument:
            raise CommandError("games_usage")
        return [games_message(self._recent_games(channel), self.prefix,
                              self.words(channel))]

    def _analyse(self, channel, nick, argument):
        session_id, game_id, note = self._game(channel, argument)
        try:
            analysis = self.client.analyze_game(session_id, game_id,
                                                self.analysis_ms_per_ply)
        except KhetError as error:
            raise self._unknown_game(channel, error, "analyse",
                                         argument) from None
        lead = (note,) if note else ()
        if analysis.state == service.GameAnalysis.DONE:
            return [Message(lead + tuple(analysis_lines(
                analysis, self.line_chars, self.words(channel))))]
        key = (channel.lower(), analysis.game_id)
        with self._lock:
            waiting = key in self._analysing
            self._analysing.add(key)
        if not waiting:
            threading.Thread(target=self._await_analysis, daemon=True,
                             args=(channel, session_id, analysis.game_id),
                             name=f"analysis {analysis.game_id}").start()
        return [Message(lead + (self.words(channel)(
            "analysing", game=analysis.game_id,
            done=analysis.plies_analyzed, plies=analysis.plies),))]

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
                raise CommandError("no_game_number", number=number,
                                   count=len(games))
            chosen = games[number - 1]
            return chosen.session_id, chosen.id, ""
        if argument:
            match = GAME_ID.match(argument)
            if match is None:
                raise CommandError("not_a_game_id", text=argument)
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
            raise CommandError("no_moves_yet")
        return (games[0].session_id, games[0].id, self.words(channel)(
            "last_game_note", game=games[0].id))

    def _recent_games(self, channel, count=RECENT_GAMES):
        """The channel's archived games, newest first, at most `count`. A
        session deleted on the server took its games along."""
        sessions = self._state.sessions(channel)
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

    def _unknown_game(self, channel, error, word, argument):
        """A refusal of !record or !analyse in plain words: an unknown game
        names the place to find the channel's games."""
        said = f"{self.prefix}{word} {argument}".strip()
        reason = error.message
        if error.code_name == "NOT_FOUND":
            reason = self.words(channel)("unknown_game", reason=reason,
                                    prefix=self.prefix)
        return CommandError("refused_here", command=said, reason=reason)

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
                        analysis_lines(analysis, self.line_chars,
                                       self.words(channel)))))
                    return
                if time.monotonic() > deadline:
                    self._say(channel, Message.of(self.words(channel)(
                        "analysis_still_going", game=game_id,
                        done=analysis.plies_analyzed, plies=analysis.plies,
                        prefix=self.prefix)))
                    return
        except KhetError as error:
            self._say(channel, Message.of(self.words(channel)(
                "analysis_failed", game=game_id, reason=error.message)))
        finally:
            with self._lock:
                self._analysing.discard((channel.lower(), game_id))


def _color(word):
    if word is None:
        return None
    if word.lower() not in ("silver", "red"):
        raise CommandError("colour_word", text=word)
    return word.lower()
