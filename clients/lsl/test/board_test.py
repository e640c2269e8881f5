#!/usr/bin/python3
"""The board's two scripts' own touch, ownership and drawing code.

Both scripts (khet_board.lsl and khet_render.lsl) run in lsl_eval.py as
one linkset: 30 piece, 16 beam and 10 marker prims, and every
llMessageLinked delivered, in order, to both scripts' link_message events
(each hears its own too). For each named setup (from a real khetd's GET
/v1/setups) and each side to move, the server says which squares hold a
piece that side may move and what its legal moves are; on the same
position (the board script's own parseBoard):
- the board script's canPick allows exactly the squares the server has
  moves for, for both colours;
- the render script, told the position by link message, stands a piece prim
  on each occupied square with that piece's texture and its owner's colour
  and parks the others; touching each piece prim lands (through the board
  script's touchedSquare, from where the prim stands) on its square;
- a touch anywhere in a square of the board face lands on that square;
- touching a piece of the side to move asks for its moves; choosing it
  lights marker prims on exactly the squares its moves end on (touching a
  marker lands on its square), and touching each square within two of it
  sends the one move ending there, offers a dialog when two do, and
  otherwise chooses another piece or opens the menu; the other player
  touching their piece is told whose turn it is.
The oracle for where a move ends is the notation (docs/notation.md): a
turn stays on its square, any other move ends on the square it names last.
The protocol's other paths run once: a colour scheme and a scale the
region refuses (told to the owner, the server's setting put back), a laser
and its hits, taken down by the render script's timer, and the owner's
Setup menu choosing the club preset (with its clock) for a new board and
for the board it already has.
Usage: board_test.py --khetd PATH --script khet_board.lsl --render
       khet_render.lsl
"""

import argparse
import json
import sys
import tempfile
import time

import lsl_eval
from lsl_eval import Key
from replay import exchange, start_khetd

SIZE = (3.0, 2.4, 0.1)  # the README's board: 10 x 8 squares of 0.3 m
ALICE = Key("11111111-1111-1111-1111-111111111111")  # Silver
BOB = Key("22222222-2222-2222-2222-222222222222")    # Red
SQUARES = [f + str(r) for r in range(1, 9) for f in "abcdefghij"]
PIECES, BEAMS, MARKS = range(2, 32), range(32, 48), range(48, 58)
JSON_INVALID = lsl_eval.lsl_table.CONSTANTS["JSON_INVALID"][1]
ARITY = {"PRIM_LINK_TARGET": 1, "PRIM_POS_LOCAL": 1, "PRIM_ROT_LOCAL": 1,
         "PRIM_SIZE": 1, "PRIM_TEXTURE": 5, "PRIM_COLOR": 3, "PRIM_GLOW": 2,
         "PRIM_FULLBRIGHT": 2, "PRIM_PHYSICS_SHAPE_TYPE": 1}


def request(base, method, path, body=None):
    status, _, raw = exchange(base, method, path,
                              json.dumps(body or {}), None, False)
    if status != 200:
        raise AssertionError(f"{method} {path}: {status} {raw[:200]}")
    return json.loads(raw)


def server_moves(base, position):
    """{square: [moves]} for the side to move in `position`."""
    session = request(base, "POST", "/v1/sessions?view=compact",
                      {"name": "board test", "position": position})
    sid = session["id"]
    for colour in ("SILVER", "RED"):
        request(base, "POST", f"/v1/sessions/{sid}:join?view=compact",
                {"color": colour, "playerName": colour})
    return {sq: request(base, "GET", f"/v1/sessions/{sid}/legalMoves?"
                        f"square={sq}&view=compact")["moves"].split()
            for sq in SQUARES}


def destination(move, square):
    return square if move[-1] in "LR" else move[-2:]


def list_to_json(kind, values):
    """llList2Json of an object, for the bodies the board script builds: a
    string that is itself an object or array goes in as JSON, as in LSL."""
    if kind != lsl_eval.lsl_table.CONSTANTS["JSON_OBJECT"][1]:
        raise NotImplementedError("llList2Json of an array")

    def value(v):
        if isinstance(v, str) and v[:1] in ("{", "["):
            return json.loads(v)
        return v
    return json.dumps({str(k): value(v) for k, v in
                       zip(values[0::2], values[1::2])},
                      separators=(",", ":"))


def json_value(text, path):
    """llJsonGetValue for the answers the test hands the board script."""
    try:
        value = json.loads(text)
        for part in path:
            value = value[part]
    except (ValueError, KeyError, IndexError, TypeError):
        return JSON_INVALID
    if value is True or value is False:
        return lsl_eval.lsl_table.CONSTANTS[
            "JSON_TRUE" if value else "JSON_FALSE"][1]
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


OWNER = Key("33333333-3333-3333-3333-333333333333")


class Board:
    """The three scripts in the evaluator as one linkset, world calls
    recorded."""

    def __init__(self, text, render_text, keep_text):
        self.text = text
        self.keep_text = keep_text
        self.owner = OWNER
        self.calls = []
        self.bodies = []         # the body of each act, in order
        self.prims = {}          # link -> {rule: values}, as last set
        self.queue = []          # link messages not yet delivered
        self.scale_ok = True
        record = self.calls.append
        names = {**{link: "piece" for link in PIECES},
                 **{link: "beam" for link in BEAMS},
                 **{link: "mark" for link in MARKS}}
        self.touching = (0, 0, (0.0, 0.0, 0.0))  # link, face, st
        self.now = 100.0                          # llGetTime()
        world = {
            "llGetScale": lambda: SIZE,
            "llGetLinkName": lambda link: names.get(link, "board"),
            "llMessageLinked": lambda link, num, text, key:
                self.queue.append((num, text)),
            "llOwnerSay": lambda text: record(("owner", text)),
        }
        self.render = lsl_eval.Interpreter(render_text, {
            **world,
            "llSetLinkPrimitiveParamsFast": self.set_params,
            "llLinkParticleSystem": lambda link, rules:
                record(("sparks", link)) if rules else None,
            "llEuler2Rot": lambda v: (0.0, 0.0, 0.0, 1.0),
            "llGetNumberOfPrims": lambda: max(MARKS),
            "llGetInventoryType": lambda name: 0,
            "llSetTimerEvent": lambda seconds: record(("timer", seconds)),
            "llScaleByFactor": lambda factor: int(self.scale_ok),
            "llGetUsedMemory": lambda: 0,
        })
        self.board_world = {
            **world,
            "llGetLinkPrimitiveParams": lambda link, rules:
                self.prims.get(link, {}).get("PRIM_POS_LOCAL",
                                             [(0.0, 0.0, 0.0)]),
            "llDetectedLinkNumber": lambda n: self.touching[0],
            "llDetectedTouchFace": lambda n: self.touching[1],
            "llDetectedTouchST": lambda n: self.touching[2],
            "llJsonGetValue": json_value,
            "llList2Json": list_to_json,
            "llGetOwner": lambda: self.owner,
            "llGetObjectName": lambda: "Khet board",
            "llGetKey": lambda: Key("44444444-4444-4444-4444-444444444444"),
            "llGetObjectDetails": lambda k, what: [Key("")],
            "llSameGroup": lambda k: 0,
            "llRegionSayTo": lambda who, ch, text: record(("tell", who, text)),
            "llSetText": lambda text, colour, alpha: None,
            "llSetTimerEvent": lambda seconds: None,
            "llGetTime": lambda: self.now,
            "llGetInventoryType": lambda name: 0,
            # the script's own functions that would talk to the server
            "act": lambda kind, who, m, path, body, token, arg:
                self.bodies.append(body) or record(("act", kind, arg)),
            "sendMove": lambda who, move: record(("move", move)),
            "menu": lambda who, text, buttons: record(("menu", text, buttons)),
            "llGetObjectDesc": lambda: "https://khet.example.org",
            "llListen": lambda channel, name, who, text: 1,
            "llFrand": lambda most: 0.0,
            "llResetScript": self.reset_refused,
        }
        self.lsl = lsl_eval.Interpreter(text, self.board_world)
        self.keep = lsl_eval.Interpreter(keep_text, world)
        self.lsl.set("gPlayers", [ALICE, "s", "ta", BOB, "r", "tb"])
        self.lsl.set("gStatus", "P")
        # The render script starts: it finds its prims and says ready, and
        # the board script answers with all there is to show.
        self.render.event("state_entry")
        self.deliver()

    def set_params(self, link, params):
        names = {lsl_eval.lsl_table.CONSTANTS[n][1]: n for n in ARITY}
        i = 0
        while i < len(params):
            name = names[params[i]]
            values = params[i + 1:i + 1 + ARITY[name]]
            if name == "PRIM_LINK_TARGET":
                link = values[0]
            else:
                self.prims.setdefault(link, {})[name] = values
            i += 1 + ARITY[name]

    @staticmethod
    def reset_refused():
        raise AssertionError("the board script reset itself")

    def restart_board(self):
        """The board script alone reset: it starts with its initial
        globals and reads its configuration (the description)."""
        self.lsl = lsl_eval.Interpreter(self.text, self.board_world)
        self.lsl.event("state_entry")
        self.deliver()

    def restart_keeper(self, text=None):
        """The keeper alone reset (or replaced by `text`)."""
        self.keep = lsl_eval.Interpreter(text or self.keep_text,
                                         self.keep.stubs)
        self.keep.event("state_entry")
        self.deliver()

    def deliver(self):
        """Hands every queued link message to every script, in order."""
        sent = 0
        while self.queue:
            num, text = self.queue.pop(0)
            for script in (self.lsl, self.render, self.keep):
                script.event("link_message", 1, num, text, Key(""))
            sent += 1
            if sent > 1000:
                raise AssertionError("the scripts keep messaging each other")

    def load(self, position):
        self.lsl.set("gPos", position)
        self.lsl.set("gBoard", self.lsl.call("parseBoard", position))
        self.lsl.set("gTurn", position.split()[1])

    def touch(self, who, square):
        self.calls.clear()
        self.lsl.call("touchSquare", who, square)
        self.deliver()
        return list(self.calls)

    def placed(self, links):
        """{link: rules} of those prims standing on the board, not parked."""
        return {link: self.prims[link] for link in links
                if link in self.prims and
                self.prims[link]["PRIM_POS_LOCAL"][0][2] > 0}

    def touched(self, link):
        """The square the board script makes of a touch on prim `link`."""
        self.touching = (link, 0, (-1.0, -1.0, 0.0))
        return self.lsl.call("touchedSquare")

    def drawn(self):
        """The piece prims the render script stands on the board."""
        self.lsl.call("show")
        self.deliver()
        return self.placed(PIECES)


def check_position(board, position, moves, failures, where):
    """moves: {side: {square: [moves]}} for `position` with each to move."""
    lsl = board.lsl
    board.load(position)
    checked = 0
    # Ownership: exactly the squares with moves may be picked, each colour.
    for side in "sr":
        for sq in SQUARES:
            want = bool(moves[side][sq])
            if bool(lsl.call("canPick", side, sq)) != want:
                failures.append(f"{where}: canPick({side}, {sq}) is "
                                f"{not want}, the server says {want}")
            checked += want
    # The render script: each piece prim on its square, with its letter's
    # texture, in its owner's colour; a touch on it lands on that square.
    prims = board.drawn()
    silver = board.render.call("schemeColour", 1)
    squares = []
    for link, rules in sorted(prims.items()):
        sq = board.touched(link)
        squares.append(sq)
        token = lsl.call("tokenAt", sq) if sq else ""
        is_silver = rules["PRIM_COLOR"][1] == silver
        texture = rules["PRIM_TEXTURE"][1]
        if not token or is_silver != bool(moves["s"][sq]) or \
                texture != token[0].upper():
            failures.append(f"{where}: piece prim {link} touched on {sq!r} "
                            f"(token {token!r}), silver colour {is_silver}, "
                            f"texture {texture}")
    owned = {sq for side in "sr" for sq in SQUARES if moves[side][sq]}
    if sorted(squares) != sorted(owned):
        failures.append(f"{where}: pieces drawn on {sorted(squares)}, "
                        f"the server has {sorted(owned)}")
    # The board face: a touch anywhere inside a square lands on it.
    for n, sq in enumerate(SQUARES):
        f, r = n % 10, n // 10
        for dx, dy in ((0.5, 0.5), (0.02, 0.02), (0.98, 0.02), (0.02, 0.98),
                       (0.98, 0.98)):
            got = lsl.call("stSquare", ((f + dx) / 10, (r + dy) / 8, 0.0))
            if got != sq:
                failures.append(f"{where}: touch at {f + dx},{r + dy} "
                                f"lands on {got}, not {sq}")
    # Touching: the side to move picks a piece, then a target square.
    turn = position.split()[1]
    who, other = (ALICE, BOB) if turn == "s" else (BOB, ALICE)
    k_moves = lsl.get("K_MOVES")
    for sq in SQUARES:
        legal = moves[turn][sq]
        if not legal:
            continue
        if board.touch(who, sq) != [("act", k_moves, sq)]:
            failures.append(f"{where}: touching {sq} did {board.calls}")
        lsl.call("pick", who, sq, legal)
        board.deliver()
        marked = sorted(board.touched(link) for link in board.placed(MARKS))
        if marked != sorted({destination(m, sq) for m in legal}):
            failures.append(f"{where}: {sq} lights {marked} for {legal}")
        # Every square within two of the piece: its targets, and the ring
        # around them (other pieces, empty squares) that no move reaches.
        near = [t for t in SQUARES if max(abs(ord(t[0]) - ord(sq[0])),
                                          abs(int(t[1]) - int(sq[1]))) <= 2]
        for target in near:
            for name, value in (("gPick", sq), ("gPickMoves", legal),
                                ("gPickWho", who)):
                lsl.set(name, value)
            ends = [m for m in legal if destination(m, sq) == target]
            got = board.touch(who, target)
            if len(ends) == 1:
                want = [("move", ends[0])]
            elif ends:
                want = [("menu", "Which move?", ends)]
            elif moves[turn][target]:
                want = [("act", k_moves, target)]
            else:
                want = [("menu", "Khet", ["Play"])]
            if got != want:
                failures.append(f"{where}: {sq} then {target}: {got}, "
                                f"wanted {want}")
        if board.placed(MARKS):
            failures.append(f"{where}: markers still lit after {sq}'s choice "
                            f"ended")
    for sq in SQUARES:
        if moves["r" if turn == "s" else "s"][sq]:
            told = board.touch(other, sq)
            if len(told) != 1 or told[0][0] != "tell" or "turn" not in told[0][2]:
                failures.append(f"{where}: the other player on {sq}: {told}")
    return checked


def check_protocol(board, position, failures):
    """The messages besides the board and targets, through both scripts."""
    lsl = board.lsl
    board.load(position)
    board.drawn()
    # A colour scheme and a scale the region refuses: the pieces take the
    # scheme's colours; the owner hears of the refusal and the server's
    # setting is put back to the board's real size.
    board.scale_ok = False
    board.calls.clear()
    lsl.call("applyEvent", json.dumps({"kind": "settings", "quiet": False,
                                       "scheme": "nile", "scale": 6,
                                       "ann": ""}))
    board.deliver()
    orange = board.render.call("schemeColour", 1)
    colours = {tuple(r["PRIM_COLOR"][1]) for r in board.placed(PIECES).values()}
    if orange not in colours or orange == (0.75, 0.75, 0.75):
        failures.append(f"protocol: the nile scheme drew {colours}")
    told = [c for c in board.calls if c[0] == "owner"]
    acts = [c for c in board.calls if c[0] == "act"]
    if len(told) != 1 or "cannot be scaled to 6 m" not in told[0][1] or \
            acts != [("act", lsl.get("K_SETTINGS"), "")]:
        failures.append(f"protocol: a refused scale did {board.calls}")
    # A laser of three runs and two hits; the timer takes both down but not
    # a chosen piece's targets.
    lsl.call("laser", "j1j4h4x f4f2x")
    lsl.call("render", lsl.get("KR_HITS"), "f8k e5s/")
    board.deliver()
    beams = len(board.placed(BEAMS))
    hit = sorted(board.touched(link) for link in board.placed(MARKS))
    if beams != 3 or hit != ["e5", "f8"]:
        failures.append(f"protocol: laser drew {beams} beams, hits {hit}")
    board.render.event("timer")
    board.deliver()
    if board.placed(BEAMS) or board.placed(MARKS):
        failures.append("protocol: the laser's timer left beams or hits up")
    lsl.call("pick", ALICE, "e5", ["e5-e6"])
    lsl.call("laser", "j1j4x")
    board.deliver()
    board.render.event("timer")
    board.deliver()
    lit = [board.touched(link) for link in board.placed(MARKS)]
    if lit != ["e6"]:
        failures.append(f"protocol: after a laser the targets show {lit}")
    # The owner's Setup menu offers the club preset (a clock), which makes
    # a new board when there is none and sets up the existing one after.
    owner = Key("33333333-3333-3333-3333-333333333333")
    board.calls.clear()
    lsl.call("onButton", owner, "Setup")
    if not board.calls or "Club 15+10" not in board.calls[-1][2]:
        failures.append(f"protocol: the Setup menu was {board.calls}")
    for board_id, kind, body in [
            ("", "K_CREATE", {"name": "Khet board", "preset": "club"}),
            ("s1", "K_SETUP", {"preset": "club"})]:
        lsl.set("gId", board_id)
        board.calls.clear()
        board.bodies.clear()
        lsl.call("onButton", owner, "Club 15+10")
        sent = json.loads(board.bodies[0]) if board.bodies else {}
        if board.calls != [("act", lsl.get(kind), "club")] or sent != body:
            failures.append(f"protocol: Club 15+10 with gId {board_id!r} did "
                            f"{board.calls} with {board.bodies}")
    return 8


def check_keeping(board, failures):
    """What must outlive a reset, a re-rez or a region restart."""
    lsl = board.lsl
    null = Key(lsl_eval.lsl_table.CONSTANTS["NULL_KEY"][1])
    refresh = ("act", lsl.get("K_REFRESH"), "")
    lsl.set("gId", "s1")
    lsl.set("gOwnerToken", "to")
    lsl.call("save")
    board.deliver()
    kept = board.keep.get("gKept")
    want = f"s1|to|0|classic|{OWNER}|{ALICE}|s|ta|{BOB}|r|tb"
    if kept != want:
        failures.append(f"keeping: the keeper holds {kept!r}, not {want!r}")
    # The board script reset alone asks for its copy and goes on with the
    # same session, seats and tokens, reading the board again.
    board.calls.clear()
    board.restart_board()
    got = [board.lsl.get(n) for n in ("gId", "gOwnerToken", "gPlayers")]
    if got != ["s1", "to", [ALICE, "s", "ta", BOB, "r", "tb"]] or \
            refresh not in board.calls:
        failures.append(f"keeping: a reset board script came back with "
                        f"{got} and did {board.calls}")
    # The keeper reset alone says so and gets the state again.
    board.restart_keeper()
    if board.keep.get("gKept") != want:
        failures.append(f"keeping: a reset keeper holds "
                        f"{board.keep.get('gKept')!r}")
    # Re-rezzed, or the region restarted: no reset; the requests in flight
    # are dropped, the board is read again, the game goes on.
    lsl = board.lsl
    restart = lsl_eval.lsl_table.CONSTANTS["CHANGED_REGION_START"][1]
    for event, args in (("on_rez", (0,)), ("changed", (restart,))):
        lsl.set("gPollKey", Key("k1"))
        lsl.set("gActKey", Key("k2"))
        lsl.set("gActDue", 120.0)
        board.calls.clear()
        try:
            lsl.event(event, *args)
            board.deliver()
        except AssertionError as error:
            failures.append(f"keeping: {event}: {error}")
            continue
        if lsl.get("gPollKey") != null or lsl.get("gActKey") != null or \
                lsl.get("gActDue") >= 0 or refresh not in board.calls or \
                lsl.get("gId") != "s1" or len(lsl.get("gPlayers")) != 6:
            failures.append(f"keeping: after {event} the board did "
                            f"{board.calls}")
    # A copy kept for another owner is not taken up; the keeper drops its
    # copy when the owner changes.
    board.owner = Key("55555555-5555-5555-5555-555555555555")
    board.calls.clear()
    board.restart_board()
    if board.lsl.get("gId") != "" or board.lsl.get("gPlayers") or \
            refresh in board.calls:
        failures.append(f"keeping: a new owner's board took up the old "
                        f"owner's game: {board.calls}")
    board.keep.event("changed", lsl_eval.lsl_table.CONSTANTS[
        "CHANGED_OWNER"][1])
    if board.keep.get("gKept"):
        failures.append("keeping: a new owner's keeper still holds the copy")
    # Without a keeper the board starts afresh after waiting, and says why.
    board.owner = OWNER
    board.restart_keeper("default { state_entry() {} link_message(integer "
                         "s, integer n, string t, key k) {} }")
    board.calls.clear()
    board.restart_board()
    board.now += board.lsl.get("KEEPER") + 1.0
    board.lsl.event("timer")
    board.deliver()
    told = [c[1] for c in board.calls if c[0] == "owner"]
    if len(told) != 2 or "khet_keep.lsl" not in told[0] or \
            "ready" not in told[1]:
        failures.append(f"keeping: without a keeper the board said {told}")
    return 6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--render", required=True)
    parser.add_argument("--keep", required=True)
    args = parser.parse_args()
    text = open(args.script, encoding="utf-8").read()
    render_text = open(args.render, encoding="utf-8").read()
    keep_text = open(args.keep, encoding="utf-8").read()
    started = time.time()
    proc, base = start_khetd(args.khetd, tempfile.mkdtemp())
    failures = []
    pieces = 0
    try:
        setups = request(base, "GET", "/v1/setups")["setups"]
        for setup in setups:
            ranks, _, edition = setup["position"].split()[:3]
            moves = {side: server_moves(base, f"{ranks} {side} {edition}")
                     for side in "sr"}
            for side in "sr":
                board = Board(text, render_text, keep_text)
                pieces += check_position(board, f"{ranks} {side} {edition}",
                                         moves, failures,
                                         f"{setup['id']} ({side} to move)")
        protocol = check_protocol(Board(text, render_text, keep_text),
                                  setups[0]["position"], failures)
        protocol += check_keeping(Board(text, render_text, keep_text),
                                  failures)
    finally:
        proc.kill()
        proc.wait()
    for failure in failures[:40]:
        print(failure)
    print(f"{len(setups)} setups x 2 sides to move: {pieces} pieces' "
          f"ownership, drawing, touches and target squares and "
          f"{protocol} protocol paths checked in "
          f"{time.time() - started:.1f} s; {len(failures)} failures")
    return 1 if failures or not pieces else 0


if __name__ == "__main__":
    sys.exit(main())
