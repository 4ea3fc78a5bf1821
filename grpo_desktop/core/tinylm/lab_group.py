"""A group the tiny model writes for the lab: G real completions of one prompt, graded.

Pure Python + numpy. The lab shows it like a real run's group (:class:`RecordedGroup`, run format
``"tinylm"``): the completions exactly as the model wrote them, read-only, with the rewards the
lab's reward functions give them (accuracy against the task's right completion, format), summed
with the lab's weights as :mod:`grpo_desktop.core.tinylm.rewards` sums them for training.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from grpo_desktop.core.formulas.reward_functions import combine_rewards
from grpo_desktop.core.lab.lab_limits import check_group_size
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.lab.recorded_group import TINYLM_FORMAT, RecordedGroup
from grpo_desktop.core.tinylm.model import DEFAULT_CHECKPOINT, TinyLM, load_model
from grpo_desktop.core.tinylm.rewards import reward_components
from grpo_desktop.core.tinylm.tasks import TASKS, Task

__all__ = [
    "EXAMPLE_PROMPTS",
    "checkpoint_path",
    "group_model",
    "owning_task",
    "sample_lab_group",
]

#: Prompts a lecturer can pick: training and held-out sums, a carry, three digits, a sort.
EXAMPLE_PROMPTS = ("23+45=", "38+47=", "7+8=", "99+1=", "123+456=", "sort 5203=", "sort 91827=")


def checkpoint_path(file_name: str) -> str | None:
    """What :func:`~grpo_desktop.core.tinylm.model.load_model` takes for a group's checkpoint
    name: None for the shipped checkpoint, else the name as a path."""
    return None if file_name == DEFAULT_CHECKPOINT else file_name


@functools.lru_cache(maxsize=4)
def group_model(file_name: str) -> TinyLM:
    """The model that wrote a group (its checkpoint as the group records it), read once for
    every workspace that steps it. Callers step copies; a file that cannot be read raises a
    CheckpointError (a ValueError) or OSError each time it is asked: it may be put right."""
    return load_model(checkpoint_path(file_name))


def owning_task(prompt: str) -> Task | None:
    """The first task whose prompts include ``prompt`` (``23+45=`` is ``add``'s), else None."""
    for task in TASKS.values():
        try:
            task.answer(prompt)
        except ValueError:
            continue
        return task
    return None


def sample_lab_group(
    model: TinyLM,
    prompt: str,
    group_size: int,
    seed: int,
    temperature: float = 1.0,
    weights: RewardWeights | None = None,
    checkpoint: str | None = None,
) -> RecordedGroup:
    """``group_size`` completions of ``prompt`` drawn from ``model`` with ``seed``, graded.

    The same model, prompt, seed and temperature give the same group. ``checkpoint`` names the
    weights' file (default: the shipped one). A prompt with characters outside the vocabulary
    raises the model's :class:`UnknownCharactersError` (a ValueError naming them); a bad G,
    seed or temperature a ValueError.
    """
    check_group_size(group_size)
    weights = weights or RewardWeights()
    drawn = model.sample_with_logprobs(prompt, group_size, seed, temperature)
    texts = tuple(text for text, _ in drawn)
    task = owning_task(prompt)
    if task is not None:
        components = reward_components(task, [prompt] * len(texts), texts)
        answer_key: str | None = task.target(prompt)
    else:  # no task owns the prompt: no right completion, so accuracy does not apply
        components = {
            "accuracy": np.full(len(texts), np.nan),
            "format": np.array([float(Task().follows_format(text)) for text in texts]),
            "partial": np.full(len(texts), np.nan),
        }
        answer_key = None
    # TRL's weighted nansum, as the lab sums it; an answer no weighted function scores gets 0
    rewards = combine_rewards(components, weights.as_dict(), unscored="zero")
    return RecordedGroup(
        run_format=TINYLM_FORMAT,
        file_name=checkpoint or DEFAULT_CHECKPOINT,
        step=0,
        group_index=0,
        group_count=1,
        prompt=prompt,
        answer_key=answer_key,
        texts=texts,
        rewards=tuple(float(r) for r in rewards),
        components=tuple(
            (name, tuple(float(v) for v in values))
            for name, values in components.items()
            if not all(math.isnan(v) for v in values)
        ),
        logged_advantages=None,
        seed=int(seed),
        temperature=float(temperature),
        parameters=model.n_params,
    )
