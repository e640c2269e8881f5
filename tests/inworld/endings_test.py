#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""inworld_endings: the ways a game on the in-world board ends, other
than a Pharaoh hit, played by touching it.

khetd and an OpenSimulator region start with two boards loaded; the
estate owner and a second user (made with the console's `create user`) log
in. The first board plays 1 and then 2, the second 3, both at once (each
in a thread of its own, as inworld_games plays its games):

1. Against the computer: Setup > Khet 2.0 > classic-2, the owner takes
   Silver (Play > Silver) and seats the computer for Red (Play > Computer >
   Level 1). The owner plays two Silver moves by touch (each chosen at test
   time on a scratch session of khetd: it hits nothing, and the best Red
   reply does not hit Silver's Pharaoh); after each the computer's reply
   must show on the prims (its pieces, its shot's beams and hits, the hover
   text's turn and last moves). Then Play > Resign > Yes, resign: the game
   is over, Red wins by resignation, the board is tinted Red and the hover
   text says so.
2. A draw agreed: Settings > Reset, Setup > Khet 2.0 > classic-2, the
   owner takes Silver and the second user Red; the owner's Play > Offer
   draw shows in the hover text ("Silver offers a draw"); the second
   user's Play > Accept draw ends the game drawn (result D, agreed_draw),
   the hover text says so and the board's edges turn grey.
3. A repetition claimed: Setup > Khet 2.0 > imhotep-2, the owner takes
   Silver and the second user Red; a Silver turn and a Red turn found at
   test time on a scratch session (each hits nothing, and so do the turns
   back, as khetd lists them) played there and back twice by touch, so
   the start occurs three times; a claim after the
   first round trip (twice) is refused with the server's reason; Play >
   Claim draw after the second ends the game drawn (D,
   repetition_claimed).
Every move is checked as in inworld_games (the lit targets, then the
prims after it, and each move said once in local chat) and timed as there
(inworld.py, "How fast a board answers"), the computer's replies from
khetd having them until the prims show them; the figures are summed up at
the end (print_latencies), never failed on. A picture of each ending goes
into the scratch folder.
"""

import time

from inworld import (BOARD_AT, check_script_errors, expected_pieces, Failure,
                     print_latencies, print_timings, run_test, test_parser, World)
from play import Scratch, Table, at_once


def safe_silver_move(scratch, position, prefer):
    """A Silver move at `position` that hits nothing and after which the
    best Red reply (level 3, which finds any Pharaoh hit) does not end the
    game: the first of `prefer` that is, else any."""
    legal = scratch.legal(position)
    for move in [m for m in prefer if m in legal] + legal:
        id, owner, tokens = scratch.game(position)
        try:
            answer = scratch.play(id, tokens, [move])[0]
            if answer["rm"] or answer["res"]:
                continue
            _, hint = scratch.call("POST", f"/v1/sessions/{id}:suggest?timeoutMs=3000",
                                   {"level": 3})
            reply = scratch.play(id, tokens, [hint["move"]["notation"]])[0]
            if not reply["res"]:
                return move
        finally:
            scratch.delete(id, owner)
    raise Failure(f"no safe Silver move at {position}")


def repetition(scratch, position):
    """Four turns from `position` (Silver to move) that lead back to it,
    each hitting nothing and each one khetd lists (a Scarab's turn back is
    its turn again): Silver's, Red's, Silver's back, Red's back. Turns of a
    Pyramid come first (both ways are listed: "Which move?")."""
    pieces = expected_pieces(position)

    def turns(at, square=None):
        listed = [m for m in scratch.legal(at) if m[-1] in "RL"
                  and (square is None or m[:2] == square)]
        return sorted(listed, key=lambda m: pieces.get(m[:2], ("?",))[0] != "P")

    for silver in turns(position):
        first = scratch.try_moves(position, [silver])
        if not first or first[0]["rm"]:
            continue
        for red in turns(first[0]["pos"]):
            second = scratch.try_moves(position, [silver, red])
            if not second or second[1]["rm"] or second[1]["res"]:
                continue
            for back in turns(second[1]["pos"], silver[:2]):
                third = scratch.try_moves(position, [silver, red, back])
                if not third or third[2]["rm"] or third[2]["res"]:
                    continue
                for red_back in turns(third[2]["pos"], red[:2]):
                    moves = [silver, red, back, red_back]
                    answers = scratch.try_moves(position, moves)
                    if (answers and not any(a["rm"] or a["res"] for a in answers)
                            and answers[-1]["pos"] == position):
                        return moves
    raise Failure(f"no four turns that come back to {position}")


def against_the_computer_then_a_draw(table, owner, other, scratch):
    """1 and 2 (the docstring) on `table`'s board; what each took."""
    took = {}
    step = time.monotonic()
    cursor = owner.call("chat")["cursor"]
    session = table.setup(owner, "Khet 2.0", "classic-2")
    table.seat(owner, "s")
    table.press(owner, "Play", "Computer", "Level 1")
    session = table.wait_khetd(lambda s: s["st"] == "P", "the game against the computer")
    if session["red"] != "A'NOOB'IS":
        raise Failure(f"Red is {session['red']!r}, not the computer at level 1")
    table.wait_shown(owner, session, "the game against the computer started")
    for prefer in (["f4=g3"], ["c4-d4", "c4-c3"]):
        move = safe_silver_move(scratch, session["pos"], prefer)
        table.move(owner, move)
        reply = table.events.move(table.moved["version"], f"the computer's reply to {move}")
        session = table.wait_khetd(lambda s: s["turn"] == "s" or s["st"] != "P",
                                   f"the computer's reply to {move}")
        if session["st"] != "P":
            raise Failure(f"the game ended before the resignation: {session}")
        table.record()
        table.show_move(owner, session, f"the computer's reply {session['last']}", reply,
                        "by the computer")
    table.press(owner, "Play", "Resign", "Yes, resign")
    session = table.wait_khetd(lambda s: s["st"] == "F", "the resignation")
    if (session["res"], session["why"]) != ("R", "resignation"):
        raise Failure(f"the resignation ended the game otherwise: {session}")
    prims = table.wait_shown(owner, session, "the resignation", shot=False)
    table.check_said(owner, cursor)
    table.board.picture(prims, table.world.folder / "resigned.png")
    took["computer, resigned"] = time.monotonic() - step

    step = time.monotonic()
    table.press(owner, "Settings", "Reset")
    table.wait_khetd(lambda s: s["st"] == "W" and not s["silver"] and not s["red"],
                     "the reset")
    session = table.setup(owner, "Khet 2.0", "classic-2")
    table.seat(owner, "s")
    table.seat(other, "r")
    session = table.wait_khetd(lambda s: s["st"] == "P", "the game started")
    table.press(owner, "Play", "Offer draw")
    session = table.wait_khetd(lambda s: s["draw"] == "s", "Silver's draw offer")
    table.wait_shown(owner, session, "the draw offered", shot=False)
    table.press(other, "Play", "Accept draw")
    session = table.wait_khetd(lambda s: s["st"] == "F", "the draw accepted")
    if (session["res"], session["why"]) != ("D", "agreed_draw"):
        raise Failure(f"the draw ended the game otherwise: {session}")
    prims = table.wait_shown(owner, session, "the draw agreed", shot=False)
    table.board.picture(prims, table.world.folder / "drawn.png")
    took["draw agreed"] = time.monotonic() - step
    return took


def a_repetition(table, owner, other, scratch):
    """3 (the docstring) on `table`'s board; what it took."""
    step = time.monotonic()
    cursor = owner.call("chat")["cursor"]
    table.setup(owner, "Khet 2.0", "imhotep-2")
    table.seat(owner, "s")
    table.seat(other, "r")
    session = table.wait_khetd(lambda s: s["st"] == "P", "the game started")
    table.wait_shown(owner, session, "imhotep-2 started")
    turns = repetition(scratch, session["pos"])
    sides = {"s": owner, "r": other}
    for round_trip in (1, 2):
        for move in turns:
            session = table.move(sides[session["turn"]], move)
            table.show_move(owner, session, f"round trip {round_trip}: {move}", table.moved)
        if round_trip == 1:
            heard = owner.call("chat")["cursor"]
            table.press(owner, "Play", "Claim draw")
            table.hear(owner, r"^Khet: the current position has occurred 2 times",
                       heard)
    table.press(owner, "Play", "Claim draw")
    session = table.wait_khetd(lambda s: s["st"] == "F", "the repetition claimed")
    if (session["res"], session["why"]) != ("D", "repetition_claimed"):
        raise Failure(f"the claim ended the game otherwise: {session}")
    prims = table.wait_shown(owner, session, "the repetition claimed", shot=False)
    table.check_said(owner, cursor)
    table.board.picture(prims, table.world.folder / "repeated.png")
    return {f"repetition claimed ({' '.join(turns)} twice)": time.monotonic() - step}


def main():
    parser = test_parser(__doc__)
    args = parser.parse_args()
    started = time.monotonic()
    with World(args.scratch, args.khetd, args.scripts) as world:
        world.start()
        tables = [Table(world, world.add_board(f"Khet board {n + 1}",
                                               (BOARD_AT[0] + x,) + BOARD_AT[1:]))
                  for n, x in enumerate((-2.25, 2.25))]
        owner = world.avatar()
        other = world.avatar("Second", "Player")
        for table in tables:
            table.board.find(owner)
            table.board.prims(other)
        scratch = Scratch(world.khetd)
        took = {}
        for steps in at_once(
                lambda: against_the_computer_then_a_draw(tables[0], owner, other, scratch),
                lambda: a_repetition(tables[1], owner, other, scratch)):
            took.update(steps)
        check_script_errors(owner, other)
        print("steps: " + ", ".join(f"{what} {seconds:.1f} s"
                                    for what, seconds in took.items()))
        for table in tables:
            for lost in table.lost:
                print(f"{table.board.name}: shown only once the prims were sent "
                      f"again: {lost}")
    world.timings["total, stopping included"] = time.monotonic() - started
    print_timings(world.timings.items())
    print_latencies(world.latencies)


if __name__ == "__main__":
    run_test(main)
