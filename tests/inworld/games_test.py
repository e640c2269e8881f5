#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""inworld_games: whole games played on the in-world board by touching it.

khetd and an OpenSimulator region start with four boards loaded side by
side; the estate owner and a second user (made with the console's `create
user`) log in. Three games, each to a Pharaoh hit, each with a step, a
swap, a turn and a capture: classic-2 (Setup > Khet 2.0), classic-1
(Setup > Khet 1.0) and osiris (Khet 2.0, Eyes of Horus: its laser
splits); and a fourth osiris game whose seventh move puts Silver's Eye on
j3, where half of Silver's laser leaves the board at once. One game on
each board and all at once, each in a thread of its own (a board's dialogs
and chat are told apart by its root prim). The owner takes Silver in the
first and third and Red in the second and fourth, the other user the
other seat, both by Play > Silver / Red.

Every move is played as a player does: touching the piece prim, whereupon
the marker prims must light exactly the squares khetd's legalMoves for
that square end on; then touching the target (the piece prim on it for a
swap, the marker otherwise, the piece itself for a turn) and, where two
moves end on that square, pressing the move's button in "Which move?".
After every move the prims must show khetd's session (GetSession, compact
view): every piece on its square with its letter, colour and turn, and no
more piece prims standing than pieces (the captured gone); one beam prim
per straight run of the shot's laser path (a beam that left the board
running to its edge); the hit squares marked; the hover text naming the
players, whose turn it is and the last three moves; the edges in the
colour of the side to move. At the end the game is over by a Pharaoh hit,
the whole board is tinted in the winner's colour and the hover text names
the winner; the board has said each move once in local chat (khetd's
announcement: "Silver (Khet Owner) plays f4=g3.", the hits, the result). A picture of each game's end is written into the scratch
folder.

Every move is timed where it is felt (inworld.py, "How fast a board
answers"): the piece's touch until its squares are lit, the target's
touch (or the "Which move?" answer) until khetd has the move, and from
then until the prims show it; each game's line lists its moves' figures,
and the end of the output sums them up against issue 33's targets
(print_latencies; figures are printed, never failed on).

The boards are played at once, as a region may hold several in play: four
load the region and the avatars as one does not (their squares light and
their moves show more slowly than one board's), and the test takes about
the time of one game.
"""

import time

from inworld import (BOARD_AT, check_script_errors, Failure, print_latencies,
                     print_timings, run_test, test_parser, World)
from play import SIDES, Table, at_once

# (what to call it, Setup's buttons, the moves, the owner's side, the
# winner): the first three found by a search with the engine, each with a
# step, a swap, a turn and a capture; the fourth walks Silver's Eye of
# Horus to j3, where Silver's laser splits on it and one half leaves the
# board at once, east of j3 ("j3E": a beam of one square).
GAMES = [
    ("classic-2", ("Khet 2.0", "classic-2"),
     "f4=g3 e8-e7 c4-d4 f4-g5 j5L f5R c1-b1 a8L", "s", "S"),
    ("classic-1", ("Khet 1.0", "classic-1"),
     "f4=g3 h4R g3=h4 f4-g4 c5-d5 h8L e1-d2 g3-f2", "r", "R"),
    ("osiris", ("Khet 2.0", "osiris"),
     "h2-g3 h7-i7 e1R e5-f6 f4=g3 c7-d7 b1R a5-a6", "s", "R"),
    ("osiris-edge", ("Khet 2.0", "osiris"),
     "f4-g3 a4R g3-h3 a4L h3-i3 a4R i3-j3", "r", None),
]


def play(table, owner, other, name, buttons, moves, owner_side, winner):
    """One game on `table`'s board, to its end (a winner) or its last
    move; what it took, for the summary."""
    setup = name
    started = time.monotonic()
    cursor = owner.call("chat")["cursor"]
    session = table.setup(owner, *buttons)
    table.wait_shown(owner, session, f"{setup}'s start")
    sides = {owner_side: owner, "rs"[owner_side == "r"]: other}
    for side in "sr":
        table.seat(sides[side], side)
    session = table.wait_khetd(lambda s: s["st"] == "P", f"{setup} started")
    names = {owner: "Khet Owner", other: "Second Player"}
    if (session["silver"], session["red"]) != (names[sides["s"]], names[sides["r"]]):
        raise Failure(f"{setup}: the seats went to {session['silver']!r} (Silver) and "
                      f"{session['red']!r} (Red)")
    table.wait_shown(owner, session, f"{setup} started")
    for move in moves.split():
        session = table.move(sides[session["turn"]], move)
        prims = table.show_move(owner, session, f"{setup} after {move}", table.moved)
    if winner and (session["st"], session["res"], session["why"]) != ("F", winner,
                                                                      "pharaoh_hit"):
        raise Failure(f"{setup} did not end with {SIDES[winner.lower()]}'s win by a "
                      f"Pharaoh hit: {session}")
    table.check_said(owner, cursor)
    picture = table.board.picture(prims, table.world.folder / f"{setup}.png")
    result = f"{SIDES[winner.lower()]} wins" if winner else f"last shot {session['laser']}"
    return (f"{setup} on {table.board.name}: owner {SIDES[owner_side]}, "
            f"{result}; {time.monotonic() - started:.1f} s; "
            f"picture {picture}\n  move: seconds from the piece's touch until its "
            f"targets were lit, from the target's touch until khetd had it, from "
            f"then until the pieces showed it: " +
            ", ".join(f"{m} {seconds(a)} {seconds(b)} {seconds(c)}"
                      for m, a, b, c in table.timings) +
            "".join(f"\n  shown only once the prims were sent again: {lost}"
                    for lost in table.lost))


def seconds(value):
    return "-" if value is None else f"{value:.2f}"


def main():
    parser = test_parser(__doc__)
    parser.add_argument("--games", default=",".join(game[0] for game in GAMES),
                        help="which of the games to play (default: all)")
    args = parser.parse_args()
    started = time.monotonic()
    games = [game for game in GAMES if game[0] in args.games.split(",")]
    with World(args.scratch, args.khetd, args.scripts) as world:
        world.start()
        tables = []
        for number, game in enumerate(games):
            # Side by side along x, 4.5 m apart, the middle one at BOARD_AT.
            x = BOARD_AT[0] + 4.5 * (number - (len(games) - 1) / 2)
            board = world.add_board(f"Khet board {number + 1}", (x,) + BOARD_AT[1:])
            tables.append(Table(world, board))
        owner = world.avatar()
        other = world.avatar("Second", "Player")
        for table in tables:
            table.board.find(owner)
            table.board.prims(other)  # the second avatar has it in view
        for summary in at_once(*[lambda table=table, game=game:
                                 play(table, owner, other, *game)
                                 for table, game in zip(tables, games)]):
            print(summary)
        check_script_errors(owner, other)
    world.timings["total, stopping included"] = time.monotonic() - started
    print_timings(world.timings.items())
    print_latencies(world.latencies)


if __name__ == "__main__":
    run_test(main)
