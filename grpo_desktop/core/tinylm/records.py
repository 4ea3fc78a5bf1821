"""What a GRPO run on the tiny model records: groups, per-step metrics, evaluations, updates.

Plain frozen dataclasses, so the CLI can print them as JSON (``as_dict``) and the GUI can hold
them across threads without copying.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from grpo_desktop.core.formulas.clipped_loss import PolicyLossResult

__all__ = ["EvalMetrics", "LMGroup", "StepMetrics", "StepUpdate"]


@dataclass(frozen=True)
class LMGroup:
    """One prompt's G sampled completions at a step, as the Lab shows a group."""

    prompt: str
    answer: str  # the right completion (answer and end token)
    completions: tuple[str, ...]
    rewards: tuple[float, ...]
    advantages: tuple[float, ...]
    used: bool  # entered the update (DAPO drops all-equal groups)


@dataclass(frozen=True)
class StepMetrics:
    """What one step did. ``kl`` and ``entropy`` are means over the sampled answer tokens before
    the update (``kl``: the k3 estimate of KL(policy ‖ starting checkpoint))."""

    step: int
    reward_mean: float
    degenerate_fraction: float  # groups whose rewards are all equal: no signal
    kl: float
    entropy: float
    loss: float  # policy_loss's loss, first epoch
    completion_length: float  # tokens, end token included
    groups_sampled: int  # DAPO may draw more than ``batch``
    groups_used: int
    clip_fraction: float
    grad_norm: float  # before Adam, first epoch
    seconds: float  # wall time of the step and its evaluation (the one thing not reproducible)

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class EvalMetrics:
    """The model on the task's held-out prompts after ``step`` steps (0: the start)."""

    step: int
    pass_rate: float  # mean exact pass rate
    greedy_accuracy: float
    pass_rates: np.ndarray  # (P,) each held-out prompt's exact pass rate: the frontier's dots

    def as_dict(self) -> dict[str, float]:
        return {
            "step": self.step,
            "pass_rate": self.pass_rate,
            "greedy_accuracy": self.greedy_accuracy,
        }


@dataclass(frozen=True)
class StepUpdate:
    """The numbers inside a step's update, kept so a test or the Update workspace can hold them
    against ``group_advantages`` and ``policy_loss`` called directly. Rows are the used groups'
    answers, group by group."""

    rewards: np.ndarray  # (U, G)
    advantages: np.ndarray  # (U, G)
    logp: np.ndarray  # (U·G, Tc) before the update: the first epoch's logp, equal to old_logp
    ref_logp: np.ndarray  # (U·G, Tc) under the starting checkpoint
    mask: np.ndarray  # (U·G, Tc)
    losses: tuple[PolicyLossResult, ...]  # one per epoch

    @property
    def old_logp(self) -> np.ndarray:
        return self.logp
