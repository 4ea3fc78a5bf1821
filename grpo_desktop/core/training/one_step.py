"""One GRPO step on the group on screen: each answer's probability before and after.

Pure numpy. The seed's "pushed up" made visible as "more likely next time": the group's
advantages under the workbench's convention, the chosen loss preset (:func:`policy_loss_runs`,
the Training run's own loss), and one gradient step of the stated learning rate on the toy
policy — the problem's written answers (each trace's right and wrong version) under a softmax,
starting at the problem's stated pass rate, exactly as the Training run's toy starts. Every token
of an answer carries that answer's log-probability, so an answer's push is its token count times
its per-token weight, as in the run.

What carries over: answers above the group's mean become more likely and those below less, by
how far and under which loss. What does not: the toy has no shared weights, so a step on this
problem moves no other problem (the tiny language model shows that spill-over).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.formulas.advantages import group_advantages
from grpo_desktop.core.formulas.clipped_loss import get_loss_preset, policy_loss_runs
from grpo_desktop.core.lab.problems import Problem
from grpo_desktop.core.training.training_config import TrainingConfig
from grpo_desktop.core.update.pretokenize import pretokenize_pieces

__all__ = [
    "DEFAULT_STEP_LR",
    "AnswerStep",
    "OneStep",
    "OneStepPicture",
    "step_caption",
    "toy_loss_gradient",
    "toy_one_step",
]

#: The Training run's own learning rate on the toy's logits.
DEFAULT_STEP_LR = TrainingConfig().learning_rate
_P_FLOOR = 0.02  # as the Training run: a stated pass rate of 0 or 1 starts just inside (0, 1)


@dataclass(frozen=True)
class AnswerStep:
    """One answer of the group: its reward, advantage, and probability before and after."""

    index: int  # 0-based, card order
    reward: float
    advantage: float
    p_before: float  # the policy's probability of writing exactly this answer
    p_after: float

    @property
    def change(self) -> str:
        """ "more likely", "less likely" or "unchanged", as the card says it."""
        if self.p_after > self.p_before:
            return "more likely"
        if self.p_after < self.p_before:
            return "less likely"
        return "unchanged"

    def as_dict(self) -> dict[str, float | int]:
        return {
            "index": self.index,
            "reward": self.reward,
            "advantage": self.advantage,
            "p_before": self.p_before,
            "p_after": self.p_after,
        }


@dataclass(frozen=True)
class OneStep:
    """The step: every answer's before and after, and what made it."""

    answers: tuple[AnswerStep, ...]
    convention: str
    preset: str
    lr: float
    policy: str = "toy"

    def as_dict(self) -> dict:
        return {
            "answers": [answer.as_dict() for answer in self.answers],
            "convention": self.convention,
            "preset": self.preset,
            "lr": self.lr,
            "policy": self.policy,
        }


@dataclass(frozen=True)
class OneStepPicture:
    """What the Lab's One step tab shows: the step (once taken) or why there is none."""

    taken: bool
    step: OneStep | None = None
    policy: str = ""  # which policy took the step, in words
    caption: str = ""  # one plain sentence on what moved
    unavailable: str = ""  # why this group cannot be stepped ("" when it can)


def candidate_logits(problem: Problem) -> np.ndarray:
    """(2 × traces,) the toy's starting logits: right versions at the stated pass rate."""
    p = min(max(problem.pass_rate, _P_FLOOR), 1 - _P_FLOOR)
    right, wrong = math.log(p), math.log(1 - p)
    return np.array([value for _ in problem.traces for value in (right, wrong)])


def toy_loss_gradient(
    problem: Problem,
    correct: Sequence[bool],
    advantages: np.ndarray,
    logits: np.ndarray,
    preset: str,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
) -> tuple[np.ndarray, np.ndarray]:
    """(each card's candidate, ∂loss/∂logits) at ``logits``, on-policy (old_logp = logp)."""
    traces = len(problem.traces)
    candidates = np.array([2 * (i % traces) + (0 if flag else 1) for i, flag in enumerate(correct)])
    lengths = np.array(
        [
            len(pretokenize_pieces(problem.trace_for(i).text(bool(flag))))
            for i, flag in enumerate(correct)
        ],
        dtype=np.float64,
    )
    log_policy = logits - np.logaddexp.reduce(logits)
    answer_logp = log_policy[candidates][None, :, None]  # (1, G, 1): one column per answer
    width = int(lengths.max())
    loss = policy_loss_runs(
        answer_logp,
        answer_logp,
        np.asarray(advantages, dtype=np.float64)[None, :],
        lengths[None, :, None],
        preset=preset,
        eps_low=eps_low,
        eps_high=eps_high,
        max_completion_length=width,
        token_counts=True,
        width=width,
    )
    answer_grad = loss.grad_logp[0, :, 0]  # Σ over each answer's tokens
    # ∂logp(c)/∂θ = onehot(c) − π, as the Training run's toy update
    grad = np.zeros_like(logits)
    np.add.at(grad, candidates, answer_grad)
    grad -= answer_grad.sum() * np.exp(log_policy)
    return candidates, grad


def toy_one_step(
    problem: Problem,
    correct: Sequence[bool],
    rewards: Sequence[float],
    *,
    convention: str,
    preset: str = "verl/token-mean",
    lr: float = DEFAULT_STEP_LR,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
) -> OneStep:
    """One step of the loss on the toy policy for the group ``correct`` (card ``i`` is trace
    ``i mod traces``'s right or wrong version) with ``rewards``; ValueError on a bad input."""
    if len(correct) != len(rewards) or len(correct) < 2:
        raise ValueError("a group needs at least 2 answers, one reward each")
    if not math.isfinite(lr) or lr < 0:
        raise ValueError(f"the learning rate must be a finite number ≥ 0; got {lr!r}")
    spec = get_loss_preset(preset)
    reward_array = np.asarray(rewards, dtype=np.float64)
    if not np.all(np.isfinite(reward_array)):
        raise ValueError("every reward must be a finite number")
    advantages = group_advantages(reward_array, convention)
    logits = candidate_logits(problem)
    candidates, grad = toy_loss_gradient(
        problem, correct, advantages, logits, spec.name, eps_low, eps_high
    )
    log_policy = logits - np.logaddexp.reduce(logits)
    after = logits - lr * grad
    log_after = after - np.logaddexp.reduce(after)
    before_p, after_p = np.exp(log_policy[candidates]), np.exp(log_after[candidates])
    return OneStep(
        answers=tuple(
            AnswerStep(i, float(reward_array[i]), float(advantages[i]), float(b), float(a))
            for i, (b, a) in enumerate(zip(before_p, after_p))
        ),
        convention=str(convention),
        preset=spec.name,
        lr=float(lr),
    )


def step_caption(step: OneStep) -> str:
    """One plain sentence: how many answers become more and less likely, and the largest rise."""
    up = [answer for answer in step.answers if answer.p_after > answer.p_before]
    down = [answer for answer in step.answers if answer.p_after < answer.p_before]
    if not up and not down:
        return (
            "Every answer is as likely after the step as before: the rewards are all equal, so "
            "every advantage is 0 and the loss has no gradient."
        )
    parts = []
    if up:
        parts.append(f"{_answers(len(up))} more likely next time")
    if down:
        parts.append(f"{_answers(len(down))} less likely")
    sentence = "After one step, " + " and ".join(parts) + "."
    if up:
        rise = max(up, key=lambda answer: answer.p_after - answer.p_before)
        sentence += (
            f" The largest rise: #{rise.index + 1}, {rise.p_before:.3f} → {rise.p_after:.3f}."
        )
    against = [a for a in up if a.advantage < 0] + [a for a in down if a.advantage > 0]
    if against:
        shown = ", ".join(f"#{a.index + 1}" for a in against[:4])
        shared = (
            "answers share the model's weights and tokens"
            if step.policy == "tinylm"
            else "answers share one softmax"
        )
        sentence += (
            f" {shown} moved against {'its' if len(against) == 1 else 'their'} advantage: "
            f"{shared}, so pushing one moves the others."
        )
    return sentence


def _answers(count: int) -> str:
    return f"{count} answer{'s' if count != 1 else ''} {'is' if count == 1 else 'are'}"
