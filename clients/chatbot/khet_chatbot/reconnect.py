# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Reconnector: keeps a chat connection up.

It runs `connect_once()` (which serves one connection until the server
closes it, and raises OSError if it cannot connect or the connection
breaks), then waits and runs it again: 1 s at first, doubling after each
failure up to `most` seconds, and back to the first wait after a connection
that stayed up longer than `most`. stop() ends the waiting and the loop.
"""

import threading
import time


class Reconnector:

    def __init__(self, connect_once, log, *, first=1.0, most=60.0,
                 clock=time.monotonic):
        self._connect_once = connect_once
        self._log = log
        self._first = first
        self._most = most
        self._clock = clock
        self._stopped = threading.Event()

    @property
    def stopped(self):
        return self._stopped.is_set()

    def stop(self):
        self._stopped.set()

    def run(self):
        """Returns once stop() was called."""
        delay = self._first
        while not self._stopped.is_set():
            began = self._clock()
            try:
                self._connect_once()
                why = "the server closed the connection"
            except OSError as error:
                why = str(error) or type(error).__name__
            if self._stopped.is_set():
                return
            if self._clock() - began > self._most:
                delay = self._first
            self._log(f"{why}; connecting again in {delay:g} s")
            if self._stopped.wait(delay):
                return
            delay = min(delay * 2, self._most)
