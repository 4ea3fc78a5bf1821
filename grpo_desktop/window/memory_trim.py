"""Hand memory the app freed back to the system, every few seconds (glibc's ``malloc_trim``).

Python and Qt free a great deal on every change (snapshots, pixmaps, token chips) and glibc keeps
freed pages for reuse: after 10,000 random actions 8–12 MB of the window's resident size was
memory it had freed (``benchmarks/bench_memory.py``). ``malloc_trim(0)`` hands it back; it takes
about half a millisecond, so a coarse timer calls it between clicks and a window left open on
stage gives back what a busy stretch freed. Elsewhere than glibc (macOS,
Windows, musl) there is nothing to call and this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer

TRIM_INTERVAL_MS = 5000


def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim  # noqa: B018  (only glibc has it)
    except (OSError, AttributeError):  # not glibc
        return None
    return libc


class MemoryTrim(QObject):
    """Calls ``malloc_trim(0)`` every :data:`TRIM_INTERVAL_MS` while the app runs."""

    def __init__(self, parent: QObject, interval_ms: int = TRIM_INTERVAL_MS) -> None:
        super().__init__(parent)
        libc = _glibc()
        self._trim: Callable[[int], int] | None = None
        if libc is not None:
            self._trim = libc.malloc_trim
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.VeryCoarseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.trim)
        if self._trim is not None:
            self.timer.start()

    @property
    def available(self) -> bool:
        return self._trim is not None

    def trim(self) -> None:
        if self._trim is not None:
            self._trim(0)
