# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""khet_client: a small Python client for khetd (khet.v1.KhetService).

    from khet_client import Client

    with Client("127.0.0.1:50051") as client:
        owner = client.create_session("lunch game", setup_id="classic-2")
        alice = client.join(owner.session_id, "alice")
        owner.seat_computer(level=2)          # the computer takes Red
        print(alice.move("j5-j6").announcement)
        for event in client.watch(owner.session_id, after_version=0):
            print(event.version, event.announcement)

See clients/python/README.md. Failed calls raise KhetError (grpc code and
the server's message); the khet.v1 messages are khet_client.game and
khet_client.service.
"""

from .client import Client, Owner, Player
from .errors import KhetError
from .events import EventStream
from .local_server import LocalKhetd
from .moves import color_name, move_top, rotate, step
from .stubs import game, service

__all__ = [
    "Client", "EventStream", "KhetError", "LocalKhetd", "Owner", "Player",
    "color_name", "game", "move_top", "rotate", "service", "step",
]
