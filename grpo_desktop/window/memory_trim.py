"""Hand memory the app freed back to the system, every few seconds (glibc's ``malloc_trim``).

Python and Qt free a great deal on every change (snapshots, pixmaps, token chips) and glibc keeps
freed pages for reuse: after 10,000 random actions 8–12 MB of the window's resident size was
memory it had freed (``benchmarks/bench_memory.py``). ``malloc_trim(0)`` hands it back; it takes
about half a millisecond, so a coarse timer calls it between clicks and a window left open on
stage gives back what a busy stretch freed. Elsewhere than glibc (macOS, Windows, musl) there is
nothing to call and this does nothing. The C library is looked up on the first tick, not at
start-up.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer

TRIM_INTERVAL_MS = 5000


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` from the running process's own symbols, or None."""
    import ctypes

    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc (or no dlopen(NULL))
        return None


class MemoryTrim(QObject):
    """Calls ``malloc_trim(0)`` every :data:`TRIM_INTERVAL_MS` while the app runs (Linux)."""

    def __init__(self, parent: QObject, interval_ms: int = TRIM_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._trim: Callable[[int], int] | None = None
        self._looked_up = False
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.VeryCoarseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.trim)
        if sys.platform.startswith("linux"):
            self.timer.start()

    @property
    def available(self) -> bool:
        self._look_up()
        return self._trim is not None

    def trim(self) -> None:
        self._look_up()
        if self._trim is None:
            self.timer.stop()  # nothing to call here: stop asking
            return
        self._trim(0)

    def _look_up(self) -> None:
        if not self._looked_up:
            self._looked_up = True
            self._trim = _malloc_trim()
