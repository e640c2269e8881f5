#!/usr/bin/python3
"""The board script's own touch and ownership code, on every setup.

For each named setup (from a real khetd's GET /v1/setups) and each side to
move, the server says which squares hold a piece that side may move and
what its legal moves are. The script's functions then run in lsl_eval.py
on the same position (its own parseBoard): canPick must allow exactly the
squares the server has moves for, for both colours; draw() must put each
piece prim on its square in its owner's colour; a touch anywhere in a
square of the board face must land on that square; touching a piece of
the side to move must ask for its moves, then highlight exactly the
squares its moves end on, and touching each square within two of it must
send the one move ending there, offer a dialog when two do, and otherwise
choose another piece or open the menu; the other player touching their piece is told
whose turn it is. The oracle for where a move ends is the notation
(docs/notation.md): a turn stays on its square, any other move ends on the
square it names last.
Usage: board_test.py --khetd PATH --script khet_board.lsl
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


class Board:
    """The script in the evaluator, its world calls recorded."""

    def __init__(self, text):
        self.calls = []
        self.prims = []
        record = self.calls.append
        stubs = {
            "llGetScale": lambda: SIZE,
            "llSetLinkPrimitiveParamsFast": lambda link, p: self.prims.append(p),
            "llLinkParticleSystem": lambda link, rules: None,
            "llEuler2Rot": lambda v: (0.0, 0.0, 0.0, 1.0),
            "llGetOwner": lambda: Key("33333333-3333-3333-3333-333333333333"),
            "llGetKey": lambda: Key("44444444-4444-4444-4444-444444444444"),
            "llGetObjectDetails": lambda k, what: [Key("")],
            "llSameGroup": lambda k: 0,
            "llRegionSayTo": lambda who, ch, text: record(("tell", who, text)),
            # the script's own functions that would talk to the server
            "act": lambda kind, who, m, path, body, token, arg:
                record(("act", kind, arg)),
            "sendMove": lambda who, move: record(("move", move)),
            "menu": lambda who, text, buttons: record(("menu", text, buttons)),
        }
        self.lsl = lsl_eval.Interpreter(text, stubs)
        self.lsl.set("gPieceLinks", list(range(2, 32)))
        self.lsl.set("gMarkLinks", list(range(40, 50)))
        self.lsl.set("gPlayers", [ALICE, "s", "ta", BOB, "r", "tb"])
        self.lsl.set("gStatus", "P")

    def load(self, position):
        self.lsl.set("gPos", position)
        self.lsl.set("gBoard", self.lsl.call("parseBoard", position))
        self.lsl.set("gTurn", position.split()[1])

    def touch(self, who, square):
        self.calls.clear()
        self.lsl.call("touchSquare", who, square)
        return list(self.calls)

    def drawn(self):
        """{link: {rule: values}} from the last llSetLinkPrimitiveParamsFast."""
        self.prims.clear()
        self.lsl.call("draw")
        params = self.prims[-1]
        names = {lsl_eval.lsl_table.CONSTANTS[n][1]: n for n in ARITY}
        out, link, i = {}, None, 0
        while i < len(params):
            name = names[params[i]]
            values = params[i + 1:i + 1 + ARITY[name]]
            if name == "PRIM_LINK_TARGET":
                link = values[0]
            else:
                out.setdefault(link, {})[name] = values
            i += 1 + ARITY[name]
        return out


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
    # draw(): each piece prim on its square, in its owner's colour.
    prims = board.drawn()
    squares = lsl.get("gPieceSquares")
    silver = lsl.call("schemeColour", 1)
    for i, sq in enumerate(squares):
        rules = prims[2 + i]
        x, y, _ = rules["PRIM_POS_LOCAL"][0]
        at = lsl.call("stSquare", ((x + SIZE[0] / 2) / SIZE[0],
                                   (y + SIZE[1] / 2) / SIZE[1], 0.0))
        is_silver = rules["PRIM_COLOR"][1] == silver
        if at != sq or is_silver != bool(moves["s"][sq]):
            failures.append(f"{where}: piece prim {2 + i} at {at} for {sq}, "
                            f"silver colour {is_silver}")
    owned = {sq for side in "sr" for sq in SQUARES if moves[side][sq]}
    if set(squares) != owned:
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
        marked = {m for m in lsl.get("gMarkSquares") if m}
        if marked != {destination(m, sq) for m in legal}:
            failures.append(f"{where}: {sq} highlights {sorted(marked)} "
                            f"for {legal}")
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
    for sq in SQUARES:
        if moves["r" if turn == "s" else "s"][sq]:
            told = board.touch(other, sq)
            if len(told) != 1 or told[0][0] != "tell" or "turn" not in told[0][2]:
                failures.append(f"{where}: the other player on {sq}: {told}")
    return checked


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--script", required=True)
    args = parser.parse_args()
    text = open(args.script, encoding="utf-8").read()
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
                board = Board(text)
                pieces += check_position(board, f"{ranks} {side} {edition}",
                                         moves, failures,
                                         f"{setup['id']} ({side} to move)")
    finally:
        proc.kill()
        proc.wait()
    for failure in failures[:40]:
        print(failure)
    print(f"{len(setups)} setups x 2 sides to move: {pieces} pieces' "
          f"ownership, touches and target squares checked in "
          f"{time.time() - started:.1f} s; {len(failures)} failures")
    return 1 if failures or not pieces else 0


if __name__ == "__main__":
    sys.exit(main())
