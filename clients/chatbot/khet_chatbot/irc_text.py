# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""IRC lines (RFC 1459): reading one, and cutting what the bot says into
PRIVMSG lines that fit the protocol's 512 bytes."""

import dataclasses

# A PRIVMSG's text at most, in bytes: the server prefixes the line it relays
# with the sender's nick!user@host, and the whole line, CR LF included, must
# stay within 512 bytes.
MAX_TEXT_BYTES = 400

CHANNEL_PREFIXES = "#&+!"


@dataclasses.dataclass(frozen=True)
class IrcLine:
    prefix: str    # "nick!user@host" or a server name; "" if none
    command: str   # "PRIVMSG", "PING", "001", ... (upper case)
    params: tuple  # the last one may hold spaces

    @property
    def nick(self):
        """The sender's nick, from the prefix."""
        return self.prefix.split("!", 1)[0]


def parse_line(line):
    """An IrcLine for one line from the server (without CR LF)."""
    prefix = ""
    if line.startswith(":"):
        prefix, _, line = line[1:].partition(" ")
    line = line.lstrip(" ")
    trailing = None
    if " :" in line:
        line, trailing = line.split(" :", 1)
    elif line.startswith(":"):
        line, trailing = "", line[1:]
    words = line.split()
    params = words[1:] + ([trailing] if trailing is not None else [])
    return IrcLine(prefix, (words[0] if words else "").upper(), tuple(params))


def is_channel(target):
    return target[:1] in CHANNEL_PREFIXES


def privmsg_lines(target, message, max_text_bytes=MAX_TEXT_BYTES):
    """The PRIVMSG lines (without CR LF) that say `message` (a Message) to
    `target`, one or more for each of its lines. A line longer than
    `max_text_bytes` in UTF-8 is cut at spaces where it can be, never inside
    a character; empty lines are left out."""
    lines = []
    for text in message.lines:
        text = "".join(c for c in text if c not in "\r\n\0")
        for piece in split_text(text, max_text_bytes):
            lines.append(f"PRIVMSG {target} :{piece}")
    return lines


def split_text(text, max_bytes):
    """`text` in pieces of at most `max_bytes` bytes of UTF-8 each, cut at
    the last space before the limit, or at the limit if a word is longer."""
    pieces = []
    while text.strip():
        if len(text.encode()) <= max_bytes:
            pieces.append(text)
            break
        cut = _fitting_prefix_length(text, max_bytes)
        space = text.rfind(" ", 1, cut + 1)
        if space > 0:
            cut = space
        pieces.append(text[:cut].rstrip(" "))
        text = text[cut:].lstrip(" ")
    return pieces


def _fitting_prefix_length(text, max_bytes):
    """The most characters from the start of `text` within max_bytes."""
    used = 0
    for index, character in enumerate(text):
        used += len(character.encode())
        if used > max_bytes:
            return index
    return len(text)
