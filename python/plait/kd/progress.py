"""Progress bars for long `kd.map_py` / `kd.map` calls (tqdm-like, no
dependency).

A bar is shown when the work has at least `MIN_ITEMS` items and the output
is a terminal or a notebook; elsewhere (pipes, CI logs) it stays off.
`kd.progress.set_enabled(False)` (or `PLAIT_PROGRESS=0`) turns bars off,
`set_enabled(True)` on everywhere, `set_enabled(None)` back to automatic.
"""

import os
import sys
import time

__all__ = ["MIN_ITEMS", "Bar", "bar", "enabled", "set_enabled"]

# Fewer items than this finish too fast to need a bar.
MIN_ITEMS = 10_000

_forced = None


def set_enabled(value):
    """True / False: always / never show bars; None: automatic."""
    global _forced
    _forced = value


def _in_notebook():
    return "ipykernel" in sys.modules


def enabled(total, stream=None):
    """Whether a bar for `total` items would be shown on `stream`."""
    if _forced is not None:
        return _forced and total > 0
    if os.environ.get("PLAIT_PROGRESS", "").strip() in ("0", "false", "off"):
        return False
    stream = stream or sys.stderr
    interactive = _in_notebook() or (hasattr(stream, "isatty") and stream.isatty())
    return interactive and total >= MIN_ITEMS


class Bar:
    """`with Bar(total, desc) as bar: ... bar.update(k)`; redraws at most
    ten times a second, and once at the end."""

    WIDTH = 30

    def __init__(self, total, desc, stream=None):
        self.total, self.desc = total, desc
        self.stream = stream or sys.stderr
        self.done = 0
        self.start = self.last = time.monotonic()

    def __enter__(self):
        self._draw()
        return self

    def update(self, k=1):
        self.done += k
        now = time.monotonic()
        if now - self.last >= 0.1:
            self.last = now
            self._draw()

    def __exit__(self, *exc):
        self._draw()
        self.stream.write("\n")
        self.stream.flush()
        return False

    def _draw(self):
        fraction = self.done / self.total if self.total else 1.0
        filled = int(fraction * self.WIDTH)
        elapsed = time.monotonic() - self.start
        eta = elapsed / fraction - elapsed if fraction > 0 else 0.0
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r{self.desc}: {fraction:4.0%} |{bar}| {self.done}/{self.total} [{elapsed:.1f}s<{eta:.1f}s]")
        self.stream.flush()


class _NoBar:
    """What `bar` gives when no bar is shown: updates do nothing."""

    def __enter__(self):
        return self

    def update(self, k=1):
        pass

    def __exit__(self, *exc):
        return False


def bar(total, desc):
    """`with bar(total, desc) as b: ... b.update()`: a `Bar` when one would
    be shown (see `enabled`), else one that does nothing."""
    return Bar(total, desc) if enabled(total) else _NoBar()
