# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Playing the in-world board as people do, and checking what its prims
show against khetd after every step: the shared part of inworld_games and
inworld_endings.

Table(world, board) is one board's game: seat() takes a seat by the Play
menu, move() plays a move by touching the piece and then its target (or
the piece again, answering "Which move?" where two moves end on one
square), and wait_shown() waits until the prims show khetd's session: the
pieces, the laser's beams, the marked hits, the hover text and the tint.
Scratch (below) asks khetd about positions on sessions of its own, which
the board never sees.

Every touched ply is timed where it is felt (inworld.py, "How fast a
board answers"): the piece touch until its squares are lit, the target
touch (or the "Which move?" answer) until khetd has the move, and khetd
having a move until the prims show it, into world.latencies.

Prims that still show otherwise after REFRESH seconds are asked of the
region again in full (Board.refresh): OpenSimulator 0.9.2 under load was
seen to leave an avatar with a marker prim half parked (the position and
colour of its parking, the size of its lighting) for 20 s while the board
script had lit it. What showed only then is kept in Table.lost and printed
by the tests; a prim the board set wrong stays wrong and fails.
"""

import re
import threading
import time

from inworld import (ANSWERED, AvatarError, changed_at, expected_pieces, Failure, LIT,
                     record_latency, SHOWN, TAKEN, TOUCHED, WHOLE)

SIDES = {"s": "Silver", "r": "Red"}
# The render script's marker colours (khet_render.lsl): a chosen piece's
# targets, and squares where the laser took a piece off.
TARGET = (0.2, 1.0, 0.2)
HIT = (1.0, 0.6, 0.1)
GREY = (0.3, 0.3, 0.3)  # a board's edge with no side to move or winner
# Seconds after which prims that still show otherwise are asked for again.
REFRESH = 6.0


def target_of(move):
    """The square a move ends on, as khet_board.lsl's targetOf: a step's,
    swap's or stack move's second square, a turn's own."""
    return move[3:5] if len(move) >= 5 else move[:2]


def request(khetd, method, path, body=None, token=None):
    """khetd.request, again after a pause while khetd refuses it with 429
    (the test's own calls, all from 127.0.0.1, have khetd's per-address
    budget of 50 a second)."""
    deadline = time.monotonic() + 20
    while True:
        status, answer = khetd.request(method, path, body, token)
        if status != 429 or time.monotonic() > deadline:
            return status, answer
        time.sleep(0.5)


def close(a, b, tolerance=0.02):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def at_once(*steps):
    """Runs each of `steps` (functions of no arguments) in a thread of its
    own; their results in order. The first to fail raises its error at
    once (the others are left to stop with the world)."""
    outcomes = [None] * len(steps)

    def run(at):
        try:
            outcomes[at] = (True, steps[at]())
        except Exception as error:  # noqa: BLE001  (raised below)
            outcomes[at] = (False, error)

    threads = [threading.Thread(target=run, args=(at,), daemon=True)
               for at in range(len(steps))]
    for thread in threads:
        thread.start()
    while True:
        failed = [o[1] for o in outcomes if o is not None and not o[0]]
        if failed:
            raise failed[0]
        if all(o is not None for o in outcomes):
            return [o[1] for o in outcomes]
        time.sleep(0.2)


class Table:
    """The board `board` played through avatars and checked against the
    session khetd holds for it."""

    def __init__(self, world, board):
        self.world = world
        self.board = board
        self.khetd = world.khetd
        self.id = None
        self.root = None      # the board's root prim's UUID
        self.played = []      # this game's moves, as the hover text lists them
        self.events = None    # the session's EventWatch
        self.lit = None       # choose(): seconds until the targets were lit
        self.moved = None     # move(): the move's event
        # [move, seconds from the piece's touch until its targets were lit,
        # from the target's touch (or the answer) until khetd had the move,
        # from then until the pieces showed it (show_move)]
        self.timings = []
        # What showed only once the region was asked to send the prims again
        self.lost = []

    def session(self):
        status, answer = request(self.khetd, "GET", f"/v1/sessions/{self.id}?view=compact")
        if status != 200:
            raise Failure(f"GetSession {self.id}: {status} {answer}")
        return answer

    def setup(self, owner, *buttons):
        """Owner's Setup > `buttons` (the rules, the setup id); waits until
        khetd holds the chosen setup (a new session the first time). The
        session's compact view."""
        before = self.session()["v"] if self.id else -1
        self.press(owner, "Setup", *buttons)
        if self.id is None:
            self.id = self.khetd.wait_session(self.board.name)["id"]
            self.events = self.khetd.watch(self.id)
        setup = buttons[-1]
        session = self.wait_khetd(lambda s: s["setup"] == setup and s["v"] > before,
                                  f"the setup {setup}")
        self.played = []
        return session

    def wait_khetd(self, done, what, timeout=30):
        """Polls khetd's compact session until done(session) holds."""
        deadline = time.monotonic() + timeout
        while True:
            session = self.session()
            if done(session):
                return session
            if time.monotonic() > deadline:
                raise Failure(f"khetd never showed {what} after {timeout} s: {session}")
            time.sleep(0.2)

    def seat(self, avatar, side):
        """`avatar` takes the seat of `side` ("s", "r") by Play > Silver or
        Red, and is told so."""
        cursor = avatar.call("chat")["cursor"]
        self.press(avatar, "Play", SIDES[side])
        self.hear(avatar, rf"^You play {SIDES[side]}\.$", cursor)

    # Several boards may share a region and its avatars (each game in a
    # thread of its own): dialogs and chat are taken from this board only.

    def root_id(self, avatar):
        if self.root is None:
            self.root = self.board.prims(avatar)[0]["id"]
        return self.root

    def dialog(self, avatar, message="", timeout=20):
        """The oldest dialog this board showed `avatar` whose message
        matches, waiting for it (the avatar free for others meanwhile)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return avatar.call("dialog", message=message, timeout=0.3,
                                   object_id=self.root_id(avatar))["dialog"]
            except AvatarError as error:
                if time.monotonic() > deadline:
                    raise AvatarError(f"no dialog matching /{message}/ from "
                                      f"{self.board.name} after {timeout} s ({error})")
            time.sleep(0.1)

    def press(self, avatar, *buttons):
        """Touches the board's side for its menu and presses `buttons` in
        turn, each in the dialog the one before opened."""
        for attempt in range(3):  # the scripts may still be starting
            self.board.touch_edge(avatar)
            try:
                dialog = self.dialog(avatar, timeout=10)
                break
            except AvatarError:
                if attempt == 2:
                    raise
        for at, button in enumerate(buttons):
            avatar.answer(dialog, button)
            if at + 1 < len(buttons):
                dialog = self.dialog(avatar)

    def hear(self, avatar, pattern, cursor, timeout=30):
        """The first chat line from this board at or after `cursor` that
        matches `pattern`."""
        deadline = time.monotonic() + timeout
        while True:
            lines = [line for line in avatar.call("chat", after=cursor)["lines"]
                     if line["source_id"] == self.root_id(avatar)]
            for line in lines:
                if re.search(pattern, line["text"]):
                    return line
            if time.monotonic() > deadline:
                raise Failure(f"heard nothing matching /{pattern}/ from "
                              f"{self.board.name} after {timeout} s; it said "
                              f"{[line['text'] for line in lines[-5:]]}")
            time.sleep(0.2)

    def check_said(self, avatar, cursor, timeout=10):
        """The board said each move of this game once in local chat, as
        khetd announces it ("Silver (Khet Owner) plays f4=g3.", the laser's
        hits and the result after it), from `cursor` on. In any order:
        libOpenMetaverse hands chat packets that arrive together to its
        work pool, which may take them out of order (a move and the
        computer's reply to it were heard reversed)."""
        # (the computer is named "computer, level 1" there)
        expected = [rf"{SIDES[side]} \(.*\) plays {re.escape(move)}\."
                    for side, move in zip("sr" * len(self.played), self.played)]
        deadline = time.monotonic() + timeout
        while True:
            said = [line["text"] for line in avatar.call("chat", after=cursor)["lines"]
                    if line["source_id"] == self.root_id(avatar) and line["type"] == "say"
                    and " plays " in line["text"]]
            left = list(expected)
            for line in said:
                match = next((start for start in left if re.match(start, line)), None)
                if match is None:
                    break
                left.remove(match)
            else:
                if not left:
                    return
            if time.monotonic() > deadline:
                raise Failure(f"{self.board.name} said {said} in local chat, not "
                              f"each of {expected} once")
            time.sleep(0.5)

    # ---- moves ---------------------------------------------------------------

    def legal_moves(self, square):
        status, answer = request(
            self.khetd, "GET", f"/v1/sessions/{self.id}/legalMoves?square={square}&view=compact")
        if status != 200:
            raise Failure(f"legalMoves {square}: {status} {answer}")
        return answer["moves"].split()

    def choose(self, avatar, square):
        """Touches the piece on `square` and waits until the markers light
        exactly the squares khetd's legal moves for it end on (asked before
        the touch); the moves. The touch until they were lit goes into
        world.latencies."""
        moves = self.legal_moves(square)
        lit = {target_of(move): TARGET for move in moves}
        prims = self.board.prims(avatar)
        before = self.board.read(prims)[2]
        touched, sent = self.board.touch_top(avatar, prims, square)
        if touched != "piece":
            raise Failure(f"no piece prim stands on {square} (touched the {touched})")
        prims = self.wait_prims(avatar, f"the targets of {square} lit", marks=lit,
                                timeout=20)
        at = changed_at(prims, ("mark",), set(lit), self.board)
        what = f"{square} on {self.board.name}"
        if at is not None and at < sent:
            what += f", lit {sent - at:.2f} s before the touch (before it: {rounded(before)})"
        self.lit = self.latency(LIT, sent, at, what, prims)
        return moves

    def latency(self, step, start, end, what, prims=None, part=None):
        """end - start into world.latencies as `step` (and, with `prims`,
        the read that found it, how long after `end` it came); the
        seconds. None when either end is unknown or the end came first
        (the state was there already)."""
        return record_latency(self.world.latencies, step, start, end, what, prims, part)

    def move(self, avatar, notation):
        """Plays `notation` as a player does: touches the piece, checks the
        lit targets, touches the target (the piece itself to turn it) and
        answers "Which move?" when two moves end there; waits until khetd
        has played it (its event). khetd's session after it; the move's
        event in self.moved."""
        before = self.session()
        self.record()
        moves = self.choose(avatar, notation[:2])
        if notation not in moves:
            raise Failure(f"khetd does not list {notation} among the moves of "
                          f"{notation[:2]}: {moves} (position {before['pos']})")
        target = target_of(notation)
        alike = [move for move in moves if target_of(move) == target]
        prims = self.board.prims(avatar)
        _, sent = self.board.touch_top(avatar, prims, target)
        part = TOUCHED
        if len(alike) > 1:
            dialog = self.dialog(avatar, message="^Which move\\?$")
            if sorted(dialog["buttons"]) != sorted(alike):
                raise Failure(f"'Which move?' offers {dialog['buttons']}, not {alike}")
            sent, part = avatar.answer(dialog, notation), ANSWERED
        plies = len(self.played)
        self.moved = self.events.move(before["v"], f"{notation} played")
        if self.moved["move"] != notation:
            raise Failure(f"khetd played {self.moved['move']}, not {notation}")
        taken = self.latency(TAKEN, sent, self.moved["time"],
                             f"{notation} on {self.board.name}", part=part)
        if len(self.record()) <= plies or self.played[plies] != notation:
            raise Failure(f"khetd's record has {self.played}, not {notation} after "
                          f"{plies} plies")
        self.timings.append([notation, self.lit, taken, None])
        return self.session()

    def show_move(self, avatar, session, what, moved, source="on the board"):
        """Waits until the prims show `session` (wait_shown, with the
        shot) after the move whose event is `moved`; from khetd's event
        until the pieces showed it, and until the whole board did, go into
        world.latencies. The prims."""
        prims = self.wait_shown(avatar, session, what)
        name = f"{moved['move']} on {self.board.name}"
        shown = self.latency(SHOWN[source], moved["time"], changed_at(prims, ("piece",)),
                             name, prims)
        self.latency(WHOLE, moved["time"], changed_at(prims), name)
        if self.timings and self.timings[-1][0] == moved["move"]:
            self.timings[-1][3] = shown
        return prims

    def record(self):
        """The current game's moves as khetd recorded them, kept in
        self.played."""
        status, answer = request(self.khetd, "GET",
                                 f"/v1/sessions/{self.id}/games/current")
        if status != 200:
            raise Failure(f"the current game: {status} {answer}")
        self.played = [move["notation"] for move in answer.get("moves", [])]
        return self.played

    # ---- what the prims show -----------------------------------------------------

    def hover(self, session):
        """The hover text khet_words.lsl shows for a compact session (in
        English) after this game's moves."""
        lines = [f"Silver: {session['silver']}", f"Red: {session['red']}"]
        st, res = session["st"], session["res"]
        if st == "W":
            lines.append("Waiting for players (touch Play)")
        elif st == "P":
            lines.append(f"{SIDES[session['turn']]} to move")
            if session["draw"]:
                lines.append(f"{SIDES[session['draw']]} offers a draw")
            if session["tb"]:
                lines.append(f"{SIDES[session['tb']]} asks to take back")
        elif res == "D":
            lines.append("Game over: a draw")
        elif res:
            lines.append(f"Game over: {SIDES[res.lower()]} wins")
        else:
            lines.append("Game over")
        if self.played:
            lines.append("Last: " + ", ".join(self.played[-3:]))
        return "\n".join(lines)

    def differences(self, prims, pieces=None, beams=None, marks=None, text=None,
                    tint=None):
        """What the prims show unlike the expected (each None: not
        checked): pieces {square: (letter, side, turns, tall)}, beams as
        Board.laser_beams gives them, marks {square: colour}, the hover
        text, the tint (the side to move "s"/"r", the winner "S"/"R", or ""
        grey edges)."""
        shown_pieces, shown_beams, shown_marks = self.board.read(prims)
        wrong = []
        if pieces is not None and shown_pieces != pieces:
            wrong.append("pieces differ (square, shown or expected): " +
                         str(sorted(set(shown_pieces.items()) ^ set(pieces.items()))))
        if pieces is not None:
            # read() keeps one piece a square: a prim left standing where
            # another stands too (a captured piece not put away) counts here.
            standing = sum(1 for prim in prims[1:]
                           if prim["name"] == "piece" and prim["pos"][2] > 0)
            if standing != len(pieces):
                wrong.append(f"{standing} piece prims stand on the board, not "
                             f"{len(pieces)}")
        if beams is not None:
            left = list(shown_beams)
            missing = []
            for beam in beams:
                match = next((b for b in left if close(b[0], beam[0]) and
                              close(b[1], beam[1])), None)
                if match is None:
                    missing.append(beam)
                else:
                    left.remove(match)
            if missing or left:
                wrong.append(f"beams: missing {rounded(missing)}, not expected "
                             f"{rounded(left)}")
        if marks is not None:
            shown = {square: tuple(colour[:3]) for square, colour in shown_marks.items()}
            if set(shown) != set(marks) or any(not close(shown[s], marks[s])
                                               for s in marks):
                wrong.append(f"marks: shown {rounded(shown)}, expected {rounded(marks)}")
        root = prims[0]
        if text is not None and root["text"] != text:
            wrong.append(f"hover text {root['text']!r}, expected {text!r}")
        if tint is not None:
            shown = self.tint(root)
            if shown != tint:
                wrong.append(f"tint {shown!r} ({root['faces'][0]['color'][:3]} on top, "
                             f"{root['faces'][1]['color'][:3]} at the edge), expected "
                             f"{tint!r}")
        return wrong

    def tint(self, root):
        """The tint the root's faces show: "S"/"R" all of it in a side's
        colour, "s"/"r" the edges with the top white, "" grey edges with
        the top white, "?" anything else."""
        from inworld import side_of
        faces = [face["color"][:3] for face in root["faces"]]
        top, edges = faces[0], faces[1:]
        if any(not close(edge, edges[0]) for edge in edges):
            return "?"
        side = side_of(edges[0] + [1.0], self.world.schemes)
        if close(top, edges[0]) and side != "?":
            return side.upper()
        if not close(top, (1.0, 1.0, 1.0)):
            return "?"
        if close(edges[0], GREY):
            return ""
        return side

    def wait_prims(self, avatar, what, timeout=20, **expected):
        """Reads the prims until they show `expected` (differences()'s
        arguments); the prims. Failure naming what differs, with a picture."""
        started = time.monotonic()
        seen = []  # the differences read, each new set once, with its time
        refreshed, refreshed_at = 0, None
        prims = self.board.prims(avatar)
        while True:
            wrong = self.differences(prims, **expected)
            if not wrong:
                if refreshed_at is not None and time.monotonic() - refreshed_at < 1.0:
                    # Right at once when sent again (not the board just
                    # late): the region's update had not come.
                    self.lost.append(f"{what} (showing {seen[-1][1]} "
                                     f"from {seen[-1][0]:.1f} s)")
                return prims
            elapsed = time.monotonic() - started
            if not seen or seen[-1][1] != wrong:
                seen.append((elapsed, wrong))
            if elapsed > REFRESH * (refreshed + 1):
                # An update OpenSimulator 0.9.2 lost on its way to the avatar
                # (seen under load: a marker left half parked for 20 s) is
                # sent again; a prim the board set wrong stays wrong.
                self.board.refresh(avatar)
                refreshed, refreshed_at = refreshed + 1, time.monotonic()
            if elapsed > timeout:
                name = "".join(c if c.isalnum() else "_" for c in what)[:60]
                picture = self.board.picture(prims, self.world.folder /
                                             f"mismatch-{name}.png")
                # The last sets seen: what showed before the laser's 12 s
                # ran out, say, and after. What the board said last tells
                # whether it took the change in (chat comes another way
                # than the prims' updates).
                said = [line["text"] for line in avatar.call("chat")["lines"]
                        if line["source_id"] == self.root_id(avatar)][-3:]
                raise Failure(f"{what}: after {timeout} s the prims still show "
                              f"otherwise; " + " then ".join(
                                  f"from {at:.1f} s: " + "; ".join(w)
                                  for at, w in seen[-3:]) + f"; picture {picture}; "
                              f"the board said last {said}")
            prims = self.board.next_prims(avatar, prims)

    def expected(self, session, prims, shot=True):
        """differences()'s arguments for a compact session: every piece,
        the hover text, the tint; with `shot` (just after a move or a
        setup, within the 12 s the laser shines) also the shot's beams and
        its hits marked."""
        st, res, turn = session["st"], session["res"], session["turn"]
        tint = turn if st == "P" else (res if res in ("S", "R") else "")
        out = dict(pieces=expected_pieces(session["pos"]), text=self.hover(session),
                   tint=tint)
        if shot:
            out.update(beams=self.board.laser_beams(prims, session["laser"]),
                       marks={entry[:2]: HIT for entry in session["rm"].split()})
        return out

    def wait_shown(self, avatar, session, what, timeout=20, shot=True):
        """Waits until the prims show `session` (expected()); the prims."""
        prims = self.board.prims(avatar)
        return self.wait_prims(avatar, what, timeout=timeout,
                               **self.expected(session, prims, shot))


def rounded(value):
    """Figures to the centimetre, for messages."""
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, (list, tuple)):
        return type(value)(rounded(v) for v in value)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


class Scratch:
    """Positions tried on khetd in sessions of the test's own (named
    "scratch ..."), each deleted after use."""

    def __init__(self, khetd):
        self.khetd = khetd
        self.count = 0

    def call(self, method, path, body=None, token=None, ok=(200,)):
        status, answer = request(self.khetd, method, path, body, token)
        if status not in ok:
            raise Failure(f"{method} {path}: {status} {answer}")
        return status, answer

    def game(self, position):
        """A session at `position` with both seats taken: (id, owner token,
        {side: token})."""
        self.count += 1
        _, made = self.call("POST", "/v1/sessions?view=compact",
                            {"name": f"scratch {self.count}", "position": position})
        tokens = {}
        for side, color in (("s", "SILVER"), ("r", "RED")):
            _, joined = self.call("POST", f"/v1/sessions/{made['id']}:join?view=compact",
                                  {"color": color, "playerName": f"scratch {side}"})
            tokens[side] = joined["token"]
        return made["id"], made["owner"], tokens

    def play(self, id, tokens, moves):
        """Plays `moves` in turn; the compact answer of each."""
        out = []
        for move in moves:
            _, now = self.call("GET", f"/v1/sessions/{id}?view=compact")
            _, answer = self.call("POST", f"/v1/sessions/{id}:move?view=compact",
                                  {"move": {"notation": move},
                                   "expectedVersion": now["v"],
                                   "requestId": f"scratch-{id}-{len(out)}-{move}"},
                                  tokens[now["turn"]])
            out.append(answer)
        return out

    def delete(self, id, owner):
        self.call("DELETE", f"/v1/sessions/{id}", token=owner)

    def legal(self, position):
        """Every legal move of the side to move at `position`."""
        id, owner, _ = self.game(position)
        try:
            moves = []
            _, answer = self.call("GET", f"/v1/sessions/{id}/legalMoves?view=compact")
            moves = answer["moves"].split()
            if answer.get("more"):  # too many for one answer: ask per square
                squares = sorted({m[:2] for m in moves} | {
                    f + r for f in "abcdefghij" for r in "12345678"})
                moves = []
                for square in squares:
                    _, answer = self.call(
                        "GET", f"/v1/sessions/{id}/legalMoves?square={square}&view=compact")
                    moves += answer["moves"].split()
            return moves
        finally:
            self.delete(id, owner)

    def try_moves(self, position, moves):
        """Plays `moves` from `position` on a fresh session; the compact
        answers, or None when khetd refuses one."""
        id, owner, tokens = self.game(position)
        try:
            return self.play(id, tokens, moves)
        except Failure:
            return None
        finally:
            self.delete(id, owner)
