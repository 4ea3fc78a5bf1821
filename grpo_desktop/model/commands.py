"""Undoable changes: each command records the state before and after, nothing else.

Commands change a lab only through its public methods, and the convention only through the
workbench (DESIGN §2); no view knows undo exists.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QUndoCommand, QUndoStack

from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.formulas.advantages import Convention
from grpo_desktop.core.lab.lab_memento import LabMemento
from grpo_desktop.core.lab.lab_rewards import COMPONENT_LABELS, RewardWeights
from grpo_desktop.core.lab.problems import Problem
from grpo_desktop.model.lab_state import LabState

if TYPE_CHECKING:
    from grpo_desktop.core.lab.recorded_group import RecordedGroup

# Consecutive group-size changes (spinning the G box) merge into one undo step.
GROUP_SIZE_MERGE_ID = 1
# One drag of a card's reward (or one held key) is one undo step: merged by (card, gesture).
SCORE_MERGE_ID = 2
# Spinning one reward function's weight is one undo step: merged by the function's name.
WEIGHT_MERGE_ID = 3


class LabCommand(QUndoCommand):
    """Runs ``change`` on one lab once; undo and redo restore the recorded mementos."""

    def __init__(
        self,
        state: LabState,
        text: str,
        change: Callable[[LabState], None],
        merge_id: int = -1,
        merge_key: Hashable = None,
    ) -> None:
        super().__init__(text)
        self._state = state
        self._change = change
        self._merge_id = merge_id
        self._merge_key = merge_key  # commands merge only with the same id and key
        self._before = state.memento()
        self._after: LabMemento | None = None

    def id(self) -> int:  # Qt override
        return self._merge_id

    def apply(self) -> None:
        """Make the change now, once; it may raise, and then the lab is as it was."""
        if self._after is None:
            self._change(self._state)
            self._after = self._state.memento()
            if self._after == self._before:
                self.setObsolete(True)  # nothing changed: keep it off the undo stack

    def redo(self) -> None:  # Qt override
        if self._after is None:
            self.apply()
        else:
            self._state.restore(self._after)

    def undo(self) -> None:  # Qt override
        self._state.restore(self._before)

    def mergeWith(self, other: QUndoCommand) -> bool:  # Qt override
        if not isinstance(other, LabCommand) or other.id() != self.id() or self.id() < 0:
            return False
        if other._state is not self._state or other._merge_key != self._merge_key:
            return False
        self._after = other._after
        self.setText(other.text())
        self.setObsolete(self._after == self._before)  # spun back to where it started
        return True


class UndoStack(QUndoStack):
    """A QUndoStack that makes a lab change before pushing it.

    QUndoStack.push calls redo; a Python exception there is swallowed by Qt, which keeps the
    command on the stack while its Python side is freed — a crash at the next garbage collection
    (found by the soak, issue 24). Applied first, a change that raises pushes nothing, and the
    lab, which takes a change whole or not at all, stays as it was.
    """

    def push(self, command: QUndoCommand) -> None:
        if isinstance(command, LabCommand):
            command.apply()
        super().push(command)


class ConventionHolder(Protocol):
    """What a convention command changes: the one convention every lab on screen shares."""

    def apply_convention(self, convention: Convention) -> None: ...


class ConventionCommand(QUndoCommand):
    """Switch every group on screen to one convention; undo switches them all back together."""

    def __init__(self, holder: ConventionHolder, before: Convention, after: Convention) -> None:
        super().__init__(f"Convention {after.label}")
        self._holder = holder
        self._before = before
        self._after = after
        if after == before:
            self.setObsolete(True)

    def redo(self) -> None:  # Qt override
        self._holder.apply_convention(self._after)

    def undo(self) -> None:  # Qt override
        self._holder.apply_convention(self._before)


def toggle_trace(state: LabState, index: int, prefix: str = "") -> LabCommand:
    verdict = "wrong" if state.correct[index] else "right"
    return LabCommand(state, f"{prefix}Mark trace {index + 1} {verdict}", lambda s: s.toggle(index))


def set_group_size(state: LabState, group_size: int, prefix: str = "") -> LabCommand:
    return LabCommand(
        state,
        f"{prefix}Group size {group_size}",
        lambda s: s.set_group_size(group_size),
        merge_id=GROUP_SIZE_MERGE_ID,
    )


def apply_reward_pattern(state: LabState, key: str, label: str, prefix: str = "") -> LabCommand:
    return LabCommand(state, f"{prefix}Preset {label}", lambda s: s.apply_reward_pattern(key))


def sample_group(state: LabState, seed: int, prefix: str = "") -> LabCommand:
    return LabCommand(state, f"{prefix}Sample a group (seed {seed})", lambda s: s.sample(seed))


def set_problem(state: LabState, problem: Problem | str, title: str) -> LabCommand:
    """Switch to a shipped problem (by id) or a custom one; ``title`` names the undo step."""
    return LabCommand(state, title, lambda s: s.set_problem(problem))


def set_score(
    state: LabState, index: int, score: float, gesture: int, prefix: str = ""
) -> LabCommand:
    return LabCommand(
        state,
        f"{prefix}Reward of trace {index + 1}: {number(score, 4)}",
        lambda s: s.set_score(index, score),
        merge_id=SCORE_MERGE_ID,
        merge_key=(index, gesture),
    )


def set_weights(
    state: LabState, weights: RewardWeights, changed: str, prefix: str = ""
) -> LabCommand:
    """``changed`` names the reward function whose weight moved (consecutive moves merge);
    empty when all of them were set at once."""
    if not changed:
        return LabCommand(
            state, f"{prefix}Rewards {weights.formula}", lambda s: s.set_weights(weights)
        )
    label = COMPONENT_LABELS.get(changed, changed)
    return LabCommand(
        state,
        f"{prefix}Weight of {label}: {number(weights.as_dict().get(changed, 0.0), 4)}",
        lambda s: s.set_weights(weights),
        merge_id=WEIGHT_MERGE_ID,
        merge_key=changed,
    )


def set_by_hand(state: LabState, by_hand: bool, prefix: str = "") -> LabCommand:
    verb = "on" if by_hand else "off"
    return LabCommand(state, f"{prefix}Continuous rewards {verb}", lambda s: s.set_by_hand(by_hand))


def show_recorded(state: LabState, group: RecordedGroup) -> LabCommand:
    return LabCommand(state, f"Open {group.title}", lambda s: s.show_recorded(group))


def reset_all(state: LabState, prefix: str = "") -> LabCommand:
    return LabCommand(state, f"{prefix}Reset all", lambda s: s.reset())


class SettingsCommand(QUndoCommand):
    """Replace one settings value (the Update workspace's, the training run's) as one undo step.

    ``apply`` puts a value in force (the workbench's ``apply_update_settings`` and the like);
    redo applies ``after`` and undo ``before``: nothing else is recorded.
    """

    def __init__(
        self, apply: Callable[[object], None], before: object, after: object, text: str
    ) -> None:
        super().__init__(text)
        self._apply = apply
        self._before = before
        self._after = after
        if after == before:
            self.setObsolete(True)

    def redo(self) -> None:  # Qt override
        self._apply(self._after)

    def undo(self) -> None:  # Qt override
        self._apply(self._before)
