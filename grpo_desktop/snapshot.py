"""What the views are given to render: one immutable picture of the lab after each change.

Pure Python. ``state.LabState`` builds a ``LabSnapshot`` once per change (the only place that calls
``core`` and the checker) and every view renders from it, so views never compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from grpo_desktop.core import Convention, GroupStats
from grpo_desktop.problems import Problem


class Push(Enum):
    """Which way GRPO moves an answer's tokens."""

    UP = "up"
    DOWN = "down"
    NONE = "none"

    @property
    def glyph(self) -> str:
        return {Push.UP: "▲", Push.DOWN: "▼", Push.NONE: "●"}[self]

    @property
    def word(self) -> str:
        return {Push.UP: "pushed up", Push.DOWN: "pushed down", Push.NONE: "no signal"}[self]


@dataclass(frozen=True)
class CardState:
    """One sampled answer as its card shows it."""

    index: int  # 0-based; cards are labelled index + 1
    text: str  # the trace the model wrote (its correct or its wrong version)
    final_answer: str | None  # what the checker extracted from the text
    reward: int  # the checker's verdict: 1 right, 0 wrong
    advantage: float
    push: Push

    @property
    def correct(self) -> bool:
        return self.reward == 1


@dataclass(frozen=True)
class LabSnapshot:
    """Everything on screen after one change."""

    problem: Problem
    cards: tuple[CardState, ...]
    stats: GroupStats
    convention: Convention
    sample_seed: int | None  # the seed of the last "sample a group", shown so it can be replayed

    @property
    def group_size(self) -> int:
        return len(self.cards)

    @property
    def rewards(self) -> tuple[int, ...]:
        return tuple(card.reward for card in self.cards)
