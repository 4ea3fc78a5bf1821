"""Everything needed to put one lab back exactly as it was: undo, reset, scenario files, lessons.

The convention is not here: it belongs to the whole workbench (every group on screen shares one),
so undoing a change to one lab can never leave it on a different convention from the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grpo_desktop.core.lab.lab_limits import check_group_size
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, build_snapshot
from grpo_desktop.core.lab.problems import Problem, verify_answers

if TYPE_CHECKING:  # a run's rollouts are read on first use, not at start-up
    from grpo_desktop.core.formulas.advantages import Convention
    from grpo_desktop.core.lab.recorded_group import RecordedGroup


@dataclass(frozen=True)
class LabMemento:
    problem: Problem
    correct: tuple[bool, ...]
    sample_seed: int | None
    weights: RewardWeights = field(default_factory=RewardWeights)
    #: Continuous mode: each card's hand-set reward, in place of its reward functions' sum.
    scores: tuple[float, ...] | None = None
    #: A real run's group (its problem is ``recorded.problem()``); ``scores`` None: as logged.
    recorded: RecordedGroup | None = None

    def preview(self, convention: Convention) -> LabSnapshot:
        """What a lab restored from this memento under ``convention`` would show, computed
        without touching one: it raises exactly where restoring would, so a document (or the
        command line's scenario) is checked before any part of the window changes."""
        if self.recorded is None:
            verify_answers(self.problem)
        check_group_size(len(self.correct))
        return build_snapshot(
            self.problem,
            self.correct,
            convention,
            self.sample_seed,
            None,
            weights=self.weights,
            scores=self.scores,
            recorded=self.recorded,
        )
