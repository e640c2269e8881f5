# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""khet-chatbot: the Khet bot on an IRC server or in XMPP rooms.

    python3 -m khet_chatbot --khetd 127.0.0.1:50051 --irc 127.0.0.1:6667 \\
        --nick khetbot --channel '#khet' --web_url https://khet.example.org \\
        --state khetbot.sqlite
    python3 -m khet_chatbot --xmpp khetbot@example.org \\
        --xmpp-password-file secret --channel khet@conference.example.org \\
        --state khetbot.sqlite

A lost or refused connection is made again after a wait that doubles from
1 s up to --reconnect-max seconds. The channels' games live in the
--state file, so a restarted bot carries on with them. Exits 0 on SIGTERM
or SIGINT (after QUIT), 2 on bad flags.
"""

import argparse
import signal
import sys
import urllib.parse

from khet_client import Client

from .bot import DEFAULT_LINE_CHARS, KhetBot
from .irc_adapter import IrcAdapter
from .irc_text import MAX_TEXT_BYTES
from .reconnect import Reconnector
from .state import BotState


def host_and_port(text):
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f'"{text}" is not HOST:PORT')
    return host, int(port)


def web_url(text):
    """An http(s) base URL with a host and nothing after its path."""
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(
            f'"{text}" is not an http:// or https:// URL with a host')
    if parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(
            f'"{text}" has a query or fragment; give the base URL only')
    return text.rstrip("/")


def parse_flags(argv):
    parser = argparse.ArgumentParser(
        prog="khet-chatbot",
        description="Runs Khet games in IRC channels or XMPP rooms by "
                    "text commands.")
    parser.add_argument("--khetd", default="127.0.0.1:50051",
                        help="khetd's address (default %(default)s)")
    network = parser.add_mutually_exclusive_group(required=True)
    network.add_argument("--irc", type=host_and_port,
                         help="the IRC server, HOST:PORT")
    network.add_argument("--xmpp", metavar="JID",
                         help="the bot's XMPP account, e.g. "
                              "khetbot@example.org; --channel then names "
                              "multi-user chat rooms")
    parser.add_argument("--xmpp-password-file",
                        help="the file holding the XMPP account's password")
    parser.add_argument("--xmpp-server", type=host_and_port,
                        help="the XMPP server, HOST:PORT (default: found "
                             "from the JID's domain)")
    parser.add_argument("--nick", default="khetbot")
    parser.add_argument("--channel", action="append", required=True,
                        help="a channel (IRC) or room (XMPP) to join; may be "
                             "repeated")
    parser.add_argument("--prefix", default="!",
                        help="what starts a command (default %(default)s)")
    parser.add_argument("--line-interval", type=float, default=0.5,
                        help="seconds between lines after a burst "
                             "(default %(default)s)")
    parser.add_argument("--burst", type=int, default=5,
                        help="lines sent at once before pacing "
                             "(default %(default)s)")
    parser.add_argument("--web_url", "--web-url", type=web_url,
                        help="khetd's HTTP gateway as players reach it, "
                             "e.g. https://khet.example.org: !record answers "
                             "with a download link there")
    parser.add_argument("--analysis-ms-per-ply", type=int, default=0,
                        help="the computer's time per ply for !analyse "
                             "(default: the server's)")
    parser.add_argument("--state", default=":memory:",
                        help="the SQLite file that keeps the channels' games "
                             "and seats across restarts (default: none, "
                             "the games are forgotten on exit)")
    parser.add_argument("--reconnect-max", type=float, default=60.0,
                        help="the longest wait, in seconds, before "
                             "connecting to the chat server again "
                             "(default %(default)s)")
    flags = parser.parse_args(argv)
    if flags.burst < 1 or flags.line_interval < 0:
        parser.error("--burst must be at least 1 and --line-interval at "
                     "least 0")
    if flags.analysis_ms_per_ply < 0:
        parser.error("--analysis-ms-per-ply must be at least 0")
    if flags.reconnect_max < 1:
        parser.error("--reconnect-max must be at least 1")
    if flags.xmpp and not flags.xmpp_password_file:
        parser.error("--xmpp needs --xmpp-password-file")
    return flags


def main(argv=None):
    flags = parse_flags(argv)
    log = lambda line: print(f"khet-chatbot: {line}", file=sys.stderr,
                             flush=True)
    client = Client(flags.khetd)
    state = BotState(flags.state)

    def make_core(say, line_chars):
        return KhetBot(client, say, prefix=flags.prefix,
                       web_url=flags.web_url, line_chars=line_chars,
                       analysis_ms_per_ply=flags.analysis_ms_per_ply,
                       state=state)

    if flags.xmpp:
        # slixmpp is needed only here (a test package: scripts/setup.sh).
        from .xmpp_adapter import XmppAdapter
        with open(flags.xmpp_password_file, encoding="utf-8") as secret:
            password = secret.read().strip()
        adapter = XmppAdapter(
            flags.xmpp, password, flags.channel, flags.nick,
            lambda say: make_core(say, DEFAULT_LINE_CHARS),
            server=flags.xmpp_server, log=log)
        where = f"XMPP account {flags.xmpp}"
    else:
        host, port = flags.irc
        adapter = IrcAdapter(
            host, port, flags.nick, flags.channel,
            lambda say: make_core(say, MAX_TEXT_BYTES),
            line_interval=flags.line_interval, burst=flags.burst, log=log)
        where = f"IRC server {host}:{port}"
    reconnector = Reconnector(adapter.run,
                              lambda line: log(f"{where}: {line}"),
                              most=flags.reconnect_max)

    def stop(signum, frame):
        reconnector.stop()
        adapter.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        reconnector.run()
    finally:
        adapter.close()
        state.close()
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
