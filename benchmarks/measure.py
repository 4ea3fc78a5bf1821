"""What several benchmarks measure the same way: percentiles, and how long a key press waits.

Imported by the scripts beside it (``python benchmarks/bench_….py`` puts this folder on the path).
Qt is imported inside :func:`key_waits`, so scripts that spawn processes before loading Qt can
still use :func:`percentile`.
"""

from __future__ import annotations

import time
from typing import Any


def machine_reference_ms(repeats: int = 5) -> float:
    """This machine's speed today: the fastest of ``repeats`` runs of a fixed pure-Python loop
    (two million additions), in ms. Printed beside absolute figures, so that figures taken on
    different days (the machine's CPU share has changed between sessions) can be compared."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        total = 0
        for value in range(2_000_000):
            total += value
        best = min(best, time.perf_counter() - start)
    return best * 1000


def percentile(values: list[float], fraction: float) -> float:
    """The value at ``fraction`` of the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def key_waits(app: Any, window: Any) -> tuple[list[float], Any]:
    """Time key presses posted to ``window``: returns the list the waits (seconds) go into, and
    a function that posts one press. F24 is used: no shortcut of the app listens to it."""
    from PySide6.QtCore import QEvent, QObject, Qt
    from PySide6.QtGui import QKeyEvent

    waits: list[float] = []
    sent: list[float] = []

    class KeyProbe(QObject):
        def eventFilter(self, obj, event):  # Qt override
            if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_F24 and sent:
                waits.append(time.perf_counter() - sent.pop())
                return True
            return False

    probe = KeyProbe(window)  # lives as long as the window
    window.installEventFilter(probe)

    def send_key() -> None:
        sent.append(time.perf_counter())
        app.postEvent(
            window, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_F24, Qt.KeyboardModifier.NoModifier)
        )

    return waits, send_key


def post_click(app: Any, viewport: Any, point: Any) -> None:
    """Post a real left press and release at ``point`` (a QPointF in ``viewport``) to Qt's event
    queue, as a hand's click arrives while the event loop runs (not handled at once)."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent

    global_point = QPointF(viewport.mapToGlobal(point.toPoint()))
    button, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    for kind, buttons in (
        (QEvent.Type.MouseButtonPress, button),
        (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton),
    ):
        app.postEvent(viewport, QMouseEvent(kind, point, global_point, button, buttons, mods))
