# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Client: khetd's calls as Python methods, and handles for owners and players.

Every method returns the server's answer (khet.v1 messages, or plain values
where that is friendlier) and raises KhetError when the server refuses.
Calls that act for someone take the owner's or a player's token; the Owner
and Player handles that create_session() and join() return carry theirs.
"""

import dataclasses
import time

import grpc

from .errors import KhetError
from .events import EventStream
from .moves import as_color, as_move
from .stubs import game, service, service_grpc


class Client:
    """A connection to one khetd, e.g. Client("127.0.0.1:50051").

    `timeout` is every call's deadline in seconds unless a method takes its
    own. Use it as a context manager, or close() it when done.

    TLS (khetd with --tls_cert and --tls_key): `tls=True` checks khetd's
    certificate against the system's CAs; `ca_cert="ca.pem"` (implies TLS)
    against that PEM file instead, e.g. a self-signed certificate.
    `server_name` is the name the certificate must carry when `target`
    names khetd otherwise (an IP address).
    """

    def __init__(self, target="127.0.0.1:50051", *, timeout=10.0,
                 channel=None, tls=False, ca_cert=None, server_name=None):
        self._channel = channel or _open_channel(target, tls, ca_cert,
                                                 server_name)
        self.stub = service_grpc.KhetServiceStub(self._channel)
        self.timeout = timeout

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def wait_until_ready(self, timeout=10.0):
        """Waits until the channel is connected; KhetError UNAVAILABLE if not."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise KhetError(grpc.StatusCode.UNAVAILABLE,
                            f"no connection within {timeout} s") from None

    def _call(self, method, request, token=None, timeout=None):
        metadata = (("authorization", f"Bearer {token}"),) if token else None
        try:
            return getattr(self.stub, method)(
                request, timeout=timeout or self.timeout, metadata=metadata)
        except grpc.RpcError as error:
            raise KhetError.from_rpc_error(error) from None

    # ---- What the server offers -----------------------------------------

    def setups(self):
        """Every named setup (khet.v1.Setup: id, name, edition, ...)."""
        return list(self._call("ListSetups", service.ListSetupsRequest()).setups)

    def levels(self):
        """The computer's levels, weakest first (khet.v1.Level)."""
        return list(self._call("ListLevels", service.ListLevelsRequest()).levels)

    def color_schemes(self):
        return list(self._call("ListColorSchemes",
                               service.ListColorSchemesRequest()).schemes)

    # ---- Sessions ---------------------------------------------------------

    def create_session(self, name, *, setup_id="", position="", rules=None,
                       settings=None):
        """A new board named `name` (1-64 characters); the caller owns it.

        `rules` and `settings` are dicts of khet.v1.RuleOptions and
        SettingsUpdate fields, e.g. rules={"ply_limit": 100},
        settings={"quiet": True}. Returns an Owner holding the owner token.
        """
        response = self._call("CreateSession", service.CreateSessionRequest(
            name=name, setup_id=setup_id, position=position,
            rules=_message(game.RuleOptions, rules),
            settings=_message(service.SettingsUpdate, settings)))
        return Owner(self, response.session.id, response.owner_token,
                     response.session)

    def create_session_from_record(self, name, record, *, ply=0,
                                   settings=None):
        """A new board going on from a game record (text, as record() gives
        it): replayed to its end, or to its first `ply` moves, with both
        seats free. KhetError INVALID_ARGUMENT names the line and move of a
        record that does not read. Returns an Owner."""
        response = self._call("CreateSession", service.CreateSessionRequest(
            name=name, record=record, ply=ply,
            settings=_message(service.SettingsUpdate, settings)))
        return Owner(self, response.session.id, response.owner_token,
                     response.session)

    def session(self, session_id):
        """The session as it is now (khet.v1.Session)."""
        return self._call("GetSession",
                          service.GetSessionRequest(session_id=session_id))

    def sessions(self, status=None, page_size=100):
        """Every session, newest first, fetched a page at a time.

        `status` is None (all), "waiting_for_players", "in_progress" or
        "finished".
        """
        request = service.ListSessionsRequest(page_size=page_size,
                                              status=_status(status))
        while True:
            page = self._call("ListSessions", request)
            yield from page.sessions
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def join(self, session_id, player_name, color=None, *, player_id=""):
        """Takes a seat ("silver", "red" or None for any free one).

        `player_id` (optional) is the stable identity the caller vouches for
        (1-128 letters, digits and - _ . : @ / +; never a secret): rated
        games update that id's rating. Returns a Player holding the player
        token.
        """
        response = self._call("JoinSeat", service.JoinSeatRequest(
            session_id=session_id, player_name=player_name,
            color=as_color(color), player_id=player_id))
        return Player(self, session_id, response.player_token, response.color,
                      player_name, response.session)

    def delete_session(self, session_id, token):
        self._call("DeleteSession",
                   service.DeleteSessionRequest(session_id=session_id), token)

    def leave_seat(self, session_id, token, color=None):
        return self._call("LeaveSeat", service.LeaveSeatRequest(
            session_id=session_id, color=as_color(color)), token)

    def seat_computer(self, session_id, token, level, color=None):
        """Puts the computer at `level` (1-5) into a free seat."""
        return self._call("SeatComputer", service.SeatComputerRequest(
            session_id=session_id, level=level, color=as_color(color)), token)

    def choose_setup(self, session_id, token, setup_id="", position="",
                     rules=None):
        return self._call("ChooseSetup", service.ChooseSetupRequest(
            session_id=session_id, setup_id=setup_id, position=position,
            rules=_message(game.RuleOptions, rules)), token)

    def update_settings(self, session_id, token, **settings):
        """Owner only; e.g. update_settings(sid, token, quiet=True)."""
        return self._call("UpdateSettings", service.UpdateSettingsRequest(
            session_id=session_id,
            settings=service.SettingsUpdate(**settings)), token)

    def reset_game(self, session_id, token):
        return self._call("ResetGame",
                          service.ResetGameRequest(session_id=session_id),
                          token)

    # ---- The game -----------------------------------------------------------

    def move(self, session_id, token, move, *, expected_version=None,
             request_id=""):
        """Plays `move` (notation text or a khet.v1.Move) for the token's seat.

        With `expected_version` the move is played only if the session is at
        that version (else KhetError ABORTED); a retry with the same
        `request_id` returns the first answer. Returns the
        khet.v1.MakeMoveResponse: the move as played, the laser shot,
        removals, result, version, announcement and the new board.
        """
        request = service.MakeMoveRequest(session_id=session_id,
                                          move=as_move(move),
                                          request_id=request_id)
        if expected_version is not None:
            request.expected_version = expected_version
        return self._call("MakeMove", request, token)

    def legal_moves(self, session_id, square=""):
        """The side to move's legal moves in notation (of one piece if
        `square` is given)."""
        response = self._call("ListLegalMoves", service.ListLegalMovesRequest(
            session_id=session_id, square=square))
        return [move.notation for move in response.moves]

    def suggest(self, session_id, level=None, *, max_depth=0, max_nodes=0,
                max_time_ms=0, timeout=None):
        """The computer's move for the side to move (SuggestMoveResponse).

        At `level` (1-5; default 3), or within explicit limits.
        """
        request = service.SuggestMoveRequest(session_id=session_id)
        if max_depth or max_nodes or max_time_ms:
            request.limits.CopyFrom(service.SearchLimits(
                max_depth=max_depth, max_nodes=max_nodes,
                max_time_ms=max_time_ms))
        elif level is not None:
            request.level = level
        return self._call("SuggestMove", request, timeout=timeout)

    def resign(self, session_id, token):
        return self._call("Resign", service.ResignRequest(session_id=session_id),
                          token)

    def offer_draw(self, session_id, token):
        return self._call("OfferDraw",
                          service.OfferDrawRequest(session_id=session_id), token)

    def accept_draw(self, session_id, token):
        return self._call("AcceptDraw",
                          service.AcceptDrawRequest(session_id=session_id),
                          token)

    def claim_draw(self, session_id, token):
        """Claims a draw on the third repetition (the player to move)."""
        return self._call("ClaimRepetitionDraw",
                          service.ClaimRepetitionDrawRequest(
                              session_id=session_id), token)

    def request_takeback(self, session_id, token):
        """Asks to take back the token's side's last move (two plies when the
        opponent has replied). A computer opponent grants it at once; a
        person answers with accept_takeback() or decline_takeback().
        KhetError FAILED_PRECONDITION when takebacks are off, the game is
        rated or there is nothing to take back."""
        return self._call("RequestTakeback", service.RequestTakebackRequest(
            session_id=session_id), token)

    def accept_takeback(self, session_id, token):
        """The opponent of the player asking grants the takeback."""
        return self._call("AcceptTakeback", service.AcceptTakebackRequest(
            session_id=session_id), token)

    def decline_takeback(self, session_id, token):
        return self._call("DeclineTakeback", service.DeclineTakebackRequest(
            session_id=session_id), token)

    def board_text(self, session_id, laser=True):
        """The board as monospaced text (46 columns, 11 lines), with the last
        laser path drawn unless laser=False."""
        return self._call("RenderBoard", service.RenderBoardRequest(
            session_id=session_id, without_laser=not laser)).text

    # ---- Game records and the archive ------------------------------------

    def game_record(self, session_id, game_id="current"):
        """A game of the session, its current one by default
        (khet.v1.GetGameRecordResponse: text, headers, moves, result)."""
        return self._call("GetGameRecord", service.GetGameRecordRequest(
            session_id=session_id, game_id=game_id))

    def record(self, session_id, game_id="current"):
        """A game's record as text, ready to save as a .khet file."""
        return self.game_record(session_id, game_id).text

    def games(self, session_id="", *, player="", setup_id="", result="",
              page_size=100):
        """Archived games (khet.v1.GameSummary), newest first, fetched a page
        at a time: the session's, or with no session_id every session's.
        `result` is "1-0", "0-1", "1/2-1/2" or "*"."""
        request = service.ListGamesRequest(
            session_id=session_id, player=player, setup_id=setup_id,
            result=result, page_size=page_size)
        while True:
            page = self._call("ListGames", request)
            yield from page.games
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def position(self, session_id, ply, game_id="current"):
        """Ply `ply` of a game (khet.v1.GetPositionResponse: the board, the
        legal moves, that ply's move and laser)."""
        return self._call("GetPosition", service.GetPositionRequest(
            session_id=session_id, game_id=game_id, ply=ply))

    def analyze_game(self, session_id, game_id="current", ms_per_ply=0):
        """One AnalyzeGame call (khet.v1.GameAnalysis) on a finished game:
        the first starts the computer's analysis in the background and
        answers RUNNING, later ones its progress (plies_analyzed of plies),
        then DONE with every ply judged. `ms_per_ply` is the search's budget
        per ply, 0 for the server's default. KhetError FAILED_PRECONDITION
        for a game still going, RESOURCE_EXHAUSTED when the server runs too
        many analyses already."""
        return self._call("AnalyzeGame", service.AnalyzeGameRequest(
            session_id=session_id, game_id=game_id, ms_per_ply=ms_per_ply))

    def wait_for_analysis(self, session_id, game_id="current", ms_per_ply=0,
                          *, timeout=120.0, poll_seconds=0.25):
        """Calls analyze_game() every `poll_seconds` until the analysis is
        DONE and returns it. After the first answer it asks for the game
        that answer names, so a new game in the session does not change
        which one is awaited. TimeoutError if it is not DONE within
        `timeout` seconds."""
        if timeout <= 0 or poll_seconds <= 0:
            raise ValueError(f"timeout and poll_seconds must be above 0, got "
                             f"{timeout} and {poll_seconds}")
        deadline = time.monotonic() + timeout
        while True:
            analysis = self.analyze_game(session_id, game_id, ms_per_ply)
            if analysis.state == service.GameAnalysis.DONE:
                return analysis
            game_id = analysis.game_id or game_id
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    f"the analysis of game {game_id} was not done within "
                    f"{timeout} s ({analysis.plies_analyzed} of "
                    f"{analysis.plies} plies analysed)")
            time.sleep(min(poll_seconds, left))

    # ---- Players and ratings ---------------------------------------------

    def get_player(self, player_id):
        """A rated player's rating and record (khet.v1.Player); KhetError
        NOT_FOUND before the player's first rated game."""
        return self._call("GetPlayer",
                          service.GetPlayerRequest(player_id=player_id))

    def list_players(self, page_size=100):
        """Rated players (khet.v1.Player), best rating first, fetched a page
        at a time."""
        request = service.ListPlayersRequest(page_size=page_size)
        while True:
            page = self._call("ListPlayers", request)
            yield from page.players
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def watch(self, session_id, after_version=0):
        """The session's events after `after_version` and then live ones, as
        an EventStream (an iterator; cancel() or `with` ends it). The server
        keeps a bounded history: after a version it no longer keeps, the
        stream begins at the oldest it does."""
        try:
            call = self.stub.Watch(service.WatchRequest(
                session_id=session_id, after_version=after_version))
        except grpc.RpcError as error:
            raise KhetError.from_rpc_error(error) from None
        return EventStream(call)


def _open_channel(target, tls, ca_cert, server_name):
    """A plaintext channel, or a TLS one when asked for (see Client)."""
    if not (tls or ca_cert or server_name):
        return grpc.insecure_channel(target)
    root_certificates = None
    if ca_cert:
        with open(ca_cert, "rb") as pem:
            root_certificates = pem.read()
    options = []
    if server_name:
        options.append(("grpc.ssl_target_name_override", server_name))
    return grpc.secure_channel(
        target, grpc.ssl_channel_credentials(root_certificates), options)


@dataclasses.dataclass
class Owner:
    """The owner of a session: its id and owner token."""
    client: Client
    session_id: str
    token: str
    session: object  # khet.v1.Session as created

    def seat_computer(self, level, color=None):
        return self.client.seat_computer(self.session_id, self.token, level,
                                         color)

    def leave_seat(self, color=None):
        """Takes the computer out of its seat."""
        return self.client.leave_seat(self.session_id, self.token, color)

    def choose_setup(self, setup_id="", position="", rules=None):
        return self.client.choose_setup(self.session_id, self.token, setup_id,
                                        position, rules)

    def update_settings(self, **settings):
        return self.client.update_settings(self.session_id, self.token,
                                           **settings)

    def reset_game(self):
        return self.client.reset_game(self.session_id, self.token)

    def delete(self):
        self.client.delete_session(self.session_id, self.token)


@dataclasses.dataclass
class Player:
    """A seated player: session id, player token, colour and name."""
    client: Client
    session_id: str
    token: str
    color: int  # khet.v1.Color
    name: str
    session: object  # khet.v1.Session right after joining

    def move(self, move, *, expected_version=None, request_id=""):
        return self.client.move(self.session_id, self.token, move,
                                expected_version=expected_version,
                                request_id=request_id)

    def resign(self):
        return self.client.resign(self.session_id, self.token)

    def offer_draw(self):
        return self.client.offer_draw(self.session_id, self.token)

    def accept_draw(self):
        return self.client.accept_draw(self.session_id, self.token)

    def claim_draw(self):
        return self.client.claim_draw(self.session_id, self.token)

    def request_takeback(self):
        return self.client.request_takeback(self.session_id, self.token)

    def accept_takeback(self):
        return self.client.accept_takeback(self.session_id, self.token)

    def decline_takeback(self):
        return self.client.decline_takeback(self.session_id, self.token)

    def leave(self):
        return self.client.leave_seat(self.session_id, self.token)

    def seat_computer(self, level, color=None):
        """Puts the computer into the other seat (or `color`)."""
        return self.client.seat_computer(self.session_id, self.token, level,
                                         color)

    def choose_setup(self, setup_id="", position="", rules=None):
        return self.client.choose_setup(self.session_id, self.token, setup_id,
                                        position, rules)


def _message(message_type, fields):
    if fields is None or isinstance(fields, message_type):
        return fields
    return message_type(**fields)


def _status(status):
    if status is None:
        return service.GAME_STATUS_UNSPECIFIED
    if isinstance(status, str):
        try:
            return service.GameStatus.Value(status.strip().upper())
        except ValueError:
            raise ValueError(
                'a status is "waiting_for_players", "in_progress" or '
                f'"finished", got "{status}"') from None
    return status
