# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Moves and colours as the client's callers may write them.

A move is either a string in the engine's notation ("j4-j3", "f4=g3",
"d1^d2", "c1R"; docs/notation.md) or a structured khet.v1.Move, most easily
made with step(), move_top() and rotate().
"""

from .stubs import game

COLORS = {"silver": game.SILVER, "red": game.RED}


def step(from_square, to_square):
    """A piece to the adjacent square: a step, a swap or an Obelisk stacking."""
    return _move(from_square, to_square, game.MOVE)


def move_top(from_square, to_square):
    """Only the top Obelisk of a stack to the adjacent square (Khet 1.0)."""
    return _move(from_square, to_square, game.MOVE_TOP)


def rotate(square, clockwise=True):
    """A quarter turn of the piece on `square`."""
    kind = game.ROTATE_CLOCKWISE if clockwise else game.ROTATE_ANTICLOCKWISE
    return _move(square, "", kind)


def _move(from_square, to_square, kind):
    # "from" is a Python keyword, so the field is set by name.
    move = game.Move(to=to_square, kind=kind)
    setattr(move, "from", from_square)
    return move


def as_move(move):
    """A khet.v1.Move for `move`: notation text or a khet.v1.Move."""
    if isinstance(move, str):
        return game.Move(notation=move)
    if isinstance(move, game.Move):
        return move
    raise TypeError(f"a move is notation text or a khet.v1.Move, "
                    f"got {type(move).__name__}")


def as_color(color):
    """A khet.v1.Color for `color`: None (any), "silver", "red" or the enum."""
    if color is None:
        return game.COLOR_UNSPECIFIED
    if isinstance(color, str):
        try:
            return COLORS[color.strip().lower()]
        except KeyError:
            raise ValueError(f'a colour is "silver" or "red", got "{color}"') \
                from None
    if color in (game.COLOR_UNSPECIFIED, game.SILVER, game.RED):
        return color
    raise ValueError(f"not a khet.v1.Color: {color!r}")


def color_name(color):
    """"Silver" or "Red" for a khet.v1.Color ("" when unset)."""
    return {game.SILVER: "Silver", game.RED: "Red"}.get(color, "")
