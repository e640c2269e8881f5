# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Chat text for game records, the archive of games and the computer's
analysis of a game, in the channel's words (`words`, a catalogue.Words).
Moves and result tokens are the record's own in every language."""

import datetime
import urllib.parse

from khet_client import game, service

from .describe import side_name

from .message import Message

# The most lines of moves a record is said in. A longer game keeps its
# first lines and its end, and says how many plies were left out between.
RECORD_MOVE_LINES = 3


def record_link(web_url, session_id, game_id):
    """The record's download from khetd's HTTP gateway at `web_url`."""
    quoted = [urllib.parse.quote(part, safe="") for part in (session_id,
                                                            game_id)]
    return (f"{web_url.rstrip('/')}/v1/sessions/{quoted[0]}/games/"
            f"{quoted[1]}/record")


def link_message(record, web_url, words):
    """One line: the game's summary and its record's download link."""
    summary = record.game
    return Message.of(f"{game_summary(summary, words, record.result)}: "
                      + record_link(web_url, summary.session_id, summary.id))


def record_message(record, line_chars, words, note=""):
    """The game's summary, then its moves numbered as the record numbers
    them, in lines of at most `line_chars` characters (at most
    RECORD_MOVE_LINES of them) ending with the result token. `note` goes
    before the summary."""
    summary = record.game
    head = f"{note} " if note else ""
    lines = [f"{head}{game_summary(summary, words, record.result)}."]
    if record.moves:
        lines += move_lines(record.moves, summary.result, line_chars)
    return Message(tuple(lines))


def game_summary(summary, words, result=None):
    """"Game ID: Silver alice v Red bob, Silver wins: ... (1-0), 17 plies"
    from a khet.v1.GameSummary (and the GameResult, whose text says more
    than the summary's ending)."""
    return words("game_summary", game=summary.id,
                 silver=summary.silver_player or words("nobody"),
                 red=summary.red_player or words("nobody"),
                 outcome=_outcome(summary, words, result),
                 plies=_plies(summary.plies, words))


def games_message(games, prefix, words):
    """The channel's archived games, numbered from the newest."""
    if not games:
        return Message.of(words("no_past_games"))
    lines = [words("games_title")]
    for number, summary in enumerate(games, start=1):
        ended = ""
        if summary.HasField("ended_at"):
            ended = words("ended", when=datetime.datetime.fromtimestamp(
                summary.ended_at.seconds, datetime.timezone.utc).strftime(
                    "%Y-%m-%d %H:%M UTC"))
        lines.append(f"{number}. {game_summary(summary, words)}{ended}")
    lines.append(words("games_how", prefix=prefix))
    return Message(tuple(lines))


def move_lines(moves, result_token, line_chars,
               max_lines=RECORD_MOVE_LINES):
    """`moves` (khet.v1.RecordedMove, in order) and `result_token` as the
    record writes them, "1. j5-j6 h4-i3 2. f1-e2 ...", in at most
    `max_lines` lines of at most `line_chars` characters where moves allow.
    A game too long for that keeps its first max_lines - 1 lines; the last
    line says how many plies were left out and ends with the game's last
    moves."""
    first_mover = moves[0].mover
    words = [_move_word(move.ply, move.mover, move.notation, first_mover,
                        index == 0) for index, move in enumerate(moves)]
    lines = _packed(words + [result_token], line_chars)
    if len(lines) <= max_lines:
        return [" ".join(line) for line in lines]
    head = _packed(words, line_chars)[:max_lines - 1]
    shown = sum(len(line) for line in head)
    tail_start = len(moves)
    for start in range(len(moves) - 1, shown, -1):
        if len(_tail(moves, start, shown, first_mover, result_token)) \
                > line_chars:
            break
        tail_start = start
    return [" ".join(line) for line in head] + [
        _tail(moves, tail_start, shown, first_mover, result_token)]


def analysis_lines(analysis, line_chars, words):
    """The analysis in a line per colour: each side's blunders and
    mistakes with the better move, and how many inaccuracies."""
    if not analysis.moves:
        return [words("analysis_empty", game=analysis.game_id)]
    first_mover = analysis.moves[0].mover
    lines = []
    for color in (game.SILVER, game.RED):
        own = [m for m in analysis.moves if m.mover == color]
        start = (words("analysis_lead", game=analysis.game_id,
                       ms=analysis.ms_per_ply) if not lines else "")
        lines.append(_side_line(f"{start}{side_name(words, color)}", own,
                                first_mover, line_chars, words))
    return lines


def _side_line(lead, moves, first_mover, line_chars, words):
    judged = [m for m in moves
              if m.judgement in (service.BLUNDER, service.MISTAKE)]
    judged.sort(key=lambda m: (-m.judgement, m.ply))
    inaccuracies = sum(1 for m in moves if m.judgement == service.INACCURACY)
    tail = (words("inaccuracy" if inaccuracies == 1 else "inaccuracies",
                  count=inaccuracies) if inaccuracies else "")
    if not judged:
        return words("analysis_clean", side=lead, tail=tail)
    items = [words("blunder" if m.judgement == service.BLUNDER else "mistake",
                   move=_move_word(m.ply, m.mover, m.played, first_mover,
                                   True))
             + (words("better", move=m.best_move) if m.best_move else "")
             for m in judged]
    count = len(items)  # as many as fit the line, the worst first
    while True:
        more = (words("and_more", count=len(items) - count)
                if count < len(items) else "")
        line = words("analysis_side", side=lead,
                     items=", ".join(items[:count]), more=more, tail=tail)
        if len(line) <= line_chars or count == 1:
            return line
        count -= 1


def _tail(moves, start, shown, first_mover, result_token):
    """The last line of a cut record: the plies left out, then the moves
    from `start` on and the result."""
    words = [f"... {start - shown} {'ply' if start - shown == 1 else 'plies'}"
             f" left out ..."] if start > shown else []
    words += [_move_word(move.ply, move.mover, move.notation, first_mover,
                         index == start)
              for index, move in enumerate(moves) if index >= start]
    return " ".join(words + [result_token])


def _move_word(ply, mover, notation, first_mover, opening):
    """Ply `ply` (from 1) as the record writes it: "3. e4-e5" for Silver's
    move, the move alone for Red's reply, "3... e4-e5" for a Red move that
    opens a line of its own."""
    number = 1 + (ply - 1 + (1 if first_mover == game.RED else 0)) // 2
    if mover == game.SILVER:
        return f"{number}. {notation}"
    return f"{number}... {notation}" if opening else notation


def _packed(words, line_chars):
    """`words` in lines (lists of words) of at most `line_chars` characters
    joined by spaces; a longer word makes a line of its own."""
    lines = []
    length = 0
    for word in words:
        if lines and length + 1 + len(word) <= line_chars:
            lines[-1].append(word)
            length += 1 + len(word)
        else:
            lines.append([word])
            length = len(word)
    return lines


def _outcome(summary, words, result):
    """The result's text and token; a summary's ending alone says less."""
    if not summary.ending:
        return words("still_going")
    if summary.ending == "abandoned":
        return words("abandoned")
    if result is not None and result.text:
        return f"{result.text} ({summary.result})"
    return f"{summary.ending} ({summary.result})"


def _plies(count, words):
    return words("one_ply" if count == 1 else "plies", count=count)
