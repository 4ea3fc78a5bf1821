"""The Lab's "Take one step": whether it was taken, and each answer's before and after, kept live.

A plain QObject (no widget). Taking the step is one undo step on the workbench's stack (Ctrl+Z
takes it back); once taken, the before/after follows the group (a card click shows the step the
new group would take), the one convention, the Update workspace's loss preset and the policy that
wrote the answers: the toy's softmax over the problem's written answers, or the tiny language
model for a group it sampled. Computed only while its tab shows (a gate, as every other view).
"""

from __future__ import annotations

from pathlib import PurePath

from PySide6.QtCore import QObject, Signal

from grpo_desktop.core.training.one_step import OneStepPicture
from grpo_desktop.model import commands
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench

__all__ = ["OneStepState"]


class OneStepState(QObject):
    """Taken or not; the step of the main lab's group, rebuilt while shown."""

    picture_changed = Signal(object)  # OneStepPicture

    def __init__(
        self, workbench: Workbench, parent: QObject | None = None, gate: ShownGate | None = None
    ) -> None:
        super().__init__(parent)
        self._workbench = workbench
        self._taken = False
        self._picture = OneStepPicture(taken=False)
        self.gate = gate if gate is not None else ShownGate(parent=self)
        workbench.lab.snapshot_changed.connect(self._invalidate)
        workbench.convention_changed.connect(self._invalidate)
        workbench.update_settings_changed.connect(self._invalidate)

    @property
    def taken(self) -> bool:
        return self._taken

    @property
    def picture(self) -> OneStepPicture:
        return self._picture

    def take(self) -> None:
        """Take the step (one undo step); nothing when it is already on screen."""
        if not self._taken:
            self._workbench.undo_stack.push(
                commands.SettingsCommand(self.set_taken, False, True, "Take one step")
            )

    def set_taken(self, taken: bool) -> None:
        """The command's redo and undo."""
        self._taken = bool(taken)
        self._invalidate()

    def _invalidate(self, *_changed: object) -> None:
        self.gate.call(self, self._rebuild)

    def _rebuild(self) -> None:
        self._picture = self._build() if self._taken else OneStepPicture(taken=False)
        self.picture_changed.emit(self._picture)

    def _build(self) -> OneStepPicture:
        from grpo_desktop.core.training.one_step import step_caption

        workbench = self._workbench
        snapshot = workbench.lab.snapshot
        preset = workbench.update_settings.preset
        recorded = snapshot.recorded
        rewards = [card.reward for card in snapshot.cards]
        try:
            if recorded is not None and recorded.from_model:
                from grpo_desktop.core.tinylm.lab_group import group_model
                from grpo_desktop.core.tinylm.one_step import DEFAULT_MODEL_STEP_LR, model_one_step

                model = group_model(recorded.file_name)
                step = model_one_step(
                    model,
                    recorded.prompt,
                    recorded.texts,
                    rewards,
                    convention=workbench.convention,
                    preset=preset,
                )
                policy = (
                    f"the tiny language model that wrote these answers ({model.n_params:,} "
                    f"parameters, {PurePath(recorded.file_name).name}): one plain gradient step "
                    f"of {preset} at learning rate {DEFAULT_MODEL_STEP_LR:g} on a copy; the "
                    "probability is of writing exactly this answer"
                )
            elif recorded is not None:
                return OneStepPicture(
                    taken=True,
                    unavailable=(
                        "A real run's group: the app does not have the model that wrote it, so "
                        "it cannot take its step. Open a problem, or sample a group from the "
                        "tiny model (Presets ▸ Sample from the tiny model…)."
                    ),
                )
            else:
                from grpo_desktop.core.training.one_step import DEFAULT_STEP_LR, toy_one_step

                problem = snapshot.problem
                step = toy_one_step(
                    problem,
                    [bool(card.correct) for card in snapshot.cards],
                    rewards,
                    convention=workbench.convention,
                    preset=preset,
                )
                policy = (
                    f"the toy policy: a softmax over this problem's {2 * len(problem.traces)} "
                    f"written answers, starting at its pass rate; one step of {preset} at "
                    f"learning rate {DEFAULT_STEP_LR:g} (the Training run's)"
                )
        except (ValueError, OSError) as error:
            return OneStepPicture(taken=True, unavailable=f"No step for this group: {error}")
        return OneStepPicture(True, step, policy, step_caption(step))

