"""The Update workspace's state: which token is selected, and its snapshot, kept in step.

A plain QObject (no widget), made by :class:`~grpo_desktop.model.workspaces.WorkspaceStates`.
It follows the workbench's main lab and update settings and rebuilds one
:class:`~grpo_desktop.core.update.update_snapshot.UpdateSnapshot` per change, but only while its
gate
(the workspace shown) is open: a click in the lab costs nothing extra when nobody looks at the
update. Selecting a token is presentation, not an edit, so it is not on the undo stack.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from grpo_desktop.core.update.update_snapshot import UpdateSnapshot
from grpo_desktop.core.update.update_step import build_update_snapshot
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench


class UpdateState(QObject):
    """The selected token and the latest update snapshot of the workbench's main lab."""

    snapshot_changed = Signal(object)  # UpdateSnapshot

    def __init__(
        self, workbench: Workbench, parent: QObject | None = None, gate: ShownGate | None = None
    ) -> None:
        super().__init__(parent)
        self._workbench = workbench
        self._selected: tuple[int, int] | None = None
        self._snapshot: UpdateSnapshot | None = None
        self.gate = gate if gate is not None else ShownGate(parent=self)
        self._stale = True
        workbench.lab.snapshot_changed.connect(self._invalidate)
        workbench.update_settings_changed.connect(self._invalidate)
        self.gate.call(self, self._catch_up)  # built the first time the workspace shows

    @property
    def snapshot(self) -> UpdateSnapshot:
        """The current snapshot, built now if a change arrived while the workspace was hidden."""
        if self._stale or self._snapshot is None:
            self._rebuild(emit=False)
        assert self._snapshot is not None
        return self._snapshot

    @property
    def selected(self) -> tuple[int, int] | None:
        return self._selected

    def set_shown(self, shown: bool) -> None:
        """Whether the workspace is on screen; showing it brings a stale snapshot up to date."""
        self.gate.set_shown(shown)

    def select(self, row: int, column: int) -> None:
        """Show the whole computation of token ``column`` of answer ``row``."""
        if (row, column) != self._selected:
            self._selected = (row, column)
            self._rebuild()

    def _invalidate(self, *_args: object) -> None:
        self._stale = True
        self.gate.call(self, self._catch_up)

    def _catch_up(self) -> None:
        if self._stale:
            self._rebuild()

    def _rebuild(self, emit: bool = True) -> None:
        snapshot = build_update_snapshot(
            self._workbench.lab.snapshot, self._workbench.update_settings, self._selected
        )
        if snapshot.selected is None:
            self._selected = None  # the group shrank past the selected token
        self._snapshot = snapshot
        self._stale = False
        if emit:
            self.snapshot_changed.emit(snapshot)
