"""Where a lab card's reward comes from: reward functions summed with weights, or a hand-set score.

Pure Python + numpy. A real trainer's reward is rarely one 0/1 check: DeepSeek-R1 adds a format
reward to the accuracy reward, and TRL sums reward functions with ``reward_weights`` (``nansum``, a
function that does not apply to an answer is skipped). The lab does the same with three functions
over its written traces:

* ``accuracy``: the checker's verdict on the card's text (1 right, 0 wrong);
* ``format``: 1 when the text has the form the problem declares (a final "Answer:" line, a
  ``\\boxed{}``), else 0; it does not apply when the problem declares no form;
* ``partial``: the credit the problem file gives a wrong trace whose method is right (an
  arithmetic slip); it does not apply to right answers or to wrong ones without such credit.

Weights default to accuracy 1, the others 0, which is the plain verifiable reward of the seeds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.formulas.reward_functions import combine_rewards
from grpo_desktop.core.lab.lab_limits import MAX_REWARD_MAGNITUDE
from grpo_desktop.core.lab.problems import Problem

__all__ = [
    "CARD_LABELS",
    "COMPONENT_LABELS",
    "MAX_SCORE",
    "MAX_WEIGHT",
    "MIN_SCORE",
    "MIN_WEIGHT",
    "REWARD_COMPONENTS",
    "RewardWeights",
    "check_score",
    "component_notes",
    "component_rewards",
    "reward_breakdown",
    "rewards_step",
    "score_range",
]

REWARD_COMPONENTS = ("accuracy", "format", "partial")
COMPONENT_LABELS = {"accuracy": "accuracy", "format": "format", "partial": "partial credit"}
#: The shorter names a card's one line of values uses (a card is about 26 characters wide).
CARD_LABELS = {"accuracy": "accuracy", "format": "format", "partial": "partial"}
#: A weight a lecturer can type; far past any reward design a lesson needs.
MIN_WEIGHT, MAX_WEIGHT = -10.0, 10.0
#: A hand-set score (continuous mode) spans what a run may log, so a run's group can be set by
#: hand, saved and opened again.
MIN_SCORE, MAX_SCORE = -MAX_REWARD_MAGNITUDE, MAX_REWARD_MAGNITUDE


@dataclass(frozen=True)
class RewardWeights:
    """The weight of each reward function in a card's reward (TRL's ``reward_weights``)."""

    accuracy: float = 1.0
    format: float = 0.0
    partial: float = 0.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"weight of {field.name!r} must be a number, got {value!r}")
            if not (math.isfinite(value) and MIN_WEIGHT <= value <= MAX_WEIGHT):
                raise ValueError(
                    f"weight of {field.name!r} must be between {number(MIN_WEIGHT)} and "
                    f"{number(MAX_WEIGHT)}, got {value}"
                )

    def as_dict(self) -> dict[str, float]:
        return {name: float(getattr(self, name)) for name in REWARD_COMPONENTS}

    def with_weight(self, name: str, weight: float) -> RewardWeights:
        if name not in REWARD_COMPONENTS:
            raise ValueError(
                f"no reward function {name!r}; the lab's are " + ", ".join(REWARD_COMPONENTS)
            )
        return replace(self, **{name: float(weight)})

    @property
    def plain(self) -> bool:
        """Only the accuracy reward counts, at weight 1: the rewards are the checker's 0 and 1."""
        return self == RewardWeights()

    @property
    def formula(self) -> str:
        """``r = 1 × accuracy + 0.5 × format`` (functions at weight 0 left out)."""
        terms = [
            f"{number(weight)} × {COMPONENT_LABELS[name]}"
            for name, weight in self.as_dict().items()
            if weight != 0
        ]
        return ("r = " + (" + ".join(terms) if terms else "0")).replace("+ −", "− ")


def check_score(value: float) -> float:
    """A hand-set reward as a float; ValueError for NaN, ±inf or a number out of range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"a reward must be a number, got {value!r}")
    score = float(value)
    if not (math.isfinite(score) and MIN_SCORE <= score <= MAX_SCORE):
        raise ValueError(
            f"a reward must be a finite number between {number(MIN_SCORE)} and "
            f"{number(MAX_SCORE)}, got {value}"
        )
    return score


def component_rewards(
    problem: Problem, correct: Sequence[bool], accuracy: Sequence[float]
) -> dict[str, np.ndarray]:
    """Each reward function's value per card (NaN where it does not apply).

    ``accuracy`` is the checker's reward per card (the state caches the checker's verdicts).
    """
    from grpo_desktop.core.lab.format_check import follows_format

    size = len(correct)
    formats = np.full(size, math.nan)
    partial = np.full(size, math.nan)
    for index, flag in enumerate(correct):
        trace = problem.trace_for(index)
        if problem.answer_format is not None:
            formats[index] = float(follows_format(trace.text(bool(flag)), problem.answer_format))
        if not flag and trace.partial is not None:
            partial[index] = trace.partial
    return {
        "accuracy": np.asarray(accuracy, dtype=np.float64),
        "format": formats,
        "partial": partial,
    }


def combined_rewards(components: dict[str, np.ndarray], weights: RewardWeights) -> np.ndarray:
    """TRL's rule: ``nansum(weight × component)`` per card."""
    return combine_rewards(components, weights.as_dict())


def reward_breakdown(values: dict[str, float], labels: dict[str, str] | None = None) -> str:
    """``accuracy 1 · format 0 · partial credit —``: each function's value, ``—`` where none."""
    names = labels or COMPONENT_LABELS
    return " · ".join(
        f"{names.get(name, name)} {'—' if math.isnan(value) else number(value, 4)}"
        for name, value in values.items()
    )


def score_range(rewards: Sequence[float]) -> tuple[float, float]:
    """The span a card's reward slider covers: 0 to 1, widened to take in every reward shown."""
    low = min(0.0, *rewards) if rewards else 0.0
    high = max(1.0, *rewards) if rewards else 1.0
    return float(math.floor(low)), float(math.ceil(high))


def component_notes(problem: Problem) -> dict[str, str]:
    """One line per reward function: what it gives an answer of ``problem``."""
    from grpo_desktop.core.lab.format_check import describe_format

    if problem.answer_format is None:
        form = "this problem declares no format, so it does not apply (skipped)"
    else:
        form = f"1 if the trace gives {describe_format(problem.answer_format)}, else 0"
    credited = sum(trace.partial is not None for trace in problem.traces)
    partial = (
        f"a wrong trace's credit for a right method with a slip ({credited} of this problem's "
        f"{len(problem.traces)} traces have one); skipped elsewhere"
        if credited
        else "no trace of this problem has partial credit, so it does not apply (skipped)"
    )
    return {
        "accuracy": "the checker's verdict: 1 right, 0 wrong",
        "format": form,
        "partial": partial,
    }


MAX_CARDS_SHOWN = 10  # a larger group's sums are summarised after the first ten


def rewards_step(
    components: dict[str, np.ndarray], weights: RewardWeights, rewards: Sequence[float]
) -> tuple[str, tuple[str, ...]]:
    """The worked math's first step for weighted rewards: each card's weighted sum, written out
    (a function that does not apply is left out, as nansum skips it)."""
    active = {name: w for name, w in weights.as_dict().items() if w != 0}
    lines = []
    for index, reward in enumerate(rewards[:MAX_CARDS_SHOWN]):
        terms = [
            f"{number(weight)}×{number(float(components[name][index]), 4)}"
            for name, weight in active.items()
            if not math.isnan(components[name][index])
        ]
        total = " + ".join(terms) if terms else "nothing applies"
        lines.append(f"#{index + 1}: {total} = {number(reward, 4)}".replace("+ −", "− "))
    if len(rewards) > MAX_CARDS_SHOWN:
        lines.append(f"… and {len(rewards) - MAX_CARDS_SHOWN} more answers the same way")
    return f"Rewards: {weights.formula}", tuple(lines)
