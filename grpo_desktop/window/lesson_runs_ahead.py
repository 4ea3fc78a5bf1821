"""A lesson's training runs, computed in idle time once the lesson starts.

Paging to a training step computes its run from step 0 (``TrainingState.show_step``): 150 steps
are 190–420 ms, a hitch the class sees. While the lecturer talks through the steps before it, the
runs are computed here a part at a time (one algorithm's share of a step, 1–3 ms), a few parts a
turn of the event loop, so paging to the step finds its run kept (``core.training.computed_runs``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import chain

from PySide6.QtCore import QObject, QTimer

from grpo_desktop.core.files.lessons import Lesson
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.computed_runs import computing_ahead
from grpo_desktop.window.idle_prebuild import TURN_BUDGET_S  # idle work: what a click may wait


class LessonRunsAhead(QObject):
    """Computes a lesson's training steps' runs, a few parts a turn, until stopped or done."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._parts: Iterator[None] | None = None
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self._turn)

    @property
    def running(self) -> bool:
        return self._parts is not None

    def start(self, lesson: Lesson) -> None:
        """Compute ``lesson``'s training runs as its steps will show them (with the plain 0/1
        reward, the step's convention and configuration, to its ``training_steps``)."""
        self._parts = chain.from_iterable(
            computing_ahead(step.training, step.convention, RewardWeights(), step.training_steps)
            for step in lesson.steps
            if step.is_training and step.training is not None
        )
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._parts = None

    def _turn(self) -> None:
        if self._parts is None:
            return
        began = time.perf_counter()
        for _ in self._parts:
            if time.perf_counter() - began >= TURN_BUDGET_S:
                self._timer.start()  # the rest on the next turn: input goes first
                return
        self._parts = None
