"""Grading the model's answers with the lab's reward functions, summed as the lab sums them.

Two functions, as DeepSeek-R1 has: ``accuracy`` (1 when the completion is exactly the right
answer and the end token, else 0) and ``format`` (1 when it is digits then the end token, else
0); ``partial`` does not apply (NaN, skipped). They combine by TRL's weighted ``nansum``
through :func:`grpo_desktop.core.lab.lab_rewards.combined_rewards`, with the lab's
:class:`RewardWeights` (default: accuracy only, so rewards are the 0/1 verdicts).

Accuracy is exact string equality, not the checker's by-value match, so that a reward of 1 means
what the exact pass rate counts: ``057.`` is not ``57.``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grpo_desktop.core.lab.lab_rewards import RewardWeights, combined_rewards
from grpo_desktop.core.tinylm.tasks import Task

__all__ = ["grade", "reward_components"]


def reward_components(
    task: Task, prompts: Sequence[str], completions: Sequence[str]
) -> dict[str, np.ndarray]:
    """Each reward function's value per answer (same order as ``completions``)."""
    targets = {prompt: task.target(prompt) for prompt in set(prompts)}
    accuracy = np.array([float(c == targets[p]) for p, c in zip(prompts, completions)])
    formats = np.array([float(task.follows_format(c)) for c in completions])
    return {"accuracy": accuracy, "format": formats, "partial": np.full(len(completions), np.nan)}


def grade(
    task: Task,
    prompts: Sequence[str],
    completions: Sequence[str],
    weights: RewardWeights | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(reward per answer, components): the lab's weighted sum of the reward functions."""
    components = reward_components(task, prompts, completions)
    return combined_rewards(components, weights or RewardWeights()), components
