"""The one rule for "compute only while shown" (used by every workspace's state and view).

Work asked for while a part is hidden waits (the latest request of each kind replaces the one
before) and runs once when the part shows again. :class:`~grpo_desktop.model.workspaces.
WorkspaceStates` keeps a gate per workspace, following the workbench; a part hidden another way
(a tab) drives a gate of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import QObject, Signal

__all__ = ["ShownGate"]


class ShownGate(QObject):
    """Runs work now while shown; while hidden keeps the latest of each kind, run once on show."""

    shown_changed = Signal(bool)

    def __init__(self, shown: bool = False, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._shown = shown
        self._pending: dict[Hashable, Callable[[], object]] = {}

    @property
    def shown(self) -> bool:
        return self._shown

    def call(self, key: Hashable, work: Callable[[], object]) -> None:
        """``work()`` now if shown; else kept under ``key`` (replacing what waited there)."""
        if self._shown:
            self._pending.pop(key, None)
            work()
        else:
            self._pending[key] = work

    def set_shown(self, shown: bool) -> None:
        """On screen or not; showing runs what waited, each kind once, in the order asked."""
        if shown == self._shown:
            return
        self._shown = shown
        if shown:
            while self._pending and self._shown:
                key = next(iter(self._pending))
                self._pending.pop(key)()
        self.shown_changed.emit(shown)
