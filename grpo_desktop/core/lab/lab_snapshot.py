"""What the views are given to render: one immutable picture of the lab after each change.

Pure Python. ``state.LabState`` calls ``build_snapshot`` once per change (the only place the app
scores a group) and every view renders the result, so views never compute.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import TYPE_CHECKING

from grpo_desktop.core.formulas import advantages as core
from grpo_desktop.core.formulas.advantages import Convention, GroupStats
from grpo_desktop.core.lab.checker import Verdict, extract_final_answer, grade
from grpo_desktop.core.lab.explain import Step, WorkedMath, explain
from grpo_desktop.core.lab.lab_rewards import (
    CARD_LABELS,
    RewardWeights,
    combined_rewards,
    component_rewards,
    reward_breakdown,
    rewards_step,
    score_range,
)
from grpo_desktop.core.lab.problems import Problem

if TYPE_CHECKING:  # a run's rollouts are read on first use, not at start-up
    from grpo_desktop.core.lab.recorded_group import RecordedGroup


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
    reward: float  # the reward functions' weighted sum, a hand-set score or the run's logged one
    centered: float  # reward minus the group mean: the advantage before any scaling
    advantage: float
    push: Push
    correct: bool | None = None  # the checker's verdict on the text; None for a run's answer
    breakdown: str = ""  # each reward function's value when the reward is more than accuracy


@dataclass(frozen=True)
class LabSnapshot:
    """Everything on screen after one change."""

    problem: Problem
    cards: tuple[CardState, ...]
    stats: GroupStats
    convention: Convention
    worked_math: WorkedMath  # the computation step by step, for the math panel and animation
    sample_seed: int | None  # the seed of the last "sample a group", shown so it can be replayed
    weights: RewardWeights = field(default_factory=RewardWeights)
    by_hand: bool = False  # continuous mode: rewards are dragged, not computed or logged
    recorded: RecordedGroup | None = None  # a real run's group, shown as the run logged it
    reward_range: tuple[float, float] = (0.0, 1.0)  # what a card's reward slider spans

    @property
    def group_size(self) -> int:
        return len(self.cards)

    @property
    def rewards(self) -> tuple[float, ...]:
        return tuple(card.reward for card in self.cards)

    @property
    def binary(self) -> bool:
        """Every reward is 0 or 1: the checker's plain verdicts (a Bernoulli group)."""
        return all(card.reward in (0.0, 1.0) for card in self.cards)


def push_of(advantage: float) -> Push:
    return Push.UP if advantage > 0 else Push.DOWN if advantage < 0 else Push.NONE


_CARD_FIELDS = tuple(f.name for f in fields(CardState))


def _card_state(*values: object) -> CardState:
    """``CardState(*values)``, at a fifth of its cost: a frozen dataclass's constructor sets each
    field through ``object.__setattr__`` (4 µs a card), and a click scores the whole group (64
    cards). The same object: its fields, equality, hash and repr are the dataclass's."""
    state = object.__new__(CardState)
    state.__dict__.update(zip(_CARD_FIELDS, values, strict=True))
    return state


def build_snapshot(
    problem: Problem,
    correct: Sequence[bool],
    convention: str | Convention = core.DEFAULT_CONVENTION,
    sample_seed: int | None = None,
    verdict: Callable[[int, bool], Verdict] | None = None,
    weights: RewardWeights | None = None,
    scores: Sequence[float] | None = None,
    recorded: RecordedGroup | None = None,
) -> LabSnapshot:
    """Score a group: each card's text, its reward and the group's advantages.

    A card's reward is its reward functions' weighted sum (``weights``; the checker's verdict
    alone by default), or the hand-set ``scores`` (continuous mode), or for a ``recorded`` group
    the rewards the run logged. ``verdict(index, correct)`` lets the state reuse cached verdicts;
    by default the checker grades each card's text afresh.
    """

    def fresh_verdict(index: int, flag: bool) -> Verdict:
        return grade(problem.trace_for(index).text(flag), problem.answer_key)

    judge = verdict or fresh_verdict
    source: Step | None = None
    weights = weights or RewardWeights()
    chosen = core.get_convention(convention)  # resolved once for the scores, math and label
    breakdowns: list[str]
    if recorded is not None:
        texts = list(recorded.texts)
        answers = [extract_final_answer(text) for text in texts]
        verdicts: list[bool | None] = [None] * len(texts)
        rewards = [float(r) for r in (scores if scores is not None else recorded.rewards)]
        shown = len(recorded.components) > 1 or any(
            name != "score" for name, _ in recorded.components
        )
        breakdowns = [
            reward_breakdown({name: values[i] for name, values in recorded.components})
            if shown and scores is None
            else ""
            for i in range(len(texts))
        ]
        told, line = recorded.rewards_told
        source = Step(told, (line,))
    else:
        texts = [problem.trace_for(i).text(bool(flag)) for i, flag in enumerate(correct)]
        graded = [judge(i, bool(flag)) for i, flag in enumerate(correct)]
        answers = [v.final_answer for v in graded]
        verdicts = [v.reward == 1 for v in graded]
        accuracy = [float(v.reward) for v in graded]
        if weights.plain and scores is None:
            rewards, breakdowns = accuracy, [""] * len(texts)
        else:
            components = component_rewards(problem, correct, accuracy)
            summed = combined_rewards(components, weights).tolist()
            if scores is None:
                source = Step(*rewards_step(components, weights, summed))
            rewards = [float(r) for r in scores] if scores is not None else summed
            counted = {name: weight != 0 for name, weight in weights.as_dict().items()}
            breakdowns = [
                ""
                if scores is not None
                else reward_breakdown(
                    {
                        name: float(values[i])
                        for name, values in components.items()
                        if counted[name]
                    },
                    CARD_LABELS,
                )
                for i in range(len(texts))
            ]
    if scores is not None:
        source = Step(
            "Rewards set by hand (continuous mode)",
            ("each card's reward is the score dragged onto it, as a reward model would give",),
        )
    stats = core.group_stats(rewards, chosen)
    cards = tuple(
        _card_state(
            i,
            texts[i],
            answers[i],
            rewards[i],
            centered,
            advantage,
            push_of(advantage),
            verdicts[i],
            breakdowns[i],
        )
        for i, (centered, advantage) in enumerate(
            zip(stats.centered.tolist(), stats.advantages.tolist())
        )
    )
    return LabSnapshot(
        problem=problem,
        cards=cards,
        stats=stats,
        convention=chosen,
        worked_math=explain(stats, chosen, source),
        sample_seed=sample_seed,
        weights=weights,
        by_hand=scores is not None,
        recorded=recorded,
        reward_range=score_range(rewards),
    )
