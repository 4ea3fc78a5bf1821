"""The lab state: one QObject that holds what the lecturer set up and scores it.

It is the only caller of ``core`` and of the checker (DESIGN §2). Every change rebuilds one
``LabSnapshot`` and emits ``snapshot_changed`` once; the views render that object and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QObject, Signal

from grpo_desktop import core
from grpo_desktop.core.checker import Verdict, grade
from grpo_desktop.core.lab_limits import check_group_size
from grpo_desktop.core.lab_memento import LabMemento
from grpo_desktop.core.presets import get_preset
from grpo_desktop.core.problems import DEFAULT_PROBLEM_ID, Problem, get_problem, verify_answers
from grpo_desktop.core.snapshot import LabSnapshot, build_snapshot


class LabState(QObject):
    """The problem, each card's right/wrong state and the convention; scores them on change."""

    snapshot_changed = Signal(object)  # LabSnapshot
    problem_changed = Signal(object)  # Problem; emitted before snapshot_changed

    def __init__(
        self,
        problem: Problem | None = None,
        parent: QObject | None = None,
        convention: str = core.DEFAULT_CONVENTION,
    ) -> None:
        super().__init__(parent)
        self._problem = problem or get_problem(DEFAULT_PROBLEM_ID)
        verify_answers(self._problem)
        self._correct: tuple[bool, ...] = self._problem.preset_for(self._problem.group_size)
        self._convention = core.get_convention(convention)
        self._sample_seed: int | None = None
        self._verdicts: dict[tuple[int, bool], Verdict] = {}
        self._snapshot = self._build()

    # --- reading ----------------------------------------------------------------------------

    @property
    def snapshot(self) -> LabSnapshot:
        return self._snapshot

    @property
    def problem(self) -> Problem:
        return self._problem

    @property
    def group_size(self) -> int:
        return len(self._correct)

    @property
    def correct(self) -> tuple[bool, ...]:
        return self._correct

    @property
    def convention(self) -> str:
        return self._convention.name

    def memento(self) -> LabMemento:
        return LabMemento(self._problem, self._correct, self._sample_seed)

    # --- changing ---------------------------------------------------------------------------

    def restore(self, memento: LabMemento) -> None:
        """Put the lab back exactly as ``memento`` describes (undo/redo, reset, scenarios)."""
        self._apply(memento.problem, memento.correct, self._convention, memento.sample_seed)

    def set_problem(self, problem: Problem | str, correct: Sequence[bool] | None = None) -> None:
        """Switch problem; its own preset group unless ``correct`` says otherwise."""
        chosen = get_problem(problem) if isinstance(problem, str) else problem
        flags = tuple(correct) if correct is not None else chosen.preset_for(chosen.group_size)
        self._apply(chosen, flags, self._convention, None)

    def set_group_size(self, group_size: int) -> None:
        """Resize the group; cards that remain keep their state, new ones follow the preset."""
        check_group_size(group_size)
        fresh = self._problem.preset_for(group_size)
        flags = self._correct[:group_size] + fresh[len(self._correct) :]
        self._apply(self._problem, flags, self._convention, None)

    def set_correct(self, index: int, correct: bool) -> None:
        if not 0 <= index < self.group_size:
            raise ValueError(f"card {index + 1} does not exist; the group has {self.group_size}")
        flags = list(self._correct)
        flags[index] = bool(correct)
        self._apply(self._problem, tuple(flags), self._convention, None)

    def toggle(self, index: int) -> None:
        self.set_correct(index, not self._correct[index])

    def set_correct_flags(self, correct: Sequence[bool]) -> None:
        """Set every card at once; the group size becomes ``len(correct)``."""
        flags = tuple(bool(flag) for flag in correct)
        check_group_size(len(flags))
        self._apply(self._problem, flags, self._convention, None)

    def set_convention(self, convention: str | core.Convention) -> None:
        """Only the workbench calls this, for every lab at once: one convention on screen."""
        chosen = core.get_convention(convention)  # a readable ValueError for a bad name
        self._apply(self._problem, self._correct, chosen, self._sample_seed)

    def apply_preset(self, key: str) -> None:
        preset = get_preset(key)
        problem = get_problem(preset.problem_id) if preset.problem_id else self._problem
        flags = preset.correct if preset.correct is not None else (preset.fill,) * self.group_size
        self._apply(problem, flags, self._convention, None)

    def reset(self) -> None:
        """Back to the current problem's own preset group (Reset all)."""
        self.set_problem(self._problem)

    def sample(self, seed: int) -> None:
        """Draw each card right with the problem's pass rate; the same seed gives the same group."""
        draws = np.random.default_rng(seed).random(self.group_size) < self._problem.pass_rate
        self._apply(self._problem, tuple(bool(d) for d in draws), self._convention, seed)

    # --- internals --------------------------------------------------------------------------

    def _apply(
        self,
        problem: Problem,
        correct: tuple[bool, ...],
        convention: core.Convention,
        seed: int | None,
    ) -> None:
        check_group_size(len(correct))
        problem_changed = problem != self._problem
        if problem_changed:
            verify_answers(problem)  # a card must never show reward 1 beside a wrong answer
            self._verdicts.clear()
        unchanged = (
            not problem_changed
            and correct == self._correct
            and convention == self._convention
            and seed == self._sample_seed
        )
        if unchanged:
            return
        self._problem, self._correct = problem, correct
        self._convention, self._sample_seed = convention, seed
        self._snapshot = self._build()
        if problem_changed:
            self.problem_changed.emit(problem)
        self.snapshot_changed.emit(self._snapshot)

    def _verdict(self, index: int, correct: bool) -> Verdict:
        """The checker's verdict on card ``index``'s text; traces repeat, so cache by trace."""
        key = (index % len(self._problem.traces), correct)
        verdict = self._verdicts.get(key)
        if verdict is None:
            text = self._problem.trace_for(index).text(correct)
            verdict = self._verdicts[key] = grade(text, self._problem.answer_key)
        return verdict

    def _build(self) -> LabSnapshot:
        return build_snapshot(
            self._problem, self._correct, self._convention, self._sample_seed, self._verdict
        )
