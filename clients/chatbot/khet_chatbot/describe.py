"""Chat text for the session's events and state.

The server's own announcement leads wherever it has one (a quiet board
leaves minor ones empty, and then these functions word it themselves).
"""

from khet_client import color_name, service

from .message import Message


def board_message(board_text):
    """The text board (46 columns, 11 lines: about 520 characters)."""
    return Message(tuple(board_text.rstrip("\n").split("\n")), monospace=True)


def event_messages(event, board, prefix):
    """What the channel hears of one khet.v1.Event. `board()` fetches the
    board text when a message needs it."""
    kind = event.WhichOneof("kind")
    if kind == "move_made":
        return [move_message(event)]
    if kind == "game_started":
        started = event.game_started
        mover = color_name(started.board.side_to_move)
        return [Message.of(
            event.announcement or "A new game begins.",
            f"{mover} to move: {prefix}move MOVE, e.g. {prefix}move j1L; "
            f"{prefix}help for the rest."), board_message(board())]
    if kind == "game_over":
        result = event.game_over.result
        return [Message.of(f"Game over: {result.text}."),
                board_message(board())]
    if kind == "seat_changed":
        changed = event.seat_changed
        fallback = (f"{seat_holder(changed.seat)} takes "
                    f"{color_name(changed.seat.color)}." if changed.joined
                    else f"{color_name(changed.seat.color)}'s seat is free.")
        return [Message.of(event.announcement or fallback)]
    if kind == "draw_offered":
        offerer = color_name(event.draw_offered.by)
        return [Message.of(
            f"{event.announcement or offerer + ' offers a draw.'} "
            f"{prefix}draw accepts it; a move declines it.")]
    if kind == "game_reset":
        why = " (no move for too long)" if event.game_reset.timed_out else ""
        return [Message.of(event.announcement or f"The game was reset{why}.")]
    if kind == "session_deleted":
        return [Message.of("This channel's game was deleted on the server.")]
    return []  # setup and settings changes: the bot's own doing


def move_message(event):
    """The move, its laser beam by beam, and what the laser hit."""
    made = event.move_made
    lines = [event.announcement or
             f"{color_name(made.mover)} plays {made.move.notation}."]
    lines += [f"laser: {line}" for line in made.shot.text.splitlines()]
    for removal in made.removals:
        left = (f", leaving {removal.after.description}"
                if removal.HasField("after") else "")
        lines.append(f"hit: {removal.before.description} on "
                     f"{removal.square}, taken off{left}")
    return Message(tuple(lines))


def seat_holder(seat):
    if not seat.occupied:
        return "(free)"
    if seat.computer:
        return f"the computer ({seat.player_name}, level {seat.computer_level})"
    return seat.player_name


def status_message(session, setup_name):
    """One line: the setup, who sits where, and the state of the game."""
    silver, red = session.seats
    players = f"Silver {seat_holder(silver)} v Red {seat_holder(red)}"
    if session.status == service.IN_PROGRESS:
        mover = color_name(session.board.side_to_move)
        offer = (f"; {color_name(session.draw_offered_by)} offers a draw"
                 if session.draw_offered_by else "")
        played = len(session.moves)
        state = (f"{played} move{'' if played == 1 else 's'} played, "
                 f"{mover} to move{offer}")
    elif session.status == service.FINISHED:
        state = f"finished: {session.result.text}"
    else:
        state = "waiting for players"
    return Message.of(f"{setup_name}: {players}; {state}.")


def is_running(session):
    return session.status == service.IN_PROGRESS

