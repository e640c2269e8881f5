# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Message: what the bot says, as lines, before any platform formats it."""

import dataclasses

# The longest message the core produces, in characters: a board, a list of
# moves or a line of help fits one chat message on the common platforms.
MAX_MESSAGE_CHARS = 2000


@dataclasses.dataclass(frozen=True)
class Message:
    """Lines said together. `monospace` marks a board: an adapter shows it
    in a fixed-width font where its platform can (IRC cannot: each line is
    one PRIVMSG)."""
    lines: tuple
    monospace: bool = False

    @classmethod
    def of(cls, *lines, monospace=False):
        return cls(tuple(lines), monospace)

    @property
    def text(self):
        return "\n".join(self.lines)
