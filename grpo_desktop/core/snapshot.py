"""What the views are given to render: one immutable picture of the lab after each change.

Pure Python. ``state.LabState`` calls ``build_snapshot`` once per change (the only place the app
scores a group) and every view renders the result, so views never compute.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from grpo_desktop.core import advantages as core
from grpo_desktop.core.advantages import Convention, GroupStats
from grpo_desktop.core.checker import Verdict, grade
from grpo_desktop.core.explain import WorkedMath, explain
from grpo_desktop.core.problems import Problem


class Push(Enum):
    """Which way GRPO moves an answer's tokens."""

    UP = "up"
    DOWN = "down"
    NONE = "none"

    @property
    def glyph(self) -> str:
        return _GLYPHS[self.value]

    @property
    def word(self) -> str:
        return _WORDS[self.value]


# Looked up per card per click: plain string keys, built once (not a dict of members per call).
_GLYPHS = {"up": "▲", "down": "▼", "none": "●"}
_WORDS = {"up": "pushed up", "down": "pushed down", "none": "no signal"}


@dataclass(frozen=True)
class CardState:
    """One sampled answer as its card shows it."""

    index: int  # 0-based; cards are labelled index + 1
    text: str  # the trace the model wrote (its correct or its wrong version)
    final_answer: str | None  # what the checker extracted from the text
    reward: int  # the checker's verdict: 1 right, 0 wrong
    centered: float  # reward minus the group mean: the advantage before any scaling
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
    worked_math: WorkedMath  # the computation step by step, for the math panel and animation
    sample_seed: int | None  # the seed of the last "sample a group", shown so it can be replayed

    @property
    def group_size(self) -> int:
        return len(self.cards)

    @property
    def rewards(self) -> tuple[int, ...]:
        return tuple(card.reward for card in self.cards)


def push_of(advantage: float) -> Push:
    return Push.UP if advantage > 0 else Push.DOWN if advantage < 0 else Push.NONE


def build_snapshot(
    problem: Problem,
    correct: Sequence[bool],
    convention: str | Convention = core.DEFAULT_CONVENTION,
    sample_seed: int | None = None,
    verdict: Callable[[int, bool], Verdict] | None = None,
) -> LabSnapshot:
    """Score a group: each card's text, the checker's verdict on it, and the group's advantages.

    ``verdict(index, correct)`` lets the state reuse cached verdicts; by default the checker
    grades each card's text afresh.
    """

    def fresh_verdict(index: int, flag: bool) -> Verdict:
        return grade(problem.trace_for(index).text(flag), problem.answer_key)

    judge = verdict or fresh_verdict
    chosen = core.get_convention(convention)  # resolved once for the scores, math and label
    verdicts = [judge(i, bool(flag)) for i, flag in enumerate(correct)]
    stats = core.group_stats([v.reward for v in verdicts], chosen)
    cards = tuple(
        CardState(
            index=i,
            text=problem.trace_for(i).text(bool(flag)),
            final_answer=v.final_answer,
            reward=v.reward,
            centered=float(centered),
            advantage=float(advantage),
            push=push_of(float(advantage)),
        )
        for i, (flag, v, centered, advantage) in enumerate(
            zip(correct, verdicts, stats.centered, stats.advantages)
        )
    )
    return LabSnapshot(
        problem=problem,
        cards=cards,
        stats=stats,
        convention=chosen,
        worked_math=explain(stats, chosen),
        sample_seed=sample_seed,
    )
