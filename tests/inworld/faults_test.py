#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""inworld_faults: the in-world board through faults, in a real region.

khetd runs on SQLite (its database in the scratch folder), the region holds
two boards, A and B, and three avatars log in: the estate owner, who owns
the boards, a second user and a third. On A the owner plays Silver and the
second avatar Red, every move made by touch (the piece, then its target;
a turn by touching the piece itself and choosing in the dialog); on B the
second avatar plays Silver by touch and a web client (this test, over
HTTP) Red. Every move is chosen from khetd's legal moves, tried first on a
throwaway copy of the game so that the laser takes no piece off and the
game goes on. Then:

1. the region stops and starts again from the same folder, while the web
   client moves on B: the avatars log in again; B shows that move within
   40 s of the region being back (only a board that reads its session
   again can: one waiting for its lost long poll to count as lost would
   take 65 s), A its position, and the player to move on each board
   moves by touch (the seats and their tokens kept);
2. each of A's four scripts is reset alone, by the viewer's Reset Scripts
   for that script (ScriptReset with the item id the region runs it
   under), each reset seen to happen: the render script's takes the laser
   down at once (well before its 12 s), the words script's shows the next
   dialog on a new channel (and the hover text again), the board script's
   puts out the markers of the piece chosen before it; the keeper's is
   followed by the board script's, which must get its game back from it.
   After each, A's session has the same version, khetd still has just A's
   one session, the board said nothing of starting afresh, it shows the
   position and the player to move moves by touch (a touch the board is
   not ready for may be told it is busy, never shown a menu);
3. khetd stops (SIGTERM) for 30 s and starts again on the same port and
   database: while it is down, the player to move touching one of their
   pieces on A sees its squares lit (the board's own copy of the legal
   moves needs no request), and touching one of them is told the server
   does not answer (within 25 s); once it is back, the web client's move
   on B shows on B's prims with no avatar touching anything, the move
   sent while khetd was down is played by itself (the board sends it
   again) after A's moves before the outage, A shows the new position,
   and the next player moves by touch;
4. two boards in one region (checked with the opening moves): each made
   its own session, and while the moves are made on one board the third
   avatar reads the other's prims over and over, through the moves and 5 s
   after (longer than a poll takes): they must show that board's own
   position all along, and its session must not change;
5. the third avatar, who holds no seat, touches a piece of the side to
   move and then a square it could move to: each touch opens the menu
   (Play only, the owner's menus not offered), no marker lights and no
   move is made; its Play menu offers the seats but none of the seated
   players' actions (Resign, draws, takebacks, typed moves, hints), which
   the seated owner's Play menu, checked alongside, does offer.

The parts run in the order 4, 1, 2, 5, 3. After each fault a picture of A (and of B after the region restart and the
outage) goes into the scratch folder with the logs; the run time of each
part is printed. The moves by touch are timed as inworld_games times them
(inworld.py, "How fast a board answers"), each from the touch the board
answered (a touch repeated after "busy" from the last one; the touch made
while khetd was down is not timed); the figures, many of them just after
a fault, are summed up at the end (print_latencies), never failed on.
"""

import json
import re
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from inworld import (ANSWERED, BOARD_AT, GROUND, AvatarError, changed_at, expected_pieces,
                     Failure, LIT, print_latencies, print_timings, record_latency, run_test,
                     SHOWN, TAKEN, test_parser, TOUCHED, World)

SECOND = ("Khet", "Second")
THIRD = ("Khet", "Third")
B_AT = (BOARD_AT[0], BOARD_AT[1] + 4.0, BOARD_AT[2])
OUTAGE = 30.0          # how long khetd stays down
HOLD = 5.0             # longer than a board's poll cycle (2 s wait + 2 s pause)
SCRIPTS = ("khet_render", "khet_words", "khet_keep", "khet_board")
# The Play menu's labels for the seated players' actions (khet_words.lsl).
PLAYER_ACTIONS = ("Resign", "Offer draw", "Claim draw", "Type move", "Take back",
                  "Accept draw", "Takeback?", "Hint")
DOWN = r"The Khet server does not answer"
BUSY = "The board is busy; try again in a moment."
RETOUCHED = []         # touches pick() had to repeat, and what they got
STEP = [""]            # what the test is doing, for RETOUCHED


# ---- khetd over HTTP ---------------------------------------------------------

def http(khetd, method, path, body=None, token=None):
    """(status, answer): the JSON answer, or the text of a text one."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(khetd.url + path, data=data, method=method)
    if token:
        request.add_header("X-Khet-Token", token)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            status, raw, kind = answer.status, answer.read(), answer.headers.get_content_type()
    except urllib.error.HTTPError as error:
        status, raw, kind = error.code, error.read(), error.headers.get_content_type()
    text = raw.decode()
    return status, (json.loads(text) if kind == "application/json" and text else text)


def ok(khetd, method, path, body=None, token=None):
    status, answer = http(khetd, method, path, body, token)
    if status != 200:
        raise Failure(f"{method} {path}: {status} {answer}")
    return answer


class Game:
    """A board's session as khetd has it."""

    def __init__(self, khetd, board, latencies):
        self.khetd = khetd
        self.board = board
        self.id = khetd.wait_session(board.name)["id"]
        self.events = khetd.watch(self.id)
        self.latencies = latencies

    def session(self):
        return ok(self.khetd, "GET", f"/v1/sessions/{self.id}?view=compact")

    def moves(self):
        """The current game's moves, in notation."""
        record = ok(self.khetd, "GET", f"/v1/sessions/{self.id}/games/current")
        return [move["notation"] for move in record["moves"]]

    def wait(self, done, what, timeout=30):
        """The session once done(session) holds."""
        deadline = time.monotonic() + timeout
        while True:
            session = self.session()
            if done(session):
                return session
            if time.monotonic() > deadline:
                raise Failure(f"{self.board.name}: {what} not within {timeout} s; "
                              f"the session: {session}")
            time.sleep(0.3)

    def choose(self, kind):
        """A legal move of the side to move, `kind` "step" (a piece other
        than the Pharaoh one square on) or "turn" (a piece turned where it
        stands), whose shot takes no piece off: each candidate is played
        on a copy of the game (a session replayed from its record) first."""
        session = self.session()
        pieces = expected_pieces(session["pos"])
        listed = ok(self.khetd, "GET", f"/v1/sessions/{self.id}/legalMoves?view=compact")
        if listed["more"]:
            raise Failure(f"the legal moves of {session['pos']} did not fit")
        record = ok(self.khetd, "GET", f"/v1/sessions/{self.id}/games/current/record")
        for move in sorted(listed["moves"].split()):
            if pieces[move[:2]][0] == "K":
                continue
            if kind == "step" and not re.fullmatch(r"[a-j]\d-[a-j]\d", move):
                continue
            if kind == "turn" and not re.fullmatch(r"[a-j]\d[LR]", move):
                continue
            copy = ok(self.khetd, "POST", "/v1/sessions?view=compact",
                      {"name": "faults probe", "record": record})
            try:
                side = {"s": "SILVER", "r": "RED"}[session["turn"]]
                token = ok(self.khetd, "POST", f"/v1/sessions/{copy['id']}:join?view=compact",
                           {"color": side, "playerName": "probe"})["token"]
                played = ok(self.khetd, "POST", f"/v1/sessions/{copy['id']}:move?view=compact",
                            {"move": {"notation": move}}, token)
            finally:
                ok(self.khetd, "DELETE", f"/v1/sessions/{copy['id']}", token=copy["owner"])
            if played["st"] == "P" and played["rm"] == "":
                return move
        raise Failure(f"no {kind} for {session['turn']} in {session['pos']} "
                      f"leaves every piece on the board")


# ---- The boards' prims -------------------------------------------------------

def marks(board, avatar):
    return board.read(board.prims(avatar))[2]


def shows(game, avatar, timeout=60):
    """Waits until the board's prims show its session's position; the
    prims."""
    return game.board.wait_pieces(avatar, expected_pieces(game.session()["pos"]),
                                  timeout=timeout)


def beams(board, avatar):
    return board.read(board.prims(avatar))[1]


def wait_until(done, what, timeout):
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise Failure(f"{what}: not within {timeout} s")
        time.sleep(0.3)


def wait_for(event, timeout=120):
    """Waits for a threading.Event another flow of the test sets."""
    if not event.wait(timeout):
        raise Failure(f"a flow of the test did not get on within {timeout} s")


class Watch:
    """While in its block, `avatar` reads `game`'s board's prims over and
    over: a Failure on leaving it if they ever showed anything but the
    session's position (its version must not change meanwhile)."""

    def __init__(self, board, avatar, game):
        self.board, self.avatar, self.game = board, avatar, game
        self.stop = threading.Event()
        self.seen = []

    def __enter__(self):
        self.session = self.game.session()
        self.expected = expected_pieces(self.session["pos"])
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()
        return self

    def _watch(self):
        try:
            prims = self.board.prims(self.avatar)
            while not self.stop.is_set():
                pieces = self.board.read(prims)[0]
                self.seen.append(pieces == self.expected)
                if pieces != self.expected:
                    self.wrong = sorted(set(pieces.items()) ^ set(self.expected.items()))
                    return
                # Read again at each change (and every 0.3 s).
                prims = self.board.next_prims(self.avatar, prims, wait=0.3)
        except Exception as error:  # noqa: BLE001 (reported by __exit__)
            self.error = error

    def __exit__(self, kind, value, trace):
        self.stop.set()
        self.thread.join()
        if kind is not None:
            return False
        if hasattr(self, "error"):
            raise Failure(f"watching {self.board.name}: {self.error}")
        if hasattr(self, "wrong"):
            raise Failure(f"{self.board.name}'s pieces changed while the other board "
                          f"played: {self.wrong}")
        if self.game.session()["v"] != self.session["v"]:
            raise Failure(f"{self.board.name}'s session changed while the other "
                          f"board played")
        if len(self.seen) < HOLD:
            raise Failure(f"{self.board.name}'s prims were read only "
                          f"{len(self.seen)} times")
        return False


def drain_dialogs(avatar):
    """The dialogs the avatar has been shown and not yet answered, taken."""
    taken = []
    while True:
        try:
            taken.append(avatar.dialog(timeout=0))
        except AvatarError:
            return taken


def target(move):
    """The square a move ends on: a step's or swap's second, a turn's own."""
    return move[3:5] if len(move) >= 5 else move[:2]


def pick(board, avatar, square, timeout=45):
    """`avatar` touches the piece on `square` until the board says which
    moves it has (a touch the board is not ready for, just after a fault,
    is told the board is busy, or unheard if the words script has just
    been reset: touched again, and noted in RETOUCHED; a menu or anything
    else said is a Failure); the lit squares, once they are the targets of
    those moves, the prims showing them, and when the touch answered was
    sent."""
    deadline = time.monotonic() + timeout
    while True:
        sent = board.touch_square(avatar, square)
        try:
            line = avatar.hear(rf"Touch a lit square to move {square}|busy|"
                               rf"{DOWN}|turn|Khet:", timeout=10)["text"]
        except AvatarError:
            line = "(nothing)"
        if line.startswith("Touch a lit square"):
            break
        stray = drain_dialogs(avatar)
        if stray or line not in ("(nothing)", BUSY):
            raise Failure(f"{board.name}: touching their piece on {square} showed "
                          f"{[d['message'] for d in stray]} and said {line!r}, "
                          f"instead of choosing it")
        RETOUCHED.append((STEP[0], board.name, square, line))
        if time.monotonic() > deadline:
            raise Failure(f"{board.name}: touching {square} lit nothing within "
                          f"{timeout} s; last heard {line!r}")
        time.sleep(1.0)
    return lit_marks(board, avatar, line) + (sent,)


def lit_marks(board, avatar, told):
    """The squares lit, waiting until they are the targets of the moves
    the board `told` ("Touch a lit square to move e4 (e4-e5 e4R), ...");
    the render script lights them one prim at a time after the board
    script spoke. The squares and the prims showing them."""
    moves = re.search(r"\(([^)]*)\)", told).group(1).split()
    want = {target(move) for move in moves}
    end = time.monotonic() + 10
    prims = board.prims(avatar)
    while True:
        lit = set(board.read(prims)[2])
        if lit == want:
            return lit, prims
        if time.monotonic() > end:
            raise Failure(f"{board.name}: the board told the moves {moves} but lit "
                          f"{sorted(lit)}")
        prims = board.next_prims(avatar, prims)


def touch_move(game, avatar, move, timings=None, picked=False, dialogs=None):
    """`avatar` plays `move` on the board by touch: the piece, then its
    target square (for a turn the piece itself, then the turn in the
    "Which move?" dialog); waits for khetd to have it and the prims to
    show the new position (`picked`: the piece has been touched already
    and the board said this). The new session. Timed (game.latencies):
    the piece's touch until its squares were lit (not when `picked`), the
    target's touch (or the answer) until khetd had the move, and until the
    pieces showed it."""
    board = game.board
    before = game.session()
    started = time.monotonic()
    frm = move[:2]
    to = target(move)
    what = f"{move} on {board.name} ({STEP[0]})"
    if picked:
        lit, _ = lit_marks(board, avatar, picked)
    else:
        lit, prims, sent = pick(board, avatar, frm)
        record_latency(game.latencies, LIT, sent,
                       changed_at(prims, ("mark",), lit, board), what, prims)
    if to not in lit:
        raise Failure(f"{board.name}: {frm}'s markers {sorted(lit)} miss {to}")
    sent, part = board.touch_square(avatar, to), TOUCHED
    if len(move) == 3:
        which = avatar.dialog(message="Which move", timeout=20)
        if dialogs is not None and not dialogs(which):
            raise Failure(f"{board.name}: the dialog {which} is not as expected")
        sent, part = avatar.answer(which, move), ANSWERED
    moved = game.events.move(before["v"], f"the move {move}")
    after = game.wait(lambda s: s["v"] > before["v"], f"the move {move}")
    if after["last"] != move or after["v"] != before["v"] + 1 or moved["move"] != move:
        raise Failure(f"{board.name}: touching {frm} then {to} played "
                      f"{after['last']!r} (version {before['v']} to {after['v']}), "
                      f"not {move}")
    record_latency(game.latencies, TAKEN, sent, moved["time"], what, part=part)
    prims = board.wait_pieces(avatar, expected_pieces(after["pos"]))
    record_latency(game.latencies, SHOWN["on the board"], moved["time"],
                   changed_at(prims, ("piece",)), what, prims)
    if board.read(prims)[2]:
        raise Failure(f"{board.name}: markers still lit after {move}")
    if timings is not None:
        timings.append((STEP[0], move, round(time.monotonic() - started, 1)))
    return after


def mover(game, players):
    """The avatar whose turn it is on the game's board."""
    return players[game.session()["turn"]]


# ---- The test ------------------------------------------------------------------

def main():
    parser = test_parser(__doc__)
    args = parser.parse_args()
    started = time.monotonic()
    parts = {}
    moves_by_touch = []

    def part(name, since):
        parts[name] = time.monotonic() - since
        print(f"{name}: {parts[name]:.1f} s", flush=True)
        return time.monotonic()

    with World(args.scratch, args.khetd, args.scripts, khetd_store="sqlite") as world:
        world.start()
        khetd = world.khetd
        board = world.add_board()
        board_b = world.add_board("Khet board B", at=B_AT)
        # One after the other: OpenSimulator 0.9.2's login service now and
        # then fails logins made at the same moment (KeyNotFoundException
        # 'Created' in its log).
        owner = world.avatar()
        second = world.avatar(*SECOND, "khet-second",
                              (BOARD_AT[0] - 2, BOARD_AT[1] - 3, GROUND + 1))
        third = world.avatar(*THIRD, "khet-third",
                             (BOARD_AT[0] + 2, BOARD_AT[1] - 3, GROUND + 1))
        for one in (board, board_b):
            one.find(owner)
        since = part("start", started)

        # A game on each board: the owner sets both up and plays Silver on
        # A, the second avatar takes Red on A and Silver on B, the web
        # client Red on B; the avatars' menus go on at the same time.
        events = {name: threading.Event() for name in ("A", "B", "red A")}

        def owners_part():
            board.menu(owner, "Setup", "Khet 2.0", "classic-2")
            khetd.wait_session(board.name)
            events["A"].set()
            board_b.menu(owner, "Setup", "Khet 2.0", "classic-2")
            khetd.wait_session(board_b.name)
            events["B"].set()
            wait_for(events["red A"])
            board.menu(owner, "Play", "Silver")
            owner.hear(r"You play Silver")

        def seconds_part():
            wait_for(events["A"])
            board.menu(second, "Play", "Red")
            second.hear(r"You play Red")
            events["red A"].set()
            wait_for(events["B"])
            board_b.menu(second, "Play", "Silver")
            second.hear(r"You play Silver")

        with ThreadPoolExecutor(2) as pool:
            flows = [pool.submit(owners_part), pool.submit(seconds_part)]
            wait_for(events["B"])
            game_b = Game(khetd, board_b, world.latencies)
            web = ok(khetd, "POST", f"/v1/sessions/{game_b.id}:join?view=compact",
                     {"color": "RED", "playerName": "web"})["token"]
            for flow in flows:
                flow.result()
        game = Game(khetd, board, world.latencies)
        if game.id == game_b.id:
            raise Failure("both boards use one session")
        game.wait(lambda s: s["st"] == "P" and s["silver"] == "Khet Owner"
                  and s["red"] == "Khet Second", "A's game starting")
        game_b.wait(lambda s: s["st"] == "P" and s["silver"] == "Khet Second"
                    and s["red"] == "web", "B's game starting")
        players = {"s": owner, "r": second}
        shows(game, owner)
        shows(game_b, second)
        since = part("games set up", since)

        STEP[0] = "opening"
        # Moves by touch: a step and a turn on A, then a step on B. Part 4:
        # the third avatar watches the other board's prims all through
        # each board's moves and HOLD s after them.
        with Watch(board_b, third, game_b):
            for kind in ("step", "turn"):
                touch_move(game, mover(game, players), game.choose(kind), moves_by_touch)
            time.sleep(HOLD)
        with Watch(board, third, game):
            touch_move(game_b, second, game_b.choose("step"), moves_by_touch)
            time.sleep(HOLD)
        if game.session()["pos"] == game_b.session()["pos"]:
            raise Failure("the boards' positions are the same: part 4 proves nothing")
        since = part("opening moves (4. each board's moves leave the other's prims)",
                     since)

        STEP[0] = "1. region restart"
        # 1. The region stops and starts again; the web client moves on B
        # meanwhile.
        world.region.stop()
        web_move = game_b.choose("step")
        ok(khetd, "POST", f"/v1/sessions/{game_b.id}:move?view=compact",
           {"move": {"notation": web_move}}, web)
        world.timings["region restart"] = world.region.start()
        region_back = time.monotonic()
        for one in (owner, second, third):
            world.log_in_again(one)
        for one in (board, board_b):
            one.find(owner)
        # B has to read its session again to show the move made while the
        # region was down (a board that waited for its lost poll to time
        # out would take 65 s).
        prims = shows(game_b, second, timeout=max(5.0, 40 - (time.monotonic() - region_back)))
        parts["1. B showed the move made while the region was down, after "
              "the region was back"] = time.monotonic() - region_back
        board_b.picture(prims, world.folder / "1-region-restart-B.png")
        prims = shows(game, owner)
        board.picture(prims, world.folder / "1-region-restart-A.png")
        touch_move(game, mover(game, players), game.choose("step"), moves_by_touch)
        touch_move(game_b, second, game_b.choose("step"), moves_by_touch)
        since = part("1. region restart", since)

        # 2. Each script reset alone, with the viewer's Reset Scripts for it
        # (the region's item ids: avatar.cs's task inventory gets some of
        # them wrong). Each reset must show: the render script's takes the
        # laser down at once (the board script sends everything again, the
        # laser off), the words script's opens its dialogs on a new
        # channel, the board script's drops the piece chosen before it;
        # the keeper's shows in nothing but that the board script, reset
        # next, still gets its game back.
        items = {row["name"]: row["item"] for row in world.region.scripts()
                 if row["part"] == board.name}
        if sorted(items) != sorted(SCRIPTS):
            raise Failure(f"A's root prim runs the scripts {sorted(items)}")
        ids = [s["id"] for s in khetd.get("/v1/sessions")["sessions"]
               if s["name"] == board.name]

        def reset(name):
            STEP[0] = f"after resetting {name}"
            version[0] = game.session()["v"]
            owner.call("script_reset", local_id=board.root, item=items[name])

        def unchanged(name):
            now = game.session()["v"]
            if now != version[0]:
                raise Failure(f"resetting {name} took A's session from version "
                              f"{version[0]} to {now}")

        version = [None]
        STEP[0] = "2. script resets"
        # khet_render, right after a move, while its laser shows.
        touch_move(game, mover(game, players), game.choose("step"), moves_by_touch)
        shot = time.monotonic()
        if not beams(board, owner):
            raise Failure("no laser beam shows after a move")
        reset("khet_render")
        wait_until(lambda: not beams(board, owner), "the laser taken down", 6)
        if time.monotonic() - shot > 10:
            raise Failure("the laser went down only as its 12 s ran out: was the "
                          "render script reset?")
        board.picture(shows(game, owner), world.folder / "2-reset-khet_render.png")
        unchanged("khet_render")
        touch_move(game, mover(game, players), game.choose("step"), moves_by_touch)
        # khet_words: a dialog before and after (a turn's "Which move?"),
        # and the hover text again.
        who = mover(game, players)
        drain_dialogs(who)
        board.touch_edge(who)
        before = who.dialog(message="^Khet$", timeout=20)
        reset("khet_words")
        unchanged("khet_words")
        touch_move(game, who, game.choose("turn"), moves_by_touch,
                   dialogs=lambda d: d["channel"] != before["channel"])
        text = board.prims(owner)[0]["text"]
        if "Khet Owner" not in text or "Khet Second" not in text:
            raise Failure(f"after the words script's reset the hover text is {text!r}")
        board.picture(board.prims(owner), world.folder / "2-reset-khet_words.png")
        # khet_keep, then khet_board with a piece chosen.
        reset("khet_keep")
        unchanged("khet_keep")
        touch_move(game, mover(game, players), game.choose("step"), moves_by_touch)
        who = mover(game, players)
        move = game.choose("step")
        pick(board, who, move[:2])
        cursor = owner.call("chat")["cursor"]
        reset("khet_board")
        wait_until(lambda: not marks(board, owner), "the chosen piece's markers out "
                   "(the board script reset)", 10)
        unchanged("khet_board")
        touch_move(game, who, move, moves_by_touch)
        said = [line["text"] for line in owner.call("chat", after=cursor)["lines"]
                if re.search(r"ready|khet_keep|no longer knows", line["text"])]
        if said:
            raise Failure(f"the board script started afresh after its reset: {said}")
        board.picture(board.prims(owner), world.folder / "2-reset-khet_board.png")
        now = [s["id"] for s in khetd.get("/v1/sessions")["sessions"]
               if s["name"] == board.name]
        if now != ids or ids != [game.id]:
            raise Failure(f"khetd's sessions named A: {ids} before the resets, "
                          f"{now} after; the board's is {game.id}")
        since = part("2. script resets", since)

        # 5. A third avatar, seated nowhere, touches a piece of the side to
        # move and a square it could move to.
        session = game.session()
        step = game.choose("step")
        for square in (step[:2], step[3:5]):
            board.touch_square(third, square)
            menu = third.dialog(timeout=20)
            if menu["buttons"] != ["Play"]:
                raise Failure(f"touching {square}, the third avatar got the menu "
                              f"{menu['buttons']}, not just Play")
        third.answer(menu, "Play")
        play = third.dialog(timeout=20)
        offered = [b for b in PLAYER_ACTIONS if b in play["buttons"]]
        if offered or "Silver" not in play["buttons"] or "Red" not in play["buttons"]:
            raise Failure(f"the third avatar's Play menu: {play['buttons']}")
        board.menu(owner, "Play")
        owners = owner.dialog(timeout=20)
        if "Resign" not in owners["buttons"]:
            raise Failure(f"the seated owner's Play menu lacks Resign: "
                          f"{owners['buttons']}")
        if game.session()["v"] != session["v"] or marks(board, owner):
            raise Failure("the third avatar's touches changed the game or lit markers")
        board.picture(board.prims(owner), world.folder / "5-third-avatar.png")
        since = part("5. third avatar", since)

        STEP[0] = "3. khetd outage"
        # 3. khetd down for 30 s.
        before = game.moves()
        before_outage = game.session()["v"]
        move = game.choose("step")
        web_move = None
        who = mover(game, players)
        khetd.stop()
        down = time.monotonic()
        # The piece's squares light from the board's own copy of the legal
        # moves, with khetd down as with it up; the move, touched next, is
        # what finds khetd gone.
        lit, prims, sent = pick(board, who, move[:2])
        record_latency(world.latencies, LIT, sent,
                       changed_at(prims, ("mark",), lit, board),
                       f"{move[:2]} on {board.name} ({STEP[0]}, khetd down)", prims)
        if move[3:5] not in lit:
            raise Failure(f"while khetd was down, {move[:2]}'s markers {sorted(lit)} "
                          f"miss {move[3:5]}")
        board.touch_square(who, move[3:5])
        touched = time.monotonic()
        down_said = who.hear(DOWN, timeout=OUTAGE - 5)["text"]
        parts["3. told the server does not answer, after the move's touch"] = \
            time.monotonic() - touched
        board.picture(board.prims(owner), world.folder / "3-khetd-down.png")
        time.sleep(max(0.0, OUTAGE - (time.monotonic() - down)))
        khetd.start_again()
        back, back_at = time.monotonic(), time.time()
        web_move = game_b.choose("step")
        ok(khetd, "POST", f"/v1/sessions/{game_b.id}:move?view=compact",
           {"move": {"notation": web_move}}, web)
        prims = shows(game_b, second, timeout=90)
        parts["3. B showed the web move, after khetd was back"] = time.monotonic() - back
        board_b.picture(prims, world.folder / "3-khetd-back-B.png")
        # The move sent while khetd was down is sent again by the board
        # until khetd answers (its retries span 30-60 s), with nobody
        # touching anything: played once, after A's moves before the outage.
        moved = game.events.move(before_outage, f"{move}, sent while khetd was down, "
                                 f"played", timeout=90)
        parts["3. the move sent while down played, after khetd was back"] = \
            moved["time"] - back_at
        after = game.wait(lambda s: s["last"] == move, f"{move}, sent while khetd was "
                          f"down, played")
        if game.moves() != before + [move]:
            raise Failure(f"A's moves before the outage {before}, then {move} sent "
                          f"while khetd was down; khetd has {game.moves()}")
        prims = board.wait_pieces(owner, expected_pieces(after["pos"]))
        if board.read(prims)[2]:
            raise Failure(f"{board.name}: markers still lit after {move}")
        board.picture(prims, world.folder / "3-khetd-back-A.png")
        # And the game goes on by touch.
        touch_move(game, mover(game, players), game.choose("step"), moves_by_touch)
        since = part("3. khetd outage", since)
        print(f"told while khetd was down: {down_said!r}")

    parts["total, stopping included"] = time.monotonic() - started
    print(f"moves by touch: {moves_by_touch}")
    print(f"touches repeated: {RETOUCHED}")
    print_timings(list(world.timings.items()) + list(parts.items()))
    print_latencies(world.latencies)


if __name__ == "__main__":
    run_test(main)
