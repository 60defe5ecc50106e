"""Counts how many calls of a function run at once: concurrency tests
assert on the count, never on timings (a loaded machine must not fail
them)."""

import threading
import time


class ConcurrencyProbe:
    """`probe.work(x)` sleeps `seconds` and returns `x`; `probe.most` is the
    largest number of calls that were running at once."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()

    def work(self, x):
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(self.seconds)
        with self._lock:
            self.running -= 1
        return x
