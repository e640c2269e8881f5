# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Chat text for the session's events and state, in the channel's words.

The server's own announcement (in the session's language) leads wherever it
has one (a quiet board leaves minor ones empty, and then these functions word
it themselves from the catalogue).
"""

from khet_client import game, service

from .message import Message

# A search's scores (engine/search.h): a win is MATE_SCORE less the plies to
# it; beyond MATE_THRESHOLD a score is a win or a loss.
MATE_SCORE = 30000
MATE_THRESHOLD = MATE_SCORE - 200


def side_name(words, color):
    return words("silver" if color == game.SILVER else "red")


def board_message(board_text, words, prefix, session=None):
    """The text board (46 columns, 11 lines: about 520 characters) and the
    key line under it. Once `session`'s game is over its last line says who
    won and why instead of whose move it would be."""
    lines = board_text.rstrip("\n").split("\n")
    if session is not None and session.status == service.FINISHED:
        lines[-1] = words("board_over", result=session.result.text)
    lines.append(words("board_key", prefix=prefix))
    return Message(tuple(lines), monospace=True)


def piece_owner(board_text, square):
    """game.SILVER or game.RED for the piece on `square` ("e4") of a text
    board, None for an empty square or no square at all."""
    if len(square) != 2 or not "a" <= square[0] <= "j" or \
            not "1" <= square[1] <= "8":
        return None
    column = 4 + 4 * (ord(square[0]) - ord("a"))
    for line in board_text.split("\n"):
        if line[:4].strip() == square[1] and len(line) > column:
            letter = line[column]
            if not letter.isalpha():
                return None
            return game.SILVER if letter.isupper() else game.RED
    return None


def score_words(words, score, side_to_move):
    """A search score (hundredths of a Pyramid, for `side_to_move`) in
    words: who is ahead and by about how much, or who wins in how many of
    their own moves."""
    mover = side_name(words, side_to_move)
    other = side_name(words, game.RED if side_to_move == game.SILVER
                      else game.SILVER)
    if score > MATE_THRESHOLD:
        plies = MATE_SCORE - score
        if plies <= 1:
            return words("score_wins_now", side=mover)
        return words("score_wins_in", side=mover, count=(plies + 1) // 2)
    if score < -MATE_THRESHOLD:
        moves = (MATE_SCORE + score) // 2
        if moves <= 1:
            return words("score_loses_next", side=other, other=mover)
        return words("score_loses_in", side=other, other=mover, count=moves)
    number = f"{score / 100:+.2f}"
    ahead = mover if score > 0 else other
    size = abs(score)
    if size < 25:
        return words("score_even", score=number)
    if size < 75:
        return words("score_slightly", side=ahead, score=number)
    if size < 150:
        return words("score_pyramid", side=ahead, score=number)
    return words("score_pyramids", side=ahead, score=number,
                 count=round(size / 100))


def event_messages(event, board, prefix, words):
    """What the channel hears of one khet.v1.Event. `board()` fetches the
    board text when a message needs it."""
    kind = event.WhichOneof("kind")
    if kind == "move_made":
        return [move_message(event, words)]
    if kind == "game_started":
        mover = side_name(words, event.game_started.board.side_to_move)
        return [Message.of(
            event.announcement or words("game_begins"),
            words("to_move", mover=mover, prefix=prefix)),
            board_message(board(), words, prefix)]
    if kind == "game_over":
        result = event.game_over.result
        over = service.Session(status=service.FINISHED, result=result)
        return [Message.of(words("game_over", result=result.text)),
                board_message(board(), words, prefix, over)]
    if kind == "seat_changed":
        changed = event.seat_changed
        color = side_name(words, changed.seat.color)
        fallback = (words("takes_seat", holder=seat_holder(words, changed.seat),
                          color=color) if changed.joined
                    else words("seat_left", color=color))
        return [Message.of(event.announcement or fallback)]
    if kind == "draw_offered":
        offer = event.announcement or words(
            "offers_draw", color=side_name(words, event.draw_offered.by))
        return [Message.of(words("draw_answer", offer=offer, prefix=prefix))]
    if kind == "takeback_requested":
        asked = event.takeback_requested
        request = event.announcement or words(
            "takeback_asked", color=side_name(words, asked.by),
            plies=ply_words(words, asked.plies))
        return [Message.of(words("takeback_answer", request=request,
                                 other=side_name(words, other_side(asked.by)),
                                 prefix=prefix))]
    if kind == "takeback_answered":
        answered = event.takeback_answered
        color = side_name(words, answered.requested_by)
        if not answered.accepted:
            return [Message.of(event.announcement or words(
                "takeback_declined", color=color))]
        done = event.announcement or words(
            "takeback_done", color=color,
            plies=ply_words(words, answered.plies))
        mover = side_name(words, answered.board.side_to_move)
        return [Message.of(done, words("to_move", mover=mover, prefix=prefix)),
                board_message(board(), words, prefix)]
    if kind == "game_reset":
        fallback = words("game_reset_timeout" if event.game_reset.timed_out
                         else "game_reset")
        return [Message.of(event.announcement or fallback)]
    if kind == "session_deleted":
        return [Message.of(words("session_deleted"))]
    return []  # setup and settings changes: the bot's own doing


def other_side(color):
    return game.RED if color == game.SILVER else game.SILVER


def ply_words(words, count):
    return words("one_ply" if count == 1 else "plies", count=count)


def move_message(event, words):
    """The move, its laser beam by beam, and what the laser hit."""
    made = event.move_made
    lines = [event.announcement or words(
        "plays", color=side_name(words, made.mover), move=made.move.notation)]
    lines += [words("laser", beam=line) for line in made.shot.text.splitlines()]
    for removal in made.removals:
        if removal.HasField("after"):
            lines.append(words("hit_leaving", piece=removal.before.description,
                               square=removal.square,
                               left=removal.after.description))
        else:
            lines.append(words("hit", piece=removal.before.description,
                               square=removal.square))
    return Message(tuple(lines))


def seat_holder(words, seat):
    if not seat.occupied:
        return words("seat_free")
    if seat.computer:
        return words("seat_computer", name=seat.player_name,
                     level=seat.computer_level)
    return seat.player_name


def status_message(session, setup_name, words):
    """One line: the setup, who sits where, and the state of the game."""
    silver, red = session.seats
    if session.status == service.IN_PROGRESS:
        state = words("status_playing", played=len(session.moves),
                      mover=side_name(words, session.board.side_to_move))
        if session.draw_offered_by:
            state = words("status_offer", state=state, color=side_name(
                words, session.draw_offered_by))
        if session.takeback_requested_by:
            state = words("status_takeback", state=state, color=side_name(
                words, session.takeback_requested_by))
    elif session.status == service.FINISHED:
        state = words("status_finished", result=session.result.text)
    else:
        state = words("status_waiting")
    if session.game_rated:
        state = words("status_rated", state=state)
    return Message.of(words("status", setup=setup_name,
                            silver=seat_holder(words, silver),
                            red=seat_holder(words, red), state=state))


def is_running(session):
    return session.status == service.IN_PROGRESS
