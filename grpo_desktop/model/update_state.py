"""The Update workspace's state: which token is selected, and its snapshot, kept in step.

A plain QObject (no widget), made by :class:`~grpo_desktop.model.workspaces.WorkspaceStates`.
It follows the workbench's main lab and update settings and rebuilds one
:class:`~grpo_desktop.core.update.update_snapshot.UpdateSnapshot` per change, but only while its
gate
(the workspace shown) is open: a click in the lab costs nothing extra when nobody looks at the
update. Selecting a token is presentation, not an edit, so it is not on the undo stack.

When the lab's group was written by the tiny language model, the step runs on the model itself
(:mod:`grpo_desktop.core.tinylm.lm_update`): each checkpoint is loaded once and kept, and the
group's start (its tokens' log-probabilities, the held-out prompts') is read once per group, so
a click pays only for the steps. A checkpoint that cannot be loaded, or a group the model cannot
read, falls back to the stand-in with one plain sentence in the status.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from grpo_desktop.core.update.update_snapshot import UpdateSnapshot
from grpo_desktop.core.update.update_step import build_update_snapshot
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench

if TYPE_CHECKING:  # the tiny model loads the first time a group of its own is shown
    from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
    from grpo_desktop.core.lab.recorded_group import RecordedGroup
    from grpo_desktop.core.tinylm.lm_update import LMUpdateStart
    from grpo_desktop.core.tinylm.model import TinyLM


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
        self._start: tuple[tuple, LMUpdateStart | str] | None = None  # the group's, once
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
        snapshot = self._build()
        if snapshot.selected is None:
            self._selected = None  # the group shrank past the selected token
        self._snapshot = snapshot
        self._stale = False
        if emit:
            self.snapshot_changed.emit(snapshot)

    def _build(self) -> UpdateSnapshot:
        lab = self._workbench.lab.snapshot
        settings = self._workbench.update_settings
        recorded = lab.recorded
        if recorded is None or not recorded.from_model:
            return build_update_snapshot(lab, settings, self._selected)
        start = self._start_for(recorded)
        if not isinstance(start, str):
            from grpo_desktop.core.tinylm.lm_update import build_lm_update_snapshot

            try:
                return build_lm_update_snapshot(start, lab, settings, self._selected)
            except ValueError as error:
                start = f"The tiny model cannot step this group ({error})"
        return self._on_standin(lab, f"{start}, so the step runs on the stand-in policy.")

    def _on_standin(self, lab: LabSnapshot, why: str) -> UpdateSnapshot:
        snapshot = build_update_snapshot(lab, self._workbench.update_settings, self._selected)
        return replace(snapshot, status=why)

    def _start_for(self, recorded: RecordedGroup) -> LMUpdateStart | str:
        """The group read by its checkpoint's model (kept while the group stays), or why not."""
        key = (recorded.file_name, recorded.prompt, recorded.texts)
        if self._start is not None and self._start[0] == key:
            return self._start[1]
        model = self._model_for(recorded.file_name)
        if isinstance(model, str):
            start: LMUpdateStart | str = model
        else:
            from grpo_desktop.core.tinylm.lm_update import LMUpdateStart

            try:
                start = LMUpdateStart(model, recorded.prompt, recorded.texts)
            except ValueError as error:
                start = f"The tiny model cannot read this group ({error})"
        self._start = (key, start)
        return start

    def _model_for(self, file_name: str) -> TinyLM | str:
        """The checkpoint's model, loaded once per name, or why it cannot be (a failure is tried
        again with the next group: the file may have been put right)."""
        from grpo_desktop.core.tinylm.lab_group import group_model

        try:
            return group_model(file_name)
        except (ValueError, OSError) as error:  # CheckpointError: one line that names the file
            return f"The group's checkpoint cannot be loaded ({error})"
