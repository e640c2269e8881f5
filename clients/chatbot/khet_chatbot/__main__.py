"""khet-chatbot: the Khet bot on an IRC server.

    python3 -m khet_chatbot --khetd 127.0.0.1:50051 --irc 127.0.0.1:6667 \\
        --nick khetbot --channel '#khet' --web_url https://khet.example.org

Exits 0 on SIGTERM or SIGINT (after QUIT), 1 when the IRC connection is
lost or cannot be made, 2 on bad flags.
"""

import argparse
import signal
import sys
import threading
import urllib.parse

from khet_client import Client

from .bot import KhetBot
from .irc_adapter import IrcAdapter
from .irc_text import MAX_TEXT_BYTES


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
    flags = parser.parse_args(argv)
    if flags.burst < 1 or flags.line_interval < 0:
        parser.error("--burst must be at least 1 and --line-interval at "
                     "least 0")
    if flags.analysis_ms_per_ply < 0:
        parser.error("--analysis-ms-per-ply must be at least 0")
    return flags


def main(argv=None):
    flags = parse_flags(argv)
    log = lambda line: print(f"khet-chatbot: {line}", file=sys.stderr,
                             flush=True)
    client = Client(flags.khetd)
    host, port = flags.irc
    adapter = IrcAdapter(
        host, port, flags.nick, flags.channel,
        lambda say: KhetBot(client, say, prefix=flags.prefix,
                            web_url=flags.web_url, line_chars=MAX_TEXT_BYTES,
                            analysis_ms_per_ply=flags.analysis_ms_per_ply),
        line_interval=flags.line_interval, burst=flags.burst, log=log)
    stopped = threading.Event()

    def stop(signum, frame):
        stopped.set()
        adapter.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        adapter.run()
    except OSError as error:
        log(f"IRC server {host}:{port}: {error}")
        return 1
    finally:
        client.close()
    if stopped.is_set():
        return 0
    log("the IRC server closed the connection")
    return 1


if __name__ == "__main__":
    sys.exit(main())
