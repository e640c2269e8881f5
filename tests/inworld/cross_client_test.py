#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""inworld_cross_client: the in-world board and another client on one game.

The estate owner's avatar sets the board up (Setup > Khet 2.0 > classic-2)
and takes Silver on it (Play > Silver); a "web" player takes Red through
the HTTP API (POST /v1/sessions/{id}:join?view=compact with a playerName),
and plays with its token in X-Khet-Token, as the web board does.
(a) After the avatar's move (Silver, Red, Silver by touch) the web asks for
    a takeback (:requestTakeback, two plies): the avatar gets the board's
    dialog and presses Accept; the piece prims show the position before
    those two moves and the laser, still up before the answer, is down.
(b) The web moves; the avatar asks (Play > Take back, two plies) and the
    web accepts (:acceptTakeback): the board shows the start again, the
    laser down.
(c) The web resigns and asks for a rematch (:rematch): khetd swaps the
    seats (the avatar is Red, the web Silver, no seat event); after the
    web's first move, the avatar's touch on a Red piece lights its targets
    and one on a Silver piece does not; the avatar's Red move by touch is
    played with the token the board now holds for Red.
Pictures of the board after each step go into the scratch folder. The
avatar's moves are timed as inworld_games times them (the piece's touch
until its squares are lit, the target's touch until khetd has the move,
then until the pieces show it), and so are the web's moves from khetd
having them until the pieces show them (inworld.py, "How fast a board
answers"); the figures are summed up at the end (print_latencies), never
failed on.
"""

import json
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

from inworld import (changed_at, check_script_errors, expected_pieces, Failure, LIT,
                     print_latencies, print_timings, record_latency, run_test, SHOWN,
                     TAKEN, test_parser, TOUCHED, World)
from play import REFRESH

LASER_SECONDS = 12.0  # how long the render script shows a shot


class Web:
    """The web player: HTTP calls to khetd's gateway with its token."""

    def __init__(self, khetd, session_id):
        self.url = khetd.url
        self.session_id = session_id
        self.token = None

    def call(self, method, path, body=None, token=None):
        """The answer's JSON; Failure with khetd's error if it is not 200."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["X-Khet-Token"] = token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as error:
            raise Failure(f"{method} {path}: {error.code} "
                          f"{error.read().decode(errors='replace')}") from None

    def act(self, verb, body=None):
        """POST /v1/sessions/{id}:<verb>?view=compact with the web's token."""
        return self.call("POST", f"/v1/sessions/{self.session_id}:{verb}?view=compact",
                         body or {}, self.token)

    def session(self):
        return self.call("GET", f"/v1/sessions/{self.session_id}?view=compact")

    def legal(self, square):
        return self.call("GET", f"/v1/sessions/{self.session_id}/legalMoves"
                                f"?square={square}&view=compact")["moves"].split()

    def move(self, notation):
        version = self.session()["v"]
        return self.act("move", {"move": {"notation": notation},
                                 "expectedVersion": version,
                                 "requestId": str(uuid.uuid4())})

    def events(self, after):
        return self.call("GET", f"/v1/sessions/{self.session_id}/events"
                                f"?afterVersion={after}&waitSeconds=0&view=compact")["events"]


class Game:
    """The test's state: the world, the board, the avatar and the web."""

    def __init__(self, world, board, avatar):
        self.world = world
        self.board = board
        self.avatar = avatar
        self.web = None
        self.started = time.monotonic()
        self.timings = {}
        self.drawing = ThreadPoolExecutor(1)
        self.pictures = []
        self.shot = None  # when the last move was sent
        self.lost = []  # what showed only once the prims were sent again
        self.events = None  # the session's EventWatch

    def latency(self, step, start, end, what, prims=None, part=None):
        return record_latency(self.world.latencies, step, start, end, what, prims, part)

    def step(self, name):
        now = time.monotonic()
        self.timings[name] = now - self.started
        self.started = now

    def picture(self, prims, name):
        self.pictures.append(self.drawing.submit(
            self.board.picture, prims, self.world.folder / f"{name}.png"))

    def drain(self):
        for _ in self.avatar.call("dialogs")["dialogs"]:
            self.avatar.dialog(timeout=1)

    def menu(self, *buttons):
        self.drain()
        self.board.menu(self.avatar, *buttons)

    def wait_prims(self, what, check, timeout=30):
        """Reads the prims until `check` finds nothing wrong; the prims.
        Prims still wrong after REFRESH s are asked for again (an update
        OpenSimulator 0.9.2 lost on its way to the avatar); what showed
        right only then, at once, is noted in self.lost."""
        started = time.monotonic()
        refreshed, refreshed_at, wrong = 0, None, None
        prims = None
        while True:
            prims = (self.board.prims(self.avatar) if prims is None else
                     self.board.next_prims(self.avatar, prims))
            last, wrong = wrong, check(prims)
            if wrong is None:
                if refreshed_at is not None and time.monotonic() - refreshed_at < 1.0:
                    self.lost.append(f"{what} (showing: {last})")
                return prims
            elapsed = time.monotonic() - started
            if elapsed > REFRESH * (refreshed + 1):
                self.board.refresh(self.avatar)
                refreshed, refreshed_at = refreshed + 1, time.monotonic()
            if elapsed > timeout:
                picture = self.board.picture(prims, self.world.folder / f"{what}-failed.png")
                raise Failure(f"{what}: {wrong} (after {timeout} s; picture {picture})")

    def wait_session(self, what, check, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            session = self.web.session()
            if check(session):
                return session
            if time.monotonic() > deadline:
                raise Failure(f"{what}: khetd's session never got there: {session}")
            time.sleep(0.2)

    def shows(self, position):
        """A check: the piece prims show `position`."""
        expected = expected_pieces(position)

        def check(prims):
            shown = self.board.read(prims)[0]
            if shown == expected:
                return None
            return (f"the prims do not show {position}; differing (square, shown or "
                    f"expected): {sorted(set(shown.items()) ^ set(expected.items()))}")
        return check

    def laser_down(self, what, position):
        """Waits until the piece prims show `position`, then until no beam
        is up; the prims and how long after the shot (self.shot: when the
        move was sent) each showed. A takeback's redraw takes the laser
        down: a laser still up LASER_SECONDS after the shot although the
        pieces were redrawn 2 s before is a failure. Redrawn later than
        that, the render script's own timer may have taken it down first,
        and the note says the check could not tell."""
        prims = self.wait_prims(what, self.shows(position))
        redrawn = time.monotonic() - self.shot

        def no_beam(prims):
            beams = self.board.read(prims)[1]
            return f"the laser is still up: {beams}" if beams else None
        prims = self.wait_prims(f"{what}: the laser", no_beam)
        down = time.monotonic() - self.shot
        if down >= LASER_SECONDS and redrawn < LASER_SECONDS - 2:
            raise Failure(f"{what}: the pieces were redrawn {redrawn:.1f} s after the "
                          f"shot but the laser went down only at {down:.1f} s, by "
                          f"the render script's {LASER_SECONDS:g} s timer, not the "
                          f"takeback")
        note = (f"laser down {down:.1f} s after the shot" if redrawn < LASER_SECONDS - 2
                else f"pieces redrawn only {redrawn:.1f} s after the shot: whether "
                     f"the takeback took the laser down could not be told")
        return prims, note

    def marks(self, prims):
        return self.board.read(prims)[2]

    def hover(self, prims):
        return prims[0]["text"]

    def hover_says(self, lines, not_=()):
        """A check: the hover text has each of `lines` and none of `not_`."""
        def check(prims):
            text = self.hover(prims)
            if all(line in text for line in lines) and not any(x in text for x in not_):
                return None
            return f"the hover text is {text!r}"
        return check

    def touch_move(self, move):
        """The avatar plays `move` (a step) by touch: its piece, then the
        lit square it goes to; khetd's session after it, once the pieces
        show it. Timed: the piece's touch until every target of the piece
        (khetd's legal moves) is lit, the target's touch until khetd has
        the move (its event), then until the pieces show it."""
        self.drain()
        before = self.web.session()
        targets = {m[3:5] if len(m) >= 5 else m[0:2] for m in self.web.legal(move[0:2])}
        self.avatar.chat_cursor = self.avatar.call("chat")["cursor"]
        sent = self.board.touch_square(self.avatar, move[0:2])
        self.avatar.hear(rf"^Touch a lit square to move {move[0:2]} ")
        prims = self.wait_prims(f"{move[0:2]} chosen", lambda p: None if (
            move[3:5] in self.marks(p) and targets <= set(self.marks(p)))
            else f"marks on {sorted(self.marks(p))}, not {sorted(targets)}")
        self.latency(LIT, sent, changed_at(prims, ("mark",), targets, self.board),
                     move[0:2], prims)
        self.shot = time.monotonic()  # the laser is drawn after this
        sent = self.board.touch_square(self.avatar, move[3:5])
        # The move's answer (whose announcement the board says) ends the
        # board's action: until then another touch hears "busy".
        self.avatar.hear(rf"plays {move}\.")
        moved = self.events.move(before["v"], f"the avatar's {move}")
        if moved["move"] != move:
            raise Failure(f"touching {move[0:2]} then {move[3:5]} played {moved['move']}")
        self.latency(TAKEN, sent, moved["time"], move, part=TOUCHED)
        session = self.wait_session(f"the avatar's {move}", lambda s: s["last"] == move)
        prims = self.wait_prims(f"the avatar's {move} shown", self.shows(session["pos"]))
        self.latency(SHOWN["on the board"], moved["time"], changed_at(prims, ("piece",)),
                     move, prims)
        return session

    def web_move(self, move, what):
        """The web plays `move`; khetd's session after it, and the prims
        once their pieces show it. Timed from khetd's event until then."""
        answer = self.web.move(move)
        moved = self.events.move(answer["v"] - 1, f"the web's {move}")
        session = self.web.session()
        prims = self.wait_prims(what, self.shows(session["pos"]))
        self.latency(SHOWN["from the web"], moved["time"], changed_at(prims, ("piece",)),
                     f"{move} (web)", prims)
        return session, prims


def a_step(web, position, side, avoid=()):
    """A step (not a swap or turn) of one of `side`'s pieces, off `avoid`."""
    pieces = expected_pieces(position)
    for square, piece in sorted(pieces.items()):
        if piece[1] != side or piece[0] not in "PA" or square in avoid:
            continue
        for move in web.legal(square):
            if len(move) == 5 and move[2] == "-" and move[3:5] not in avoid:
                return move
    raise Failure(f"no step for {side} in {position}")


def setup(g):
    """The board set up by the avatar, Silver taken on it, Red by the web."""
    g.menu("Setup", "Khet 2.0", "classic-2")
    session = g.world.khetd.wait_session(g.board.name)
    g.web = Web(g.world.khetd, session["id"])
    g.events = g.world.khetd.watch(session["id"])
    g.menu("Play", "Silver")
    g.avatar.hear(r"^You play Silver")
    joined = g.web.call("POST", f"/v1/sessions/{session['id']}:join?view=compact",
                        {"color": "RED", "playerName": "web"})
    g.web.token = joined["token"]
    if joined["color"] != "r":
        raise Failure(f"the web joined as {joined['color']!r}")
    session = g.wait_session("the game starts", lambda s: s["st"] == "P")
    g.start = session["pos"]
    prims = g.wait_prims("both seats", lambda p: None if (
        g.hover(p).startswith("Silver: Khet Owner\nRed: web\nSilver to move"))
        else f"the hover text is {g.hover(p)!r}")
    g.picture(prims, "seated")
    g.step("setup, seats (avatar Silver, web Red)")


def takeback_from_web(g):
    """(a) Silver (touch), Red (web), Silver (touch); the web asks for a
    takeback, the avatar accepts it by its dialog's button."""
    first = a_step(g.web, g.start, "s")
    after_first = g.touch_move(first)
    after_red, _ = g.web_move(a_step(g.web, after_first["pos"], "r"), "the web's move")
    second = a_step(g.web, after_red["pos"], "s", avoid={first[3:5]})
    after_second = g.touch_move(second)
    prims = g.wait_prims("the avatar's second move", g.shows(after_second["pos"]))
    if not g.board.read(prims)[1]:
        raise Failure(f"after {second}: no beam prim shows the laser {after_second['laser']}")
    g.picture(prims, "a-before-takeback")
    g.drain()
    asked = g.web.act("requestTakeback")
    if asked["tb"] != "r":
        raise Failure(f"the web's takeback request: {asked}")
    dialog = g.avatar.dialog(message="Red asks for a takeback", timeout=20)
    g.avatar.answer(dialog, "Accept")
    session = g.wait_session("takeback accepted", lambda s: s["v"] > asked["v"] and s["tb"] == "")
    if session["pos"] != after_first["pos"]:
        raise Failure(f"the takeback left {session['pos']}, not {after_first['pos']}")
    prims, laser = g.laser_down("(a) the board after the takeback", session["pos"])
    prims = g.wait_prims("(a) the hover text after the takeback", g.hover_says(
        ["Red to move", "Last: " + first], not_=["asks to take back", second]))
    g.picture(prims, "a-after-takeback")
    print(f"(a) {first}, Red, {second}; the web's takeback (2 plies) accepted by the "
          f"avatar: the board redrawn; {laser}")
    g.after_first = after_first
    g.step("(a) takeback asked from the web")


def takeback_from_avatar(g):
    """(b) The web moves; the avatar asks (Play > Take back), the web
    accepts."""
    red = a_step(g.web, g.after_first["pos"], "r")
    # The avatar opens the Play menu first, so that its Take back goes
    # well within the shot's LASER_SECONDS.
    g.drain()
    g.board.touch_edge(g.avatar)
    main = g.avatar.dialog(timeout=15)
    g.avatar.answer(main, "Play")
    play = g.avatar.dialog()
    g.shot = time.monotonic()
    _, prims = g.web_move(red, "the web's move")
    g.picture(prims, "b-before-takeback")
    g.avatar.answer(play, "Take back")
    g.wait_session("the avatar's takeback request", lambda s: s["tb"] == "s")
    g.web.act("acceptTakeback")
    session = g.wait_session("accepted", lambda s: s["tb"] == "" and s["last"] == "")
    if session["pos"] != g.start:
        raise Failure(f"(b) the takeback left {session['pos']}, not the start {g.start}")
    prims, laser = g.laser_down("(b) the board after the takeback", g.start)
    prims = g.wait_prims("(b) the hover text after the takeback", g.hover_says(
        ["Silver to move"], not_=["asks to take back", "Last:"]))
    g.picture(prims, "b-after-takeback")
    print(f"(b) web {red}; the avatar's takeback (2 plies) accepted from the web: the "
          f"start redrawn; {laser}")
    g.step("(b) takeback asked by the avatar")


def rematch(g):
    """(c) The web resigns and asks for a rematch: the seats swap."""
    g.web.act("resign")
    over = g.wait_session("resigned", lambda s: s["st"] == "F" and s["res"] == "S")
    g.wait_prims("the game over", lambda p: None if "Silver wins" in g.hover(p)
                 else f"the hover text is {g.hover(p)!r}")
    again = g.web.act("rematch")
    if (again["st"], again["silver"], again["red"]) != ("P", "web", "Khet Owner"):
        raise Failure(f"(c) after the rematch khetd has {again['st']} silver "
                      f"{again['silver']!r} red {again['red']!r}")
    kinds = [event["kind"] for event in g.web.events(over["v"])]
    if "seat" in kinds or "start" not in kinds:
        raise Failure(f"(c) the rematch's events are {kinds}")
    prims = g.wait_prims("(c) the rematch", lambda p: None if g.hover(p).startswith(
        "Silver: web\nRed: Khet Owner\nSilver to move") else f"the hover text is "
        f"{g.hover(p)!r}")
    prims = g.wait_prims("(c) the rematch's start", g.shows(again["pos"]))
    g.picture(prims, "c-rematch")
    # The web, Silver now with its same token, moves first.
    silver = a_step(g.web, again["pos"], "s")
    session, _ = g.web_move(silver, "(c) the web's first move")
    # Red's turn: the avatar's touch on a Red piece lights its targets...
    red = a_step(g.web, session["pos"], "r")
    targets = {m[3:5] if len(m) >= 5 else m[0:2] for m in g.web.legal(red[0:2])}
    g.drain()
    g.avatar.chat_cursor = g.avatar.call("chat")["cursor"]
    sent = g.board.touch_square(g.avatar, red[0:2])
    prims = g.wait_prims(f"(c) the avatar (Red now) touches {red[0:2]}", lambda p: None
                         if set(g.marks(p)) == targets else
                         f"marks on {sorted(g.marks(p))}, not {sorted(targets)}", timeout=15)
    g.latency(LIT, sent, changed_at(prims, ("mark",), targets, g.board), red[0:2], prims)
    g.avatar.hear(rf"^Touch a lit square to move {red[0:2]} ")
    g.picture(prims, "c-red-piece-touched")
    g.board.touch_edge(g.avatar)  # drops the choice
    g.wait_prims("(c) the choice dropped", lambda p: None if not g.marks(p)
                 else f"marks on {sorted(g.marks(p))}")
    # ... one on a Silver piece does not: it opens the menu.
    silver_piece = next(sq for sq, p in sorted(expected_pieces(session["pos"]).items())
                        if p[1] == "s" and p[0] == "P")
    g.drain()
    g.board.touch_square(g.avatar, silver_piece)
    menu = g.avatar.dialog(timeout=15)
    marks = g.marks(g.board.prims(g.avatar))
    if marks or menu["message"] != "Khet":
        raise Failure(f"(c) the avatar's touch on Silver's {silver_piece} lit "
                      f"{sorted(marks)} and showed {menu['message']!r}")
    # The avatar's Red move, by touch, with the token the board holds for Red.
    played = g.touch_move(red)
    prims = g.wait_prims("(c) the avatar's Red move", g.shows(played["pos"]))
    if played["turn"] != "s":
        raise Failure(f"(c) after the avatar's {red} khetd has {played}")
    g.picture(prims, "c-red-move")
    print(f"(c) rematch: web Silver, avatar Red; web {silver}, the avatar's touch on "
          f"{red[0:2]} lit {' '.join(sorted(targets))}, on {silver_piece} nothing; "
          f"the avatar played {red}")
    g.step("(c) rematch from the web")


def main():
    parser = test_parser(__doc__)
    args = parser.parse_args()
    started = time.monotonic()
    with World(args.scratch, args.khetd, args.scripts) as world:
        world.start()
        board = world.add_board()
        avatar = world.avatar()
        board.find(avatar)
        g = Game(world, board, avatar)
        for scenario in (setup, takeback_from_web, takeback_from_avatar, rematch):
            scenario(g)
        for picture in g.pictures:
            picture.result()
        check_script_errors(avatar)
        print("steps: " + ", ".join(f"{what} {seconds:.1f} s"
                                    for what, seconds in g.timings.items()) +
              "".join(f"\n  shown only once the prims were sent again: {lost}"
                      for lost in g.lost))
    world.timings["total, stopping included"] = time.monotonic() - started
    print_timings(world.timings.items())
    print_latencies(world.latencies)


if __name__ == "__main__":
    run_test(main)
