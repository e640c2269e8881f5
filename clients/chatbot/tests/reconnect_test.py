# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The Reconnector's waits between connections, on a fake clock."""

import unittest

from khet_chatbot.reconnect import Reconnector


class ReconnectorTest(unittest.TestCase):

    def test_waits_double_after_failures_and_reset_after_a_long_connection(self):
        now = [0.0]
        waits = []
        outcomes = iter(["refused", "refused", "refused", "long", "refused",
                         "stop"])
        reconnector = None

        def connect_once():
            outcome = next(outcomes)
            if outcome == "stop":
                reconnector.stop()
                return
            if outcome == "long":
                now[0] += 100  # a connection that stayed up for a while
                return
            raise ConnectionRefusedError("connection refused")

        def log(line):
            waits.append(float(line.rsplit(" in ", 1)[1].split()[0]))

        reconnector = Reconnector(connect_once, log, first=0.001, most=0.004,
                                  clock=lambda: now[0])
        reconnector.run()
        self.assertEqual(waits, [0.001, 0.002, 0.004, 0.001, 0.002])
        self.assertTrue(reconnector.stopped)

    def test_stop_ends_the_wait(self):
        reconnector = None

        def connect_once():
            reconnector.stop()
            raise OSError("gone")

        reconnector = Reconnector(connect_once, lambda line: None, first=60)
        reconnector.run()  # returns at once, not after 60 s
        self.assertTrue(reconnector.stopped)


if __name__ == "__main__":
    unittest.main()
