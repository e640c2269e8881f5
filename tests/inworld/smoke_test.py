#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""inworld_smoke: the in-world board in a real OpenSimulator region.

khetd and a region start; the board's OAR, with the scripts linkset.json
lists, loads and every script compiles; the estate owner touches the board
and answers its dialogs Setup > Khet 2.0 > classic-2; the piece prims then
show classic-2's position as khetd has it (the compact view's `pos`), and
no script reported an error. Writes board.png, the board as the region
holds it, into the scratch folder, and prints how long each step took.
"""

import time

from inworld import (check_script_errors, expected_pieces, Failure, print_timings,
                     run_test, test_parser, World)


def main():
    parser = test_parser(__doc__)
    args = parser.parse_args()
    started = time.monotonic()
    with World(args.scratch, args.khetd, args.scripts) as world:
        world.start()
        board = world.add_board()
        owner = world.avatar()
        board.find(owner)
        board.menu(owner, "Setup", "Khet 2.0", "classic-2")
        session = world.khetd.wait_session(board.name)
        if session["setup"] != "classic-2":
            raise Failure(f"the board made a {session['setup']} session")
        prims = board.wait_pieces(owner, expected_pieces(session["pos"]))
        picture = board.picture(prims, world.folder / "board.png")
        check_script_errors(owner)
        print(f"classic-2 shown by {len(expected_pieces(session['pos']))} piece "
              f"prims; picture {picture}")
    world.timings["total, stopping included"] = time.monotonic() - started
    print_timings(world.timings.items())


if __name__ == "__main__":
    run_test(main)
