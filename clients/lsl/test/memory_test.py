#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""An estimate of each of the board's scripts' memory at its peak.

A Mono script's 65536 bytes hold its compiled code, its globals and what
its events build on the heap; each script in a prim has its own 64 KB.
Nothing here can run Mono, so this estimates, for khet_board.lsl,
khet_render.lsl, khet_keep.lsl and khet_words.lsl separately, and prints
each part:
- code: every node of the parsed script (lsl_lang.py) at a fixed cost, more
  for calls and for each function, string literals as UTF-16;
- globals: their values at the script's largest, sized with the Mono
  figures of the Second Life wiki's "LSL Script Memory" page (list
  elements: integer and float 16 bytes, vector 24, rotation 28, key 102,
  string 18 + 2 a character). The board script: the position of the most
  crowded setup (30 pieces), both seats, the longest names, the request
  budget full, a URL being registered. The render script: 30 piece, 16
  beam and 10 marker prims, the crowded position's string, legal moves
  ("lm") for 15 pieces of 8 steps and two turns each, a chosen piece's 16
  moves. The words script: its four languages' words, 8 dialogs of
  12 buttons open, a status with the longest names. The keeper: the state,
  a URL and the secret;
- the largest list: the script's own code runs in lsl_eval.py on the most
  crowded board and the longest laser, and the largest list any expression
  builds is measured (the board script: a long poll's answer with a move
  applied; the render script: the link messages that move made the board
  script send, then targets on 10 squares, a new colour scheme, a piece
  of 16 moves chosen and a touch on the last square, whose moves it reads
  from "lm"; the keeper: keeping
  the board script's state with both seats held, and a 2048-byte delivery
  checked and handed on; the words script: the messages of that move,
  then French (its longest words), the fullest hover text, 8 Play menus
  and a long error told);
- what arrives: the board script a 2048-byte answer (or delivery) and an
  event cut from it; the render script the texts of the link messages one
  move sends and a delivery handed to the board (every script in the prim
  hears it), all queued at once; the keeper the state, sent twice, and a
  delivery: its body, the two strings its signature is computed from, and
  the body handed on (which it hears too); the words script the messages
  of one move, a delivery and a menu of 12 buttons, queued.
Fails when a script's total passes 64 KB less a 4 KB stack reserve, or
when the run did not draw the 30 pieces and 16 beams it should.
Usage: memory_test.py BOARD_SCRIPT RENDER_SCRIPT KEEP_SCRIPT WORDS_SCRIPT
       [--limit BYTES]
"""

import argparse
import json
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
ANSWER = 2048       # the longest compact answer (docs/http-api.md)
# The most crowded board: 30 pieces (the most any setup can have), each
# with a three-letter token.
CROWDED = "/".join(["pswpswpswpswpswpswpswpswpswpsw"] + ["10"] * 5 +
                   ["PnePnePnePnePnePnePnePnePnePne"] * 2) + " s 2"
# A laser of 24 straight runs: more than the 16 beam prims.
LASER = " ".join(["a1a8b8b1c1c8d8d1e1N"] * 3)
# Legal moves ("lm") for 15 pieces, each with 8 steps and both turns (more
# than any position has: a compact answer holding them stays within 2 KB).
LM = " ".join(sq + "-a3-b3-c3-d3-e3-f3-g3-h3RL" for sq in
              ["j1", "i1", "h1", "g1", "f1", "e1", "d1", "c1", "b1", "a1",
               "a2", "b2", "c2", "d2", "e2"])
# A delivery khetd pushes (at most 2048 bytes), as the board gets it.
DELIVERY = '{"v":8,"events":[{"v":8,"kind":"seat","ann":"' + "a" * 1990 + '"}]}'
SECRET = "5" * 64
URL = "https://simhost-0123456789abcdef0.agni.secondlife.io:12043/cap/" + \
    "11111111-2222-3333-4444-555555555555"
ALICE = Key("11111111-1111-1111-1111-111111111111")
NAME = "n" * 128    # 64 characters outside the BMP, as UTF-16
POS = lsl_eval.lsl_table.CONSTANTS["PRIM_POS_LOCAL"][1]
JSON_INVALID = lsl_eval.lsl_table.CONSTANTS["JSON_INVALID"][1]


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


class Measuring(lsl_eval.Interpreter):
    """The evaluator, noting the largest list any expression makes."""

    largest = []

    def eval(self, node, scopes):
        value = super().eval(node, scopes)
        if isinstance(value, list) and element(value) > element(self.largest):
            self.largest = value
        return value


def json_value(text, path):
    try:
        value = json.loads(text)
        for part in path:
            value = value[part]
    except (ValueError, KeyError, IndexError, TypeError):
        return JSON_INVALID
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def board_script(text):
    """The board script applying a move on the crowded board: its parts,
    and the link messages it sent."""
    sent = []
    lsl = Measuring(text, {
        "llMessageLinked": lambda link, num, msg, k: sent.append((num, msg)),
        "llJsonGetValue": json_value,
        "llGetTime": lambda: 1000.0,
        "llSetTimerEvent": lambda s: None,
        "llSetText": lambda t, c, a: None,
        "llSay": lambda ch, t: None,
        "llRegionSayTo": lambda who, ch, t: None,
        "llGetScale": lambda: (30.0, 24.0, 1.0),
        "llGetOwner": lambda: ALICE,
    })
    lsl.set("gPlayers", [ALICE, "s", "t" * 43, ALICE, "r", "t" * 43])
    lsl.set("gSent", [1000.0] * lsl.get("BUDGET"))
    lsl.set("gId", "s" * 36)
    lsl.set("gOwnerToken", "t" * 43)
    lsl.set("gServer", "https://" + "k" * 119)
    lsl.set("gStatus", "P")
    lsl.set("gSilver", NAME)
    lsl.set("gRed", NAME)
    lsl.set("gLast", ["d1^d2", "d1^d2"])
    lsl.set("gClock", "15+10")
    lsl.set("gPos", CROWDED)
    lsl.set("gVersion", 6)
    lsl.call("applyEvents", json.dumps({"v": 7, "events": [{
        "kind": "move", "v": 7, "by": "s", "pos": CROWDED, "lm": LM,
        "laser": LASER, "rm": "a1p", "ann": "Silver: e4-e5, the laser takes a1",
        "clk": "287 300 r"}], "more": False}), 0)
    if lsl.get("gVersion") != 7:
        raise AssertionError("the board script did not apply the move")
    lsl.set("gUrl", URL)           # the largest globals: a URL being registered
    lsl.call("save")               # the state the keeper holds
    return lsl, {"answer": 2 * (18 + 2 * ANSWER)}, sent


def render_script(text, messages):
    """The render script drawing what `messages` say, then targets on 10
    squares and a new scheme: its parts."""
    names = {**{n: "piece" for n in range(2, 32)},
             **{n: "beam" for n in range(32, 48)},
             **{n: "mark" for n in range(48, 58)}}
    placed = {}

    def prims(link, params):
        if params[0] == POS:             # a child prim: placed when z > 0
            placed[link] = params[1][2] > 0.0
    lsl = Measuring(text, {
        "llGetObjectPrimCount": lambda k: 57,
        "llGetKey": lambda: ALICE,
        "llGetLinkName": names.get,
        "llMessageLinked": lambda link, num, msg, k: None,
        "llGetScale": lambda: (30.0, 24.0, 1.0),
        "llEuler2Rot": lambda v: (0.0, 0.0, 0.0, 1.0),
        "llSetLinkPrimitiveParamsFast": prims,
        "llLinkParticleSystem": lambda link, rules: None,
        "llGetInventoryType": lambda name: 0,
        "llSetTimerEvent": lambda s: None,
        "llScaleByFactor": lambda f: 1,
        "llDetectedLinkNumber": lambda n: 1,
        "llDetectedTouchFace": lambda n: 0,
        "llDetectedTouchST": lambda n: (0.99, 0.01, 0.0),
        "llDetectedKey": lambda n: ALICE,
    })
    lsl.event("state_entry")
    for num, msg in messages:
        lsl.event("link_message", 1, num, msg, Key(""))
    pieces = sum(placed.get(n, False) for n in range(2, 32))
    beams = sum(placed.get(n, False) for n in range(32, 48))
    lsl.event("link_message", 1, lsl.get("KR_TARGETS"),
              "a1 b1 c1 d1 e1 f1 g1 h1 i1 j1", Key(""))
    lsl.event("link_message", 1, lsl.get("KR_LOOK"), "royal 0", Key(""))
    lsl.event("link_message", 1, lsl.get("KR_PICK"),
              " ".join(["d1-d2", "d1^d2"] * 8), ALICE)
    touched = []
    lsl.stubs["llMessageLinked"] = lambda link, num, msg, k: touched.append(msg)
    lsl.event("touch_start", 1)   # j1, whose moves it reads from "lm"
    if not touched or not touched[0].startswith("j1|Pne|j1-a3 j1-b3") or \
            lsl.get("gPickWho") != lsl_eval.lsl_table.CONSTANTS["NULL_KEY"][1]:
        raise AssertionError(f"the render script reported {touched}")
    queued = sum(18 + 2 * len(msg) + 16 + 102
                 for msg in [m for _, m in messages] + [DELIVERY])
    return lsl, {"link messages of one move and a delivery, queued": queued}, \
        (pieces, beams)


def words_script(text, messages):
    """The words script saying what `messages` say, then in French the
    fullest hover text, 8 Play menus of 12 buttons and a long error."""
    said = []
    lsl = Measuring(text, {
        "llMessageLinked": lambda link, num, msg, k: None,
        "llListen": lambda channel, name, who, msg: 1,
        "llFrand": lambda most: 0.0,
        "llGetTime": lambda: 1000.0,
        "llSetTimerEvent": lambda s: None,
        "llSetText": lambda t, c, a: said.append(t),
        "llRegionSayTo": lambda who, ch, t: said.append(t),
        "llOwnerSay": said.append,
        "llDialog": lambda who, t, labels, ch: said.append(t),
        "llGetOwner": lambda: ALICE,
        "llGetKey": lambda: ALICE,
        "llGetObjectDetails": lambda k, what: [Key("")],
    })
    lsl.event("state_entry")
    for num, msg in messages:
        lsl.event("link_message", 1, num, msg, ALICE)
    lsl.event("link_message", 1, lsl.get("KW_LANG"), "fr", Key(""))
    lsl.event("link_message", 1, lsl.get("KW_STATUS"), "\n".join(
        ["P", "s", "", "", NAME, NAME, "r", "r", "5999 5999 s",
         "d1^d2, d1^d2, d1^d2"]), Key(""))
    play = "\n".join(["playq", "seat s", "seat r", "leave", "computer",
                      "resign", "offer", "claim", "type", "takeback",
                      "accept", "answer", "hint"])
    for n in range(8):
        lsl.event("link_message", 1, lsl.get("KW_MENU"), play,
                  Key(f"{n:08d}-1111-1111-1111-111111111111"))
    lsl.event("link_message", 1, lsl.get("KW_SAY"), "gone\n" + "e" * 300,
              ALICE)
    lsl.event("link_message", 1, 7403, DELIVERY, Key(""))
    queued = sum(18 + 2 * len(msg) + 16 + 102
                 for msg in [m for _, m in messages] + [DELIVERY, play])
    return lsl, {"link messages of one move, a delivery and a menu, queued":
                 queued}, said


def keep_script(text, messages):
    """The keeper keeping the largest state the board script sent, and
    checking a delivery and handing it on."""
    handed = []
    answered = []
    sig = lsl_eval.LIBRARY["llSHA256String"](SECRET + DELIVERY + SECRET)
    lsl = Measuring(text, {
        "llMessageLinked": lambda link, num, msg, k: handed.append(num),
        "llHTTPResponse": lambda k, status, body: answered.append(status),
        "llGetHTTPHeader": lambda k, name: "sig=" + sig,
        "llRequestSecureURL": lambda: Key("k"),
        "llReleaseURL": lambda url: None,
    })
    lsl.event("state_entry")
    kept = [msg for num, msg in messages if num == lsl.get("KK_SAVE")]
    for msg in kept:
        lsl.event("link_message", 1, lsl.get("KK_SAVE"), msg, Key(""))
    lsl.event("link_message", 1, lsl.get("KK_ASK"), "", Key(""))
    lsl.event("link_message", 1, lsl.get("KK_URL"), "1", Key(""))
    lsl.event("http_request", Key("k"), "URL_REQUEST_GRANTED", URL)
    lsl.event("link_message", 1, lsl.get("KK_SECRET"), SECRET, Key(""))
    lsl.event("http_request", Key("d"), "POST", DELIVERY)
    if answered != [200] or lsl.get("KB_PUSHED") not in handed:
        raise AssertionError(f"the keeper answered {answered}, sent {handed}")
    queued = 2 * sum(18 + 2 * len(msg) + 16 + 102 for msg in kept[-1:])
    body = 18 + 2 * len(DELIVERY)
    signed = 18 + 2 * len(SECRET + DELIVERY + SECRET)
    return lsl, {"the state, sent twice and queued": queued,
                 "a delivery, signed twice and handed on": 2 * body + 2 * signed
                 + 16 + 102}, bool(kept)


def report(name, text, lsl, arriving, budget):
    parts = {"code": code_size(lsl_lang.parse(text)),
             "globals": sum(element(v) for v in lsl.globals.values())}
    largest = lsl.largest
    parts[f"largest list ({len(largest)} items)"] = element(largest)
    parts.update(arriving)
    total = sum(parts.values())
    print(f"{name}:")
    for part, size in parts.items():
        print(f"  {part:42} {size:6} bytes")
    print(f"  total {total} bytes of {LIMIT} ({100 * total / LIMIT:.0f}%), "
          f"{budget - total} to spare above a {LIMIT - budget}-byte reserve")
    nodes = (parts["code"] - BASE) // NODE
    print(f"  the code would have to cost {NODE + (budget - total) / nodes:.1f}"
          f" bytes a node (not {NODE}) to reach the limit")
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("board")
    parser.add_argument("render")
    parser.add_argument("keep")
    parser.add_argument("words")
    parser.add_argument("--limit", type=int, default=LIMIT - STACK,
                        help="bytes a script may use (64 KB less the stack)")
    args = parser.parse_args()
    board_text = open(args.board, encoding="utf-8").read()
    render_text = open(args.render, encoding="utf-8").read()
    keep_text = open(args.keep, encoding="utf-8").read()
    words_text = open(args.words, encoding="utf-8").read()
    board, arriving, sent = board_script(board_text)
    render, arriving_r, (pieces, beams) = render_script(render_text, sent)
    keep, arriving_k, saved = keep_script(keep_text, sent)
    words, arriving_w, said = words_script(words_text, sent)
    failures = []
    for name, text, lsl, parts in (
            ("khet_board.lsl", board_text, board, arriving),
            ("khet_render.lsl", render_text, render, arriving_r),
            ("khet_keep.lsl", keep_text, keep, arriving_k),
            ("khet_words.lsl", words_text, words, arriving_w)):
        total = report(name, text, lsl, parts, args.limit)
        if total > args.limit:
            failures.append(f"{name} needs {total} bytes, over {args.limit}")
    print(f"the move drew {pieces} pieces and {beams} beams from "
          f"{len(sent)} link messages")
    if pieces != 30 or beams != 16:
        failures.append("the move should draw 30 pieces and 16 beams")
    if not saved:
        failures.append("the board script sent the keeper no state")
    if not any(NAME in text and "Au tour" in text for text in said):
        failures.append("the words script showed no French hover text")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
