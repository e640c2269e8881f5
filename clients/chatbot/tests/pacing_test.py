# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""LinePacer on a fake clock: a burst at once, then one line per interval."""

import unittest

from khet_chatbot.pacing import LinePacer


class FakeTime:
    def __init__(self):
        self.now = 100.0
        self.slept = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(round(seconds, 6))
        self.now += seconds


class LinePacerTest(unittest.TestCase):

    def setUp(self):
        self.time = FakeTime()
        self.pacer = LinePacer(3, 0.5, self.time.clock, self.time.sleep)

    def test_a_burst_goes_at_once_then_one_line_per_interval(self):
        for _ in range(6):
            self.pacer.wait_turn()
        self.assertEqual(self.time.slept, [0.5, 0.5, 0.5])

    def test_quiet_time_refills_the_burst_up_to_its_size(self):
        for _ in range(3):
            self.pacer.wait_turn()
        self.time.now += 60  # a long pause: a full burst again, no more
        for _ in range(4):
            self.pacer.wait_turn()
        self.assertEqual(self.time.slept, [0.5])

    def test_part_of_an_interval_counts(self):
        for _ in range(3):
            self.pacer.wait_turn()
        self.time.now += 0.2
        self.pacer.wait_turn()
        self.assertEqual(self.time.slept, [0.3])

    def test_interval_zero_never_waits(self):
        pacer = LinePacer(1, 0, self.time.clock, self.time.sleep)
        for _ in range(10):
            pacer.wait_turn()
        self.assertEqual(self.time.slept, [])

    def test_bad_settings_are_refused(self):
        with self.assertRaisesRegex(ValueError, "burst 0"):
            LinePacer(0, 1)
        with self.assertRaisesRegex(ValueError, "interval -1"):
            LinePacer(1, -1)


if __name__ == "__main__":
    unittest.main()
