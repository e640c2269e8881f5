# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""khet_chatbot: Khet games in chat channels, by text commands.

KhetBot (bot.py) is the platform-neutral core: lines in, Messages out, and
each game's events relayed to its channel. IrcAdapter (irc_adapter.py)
puts it on an IRC server, XmppAdapter (xmpp_adapter.py, which needs
slixmpp, so it is imported from there) in XMPP rooms; another platform needs
only another adapter.
"""

from .bot import KhetBot
from .irc_adapter import IrcAdapter
from .message import MAX_MESSAGE_CHARS, Message

__all__ = ["IrcAdapter", "KhetBot", "MAX_MESSAGE_CHARS", "Message"]
