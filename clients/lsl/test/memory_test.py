#!/usr/bin/python3
"""An estimate of the board script's memory at its peak, against 64 KB.

A Mono script's 65536 bytes hold its compiled code, its globals and what
its events build on the heap. Nothing here can run Mono, so this estimates,
and prints each part:
- code: every node of the parsed script (lsl_lang.py) at a fixed cost, more
  for calls and for each function, string literals as UTF-16;
- globals: their values at the script's largest: the 80-square board, 30
  piece prims, 16 beams, 10 markers, both seats, the request budget full,
  a chosen piece's moves, all sized with the Mono figures of the Second
  Life wiki's "LSL Script Memory" page (list elements: integer and float
  16 bytes, vector 24, rotation 28, key 102, string 18 + 2 a character);
- the peak: the largest list the script builds, draw()'s parameter list on
  the most crowded setup, measured by running draw() itself in
  lsl_eval.py, while a 2048-byte answer and an event cut from it are alive.
Fails when the total passes 64 KB less a 4 KB stack reserve.
Usage: memory_test.py SCRIPT
"""

import sys

import lsl_eval
import lsl_lang
from lsl_eval import Key

LIMIT = 65536
STACK = 4096        # kept free for the call stack and temporaries
BASE = 3500         # what an empty Mono script already uses
NODE = 6            # CIL bytes per expression or statement node: an
                    # instruction of 1-5 bytes and the conversions LSL adds
CALL = 10           # more for a call (its arguments, the call itself)
FUNCTION = 120      # a function's or event's frame, signature, return
# The most crowded board: 30 pieces (the most any setup can have), each
# with a three-letter token.
CROWDED = "/".join(["pswpswpswpswpswpswpswpswpswpsw"] + ["10"] * 5 +
                   ["PnePnePnePnePnePnePnePnePnePne"] * 2) + " s 2"


def element(value):
    if isinstance(value, Key):
        return 102
    if isinstance(value, str):
        return 18 + 2 * len(value)
    if isinstance(value, tuple):
        return 24 if len(value) == 3 else 28
    if isinstance(value, list):
        return 16 + sum(element(v) for v in value)
    return 16


def code_size(script):
    total = BASE
    stack = [script]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, lsl_lang.Node):
            continue
        total += NODE
        if node.kind == "call":
            total += CALL
        if node.kind in ("function", "event"):
            total += FUNCTION
        if node.kind == "const" and node.type == "string":
            total += 2 * len(node.value)
        stack.extend(v for k, v in vars(node).items()
                     if k not in ("kind", "line"))
    return total


def main(path):
    text = open(path, encoding="utf-8").read()
    parts = {"code": code_size(lsl_lang.parse(text))}
    built = []
    lsl = lsl_eval.Interpreter(text, {
        "llGetScale": lambda: (30.0, 24.0, 1.0),
        "llEuler2Rot": lambda v: (0.0, 0.0, 0.0, 1.0),
        "llSetLinkPrimitiveParamsFast": lambda link, p: built.append(p)})
    alice = Key("11111111-1111-1111-1111-111111111111")
    lsl.set("gPieceLinks", list(range(2, 32)))
    lsl.set("gBeamLinks", list(range(32, 48)))
    lsl.set("gMarkLinks", list(range(48, 58)))
    lsl.set("gMarkSquares", ["e4"] * 10)
    lsl.set("gPlayers", [alice, "s", "t" * 43, alice, "r", "t" * 43])
    lsl.set("gSent", [1000.0] * lsl.get("BUDGET"))
    lsl.set("gPickMoves", ["d1-d2", "d1^d2"] * 8)
    lsl.set("gPos", CROWDED)
    lsl.set("gBoard", lsl.call("parseBoard", CROWDED))
    lsl.set("gStatus", "P")
    lsl.set("gTurn", "s")
    lsl.call("draw")
    pieces = sum(1 for t in lsl.get("gBoard") if t)
    parts["globals"] = sum(element(v) for v in lsl.globals.values())
    largest = max(built, key=len)
    parts[f"draw() list ({len(largest)} items)"] = element(largest)
    parts["a 2048-byte answer and an event from it"] = 2 * (18 + 2 * 2048)
    total = sum(parts.values())
    for name, size in parts.items():
        print(f"  {name:42} {size:6} bytes")
    print(f"estimate at the largest lists ({pieces} pieces): {total} bytes "
          f"of {LIMIT} ({100 * total / LIMIT:.0f}%), "
          f"{LIMIT - STACK - total} to spare above a {STACK}-byte stack")
    nodes = (parts["code"] - BASE) // NODE
    print(f"the code's share is the least certain: it would have to cost "
          f"{NODE + (LIMIT - STACK - total) / nodes:.1f} bytes a node "
          f"(not {NODE}) to reach the limit")
    if pieces != 30:
        print(f"FAIL: the crowded board has {pieces} pieces, not 30")
        return 1
    return 0 if total <= LIMIT - STACK else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
