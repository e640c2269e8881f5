"""khet-chatbot: the Khet bot on an IRC server.

    python3 -m khet_chatbot --khetd 127.0.0.1:50051 --irc 127.0.0.1:6667 \\
        --nick khetbot --channel '#khet' --web_url https://khet.example.org \\
        --state khetbot.sqlite

A lost or refused IRC connection is made again after a wait that doubles
from 1 s up to --reconnect-max seconds. The channels' games live in the
--state file, so a restarted bot carries on with them. Exits 0 on SIGTERM
or SIGINT (after QUIT), 2 on bad flags.
"""

import argparse
import signal
import sys
import urllib.parse

from khet_client import Client

from .bot import KhetBot
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
        description="Runs Khet games in IRC channels by text commands.")
    parser.add_argument("--khetd", default="127.0.0.1:50051",
                        help="khetd's address (default %(default)s)")
    parser.add_argument("--irc", type=host_and_port, required=True,
                        help="the IRC server, HOST:PORT")
    parser.add_argument("--nick", default="khetbot")
    parser.add_argument("--channel", action="append", required=True,
                        help="a channel to join; may be repeated")
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
    return flags


def main(argv=None):
    flags = parse_flags(argv)
    log = lambda line: print(f"khet-chatbot: {line}", file=sys.stderr,
                             flush=True)
    client = Client(flags.khetd)
    state = BotState(flags.state)
    host, port = flags.irc
    adapter = IrcAdapter(
        host, port, flags.nick, flags.channel,
        lambda say: KhetBot(client, say, prefix=flags.prefix,
                            web_url=flags.web_url, line_chars=MAX_TEXT_BYTES,
                            analysis_ms_per_ply=flags.analysis_ms_per_ply,
                            state=state),
        line_interval=flags.line_interval, burst=flags.burst, log=log)
    reconnector = Reconnector(
        adapter.run, lambda line: log(f"IRC server {host}:{port}: {line}"),
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
