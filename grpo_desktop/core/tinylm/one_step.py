"""One GRPO step of the tiny language model on a group it wrote: each answer's probability of
being written again, before and after.

Pure numpy. The loss and gradient of a training run's step (:mod:`grpo_desktop.core.tinylm.grpo`)
on one group: one teacher-forced pass gives each answer token's log-probability, the group's
advantages under the convention, :func:`policy_loss` under the preset, the network's backward into
every weight; then one plain gradient step (SGD, θ ← θ − lr · ∂loss/∂θ) on a copy of the model.
Not Adam: a fresh Adam's first step moves every weight by about the learning rate whatever its
gradient's size, which on a single group is mostly noise (measured: at lr 3e-4 the right answer
of a 23+45= group became less likely); the plain step follows the gradient, so what it shows is
what the loss asks for. An answer's probability is the product of its tokens' probabilities at
temperature 1. Answers share weights and tokens, so a wrong answer that starts like the right
one (69. beside 68.) can become more likely too: the real model's spill-over, inside one group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from grpo_desktop.core.formulas.advantages import group_advantages
from grpo_desktop.core.formulas.clipped_loss import get_loss_preset, policy_loss
from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.model import TinyLM
from grpo_desktop.core.tinylm.vocab import encode
from grpo_desktop.core.training.one_step import AnswerStep, OneStep

__all__ = ["DEFAULT_MODEL_STEP_LR", "model_one_step"]

#: The plain gradient step's learning rate: in the range where one step moves a group's answers
#: by a few hundredths of probability (measured on the shipped checkpoint; 1e-2 wrecks it).
DEFAULT_MODEL_STEP_LR = 3e-4


def model_one_step(
    model: TinyLM,
    prompt: str,
    completions: Sequence[str],
    rewards: Sequence[float],
    *,
    convention: str,
    preset: str = "verl/token-mean",
    lr: float = DEFAULT_MODEL_STEP_LR,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
) -> OneStep:
    """One gradient step of the loss on a copy of ``model`` for the group (``model`` is
    untouched).
    ValueError on a bad input (a completion the model cannot read, a non-finite reward)."""
    if len(completions) != len(rewards) or len(completions) < 2:
        raise ValueError("a group needs at least 2 answers, one reward each")
    if not math.isfinite(lr) or lr < 0:
        raise ValueError(f"the learning rate must be a finite number ≥ 0; got {lr!r}")
    reward_array = np.asarray(rewards, dtype=np.float64)
    if not np.all(np.isfinite(reward_array)):
        raise ValueError("every reward must be a finite number")
    spec = get_loss_preset(preset)
    advantages = group_advantages(reward_array, convention)
    stepped = model.copy()  # the model that wrote the group stays as it was
    params, network = stepped.parameters(), stepped.config
    prompt_ids = stepped.encode_prompt(prompt)
    batch = teacher_batch(
        [prompt_ids] * len(completions),
        [encode(text, "completion") for text in completions],
        network.n_ctx,
    )
    before = completion_pass(params, network, batch)
    result = policy_loss(
        before.logp,
        before.logp,
        advantages,
        batch.mask,
        preset=spec.name,
        eps_low=eps_low,
        eps_high=eps_high,
        max_completion_length=batch.mask.shape[1],
    )
    if lr > 0:
        for name, grad in before.gradients(result.grad_logp).items():
            params[name] -= lr * grad
    after = completion_pass(params, network, batch)
    p_before = np.exp(before.logp.sum(axis=1))
    p_after = np.exp(after.logp.sum(axis=1))
    return OneStep(
        answers=tuple(
            AnswerStep(i, float(reward_array[i]), float(advantages[i]), float(b), float(a))
            for i, (b, a) in enumerate(zip(p_before, p_after))
        ),
        convention=str(convention),
        preset=spec.name,
        lr=float(lr),
        policy="tinylm",
    )
