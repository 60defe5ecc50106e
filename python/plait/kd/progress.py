"""Progress bars for long `kd.map_py` / `kd.map` calls (tqdm-like, no
dependency).

A bar is shown when the work has at least `MIN_ITEMS` items and the output
is a terminal or a notebook; elsewhere (pipes, CI logs) it stays off.
`kd.progress.set_enabled(False)` (or `PLAIT_PROGRESS=0`) turns bars off,
`set_enabled(True)` on everywhere, `set_enabled(None)` back to automatic.
"""

import os
import sys
import threading
import time

__all__ = ["MIN_ITEMS", "Bar", "bar", "enabled", "set_enabled"]

# Fewer items than this finish too fast to need a bar.
MIN_ITEMS = 10_000

_forced = None


def set_enabled(value):
    """Turns progress bars on (True) or off (False) everywhere, or back to automatic (None).

    Automatic means a bar is shown only for large inputs written to a terminal
    or a notebook (see `kd.progress.enabled`); the environment variable
    `PLAIT_PROGRESS=0` also turns them off.

    Args:
      value: True, False or None.

    Examples:
      >>> kd.progress.set_enabled(True)
      >>> kd.progress.enabled(5)
      True
      >>> kd.progress.set_enabled(None)
    """
    global _forced
    _forced = value


def _in_notebook():
    return "ipykernel" in sys.modules


def enabled(total, stream=None):
    """Returns whether a progress bar for `total` items would be shown on `stream`.

    Unless set by `kd.progress.set_enabled`, bars are shown only when `stream`
    is a terminal (or the code runs in a notebook) and `total` is at least
    `kd.progress.MIN_ITEMS`.

    Args:
      total: the number of items of the work.
      stream: the output stream of the bar (`sys.stderr` by default).

    Examples:
      >>> import io
      >>> kd.progress.enabled(100_000, stream=io.StringIO())
      False
      >>> kd.progress.enabled(0)
      False
    """
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
        # Tasks on several threads may finish at once.
        self._lock = threading.Lock()

    def __enter__(self):
        self._draw()
        return self

    def update(self, k=1):
        with self._lock:
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


def bar(total, desc, items=None):
    """Returns a progress bar for `total` items, to use as a context manager.

    Call `update()` once per finished item (or `update(k)` for k items). When
    no bar would be shown (see `kd.progress.enabled`), the returned object
    accepts the same calls and prints nothing.

    Args:
      total: the number of items of the work.
      desc: the label printed in front of the bar.
      items: how many items the work covers, when its units are larger
        (tasks over many rows): whether a bar is shown depends on it.

    Examples:
      >>> with kd.progress.bar(3, 'work') as b:
      ...   for _ in range(3):
      ...     b.update()
    """
    return Bar(total, desc) if enabled(total if items is None else items) else _NoBar()
