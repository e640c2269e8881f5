# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""LinePacer: how fast the bot may send lines to a chat server.

A token bucket: `burst` lines may go at once, after which one more may go
every `interval` seconds. IRC servers throttle or disconnect clients that
send faster (ngircd by default adds a second of penalty per line beyond a
few). The clock and the sleep are injectable, so the pacing is tested
without waiting.
"""

import time


class LinePacer:

    def __init__(self, burst, interval, clock=time.monotonic,
                 sleep=time.sleep):
        if burst < 1 or interval < 0:
            raise ValueError(f"a pacer needs burst >= 1 and interval >= 0, "
                             f"got burst {burst} and interval {interval}")
        self.burst = burst
        self.interval = interval
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._last = clock()

    def wait_turn(self):
        """Returns when the next line may be sent, having counted it."""
        if self.interval == 0:
            return
        now = self._clock()
        self._tokens = min(self.burst,
                           self._tokens + (now - self._last) / self.interval)
        self._last = now
        if self._tokens < 1:
            self._sleep((1 - self._tokens) * self.interval)
            self._tokens, self._last = 1.0, self._clock()
        self._tokens -= 1
