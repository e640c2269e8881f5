#!/usr/bin/python3
"""inworld_smoke: the in-world board in a real OpenSimulator region.

khetd and a region start; the board's OAR, with the scripts linkset.json
lists, loads and every script compiles; the estate owner touches the board
and answers its dialogs Setup > Khet 2.0 > classic-2; the piece prims then
show classic-2's position as khetd has it (the compact view's `pos`), and
no script reported an error. Writes board.png, the board as the region
holds it, into the scratch folder, and prints how long each step took.
"""

import argparse
import time

from inworld import LSL, Failure, World, expected_pieces, run_test


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--scratch", required=True,
                        help="the test's folder: logs, the OARs, pictures")
    parser.add_argument("--scripts", default=str(LSL),
                        help="where the board's scripts are (default: "
                             "clients/lsl)")
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
        errors = [line for line in owner.call("chat")["lines"]
                  if line["type"] == "debug"]
        if errors:
            raise Failure(f"the scripts reported errors: {errors}")
        print(f"classic-2 shown by {len(expected_pieces(session['pos']))} piece "
              f"prims; picture {picture}")
    world.timings["total, stopping included"] = time.monotonic() - started
    print("timings: " + ", ".join(f"{what} {seconds:.1f} s"
                                  for what, seconds in world.timings.items()))


if __name__ == "__main__":
    run_test(main)
