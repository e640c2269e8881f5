#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The board's scripts' own touch, ownership, drawing and talking code.

The four scripts (khet_board.lsl, khet_render.lsl, khet_keep.lsl and
khet_words.lsl) run in lsl_eval.py as one linkset: 30 piece, 16 beam and
10 marker prims (and a seated avatar after them), every llMessageLinked
delivered, in order, to every script's link_message event (each hears its
own too), and the board script's requests recorded, not sent. For each
named setup (from a real khetd's GET /v1/setups), and some of them with
physical facings, and each side to move, the server says which squares
hold a piece that side may move and what its legal moves are; on the same
position:
- the render script finds on each square the token this test reads there
  (docs/notation.md), and the board script's canPick, given it, allows
  exactly the squares the server has moves for, for both colours;
- the render script, told the position by link message, stands a piece prim
  on each occupied square with that piece's texture, its owner's colour
  and turned the way it faces (docs/notation.md; the oracle is this
  test's own reading of the position) and parks the others; touching each
  piece prim lands (through the render script's touchedSquare, from where
  the prim stands) on its square;
- a touch anywhere in a square of the board face lands on that square;
- touching (the render script reports the square and its piece to the
  board script) a piece of the side to move asks for its moves; choosing it
  lights marker prims on exactly the squares its moves end on (touching a
  marker lands on its square), and touching each square within two of it
  sends the one move ending there, offers a dialog when two do, and
  otherwise chooses another piece or opens the menu; the other player
  touching their piece is told whose turn it is.
The oracle for where a move ends is the notation (docs/notation.md): a
turn stays on its square, any other move ends on the square it names last.
The other paths run once each (check_protocol and the checks after it): a
colour scheme and a scale the region refuses, a laser and its hits, the
Setup menu's setups, presets and clocks, the settings for language and
hints, a hint, the hover text's last moves, takebacks asked and answered,
a rematch asked elsewhere, the configuration notecard, and what must
outlive a reset, a re-rez or a region restart.
Usage: board_test.py --khetd PATH --script khet_board.lsl --render
       khet_render.lsl --keep khet_keep.lsl --words khet_words.lsl
"""

import argparse
import json
import math
import sys
import tempfile
import time

import lsl_eval
from lsl_eval import Key
from replay import exchange, start_khetd

SIZE = (3.0, 2.4, 0.1)  # the README's board: 10 x 8 squares of 0.3 m
ALICE = Key("11111111-1111-1111-1111-111111111111")  # Silver
BOB = Key("22222222-2222-2222-2222-222222222222")    # Red
OWNER = Key("33333333-3333-3333-3333-333333333333")
SQUARES = [f + str(r) for r in range(1, 9) for f in "abcdefghij"]
PIECES, BEAMS, MARKS = range(2, 32), range(32, 48), range(48, 58)
AVATAR = 58  # a seated avatar, numbered after the prims
JSON_INVALID = lsl_eval.lsl_table.CONSTANTS["JSON_INVALID"][1]
CONST = {name: value for name, (_, value) in
         lsl_eval.lsl_table.CONSTANTS.items()}
ARITY = {"PRIM_LINK_TARGET": 1, "PRIM_POS_LOCAL": 1, "PRIM_ROT_LOCAL": 1,
         "PRIM_SIZE": 1, "PRIM_TEXTURE": 5, "PRIM_COLOR": 3, "PRIM_GLOW": 2,
         "PRIM_FULLBRIGHT": 2, "PRIM_PHYSICS_SHAPE_TYPE": 1}
# Setups also checked with physical facings: Scarabs, Eyes, Djeds.
FACING_SETUPS = ("classic-2", "osiris", "classic-1b")


def request(base, method, path, body=None):
    status, _, raw = exchange(base, method, path,
                              json.dumps(body or {}), None, False)
    if status != 200:
        raise AssertionError(f"{method} {path}: {status} {raw[:200]}")
    return json.loads(raw)


def server_moves(base, position):
    """{square: [moves]} for the side to move in `position`, and the "lm"
    of the compact session khetd answered when the game began (None when
    it had none)."""
    body = {"name": "board test", "position": position}
    if position.endswith(" f"):
        body["rules"] = {"physicalFacings": True}
    session = request(base, "POST", "/v1/sessions?view=compact", body)
    sid = session["id"]
    for colour in ("SILVER", "RED"):
        joined = request(base, "POST", f"/v1/sessions/{sid}:join?view=compact",
                         {"color": colour, "playerName": colour})
    return {sq: request(base, "GET", f"/v1/sessions/{sid}/legalMoves?"
                        f"square={sq}&view=compact")["moves"].split()
            for sq in SQUARES}, joined.get("lm")


def check_lm(board, lm, moves, failures, where):
    """khetd's "lm" for a position, as the render script reads it for each
    square, is the moves khetd lists for that square (in any order)."""
    if lm is None or lm == "+":
        failures.append(f"{where}: the compact session has lm {lm!r}")
        return
    board.render.set("gLm", lm)
    for sq in SQUARES:
        got = board.render.call("movesOn", sq)
        if sorted(got.split()) != sorted(moves[sq]):
            failures.append(f"{where}: lm {lm!r} gives {sq} {got!r}, khetd "
                            f"lists {moves[sq]}")


def destination(move, square):
    return square if move[-1] in "LR" else move[-2:]


def compact_moves(by_square):
    """{square: [moves]} as khetd's compact "lm": each square with moves,
    then each move without its square ("j4-j3-i3R e1-e2=f2")."""
    return " ".join(sq + "".join(m[2:] for m in moves)
                    for sq, moves in by_square.items() if moves)


def tokens(position):
    """{square: token} of a position, read as docs/notation.md says."""
    fields = position.split()
    facings = fields[3:] == ["f"]
    # A "/" after an S or E is its diagonal without facings, so ranks are
    # read character by character rather than split.
    out = {}
    text, i, file, rank = fields[0], 0, 0, 8
    while i < len(text):
        c = text[i]
        if c == "/":
            rank, file, i = rank - 1, 0, i + 1
        elif c.isdigit():
            n = 10 if text[i:i + 2] == "10" else int(c)
            file, i = file + n, i + (2 if n == 10 else 1)
        else:
            kind = c.upper()
            size = {"K": 1 if facings else 0, "P": 2,
                    "S": 2 if facings else 1, "E": 2 if facings else 1
                    }.get(kind, 1)
            out["abcdefghij"[file] + str(rank)] = text[i:i + 1 + size]
            file, i = file + 1, i + 1 + size
    return out


def facing_quarters(token):
    """Quarter turns anticlockwise from a texture's rotation zero (north:
    an Anubis, Sphinx or Pharaoh faces it, a Pyramid's mirror faces north-
    east, a Scarab's or Eye's front mirror north-west), as README.md's
    textures say, to face the way the token's attribute names; without
    physical facings a Pharaoh as at zero, a Scarab or Eye by its diagonal,
    "/" as at zero and "\\" a quarter turn."""
    kind, attr = token[0].upper(), token[1:].lower()
    if kind == "S" or kind == "E":
        return ["nw", "sw", "se", "ne", "/", "\\"].index(attr) % 4
    if kind == "P":
        return ["ne", "nw", "sw", "se"].index(attr)
    if kind == "O" or attr == "":
        return 0
    return ["n", "w", "s", "e"].index(attr)


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


class Board:
    """The four scripts in the evaluator as one linkset, world calls
    recorded in `calls`: ("act", kind, arg) for a request the board script
    starts (its method, path, body and token in `sent`), ("move", move) for
    a move it sends, ("tell", who, text) and ("owner", text) for what the
    words script says, ("dialog", who, text, labels) and ("textbox", who,
    text) for what it shows, ("sparks", link) and ("timer", seconds) for
    the render script's."""

    def __init__(self, text, render_text, keep_text, words_text):
        self.text = text
        self.render_text = render_text
        self.keep_text = keep_text
        self.words_text = words_text
        self.owner = OWNER
        self.calls = []
        self.sent = []           # (method, path, body, token) of each act
        self.prims = {}          # link -> {rule: values}, as last set
        self.queue = []          # link messages not yet delivered
        self.scale_ok = True
        self.hover = ""          # the hover text
        record = self.calls.append
        names = {**{link: "piece" for link in PIECES},
                 **{link: "beam" for link in BEAMS},
                 **{link: "mark" for link in MARKS}}
        self.touching = (0, 0, (0.0, 0.0, 0.0))  # link, face, st
        self.toucher = ALICE
        self.now = 100.0                          # llGetTime()

        def link_name(link):
            if link == AVATAR:
                raise AssertionError("a seated avatar was taken for a prim")
            return names.get(link, "board")
        world = {
            "llGetScale": lambda: SIZE,
            "llGetLinkName": link_name,
            "llMessageLinked": lambda link, num, text, key:
                self.queue.append((num, text, key)),
            "llOwnerSay": lambda text: record(("owner", text)),
            "llGetOwner": lambda: self.owner,
            "llGetKey": lambda: Key("44444444-4444-4444-4444-444444444444"),
            "llGetObjectDetails": lambda k, what: [Key("")],
            "llGetTime": lambda: self.now,
            "llFrand": lambda most: 0.0,
        }
        self.render = lsl_eval.Interpreter(render_text, {
            **world,
            "llGetLinkPrimitiveParams": lambda link, rules:
                self.prims.get(link, {}).get("PRIM_POS_LOCAL",
                                             [(0.0, 0.0, 0.0)]),
            "llDetectedLinkNumber": lambda n: self.touching[0],
            "llDetectedTouchFace": lambda n: self.touching[1],
            "llDetectedTouchST": lambda n: self.touching[2],
            "llDetectedKey": lambda n: self.toucher,
            "llSetLinkPrimitiveParamsFast": self.set_params,
            "llLinkParticleSystem": lambda link, rules:
                record(("sparks", link)) if rules else None,
            # The rotation a prim gets carries its angle about z.
            "llEuler2Rot": lambda v: (0.0, 0.0, v[2], 1.0),
            "llGetNumberOfPrims": lambda: AVATAR,
            "llGetObjectPrimCount": lambda k: AVATAR - 1,
            "llGetInventoryType": lambda name: 0,
            "llSetTimerEvent": lambda seconds: record(("timer", seconds)),
            "llScaleByFactor": lambda factor: int(self.scale_ok),
            "llGetUsedMemory": lambda: 0,
        })
        self.board_world = {
            **world,
            "llJsonGetValue": json_value,
            "llList2Json": list_to_json,
            "llGetObjectName": lambda: "Khet board",
            "llGenerateKey": lambda: Key("77777777-7777-4777-8777-777777777777"),
            "llGetEnv": lambda name: self.sim_channel,
            "llSameGroup": lambda k: 0,
            "llSetTimerEvent": lambda seconds: None,
            "llGetInventoryType": lambda name: 0,
            "llSay": lambda channel, text: record(("chat", text)),
            "llKey2Name": lambda who: {ALICE: "Alice Resident",
                                       BOB: "Bob Resident"}.get(who, ""),
            # the script's own functions that would talk to the server
            "act": self.act,
            "sendMove": lambda who, move: record(("move", move)),
            "send": lambda method, path, body, token: Key("request"),
            "llGetObjectDesc": lambda: "https://khet.example.org",
            "llResetScript": self.reset_refused,
        }
        self.sim_channel = "Second Life Server"
        self.lsl = lsl_eval.Interpreter(text, self.board_world)
        # The keeper's HTTP-in: URLs asked for and released, and the
        # answers it gives to requests made to its URL.
        self.asked = []          # "secure" / "plain" for each URL request
        self.released = []
        self.responses = []      # (request id, status, body)
        self.query = ""          # x-query-string of the request in hand
        self.keep = lsl_eval.Interpreter(keep_text, {
            **world,
            "llRequestSecureURL": lambda: self.ask_url("secure"),
            "llRequestURL": lambda: self.ask_url("plain"),
            "llReleaseURL": self.released.append,
            "llHTTPResponse": lambda k, status, body:
                self.responses.append((k, status, body)),
            "llGetHTTPHeader": lambda k, name:
                self.query if name == "x-query-string" else "",
        })
        self.words = lsl_eval.Interpreter(words_text, {
            **world,
            "llListen": lambda channel, name, who, text: 1,
            "llRegionSayTo": lambda who, ch, text: record(("tell", who, text)),
            "llWhisper": lambda ch, text: record(("whisper", text)),
            "llDialog": lambda who, text, labels, ch:
                record(("dialog", who, text, labels)),
            "llTextBox": lambda who, text, ch: record(("textbox", who, text)),
            "llSetText": self.set_text,
            "llSetTimerEvent": lambda seconds: None,
        })
        self.lsl.set("gPlayers", [ALICE, "s", "ta", BOB, "r", "tb"])
        self.lsl.set("gStatus", "P")
        # The render and words scripts start: each says ready, and the
        # board script answers with all there is to show.
        self.render.event("state_entry")
        self.words.event("state_entry")
        self.deliver()

    def ask_url(self, kind):
        self.asked.append(kind)
        return Key(f"00000000-0000-4000-9000-{len(self.asked):012d}")

    def url_answer(self, method, url=""):
        """The region's answer to the keeper's last URL request; the calls
        it led to."""
        self.calls.clear()
        self.keep.event("http_request",
                        Key(f"00000000-0000-4000-9000-{len(self.asked):012d}"),
                        method, url)
        self.deliver()
        return list(self.calls)

    def act(self, kind, who, method, path, body, token, arg):
        self.sent.append((method, path, body, token))
        self.calls.append(("act", kind, arg))

    def set_text(self, text, colour, alpha):
        self.hover = text

    def set_params(self, link, params):
        names = {CONST[n]: n for n in ARITY}
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

    def restart_words(self):
        """The words script alone reset."""
        self.words = lsl_eval.Interpreter(self.words_text, self.words.stubs)
        self.words.event("state_entry")
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
            num, text, key = self.queue.pop(0)
            for script in (self.lsl, self.render, self.keep, self.words):
                script.event("link_message", 1, num, text, key)
            sent += 1
            if sent > 1000:
                raise AssertionError("the scripts keep messaging each other")

    def load(self, position, lm="+"):
        """The board script holds `position`; the render script draws it,
        with the side to move's legal moves `lm` (khetd's compact "lm";
        "+": unknown, ask khetd)."""
        self.lsl.set("gPos", position)
        self.lsl.set("gTurn", position.split()[1])
        self.lsl.call("show")
        self.lsl.call("render", self.lsl.get("KR_MOVES"), lm)
        self.deliver()

    def run(self, name, *args):
        """Calls the board script's function `name`; delivers what it sent;
        returns the calls recorded meanwhile."""
        self.calls.clear()
        self.lsl.call(name, *args)
        self.deliver()
        return list(self.calls)

    def touch(self, who, square):
        """`who` touches the board's face on `square` ("": off the squares,
        another face); the calls it led to."""
        self.calls.clear()
        if square:
            f, r = "abcdefghij".index(square[0]), int(square[1]) - 1
            self.touching = (1, 0, ((f + 0.5) / 10, (r + 0.5) / 8, 0.0))
        else:
            self.touching = (1, 1, (-1.0, -1.0, 0.0))
        self.toucher = who
        self.render.event("touch_start", 1)
        self.deliver()
        return list(self.calls)

    def event(self, **fields):
        """A long poll's event applied."""
        return self.run("applyEvent", json.dumps(fields), fields["kind"])

    def answer(self, kind, body, who=ALICE, arg="", code=200):
        """The answer (status `code`) to an action of `kind` for `who`."""
        for name, value in (("gActKind", self.lsl.get(kind)),
                            ("gActWho", who), ("gActArg", arg)):
            self.lsl.set(name, value)
        return self.run("onAction", code, json.dumps(body))

    def deliver_push(self, body, query=None, method="POST", rid="d"):
        """khetd's delivery of `body` to the keeper's URL, signed with the
        keeper's secret unless `query` says otherwise; the keeper's answer
        (status, body) and the calls it led to."""
        secret = self.keep.get("gSecret")
        self.query = query if query is not None else "sig=" + \
            lsl_eval.LIBRARY["llSHA256String"](secret + body + secret)
        self.calls.clear()
        self.responses.clear()
        self.keep.event("http_request", Key(rid), method, body)
        self.deliver()
        answered = [r[1:] for r in self.responses if r[0] == rid]
        return (answered[0] if answered else None), list(self.calls)

    def dialog(self, who):
        """The last dialog `who` was shown: (text, labels), or None."""
        shown = [c for c in self.calls if c[0] == "dialog" and c[1] == who]
        return shown[-1][2:] if shown else None

    def press(self, who, label):
        """`who` presses the button `label` (or types it into a text box)
        of the dialog the words script last showed them."""
        self.calls.clear()
        self.words.event("listen", 0, "", who, label)
        self.deliver()
        return list(self.calls)

    def menus(self, who, *labels):
        """`who` touches the board off the pieces and presses `labels` in
        turn; the calls after the last press."""
        self.touch(who, "")
        calls = []
        for label in labels:
            calls = self.press(who, label)
        return calls

    def placed(self, links):
        """{link: rules} of those prims standing on the board, not parked."""
        return {link: self.prims[link] for link in links
                if link in self.prims and
                self.prims[link]["PRIM_POS_LOCAL"][0][2] > 0}

    def touched(self, link):
        """The square the render script makes of a touch on prim `link`."""
        self.touching = (link, 0, (-1.0, -1.0, 0.0))
        return self.render.call("touchedSquare")

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
    # Ownership: exactly the squares with moves may be picked, each colour,
    # by the token the render script finds there.
    for sq in SQUARES:
        token = board.render.call("tokenOn", sq)
        if token != tokens(position).get(sq, ""):
            failures.append(f"{where}: the render script reads {token!r} on "
                            f"{sq}")
        for side in "sr":
            want = bool(moves[side][sq])
            if bool(lsl.call("canPick", side, token)) != want:
                failures.append(f"{where}: canPick({side}, {token!r}) on "
                                f"{sq} is {not want}, the server says {want}")
            checked += want
    # The render script: each piece prim on its square, with its letter's
    # texture, in its owner's colour, turned the way it faces; a touch on
    # it lands on that square.
    prims = board.drawn()
    silver = board.render.call("schemeColour", 1)
    pieces = tokens(position)
    squares = []
    for link, rules in sorted(prims.items()):
        sq = board.touched(link)
        squares.append(sq)
        token = pieces.get(sq, "")
        is_silver = rules["PRIM_COLOR"][1] == silver
        texture = rules["PRIM_TEXTURE"][1]
        turned = round(rules["PRIM_ROT_LOCAL"][0][2] / (math.pi / 2)) % 4
        if not token or is_silver != bool(moves["s"][sq]) or \
                texture != token[0].upper() or \
                turned != facing_quarters(token):
            failures.append(f"{where}: piece prim {link} touched on {sq!r} "
                            f"(token {token!r}), silver colour {is_silver}, "
                            f"texture {texture}, {turned} quarter turns")
    owned = {sq for side in "sr" for sq in SQUARES if moves[side][sq]}
    if sorted(squares) != sorted(owned):
        failures.append(f"{where}: pieces drawn on {sorted(squares)}, "
                        f"the server has {sorted(owned)}")
    # The board face: a touch anywhere inside a square lands on it.
    for n, sq in enumerate(SQUARES):
        f, r = n % 10, n // 10
        for dx, dy in ((0.5, 0.5), (0.02, 0.02), (0.98, 0.02), (0.02, 0.98),
                       (0.98, 0.98)):
            got = board.render.call("stSquare",
                                    ((f + dx) / 10, (r + dy) / 8, 0.0))
            if got != sq:
                failures.append(f"{where}: touch at {f + dx},{r + dy} "
                                f"lands on {got}, not {sq}")
    # Touching: the side to move picks a piece, its targets lit at once
    # from the legal moves the board holds ("lm", no request), then a
    # target square. The lm is made from the server's moves for each
    # square (check_lm holds the server's own "lm" to them).
    turn = position.split()[1]
    who, other = (ALICE, BOB) if turn == "s" else (BOB, ALICE)
    board.load(position, compact_moves(moves[turn]))
    for sq in SQUARES:
        legal = moves[turn][sq]
        if not legal:
            continue
        # (A choice left by the last piece's targets, another piece chosen,
        # ends: this touch is a fresh one.)
        board.render.set("gPickWho", Key(CONST["NULL_KEY"]))
        told = board.touch(who, sq)
        if len(told) != 1 or told[0][:2] != ("tell", who) or \
                not told[0][2].startswith(f"Touch a lit square to move {sq} ("):
            failures.append(f"{where}: touching {sq} did {told}")
        marked = sorted(board.touched(link) for link in board.placed(MARKS))
        if marked != sorted({destination(m, sq) for m in legal}):
            failures.append(f"{where}: {sq} lights {marked} for {legal}")
        # Every square within two of the piece: its targets, and the ring
        # around them (other pieces, empty squares) that no move reaches.
        near = [t for t in SQUARES if max(abs(ord(t[0]) - ord(sq[0])),
                                          abs(int(t[1]) - int(sq[1]))) <= 2]
        for target in near:
            # The piece chosen again (as the render script holds a choice).
            board.render.set("gPickWho", who)
            board.render.set("gPickMoves", " ".join(legal))
            ends = [m for m in legal if destination(m, sq) == target]
            got = board.touch(who, target)
            chosen = False
            if len(ends) == 1:
                want = [("move", ends[0])]
            elif ends:
                want = [("dialog", who, "Which move?", ends)]
            elif moves[turn][target]:
                chosen = True   # another of their pieces: chosen instead
                want = [("tell", who, f"Touch a lit square to move {target} ("
                         f"{' '.join(moves[turn][target])}), or the piece "
                         f"itself to turn it.")]
            else:
                want = [("dialog", who, "Khet", ["Play"])]
            if got != want:
                failures.append(f"{where}: {sq} then {target}: {got}, "
                                f"wanted {want}")
            if not chosen and board.placed(MARKS):
                failures.append(f"{where}: markers still lit after {sq}'s "
                                f"choice ended on {target}")
    for sq in SQUARES:
        if moves["r" if turn == "s" else "s"][sq]:
            told = board.touch(other, sq)
            if len(told) != 1 or told[0][0] != "tell" or "turn" not in told[0][2]:
                failures.append(f"{where}: the other player on {sq}: {told}")
    return checked


def check_protocol(board, position, failures):
    """The render script's messages besides the board and targets."""
    lsl = board.lsl
    board.load(position)
    board.drawn()
    # A colour scheme and a scale the region refuses: the pieces take the
    # scheme's colours; the owner hears of the refusal in metres as a
    # person writes them, and the server's setting is put back to the
    # board's real size.
    board.scale_ok = False
    calls = board.event(kind="settings", quiet=False, scheme="nile", scale=6,
                        lang="en", hints=True, ann="")
    orange = board.render.call("schemeColour", 1)
    colours = {tuple(r["PRIM_COLOR"][1]) for r in board.placed(PIECES).values()}
    if orange not in colours or orange == (0.75, 0.75, 0.75):
        failures.append(f"protocol: the nile scheme drew {colours}")
    told = [c for c in calls if c[0] == "owner"]
    want = "The board cannot be scaled to 6 m here; it stays 3 m."
    if [c[1] for c in told] != [want] or \
            [c for c in calls if c[0] == "act"] != \
            [("act", lsl.get("K_SETTINGS"), "")] or \
            json.loads(board.sent[-1][2]) != {"settings": {"scaleMeters": 3}}:
        failures.append(f"protocol: a refused scale did {calls}, "
                        f"{board.sent[-1:]}")
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
    # A beam that leaves the board from where it starts (split off an Eye
    # of Horus on an edge square: "j3E") runs from there to the edge too.
    lsl.call("laser", "j1j3y j3E j3j8N")
    board.deliver()
    runs = sorted(tuple(round(c, 3) for c in board.prims[link]["PRIM_SIZE"][0][:2])
                  for link in board.placed(BEAMS))
    if len(runs) != 3:
        failures.append(f"protocol: the laser j1j3y j3E j3j8N drew beams {runs}")
    board.render.event("timer")
    board.deliver()
    # The tint: a board where nobody is to move (waiting for players) has
    # grey edges and a white grid; a winner's colour covers all of it.
    ranks = position.split(" ")[0]
    root = CONST["LINK_ROOT"]
    for edge, want in (("", [0, (1.0, 1.0, 1.0), 1.0]),
                       ("S", [CONST["ALL_SIDES"],
                              board.render.call("schemeColour", 1), 1.0])):
        board.render.event("link_message", 1, lsl.get("KR_BOARD"),
                           edge + "|" + ranks, Key(CONST["NULL_KEY"]))
        shown = board.prims.get(root, {}).get("PRIM_COLOR")
        if shown != want:
            failures.append(f"protocol: the tint for edge {edge!r} is {shown}, "
                            f"not {want}")
    board.run("choose", ALICE, "e5", "e5-e6")
    lsl.call("laser", "j1j4x")
    board.deliver()
    board.render.event("timer")
    board.deliver()
    lit = [board.touched(link) for link in board.placed(MARKS)]
    if lit != ["e6"]:
        failures.append(f"protocol: after a laser the targets show {lit}")
    return 5


def check_setup_menu(board, failures):
    """Setup's setups, presets and clocks, through the words script's
    dialogs: each choice's request body. During a game the owner is asked
    whether to reset it first (Reset then Setup: the reset, then the setup
    chosen), as when khetd refuses the setup for a game in progress."""
    lsl = board.lsl
    lsl.set("gStatus", "W")
    bodies = {"K_CREATE": {"name": "Khet board"}, "K_SETUP": {}}
    five_three = {"timeControl": {"kind": "FISCHER", "baseMs": 300000,
                                  "incrementMs": 3000}}
    a_day = {"timeControl": {"kind": "PER_MOVE", "perMoveMs": 86400000}}
    checked = 0
    for clock, rules in (("No clock", None), ("5+3", five_three),
                         ("A day a move", a_day)):
        board.menus(OWNER, "Setup", "Clock")
        shown = board.dialog(OWNER)
        if shown is None or shown[1] != ["No clock", "5+3", "15+10",
                                         "A day a move"]:
            failures.append(f"setup: the Clock menu was {shown}")
        told = board.press(OWNER, clock)
        if ("tell", OWNER, f"The setups chosen next play with: {clock}.") \
                not in told:
            failures.append(f"setup: choosing {clock} told {told}")
        for board_id, kind in (("", "K_CREATE"), ("s1", "K_SETUP")):
            lsl.set("gId", board_id)
            board.menus(OWNER, "Setup")
            shown = board.dialog(OWNER)
            if shown is None or \
                    shown[1] != ["Khet 2.0", "Khet 1.0", "Presets", "Clock"]:
                failures.append(f"setup: the Setup menu was {shown}")
            for path, value, field in (
                    (("Khet 2.0", "classic-2"), "classic-2", "setupId"),
                    (("Khet 1.0", "dynasty-1b"), "dynasty-1b", "setupId"),
                    (("Presets", "Tournament 2009"), "tournament-2009",
                     "preset"),
                    (("Presets", "Club 15+10"), "club", "preset")):
                calls = board.menus(OWNER, "Setup", *path)
                want = dict(bodies[kind], **{field: value})
                if rules and field == "setupId":
                    want["rules"] = rules   # a preset keeps its own
                sent = json.loads(board.sent[-1][2]) if board.sent else {}
                arg = value if kind == "K_CREATE" else \
                    ("use " if field == "setupId" else "preset ") + value
                if calls != [("act", lsl.get(kind), arg)] or sent != want:
                    failures.append(f"setup: {clock}, {path} with gId "
                                    f"{board_id!r} did {calls} with {sent}")
                checked += 1
    board.menus(OWNER, "Setup", "Presets")
    shown = board.dialog(OWNER)
    if shown is None or shown[1] != ["Casual", "Club 15+10", "Tournament 2009"]:
        failures.append(f"setup: the Presets menu was {shown}")
    # A game in progress: the owner is asked first; Cancel does nothing,
    # Reset then Setup resets and then chooses the setup.
    lsl.set("gId", "s1")
    lsl.set("gOwnerToken", "to")
    lsl.set("gClock", "none")
    asked = ("A game is in progress. Reset it, then choose the setup?",
             ["Reset then Setup", "Cancel"])
    for game in ("in progress here", "in progress on the server"):
        if game == "in progress here":
            lsl.set("gStatus", "P")
            calls = board.menus(OWNER, "Setup", "Khet 2.0", "classic-2")
        else:
            lsl.set("gStatus", "W")
            board.menus(OWNER, "Setup", "Khet 2.0", "classic-2")
            calls = board.answer("K_SETUP", {"error": {
                "code": "FAILED_PRECONDITION", "message": "a game is in "
                "progress in session \"s1\"; reset the game first"}},
                who=OWNER, arg="use classic-2", code=400)
        if board.dialog(OWNER) != asked or [c for c in calls if c[0] != "dialog"]:
            failures.append(f"setup: a game {game}: {calls}")
    if board.press(OWNER, "Cancel"):
        failures.append(f"setup: Cancel did {board.calls}")
    board.menus(OWNER, "Setup", "Presets", "Club 15+10")
    calls = board.press(OWNER, "Reset then Setup")
    if calls != [("act", lsl.get("K_RESET"), "preset club")] or \
            board.sent[-1] != ("POST", "/v1/sessions/s1:reset?view=compact",
                               "{}", "to"):
        failures.append(f"setup: Reset then Setup did {calls}, "
                        f"{board.sent[-1:]}")
    calls = board.answer("K_RESET", {"v": 9, "st": "W", "silver": "",
                                     "red": ""}, who=OWNER, arg="preset club")
    if calls != [("act", lsl.get("K_SETUP"), "preset club")] or \
            board.sent[-1][:2] != ("POST",
                                   "/v1/sessions/s1:chooseSetup?view=compact") \
            or json.loads(board.sent[-1][2]) != {"preset": "club"}:
        failures.append(f"setup: after the reset the board did {calls}, "
                        f"{board.sent[-1:]}")
    return checked + 4


def check_settings(board, position, failures):
    """Settings > Language and Hints, and the board following the
    session's language in its hover text and dialogs."""
    lsl = board.lsl
    board.load(position)
    lsl.set("gId", "s1")
    for path, body in ((("Language", "Deutsch"), {"language": "de"}),
                       (("Language", "Nederlands"), {"language": "nl"}),
                       (("Hints", "Hints off"), {"hints": False}),
                       (("Hints", "Hints on"), {"hints": True})):
        calls = board.menus(OWNER, "Settings", *path)
        sent = json.loads(board.sent[-1][2]) if board.sent else {}
        if calls != [("act", lsl.get("K_SETTINGS"), "")] or \
                sent != {"settings": body}:
            failures.append(f"settings: {path} did {calls} with {sent}")
    board.menus(OWNER, "Settings")
    shown = board.dialog(OWNER)
    if shown is None or "Language" not in shown[1] or "Hints" not in shown[1]:
        failures.append(f"settings: the Settings menu was {shown}")
    # The session's language: the words, the hover text and the dialogs.
    lsl.set("gSilver", "Alice Resident")
    lsl.set("gRed", "Bob Resident")
    board.run("showStatus")
    wanted = {"de": ("Silber: Alice Resident", "Spielen"),
              "fr": ("Argent : Alice Resident", "Jouer"),
              "nl": ("Zilver: Alice Resident", "Spelen"),
              "en": ("Silver: Alice Resident", "Play")}
    for lang, (line, play) in wanted.items():
        board.event(kind="settings", quiet=False, scheme="classic", scale=0,
                    lang=lang, hints=True, ann="")
        board.touch(BOB, "")
        shown = board.dialog(BOB)
        if not board.hover.startswith(line) or shown is None or \
                shown[1] != [play]:
            failures.append(f"settings: in {lang} the hover text is "
                            f"{board.hover!r}, the menu {shown}")
    return 8


def check_hint(board, position, failures):
    """Play > Hint for the player to move when the board allows hints:
    the suggestion's squares light, the player is told."""
    lsl = board.lsl
    board.load(position)      # Silver (Alice) to move
    lsl.set("gId", "s1")
    board.menus(ALICE, "Play")
    alice = board.dialog(ALICE)
    board.menus(BOB, "Play")
    bob = board.dialog(BOB)
    if alice is None or "Hint" not in alice[1] or bob is None or \
            "Hint" in bob[1]:
        failures.append(f"hint: the Play menus were {alice} and {bob}")
    board.event(kind="settings", quiet=False, scheme="classic", scale=0,
                lang="en", hints=False, ann="")
    board.menus(ALICE, "Play")
    shown = board.dialog(ALICE)
    if shown is None or "Hint" in shown[1]:
        failures.append(f"hint: with hints off the Play menu was {shown}")
    board.event(kind="settings", quiet=False, scheme="classic", scale=0,
                lang="en", hints=True, ann="")
    calls = board.menus(ALICE, "Play", "Hint")
    if calls != [("act", lsl.get("K_HINT"), "")] or board.sent[-1] != \
            ("POST", "/v1/sessions/s1:suggest?timeoutMs=5000", "{}", ""):
        failures.append(f"hint: pressing Hint did {calls}, {board.sent[-1:]}")
    for move, lit in ((("j1", "", "j1L"), ["j1"]),
                      (("e4", "e5", "e4-e5"), ["e4", "e5"])):
        calls = board.answer("K_HINT", {"move": {
            "from": move[0], "to": move[1], "kind": "MOVE",
            "notation": move[2], "swap": False}, "score": 0, "version": "5"})
        got = sorted(board.touched(link) for link in board.placed(MARKS))
        if got != lit or ("tell", ALICE, f"Hint: {move[2]}; its squares are "
                          f"lit.") not in calls:
            failures.append(f"hint: {move[2]} lit {got} and did {calls}")
    board.event(kind="move", v=9, by="s", move="e4-e5", laser="", rm="",
                st="P", turn="r", res="", why="", pos=position, ann="")
    if board.placed(MARKS):
        failures.append("hint: a move left the hint's squares lit")
    return 4


def check_takebacks(board, position, later, failures):
    """A takeback asked (the other seated player's dialog, the hover text)
    and answered (the board redrawn from the answer, the laser down, the
    last moves shortened); asked from the Play menu."""
    lsl = board.lsl
    board.load(position)      # Silver (Alice) to move
    lsl.set("gId", "s1")
    for n, move in enumerate(("a1-a2", "a8-a7", "b1-b2")):
        board.event(kind="move", v=n + 1, by="sr"[n % 2], move=move,
                    laser="", rm="", st="P", turn="rs"[n % 2], res="",
                    why="", pos=position, ann="")
    if not board.hover.endswith("Last: a1-a2, a8-a7, b1-b2"):
        failures.append(f"takeback: the hover text is {board.hover!r}")
    calls = board.event(kind="takeback", by="s", plies=1, ann="")
    if board.dialog(BOB) != ("Silver asks for a takeback. Accept?",
                             ["Accept", "Decline"]) or board.dialog(ALICE) \
            or "Silver asks to take back" not in board.hover:
        failures.append(f"takeback: asking did {calls}; {board.hover!r}")
    k_game = lsl.get("K_GAME")
    for who, labels, path, token in (
            (BOB, ("Accept",), "acceptTakeback", "tb"),
            (BOB, ("Play", "Takeback?", "Decline"), "declineTakeback", "tb"),
            (ALICE, ("Play", "Take back"), "requestTakeback", "ta")):
        calls = board.press(who, labels[0]) if len(labels) == 1 else \
            board.menus(who, *labels)
        if calls != [("act", k_game, "")] or board.sent[-1][1:] != \
                (f"/v1/sessions/s1:{path}?view=compact", "{}", token):
            failures.append(f"takeback: {labels} did {calls}, "
                            f"{board.sent[-1:]}")
        if who == BOB:
            board.event(kind="takeback", by="s", plies=1, ann="")
    lsl.call("laser", "j1j4h4x")
    board.deliver()
    board.event(kind="takeback-answer", by="s", accepted=True, plies=2,
                turn=later.split()[1], pos=later, ann="")
    drawn = sorted(board.touched(link) for link in board.placed(PIECES))
    if drawn != sorted(tokens(later)) or board.placed(BEAMS) or \
            lsl.get("gTurn") != later.split()[1] or \
            not board.hover.endswith("Last: a1-a2") or \
            "take back" in board.hover:
        failures.append(f"takeback: accepted, the board drew {drawn}, "
                        f"{len(board.placed(BEAMS))} beams; {board.hover!r}")
    return 5


def check_late_move_answer(board, position, later, failures):
    """A move's answer that comes after the long poll brought the move,
    and the computer's reply to it (seen in OpenSimulator with several
    boards in a region): the board shows what the poll brought, each move
    once in the last moves."""
    lsl = board.lsl
    board.load(position)
    lsl.set("gId", "s1")
    lsl.set("gStatus", "P")
    shot = dict(laser="", rm="", st="P", res="", why="", ann="")
    board.event(kind="move", v=1, by="s", move="a1-a2", turn="r", pos=position,
                **shot)
    lsl.set("gVersion", 1)
    board.event(kind="move", v=2, by="r", move="a8-a7", turn="s", pos=later,
                **shot)
    lsl.set("gVersion", 2)
    board.answer("K_MOVE", dict(v=1, move="a1-a2", turn="r", pos=position, **shot))
    drawn = sorted(board.touched(link) for link in board.placed(PIECES))
    if drawn != sorted(tokens(later)) or lsl.get("gVersion") != 2 or \
            lsl.get("gTurn") != later.split()[1] or \
            not board.hover.endswith("Last: a1-a2, a8-a7"):
        failures.append(f"late move answer: the board drew {drawn} at version "
                        f"{lsl.get('gVersion')}; {board.hover!r}")
    return 1


def check_rematch(board, position, failures):
    """A rematch asked elsewhere: the next game starts with the players'
    names crossed and no seat event; the server moved each seat's token
    with its player, and the seats held here follow. A game started
    otherwise leaves them."""
    lsl = board.lsl
    board.load(position)      # Silver to move
    lsl.set("gId", "s1")
    seats = [ALICE, "s", "ta", BOB, "r", "tb"]
    swapped = [ALICE, "r", "ta", BOB, "s", "tb"]
    alice, bob = "Alice Resident", "Bob Resident"
    over = {"kind": "over", "res": "S", "why": "resignation", "ann": ""}
    # ("lm" "+": khetd left the moves out; a touch asks for them)
    start = {"kind": "start", "pos": position, "lm": "+", "ann": ""}
    cases = [
        ("rematch", [over, dict(start, silver=bob, red=alice)], swapped),
        ("setup chosen", [over, {"kind": "setup", "setup": "classic-2",
                                 "pos": position, "ann": ""},
                          dict(start, silver=alice, red=bob)], seats),
        ("read after a rematch", [over, "refresh"], swapped),
    ]
    for what, events, want in cases:
        lsl.set("gPlayers", list(seats))
        lsl.set("gSilver", alice)
        lsl.set("gRed", bob)
        lsl.set("gEnded", 0)
        for ev in events:
            if ev == "refresh":
                board.answer("K_REFRESH", {
                    "v": 9, "st": "P", "pos": position, "lm": "+",
                    "silver": bob, "red": alice, "tb": "", "last": "",
                    "laser": ""},
                    who=Key(CONST["NULL_KEY"]))
            else:
                board.event(**ev)
        if lsl.get("gPlayers") != want:
            failures.append(f"rematch: {what}: the seats are "
                            f"{lsl.get('gPlayers')}")
    # After the rematch Bob plays Silver with his own token and Alice is
    # told to wait.
    silver_piece = next(sq for sq, t in tokens(position).items()
                        if t[0] in "PAS")
    lsl.set("gPlayers", list(swapped))
    if board.touch(BOB, silver_piece) != [("act", lsl.get("K_MOVES"),
                                           silver_piece)] or \
            lsl.call("tokenOf", BOB) != "tb":
        failures.append(f"rematch: Bob on {silver_piece}: {board.calls}")
    told = board.touch(ALICE, silver_piece)
    if told != [("dialog", ALICE, "Khet", ["Play"])]:
        failures.append(f"rematch: Alice on {silver_piece}: {told}")
    # One avatar in both seats: the rematch swaps the tokens; a seat left
    # and taken again before the next game does not.
    both = [ALICE, "s", "t1", ALICE, "r", "t2"]
    for what, events, want in (
            ("both seats, rematch", [over, dict(start, silver=alice,
                                                red=alice)],
             [ALICE, "r", "t1", ALICE, "s", "t2"]),
            ("both seats, seat taken again",
             [over, {"kind": "seat", "color": "r", "name": alice,
                     "joined": True, "computer": 0, "ann": ""},
              dict(start, silver=alice, red=alice)], both)):
        lsl.set("gPlayers", list(both))
        lsl.set("gSilver", alice)
        lsl.set("gRed", alice)
        for ev in events:
            board.event(**ev)
        if lsl.get("gPlayers") != want:
            failures.append(f"rematch: {what}: the seats are "
                            f"{lsl.get('gPlayers')}")
    return 5


def check_config(board, failures):
    """The notecard's lines: a value runs to the line's end."""
    lsl = board.lsl
    url = "https://khet.example.org/board?key=a=b"
    for line, name, value in ((f"server = {url}", "gServer", url),
                              ("debug=1", "gDebug", 1)):
        lsl.call("readConfig", line)
        if lsl.get(name) != value:
            failures.append(f"config: {line!r} set {name} to "
                            f"{lsl.get(name)!r}")
    # The long poll's wait: 25 s in Second Life; 2 s on another platform,
    # whose region may hold the board's other requests behind a waiting
    # poll (OpenSimulator 0.9.2); "wait=" wins over both.
    for channel, line, want in (("Second Life Server", "", 25),
                                ("OpenSim", "", 2),
                                ("OpenSim", "wait=10", 10)):
        board.sim_channel = channel
        lsl.set("gWait", -1)
        if line:
            lsl.call("readConfig", line)
        lsl.call("start")
        board.deliver()
        if lsl.get("gWait") != want:
            failures.append(f"config: on {channel!r} with {line!r} the poll "
                            f"waits {lsl.get('gWait')} s, not {want}")
    return 5


def check_keeping(board, failures):
    """What must outlive a reset, a re-rez or a region restart."""
    lsl = board.lsl
    null = Key(CONST["NULL_KEY"])
    refresh = ("act", lsl.get("K_REFRESH"), "")
    lsl.set("gId", "s1")
    lsl.set("gOwnerToken", "to")
    lsl.set("gClock", "5+3")
    lsl.call("save")
    board.deliver()
    kept = board.keep.get("gKept")
    want = f"s1|to|0|classic|{OWNER}|5+3|{ALICE}|s|ta|{BOB}|r|tb"
    if kept != want:
        failures.append(f"keeping: the keeper holds {kept!r}, not {want!r}")
    # The board script reset alone asks for its copy and goes on with the
    # same session, seats, tokens and clock, reading the board again.
    board.calls.clear()
    board.restart_board()
    got = [board.lsl.get(n) for n in ("gId", "gOwnerToken", "gClock",
                                      "gPlayers")]
    if got != ["s1", "to", "5+3", [ALICE, "s", "ta", BOB, "r", "tb"]] or \
            refresh not in board.calls:
        failures.append(f"keeping: a reset board script came back with "
                        f"{got} and did {board.calls}")
    # The keeper reset alone says so and gets the state again.
    board.restart_keeper()
    if board.keep.get("gKept") != want:
        failures.append(f"keeping: a reset keeper holds "
                        f"{board.keep.get('gKept')!r}")
    # Re-rezzed, or the region restarted: no reset; the requests in flight
    # are dropped, the board is read again, the game goes on. An avatar
    # sitting down (a changed link) changes nothing.
    lsl = board.lsl
    for event, args in (("on_rez", (0,)),
                        ("changed", (CONST["CHANGED_REGION_START"],)),
                        ("changed", (CONST["CHANGED_LINK"],))):
        lsl.set("gPollKey", Key("k1"))
        lsl.set("gActKey", Key("k2"))
        lsl.set("gActDue", 120.0)
        board.calls.clear()
        try:
            lsl.event(event, *args)
            board.deliver()
        except AssertionError as error:
            failures.append(f"keeping: {event}{args}: {error}")
            continue
        dropped = lsl.get("gPollKey") == null and \
            lsl.get("gActKey") == null and lsl.get("gActDue") < 0 and \
            refresh in board.calls
        if dropped != (args != (CONST["CHANGED_LINK"],)) or \
                lsl.get("gId") != "s1" or len(lsl.get("gPlayers")) != 6:
            failures.append(f"keeping: after {event}{args} the board did "
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
    board.keep.event("changed", CONST["CHANGED_OWNER"])
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
    # The words script starting after the board script: the owner still
    # hears that the board is ready, and the hover text is shown.
    board.calls.clear()
    board.hover = ""
    board.restart_words()
    told = [c[1] for c in board.calls if c[0] == "owner"]
    if len(told) != 1 or "ready" not in told[0] or "Setup" not in board.hover:
        failures.append(f"keeping: a late words script said {told}, "
                        f"showed {board.hover!r}")
    return 8


def check_outage(board, position, failures):
    """The server not answering (the region's 499): the person who touched
    is told at once, once, and the board keeps trying; the server back (a
    poll answered after failing) sends the waiting retry at once, and an
    action answered while the poll waits out its failures polls at once.
    A reset board script touched before it has read its board again reads
    it (and says busy meanwhile) rather than opening the menu."""
    sent = []

    def send(method, path, body, token):
        sent.append(path)
        return Key(f"00000000-0000-4000-8000-{len(sent):012d}")

    world = {name: stub for name, stub in board.board_world.items()
             if name not in ("act", "sendMove")}
    world["send"] = send
    lsl = board.lsl = lsl_eval.Interpreter(board.text, world)
    null = Key(CONST["NULL_KEY"])
    for name, value in (("gServer", "https://khet.example.org"), ("gId", "s1"),
                        ("gStatus", "P"), ("gWait", 25),
                        ("gPlayers", [ALICE, "s", "ta", BOB, "r", "tb"])):
        lsl.set(name, value)
    position = " ".join([position.split()[0], "s"] + position.split()[2:])
    board.load(position)
    square = next(sq for sq, token in sorted(tokens(position).items())
                  if token[0].isupper())

    def answer(key, code, body):
        board.calls.clear()
        lsl.event("http_response", key, code, [], body)
        board.deliver()
        return [c for c in board.calls if c[0] == "tell"]

    board.touch(ALICE, square)
    asked = f"/v1/sessions/s1/legalMoves?square={square}&view=compact"
    told = answer(lsl.get("gActKey"), 499, "connection refused")
    if sent != [asked] or [c[1:] for c in told] != [
            (ALICE, "The Khet server does not answer; the board keeps trying.")] \
            or lsl.get("gActDue") < 0:
        failures.append(f"outage: a touch whose request failed sent {sent}, "
                        f"told {told}")
    board.now = lsl.get("gActDue") + 0.1
    lsl.event("timer")
    told = answer(lsl.get("gActKey"), 499, "connection refused")
    if sent != [asked] * 2 or told:
        failures.append(f"outage: the retry sent {sent}, told {told} again")
    # The long poll had failed too and now answers: the retry goes now.
    lsl.set("gPollFails", 2)
    lsl.set("gPollKey", Key("00000000-0000-4000-8000-0000000000aa"))
    before = len(sent)
    answer(lsl.get("gPollKey"), 200, '{"v":0,"events":[]}')
    if asked not in sent[before:] or lsl.get("gActDue") >= 0 or \
            lsl.get("gActKey") == null:
        failures.append(f"outage: a poll answered again left the retry waiting: "
                        f"{sent}")
    # An action answered while the poll waits out its failures: it polls.
    lsl.set("gPollKey", null)
    lsl.set("gPollDue", board.now + 30.0)
    lsl.set("gPollFails", 3)
    answer(lsl.get("gActKey"), 200, '{"moves":"","more":false}')
    if "/events?afterVersion=" not in sent[-1] or lsl.get("gPollDue") >= 0:
        failures.append(f"outage: an answered action left the poll waiting: {sent}")
    # Reset, the script has its session but not its board yet: a touch reads
    # the board (a second one is told the board is busy), no menu.
    lsl.set("gStatus", "")
    calls = board.touch(ALICE, square)
    again = board.touch(ALICE, square)
    if sent[-1] != "/v1/sessions/s1?view=compact" or \
            [c for c in calls + again if c[0] == "dialog"] or \
            [c[0] for c in again] != ["tell"] or "busy" not in again[0][2]:
        failures.append(f"outage: touches before the board was read again did "
                        f"{calls} {again}, sent {sent[-1:]}")
    return 4


class Live:
    """The board script with its own act() and send(): the requests it
    sends are recorded in `sent` as (method, path, body, token), each
    given a key of its own, and answered by answer()."""

    def __init__(self, board, position, version=5):
        self.board = board
        self.sent = []

        def send(method, path, body, token):
            self.sent.append((method, path, body, token))
            return Key(f"00000000-0000-4000-8000-{len(self.sent):012d}")
        world = {name: stub for name, stub in board.board_world.items()
                 if name not in ("act", "sendMove")}
        world["send"] = send
        self.lsl = board.lsl = lsl_eval.Interpreter(board.text, world)
        for name, value in (("gServer", "https://khet.example.org"),
                            ("gId", "s1"), ("gOwnerToken", "to"),
                            ("gStatus", "P"), ("gWait", 25),
                            ("gVersion", version),
                            ("gPlayers", [ALICE, "s", "ta", BOB, "r", "tb"])):
            self.lsl.set(name, value)
        board.load(position)

    def key(self, n=None):
        """The key of request `n` (from 0; the last one sent by default)."""
        n = len(self.sent) - 1 if n is None else n
        return Key(f"00000000-0000-4000-8000-{n + 1:012d}")

    def answer(self, key, code, body):
        """The answer to the request `key`; the calls it led to."""
        self.board.calls.clear()
        self.lsl.event("http_response", key, code, [],
                       body if isinstance(body, str) else json.dumps(body))
        self.board.deliver()
        return list(self.board.calls)

    def paths(self, since=0):
        return [(m, p) for m, p, _, _ in self.sent[since:]]


def said(calls):
    """What the board said in local chat (the server's announcements)."""
    return [c[1] for c in calls if c[0] == "chat"]


def told(calls, who=OWNER):
    return [c[2] for c in calls if c[0] == "tell" and c[1] == who] + \
        [c[1] for c in calls if c[0] == "owner" and who == OWNER]


def check_moves(board, position, later, failures):
    """The legal moves the board holds ("lm"): taken with every position
    (none when a position comes without them), kept when an event brings
    no position; "+" (left out by khetd) asks khetd for the touched
    square, as before."""
    lsl = board.lsl
    lsl.set("gId", "s1")
    pos = " ".join([position.split()[0], "s"] + position.split()[2:])
    piece = next(sq for sq, t in sorted(tokens(pos).items()) if t[0] in "PAS")
    board.load(pos, "+")
    calls = board.touch(ALICE, piece)
    if calls != [("act", lsl.get("K_MOVES"), piece)]:
        failures.append(f"moves: with lm + a touch on {piece} did {calls}")
    calls = board.answer("K_MOVES", {"moves": f"{piece}R {piece}L",
                                     "more": False}, arg=piece)
    lit = sorted(board.touched(link) for link in board.placed(MARKS))
    if lit != [piece] or not told(calls, ALICE):
        failures.append(f"moves: khetd's moves for {piece} lit {lit}, did {calls}")
    shot = dict(laser="", rm="", st="P", res="", why="", ann="")
    board.event(kind="move", v=1, by="r", move="a8-a7", turn="s", pos=pos,
                lm=f"{piece}-a3R", **shot)
    calls = board.touch(ALICE, piece)
    lit = sorted(board.touched(link) for link in board.placed(MARKS))
    if [c[0] for c in calls] != ["tell"] or lit != sorted({"a3", piece}):
        failures.append(f"moves: from the event's lm {piece} did {calls}, "
                        f"lit {lit}")
    board.event(kind="seat", color="r", name="Carol", joined=True, computer=0,
                ann="")
    board.touch(ALICE, "")
    calls = board.touch(ALICE, piece)
    if [c[0] for c in calls] != ["tell"] or "a3" not in calls[0][2]:
        failures.append(f"moves: after a seat event {piece} did {calls}")
    board.touch(ALICE, "")
    board.event(kind="takeback-answer", by="r", accepted=True, plies=1,
                turn="s", pos=pos, ann="")
    calls = board.touch(ALICE, piece)
    if calls != [("tell", ALICE, "That piece cannot move now.")]:
        failures.append(f"moves: a position without lm, then {piece}: {calls}")
    return 4


def check_push(board, position, later, failures):
    """Pushed updates: the URL asked for (https, then http), registered
    with the owner token from the board's version; deliveries signed right
    applied, others refused with nothing changed; the long poll stopped
    while khetd pushes, and whether it still does asked after 60 s without
    a push (404: a new URL, polling meanwhile; or, when no delivery ever
    came, as refused); no URL or a refused one: polling, the owner told
    once, a new URL asked for after 10 minutes."""
    live = Live(board, position)
    lsl, keep = live.lsl, board.keep
    secret = "0123456789abcdef" * 4
    url = "http://127.0.0.1:9000/lslhttp/5d3f0c2e-8a6b-4c1e-9f2d-7b4a1e6c3d20"
    shot = dict(laser="", rm="", st="P", res="", why="")
    # A delivery before the URL is registered: not taken yet.
    status, calls = board.deliver_push('{"v":6,"events":[]}', query="sig=x")
    if status != (503, "not registered yet") or calls:
        failures.append(f"push: a delivery before registering: {status} {calls}")
    board.run("askUrl")
    board.url_answer("URL_REQUEST_DENIED")
    board.url_answer("URL_REQUEST_GRANTED", url)
    body = {"url": url, "afterVersion": 5}
    if board.asked != ["secure", "plain"] or not live.sent or \
            live.sent[-1][:2] != ("POST", "/v1/sessions/s1/callback") or \
            json.loads(live.sent[-1][2]) != body or live.sent[-1][3] != "to":
        failures.append(f"push: asked {board.asked}, sent {live.sent[-1:]}")
    # A grant that comes after its request was given up is released.
    keep.event("http_request", Key("99999999-0000-4000-9000-000000000001"),
               "URL_REQUEST_GRANTED", url + "x")
    if board.released[-1:] != [url + "x"] or keep.get("gUrl") != url:
        failures.append(f"push: a stale grant left {board.released}")
    before = len(live.sent)
    live.answer(live.key(), 200, {"secret": secret, "v": 5})
    if keep.get("gSecret") != secret or not lsl.get("gPushed") or \
            len(live.sent) != before or \
            abs(lsl.get("gPollDue") - (board.now + 60.0)) > 0.01:
        failures.append(f"push: registered, the board sent "
                        f"{live.sent[before:]}, checks at "
                        f"{lsl.get('gPollDue')}")
    # A delivery signed right: answered at once, applied as a poll's answer.
    move = json.dumps({"v": 6, "events": [dict(
        v=6, kind="move", by="s", move="a1-a2", turn="r", pos=later,
        lm="", ann="Silver plays a1-a2.", **shot)], "more": False})
    status, calls = board.deliver_push(move)
    drawn = sorted(board.touched(link) for link in board.placed(PIECES))
    if status != (200, "ok") or lsl.get("gVersion") != 6 or \
            said(calls) != ["Silver plays a1-a2."] or \
            drawn != sorted(tokens(later)) or len(live.sent) != before:
        failures.append(f"push: a good delivery: {status}, version "
                        f"{lsl.get('gVersion')}, said {said(calls)}")
    # Signed wrong, unsigned, or not a POST: refused, nothing changed.
    draw = json.dumps({"v": 7, "events": [{"v": 7, "kind": "draw", "by": "r",
                                           "ann": "Red offers a draw."}]})
    for query, method, want in (("sig=" + "0" * 64, "POST", (403, "bad signature")),
                                ("", "POST", (403, "bad signature")),
                                (None, "GET", (405, "POST only"))):
        status, calls = board.deliver_push(draw, query=query, method=method)
        if status != want or calls or lsl.get("gVersion") != 6:
            failures.append(f"push: {method} with {query!r}: {status} {calls}")
    # The URL's own query before the signature: "&sig=".
    status, calls = board.deliver_push(draw, query="board=1&sig=" + lsl_eval.LIBRARY[
        "llSHA256String"](secret + draw + secret))
    if status != (200, "ok") or said(calls) != ["Red offers a draw."] or \
            lsl.get("gDraw") != "r":
        failures.append(f"push: a delivery after a query: {status} {calls}")
    # The board fell too far behind: the compact session, applied whole.
    session = json.dumps({"id": "s1", "v": 12, "st": "P", "turn": "s",
                          "pos": position, "lm": "", "last": "b1-b2",
                          "laser": "", "silver": "Alice Resident",
                          "red": "Bob Resident", "draw": "", "tb": ""})
    status, calls = board.deliver_push(session)
    if status != (200, "ok") or lsl.get("gVersion") != 12 or \
            lsl.get("gLast") != ["b1-b2"]:
        failures.append(f"push: a pushed session: {status}, version "
                        f"{lsl.get('gVersion')}")
    # A delivery lost (13 missing): not applied out of order; read again.
    gap = json.dumps({"v": 14, "events": [{"v": 14, "kind": "draw", "by": "s",
                                           "ann": "Silver offers a draw."}]})
    status, calls = board.deliver_push(gap)
    if status != (200, "ok") or said(calls) or lsl.get("gVersion") != 12 or \
            live.paths()[-1] != ("GET", "/v1/sessions/s1?view=compact"):
        failures.append(f"push: a gap: {status} {said(calls)}, sent "
                        f"{live.paths()[-1:]}")
    live.answer(live.key(), 200, json.loads(session) | {"v": 14})
    # khetd asked at once whether it still pushes (the gap).
    if live.paths()[-1] != ("GET", "/v1/sessions/s1/callback") or \
            live.sent[-1][3] != "to":
        failures.append(f"push: after a gap the board sent {live.sent[-1:]}")
    live.answer(live.key(), 200, {"url": url, "v": 14})
    # 60 s without a push: asked again; still pushing, nothing missed.
    before = len(live.sent)
    board.now += 61.0
    lsl.event("timer")
    board.deliver()
    if live.paths(before) != [("GET", "/v1/sessions/s1/callback")]:
        failures.append(f"push: after 60 s quiet the board sent "
                        f"{live.paths(before)}")
    live.answer(live.key(), 200, {"url": url, "v": 15})   # one missed
    if live.paths()[-1] != ("GET", "/v1/sessions/s1?view=compact"):
        failures.append(f"push: a push missed, the board sent {live.paths()[-1:]}")
    live.answer(live.key(), 200, json.loads(session) | {"v": 15})
    # (khetd's full JSON would name the version "version", a string.)
    board.now += 61.0
    lsl.event("timer")
    board.deliver()
    live.answer(live.key(), 200, {"url": url, "version": "16", "delivered": "15",
                                  "failures": 0})
    if live.paths()[-1] != ("GET", "/v1/sessions/s1?view=compact"):
        failures.append(f"push: a missed push named as version: "
                        f"{live.paths()[-1:]}")
    live.answer(live.key(), 200, json.loads(session) | {"v": 16})
    # khetd dropped the URL (404): a new one asked for, long polls meanwhile.
    board.now += 61.0
    lsl.event("timer")
    board.deliver()
    asked = len(board.asked)
    live.answer(live.key(), 404, {"error": {"code": "NOT_FOUND",
                                            "message": "no callback"}})
    if len(board.asked) != asked + 1 or lsl.get("gPushed") or \
            not live.paths()[-1][1].startswith("/v1/sessions/s1/events?afterVersion=16"):
        failures.append(f"push: the URL dropped, the board asked "
                        f"{board.asked[asked:]} and sent {live.paths()[-1:]}")
    # Denied both ways: polling on, the owner told once; again after 10 min.
    board.url_answer("URL_REQUEST_DENIED")
    first = told(board.url_answer("URL_REQUEST_DENIED"))
    board.run("askUrl")
    board.calls.clear()
    board.url_answer("URL_REQUEST_DENIED")
    board.url_answer("URL_REQUEST_DENIED")
    if first != ["No URL from the region: the board polls the Khet server."] or \
            told(board.calls) or lsl.get("gPushed"):
        failures.append(f"push: denied, the owner heard {first}, then "
                        f"{told(board.calls)}")
    asked = len(board.asked)
    board.now += 601.0
    lsl.event("timer")
    board.deliver()
    if board.asked[asked:] != ["secure"]:
        failures.append(f"push: 10 minutes after a denial it asked "
                        f"{board.asked[asked:]}")
    # khetd refuses the region's URL (403): the owner hears why, once.
    live = Live(Board(board.text, board.render_text, board.keep_text,
                      board.words_text), position)
    live.board.run("askUrl")
    live.board.url_answer("URL_REQUEST_GRANTED",
                          "https://sim.example.org:12043/cap/1")
    calls = live.answer(live.key(), 403, {"error": {
        "code": "PERMISSION_DENIED", "message": "host not accepted"}})
    if told(calls) != ["khetd does not accept this region's URL: ask its "
                       "operator to add the simulator's host to "
                       "--inworld_callback_hosts. The board polls."] or \
            not live.paths()[-1][1].startswith("/v1/sessions/s1/events?"):
        failures.append(f"push: a URL refused: {calls}, {live.paths()[-1:]}")
    # Registered, but khetd dropped the URL before any delivery came (an
    # https URL whose certificate it does not trust): no new URL at once,
    # the board polls and the owner hears why.
    live = Live(Board(board.text, board.render_text, board.keep_text,
                      board.words_text), position)
    live.board.run("askUrl")
    live.board.url_answer("URL_REQUEST_GRANTED", "https://sim.example.org:12043/cap/2")
    live.answer(live.key(), 200, {"secret": secret, "v": 5})
    live.board.now += 61.0
    live.lsl.event("timer")
    live.board.deliver()
    calls = live.answer(live.key(), 404, {"error": {
        "code": "NOT_FOUND", "message": "no URL is registered"}})
    if told(calls) != ["No pushed updates from the Khet server (no URL is "
                       "registered); the board polls."] or \
            live.board.asked != ["secure"] or \
            not live.paths()[-1][1].startswith("/v1/sessions/s1/events?"):
        failures.append(f"push: dropped before any delivery: {calls}, asked "
                        f"{live.board.asked}, sent {live.paths()[-1:]}")
    return 13


def check_order(board, position, later, failures):
    """Announcements in version order, each once, whichever way the events
    come: a move's answer after events the board has not seen waits for
    them; a delivery and the long poll bringing the same events. The hover
    text goes with the pieces (KW_STATUS right after KR_BOARD)."""
    live = Live(board, position, version=5)
    lsl = live.lsl
    shot = dict(laser="", rm="", res="", why="")
    # Alice's move comes back as version 7: 6 (the computer taking Red)
    # came first, unseen yet. Nothing is said until the poll brings both.
    lsl.call("sendMove", ALICE, "a1-a2")
    calls = live.answer(live.key(), 200, dict(v=7, move="a1-a2", st="P",
                                              turn="r", pos=later,
                                              ann="Silver plays a1-a2.", **shot))
    if said(calls) or lsl.get("gVersion") != 5:
        failures.append(f"order: a move's answer ahead of the events said "
                        f"{said(calls)}")
    poll = [i for i, (m, p) in enumerate(live.paths()) if "/events?" in p]
    calls = live.answer(live.key(poll[-1]) if poll else live.key(), 200, {
        "v": 7, "more": False, "events": [
            {"v": 6, "kind": "seat", "color": "r", "name": "A'NOOB'IS",
             "joined": True, "computer": 1,
             "ann": "The computer (level 1, A'NOOB'IS) takes the Red seat."},
            dict(v=7, kind="move", by="s", move="a1-a2", st="P", turn="r",
                 pos=later, ann="Silver plays a1-a2.", **shot)]})
    if said(calls) != ["The computer (level 1, A'NOOB'IS) takes the Red seat.",
                       "Silver plays a1-a2."] or lsl.get("gVersion") != 7:
        failures.append(f"order: the poll's events said {said(calls)}")
    # A push and the poll bring the same events: each said once, in order.
    board.keep.set("gSecret", "s" * 64)
    seat_start = json.dumps({"v": 9, "events": [
        {"v": 8, "kind": "seat", "color": "s", "name": "Alice", "joined": True,
         "computer": 0, "ann": "Alice takes the Silver seat."},
        {"v": 9, "kind": "start", "pos": position, "silver": "Alice",
         "red": "A'NOOB'IS", "ann": "A new game of Classic 2 begins."}]})
    _, calls = board.deliver_push(seat_start)
    board.calls.clear()
    lsl.set("gPollKey", Key("00000000-0000-4000-8000-0000000000aa"))
    more = live.answer(Key("00000000-0000-4000-8000-0000000000aa"), 200,
                       seat_start)
    if said(calls) != ["Alice takes the Silver seat.",
                       "A new game of Classic 2 begins."] or said(more):
        failures.append(f"order: pushed then polled said {said(calls)}, "
                        f"then {said(more)}")
    # The hover text in the same step as the pieces: for a move event and
    # for a move's own answer.
    for what, run in (
            ("event", lambda: lsl.call("applyEvents", json.dumps({
                "v": 10, "events": [dict(v=10, kind="move", by="s",
                                         move="b1-b2", st="P", turn="r",
                                         pos=later, ann="", **shot)]}), 0)),
            ("answer", lambda: (lsl.set("gActKind", lsl.get("K_MOVE")),
                                lsl.call("onAction", 200, json.dumps(dict(
                                    v=11, move="b8-b7", st="P", turn="s",
                                    pos=position, ann="", **shot)))))):
        board.queue.clear()
        run()
        nums = [num for num, _, _ in board.queue]
        board.deliver()
        at = nums.index(lsl.get("KR_BOARD")) if lsl.get("KR_BOARD") in nums else -2
        if at < 0 or nums[at + 1:at + 2] != [lsl.get("KW_STATUS")]:
            failures.append(f"order: a move's {what} sent {nums}")
    return 4


def check_update(board, failures):
    """Settings > Update: khetd's /v1/version names the board scripts it
    serves; the owner hears whether they are newer than these."""
    lsl = board.lsl
    mine = lsl.get("BOARD_SCRIPTS")
    calls = board.menus(OWNER, "Settings", "Update")
    if calls != [("act", lsl.get("K_VERSION"), "")] or \
            board.sent[-1] != ("GET", "/v1/version", "", ""):
        failures.append(f"update: Update did {calls}, {board.sent[-1:]}")
    base = {"version": "1.0.0", "api": "khet.v1",
            "boardScriptsUrl": "/v1/inworld/"}
    for have, want in (
            (mine, f"This board's scripts ({mine}) are current."),
            ("2000.01.01", f"This board's scripts ({mine}) are current."),
            ("2999.12.24", f"Newer board scripts (2999.12.24) are available "
             f"from https://khet.example.org/v1/inworld/; this board has {mine}.")):
        lsl.set("gServer", "https://khet.example.org")
        calls = board.answer("K_VERSION", dict(base, boardScripts=have),
                             who=OWNER)
        if told(calls) != [want]:
            failures.append(f"update: khetd has {have}: {calls}")
    return 3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--render", required=True)
    parser.add_argument("--keep", required=True)
    parser.add_argument("--words", required=True)
    args = parser.parse_args()
    texts = [open(path, encoding="utf-8").read() for path in
             (args.script, args.render, args.keep, args.words)]
    started = time.time()
    proc, base = start_khetd(args.khetd, tempfile.mkdtemp())
    failures = []
    pieces = 0
    try:
        setups = request(base, "GET", "/v1/setups")["setups"]
        positions = [(setup["id"], setup["position"]) for setup in setups]
        for setup_id in FACING_SETUPS:
            created = request(base, "POST", "/v1/sessions?view=compact", {
                "name": "facings", "setupId": setup_id,
                "rules": {"physicalFacings": True}})
            positions.append((f"{setup_id} with facings", created["pos"]))
        for name, position in positions:
            fields = position.split()
            to_move = {side: " ".join([fields[0], side] + fields[2:])
                       for side in "sr"}
            listed = {side: server_moves(base, at)
                      for side, at in to_move.items()}
            moves = {side: listed[side][0] for side in listed}
            for side, at in to_move.items():
                where = f"{name} ({side} to move)"
                check_lm(Board(*texts), listed[side][1], moves[side], failures,
                         where)
                pieces += check_position(Board(*texts), at, moves, failures,
                                         where)
        first = positions[0][1]
        later = positions[-1][1]
        paths = check_protocol(Board(*texts), first, failures)
        paths += check_setup_menu(Board(*texts), failures)
        paths += check_settings(Board(*texts), first, failures)
        paths += check_hint(Board(*texts), first, failures)
        paths += check_takebacks(Board(*texts), first, later, failures)
        paths += check_late_move_answer(Board(*texts), first, later, failures)
        paths += check_rematch(Board(*texts), first, failures)
        paths += check_config(Board(*texts), failures)
        paths += check_keeping(Board(*texts), failures)
        paths += check_outage(Board(*texts), first, failures)
        paths += check_moves(Board(*texts), first, later, failures)
        paths += check_push(Board(*texts), first, later, failures)
        paths += check_order(Board(*texts), first, later, failures)
        paths += check_update(Board(*texts), failures)
    finally:
        proc.kill()
        proc.wait()
    for failure in failures[:40]:
        print(failure)
    print(f"{len(positions)} positions x 2 sides to move: {pieces} pieces' "
          f"ownership, drawing, touches and target squares and {paths} "
          f"other paths checked in {time.time() - started:.1f} s; "
          f"{len(failures)} failures")
    return 1 if failures or not pieces else 0


if __name__ == "__main__":
    sys.exit(main())
