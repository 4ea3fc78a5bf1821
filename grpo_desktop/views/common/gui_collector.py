"""Python's garbage collector stays off worker threads: paused while any worker is out.

CPython runs a collection on whichever thread allocates when one is due. One run on a worker
thread (the typesetter, the tiny model loading, a sweep of runs, a rollout file being read, an
animation's frames) frees the cyclic garbage of the moment there, Qt objects included: Qt then
stops their timers from the wrong thread ("Timers cannot be stopped from another thread"), its
locks deadlocked against the GUI thread's once, and a later event on the GUI thread crashed
(a segmentation fault in a shuffled run of the suite, after the model dialog's loader had
collected a closed window's widgets). So automatic collection is off while a worker is out;
the GUI thread still collects in idle time (``collect_while_idle`` runs it when it is on), and
it comes back on once the last worker has ended. Everything here runs on the GUI thread.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

from PySide6.QtCore import QTimer

__all__ = ["pause", "paused", "resume", "resume_when", "start_worker"]

REAP_MS = 25  # how often ended workers are looked for while some are out

_pauses = 0  # pause() calls not yet resumed
_switched_off = False  # automatic collection was on, and a pause switched it off
_waiting: list[Callable[[], bool]] = []  # a pause each, resumed once it returns True


def pause() -> None:
    """No automatic collection from now until the matching :func:`resume`."""
    global _pauses, _switched_off
    if _pauses == 0 and gc.isenabled():
        gc.disable()
        _switched_off = True
    _pauses += 1


def resume() -> None:
    """Undo one :func:`pause`; the last one switches automatic collection back on (if a pause
    had switched it off: a collector someone else turned off stays off)."""
    global _pauses, _switched_off
    if _pauses == 0:
        raise RuntimeError("resume() without a pause()")
    _pauses -= 1
    if _pauses == 0 and _switched_off:
        _switched_off = False
        gc.enable()


def paused() -> bool:
    return _pauses > 0


def resume_when(ended: Callable[[], bool]) -> None:
    """Undo one :func:`pause` once ``ended()`` is true (asked every ``REAP_MS`` on the GUI
    thread): when the worker's threads have ended, not merely signalled, for their last lines
    allocate too. Their owner may be gone by then."""
    _waiting.append(ended)
    if len(_waiting) == 1:
        QTimer.singleShot(REAP_MS, _reap)


def start_worker(target: Callable[[], None], name: str) -> threading.Thread:
    """``target`` on a new daemon thread, with the collector paused until the thread ends."""
    pause()
    thread = threading.Thread(target=target, name=name, daemon=True)
    try:
        thread.start()
    except BaseException:
        resume()
        raise
    resume_when(lambda: not thread.is_alive())
    return thread


def _reap() -> None:
    """Resume once for each worker that has ended; look again later while some are out."""
    for ended in [ended for ended in _waiting if ended()]:
        _waiting.remove(ended)
        resume()
    if _waiting:
        QTimer.singleShot(REAP_MS, _reap)
