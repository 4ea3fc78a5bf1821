"""Every workspace's state, owned by the model, and the one rule for "compute only while shown".

The Update and Training workspaces keep state a widget must not own (the selected token and its
update snapshot; the run, playing or paused): :class:`WorkspaceStates` makes each the first time
it is asked for, so the views only render what the model holds, and a lesson or an export talks
to the model, not to a page. The lab's own views and its worked math follow the same rule.

:class:`~grpo_desktop.model.shown_gate.ShownGate` is that rule (work asked for while a part is
hidden waits, and runs once when it shows again); a gate per workspace follows the workbench's
``workspace_changed``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from grpo_desktop.core.lab.lab_limits import WORKSPACES
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE, Workbench

if TYPE_CHECKING:  # the Update and Training states load the first time they are asked for
    from grpo_desktop.core.training.run import TrainingRun
    from grpo_desktop.model.lm_training_state import LMTrainingState
    from grpo_desktop.model.training_state import TrainingState
    from grpo_desktop.model.update_state import UpdateState

__all__ = ["LAB_VIEWS", "ShownGate", "WorkspaceStates"]

#: The workspaces under which the main lab's views and worked math count as shown: the Lab, and
#: the comparison (which keeps the lab's page one click away). The Update and Training
#: workspaces show the lab's group their own way, and the lab waits meanwhile.
LAB_VIEWS = (LAB, COMPARE)


class WorkspaceStates(QObject):
    """The workspaces' model state: a gate per workspace, and the Update and Training states
    (the toy run's and the tiny model's)."""

    def __init__(self, workbench: Workbench, parent: QObject | None = None) -> None:
        super().__init__(parent if parent is not None else workbench)
        self.workbench = workbench
        shown = workbench.workspace
        self._gates = {name: ShownGate(name == shown, self) for name in WORKSPACES}
        self.lab_gate = ShownGate(shown in LAB_VIEWS, self)  # the main lab's views, its math
        self._update: UpdateState | None = None
        self._training: TrainingState | None = None
        self._lm_training: LMTrainingState | None = None
        workbench.workspace_changed.connect(self._follow)

    def gate(self, workspace: str) -> ShownGate:
        """The gate open exactly while ``workspace`` shows."""
        return self._gates[workspace]

    @property
    def update(self) -> UpdateState:
        """The Update workspace's state: the selected token and the update snapshot."""
        if self._update is None:
            from grpo_desktop.model.update_state import UpdateState

            self._update = UpdateState(self.workbench, self, self._gates[UPDATE])
        return self._update

    @property
    def training(self) -> TrainingState:
        """The Training workspace's state: the run, played with a timer."""
        if self._training is None:
            from grpo_desktop.model.training_state import TrainingState

            self._training = TrainingState(self.workbench, self, self._gates[TRAINING])
        return self._training

    @property
    def lm_training(self) -> LMTrainingState:
        """The Training workspace's state on the tiny language model: its run, stepped in a
        worker process (it works only while the workspace shows with the tiny model chosen)."""
        if self._lm_training is None:
            from grpo_desktop.model.lm_training_state import LMTrainingState

            self._lm_training = LMTrainingState(self.workbench, self, self._gates[TRAINING])
        return self._lm_training

    def training_run(self) -> TrainingRun | None:
        """The Training workspace's run, or None if nothing ever asked for it."""
        return None if self._training is None else self._training.run

    def stop(self) -> None:
        """The window is closing: a run playing stops with it."""
        if self._training is not None:
            self._training.stop()
        if self._lm_training is not None:
            self._lm_training.stop()  # its worker ends its step and is joined

    def _follow(self, workspace: str) -> None:
        for name, gate in self._gates.items():  # the one left first, then the one shown
            if name != workspace:
                gate.set_shown(False)
        self._gates[workspace].set_shown(True)
        self.lab_gate.set_shown(workspace in LAB_VIEWS)
