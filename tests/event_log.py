"""What widgets receive of one kind of event: the paints, resizes or layout requests a test
counts to show that a click repainted or re-laid out no more than it had to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject


def _receiver(watched: QObject, _event: QEvent) -> QObject:
    return watched


class EventLog(QObject):
    """Records, in order, what ``record`` makes of each event of ``kinds`` that the watched
    objects receive (by default, the object that received it); it lets every event through.

    Its parent is the first watched object, so it goes when that goes."""

    def __init__(
        self,
        kinds: QEvent.Type | tuple[QEvent.Type, ...],
        *watched: QObject,
        record: Callable[[QObject, QEvent], Any] = _receiver,
    ) -> None:
        super().__init__(watched[0] if watched else None)
        self.kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        self.record = record
        self.seen: list[Any] = []
        self.watch(*watched)

    def watch(self, *watched: QObject) -> None:
        for thing in watched:
            thing.installEventFilter(self)

    @property
    def count(self) -> int:
        return len(self.seen)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() in self.kinds:
            self.seen.append(self.record(watched, event))
        return False
