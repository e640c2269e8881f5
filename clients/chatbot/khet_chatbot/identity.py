# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Player ids for chat identities: what the bot vouches for when it seats a
player, so that rated games rate the same person across games.

khetd takes a player id of 1-128 characters: letters, digits and
- _ . : @ / + only. A chat identity may hold other characters (IRC nicks
have [ ] \\ ` ^ { | }, JIDs almost anything), so each such character is
written as "+" and its UTF-8 bytes in two lower-case hex digits, "+" itself
included: the mapping stays one to one. An identity too long for 128
characters has no id (its player plays unrated).
"""

import string

MAX_PLAYER_ID = 128
_KEPT = frozenset(string.ascii_letters + string.digits + "-_.:@/")
# RFC 1459 case mapping: these are the upper case of { } | ^ on IRC.
_IRC_LOWER = str.maketrans("[]\\~", "{}|^")


def escape(text):
    """`text` with every character a player id may not hold as +hh."""
    return "".join(c if c in _KEPT else
                   "".join(f"+{b:02x}" for b in c.encode("utf-8"))
                   for c in text)


def _bounded(player_id):
    return player_id if len(player_id) <= MAX_PLAYER_ID else None


def irc_lower(nick):
    return nick.lower().translate(_IRC_LOWER)


def irc_player_id(network, nick):
    """"irc:<network>/<nick>", both in lower case (IRC's nicks ignore case);
    `network` is the network's name (ISUPPORT NETWORK) or its server."""
    if not network or not nick:
        return None
    return _bounded(f"irc:{escape(network.lower())}/{escape(irc_lower(nick))}")


def xmpp_player_id(bare_jid):
    """"xmpp:<bare jid>" (lower case); None when the JID is unknown, as in a
    room that hides its occupants' JIDs."""
    if not bare_jid:
        return None
    return _bounded(f"xmpp:{escape(str(bare_jid).lower())}")
