"""Which convention reproduces a TRL run's logged advantages, computed as TRL computes them.

TRL's ``GRPOTrainer._generate_and_score_completions`` (``trl/trainer/grpo_trainer.py``):

- ``rewards_per_func`` is a float32 tensor, one column per reward function (``None`` → NaN);
  the reward is ``nansum(rewards_per_func * reward_weights)``;
- since v1.6 (commit 1c7c7f9, "Exclude None reward completions from GRPO/RLOO advantage
  baseline") an answer whose every reward function returned ``None`` gets reward NaN, is left
  out of its group's mean and std (``nanmean``, ``nanstd``) and gets advantage 0
  (``nan_to_num``); up to v1.5 ``nansum`` made its reward 0 and it counted like any answer;
- ``multi_objective_aggregation="normalize_then_sum"`` normalizes each function within its group
  (``(x − nanmean) / (nanstd + 1e-4)``), sums, then normalizes over the batch.

Everything is float32 there, so logged advantages carry rounding of about 2⁻²⁴ · |reward| /
(std + eps): on a reward model's scale (rewards near 100, std near 1) that is 1e-5, far above a
fixed 1e-6. :func:`check_advantages` allows that much, row by row.

Pure numpy; no Qt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from grpo_desktop.core.formulas.advantages import CONVENTIONS, group_advantages

__all__ = [
    "F32_UNIT",
    "MATCH_TOLERANCE",
    "TRL_SETTINGS",
    "candidates",
    "check_advantages",
    "convention_advantages",
    "dr_grpo_scale",
    "normalize_then_sum",
    "reproduces",
]

#: Logged advantages match when every |difference| is within this times max(1, max |A|), plus
#: the float32 rounding TRL's arithmetic leaves (see :func:`check_advantages`).
MATCH_TOLERANCE = 1e-6
#: float32's unit roundoff, 2⁻²⁴.
F32_UNIT = 2.0**-24
#: The TRL setting each convention is, where it is one (``scale_rewards``; its "none" is Dr. GRPO).
TRL_SETTINGS = {
    "trl": 'TRL scale_rewards="group"',
    "trl_batch": 'TRL scale_rewards="batch"',
    "dr_grpo": 'TRL scale_rewards="none"',
}
#: TRL's eps in normalize_then_sum (both the per-function and the batch division).
TRL_EPS = 1e-4


def candidates() -> list[str]:
    """TRL's own conventions first, so a tie (every group degenerate) names TRL's."""
    first = [name for name in ("trl", "trl_batch", "dr_grpo") if name in CONVENTIONS]
    return first + [name for name in CONVENTIONS if name not in first]


def _centered(rewards: np.ndarray, finite: np.ndarray) -> np.ndarray:
    """r − nanmean(r) per row, exactly 0 in a row whose finite rewards are all equal: each row
    is first shifted by one of its own finite values."""
    with np.errstate(invalid="ignore"):
        first = np.where(finite, rewards, -np.inf).max(axis=1)  # any of the row's own values
    first = np.where(np.isfinite(first), first, 0.0)
    shifted = np.where(finite, rewards - first[:, None], 0.0)
    counts = finite.sum(axis=1)
    mean = shifted.sum(axis=1) / np.maximum(counts, 1)
    return np.where(finite, shifted - mean[:, None], np.nan)


def _nan_std(centered: np.ndarray, finite: np.ndarray, ddof: int) -> np.ndarray:
    counts = finite.sum(axis=1)
    squares = np.where(finite, centered * centered, 0.0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > ddof, np.sqrt(squares / np.maximum(counts - ddof, 1)), np.nan)


def convention_advantages(rewards: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A (B, G) batch's advantages under convention ``name`` and, per answer, what (r − mean)
    was divided by (1 where nothing was). A NaN reward is an answer no function scored (TRL ≥
    1.6): left out of its group's mean and std, advantage 0."""
    convention = CONVENTIONS[name]
    finite = np.isfinite(rewards)
    size = rewards.shape[1]
    ones = np.ones_like(rewards)
    if finite.all() and size >= convention.min_group_size:
        if name == "trl_batch":
            if rewards.size < 2:
                raise ValueError("a batch std needs two rewards")
            divisor = float(np.std(rewards, ddof=1)) + convention.eps
            centered = rewards - rewards.mean(axis=1, keepdims=True)
            return centered / divisor, ones * divisor
        computed = group_advantages(rewards, name)
    else:
        computed = None
    centered = _centered(rewards, finite)
    counts = finite.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "trl_batch":
            flat = rewards[finite]
            spread = float(np.std(flat, ddof=1)) if flat.size > 1 else math.nan
            divisor = ones * (spread + convention.eps)
        elif convention.ddof is not None:
            std = _nan_std(centered, finite, convention.ddof)[:, None]
            divisor = ones * (std + convention.eps)
        elif name == "rloo":
            divisor = ones * ((counts - 1) / counts)
        else:
            divisor = ones
        if computed is None:
            all_equal = np.nanmax(np.abs(np.where(finite, centered, 0.0)), axis=1) == 0
            computed = centered / divisor
            computed[all_equal, :] = 0.0
            computed = np.where(finite & np.isfinite(computed), computed, 0.0)
    divisor = np.where(np.isfinite(divisor) & (divisor > 0), divisor, 0.0)
    return computed, divisor


def check_advantages(
    rewards: np.ndarray, logged: np.ndarray, names: Sequence[str] | None = None
) -> tuple[str | None, float | None]:
    """The convention whose advantages reproduce ``logged`` (B, G), and its max |difference|
    (or the closest convention's, with None for the name, when none does).

    The allowance per answer is ``MATCH_TOLERANCE · max(1, max|A|)`` plus TRL's float32
    rounding, ``(G + 4) · 2⁻²⁴ · max|r| · (1 + |A|) / divisor`` (A as computed here): the
    sums behind a mean and a std of G float32 values round by up to G units of the largest
    reward, and dividing by the std (plus eps) magnifies that."""
    known = np.isfinite(logged)
    if not known.any():
        return None, None
    scale = max(1.0, float(np.abs(logged[known]).max()))
    size = rewards.shape[1]
    finite = np.isfinite(rewards)
    magnitude = np.abs(np.where(finite, rewards, 0.0))
    group_largest = magnitude.max(axis=1, keepdims=True)
    best: tuple[bool, float, str] | None = None
    for name in names or candidates():
        if size < CONVENTIONS[name].min_group_size:
            continue
        try:
            with np.errstate(all="ignore"):  # a diff that overflows is simply not a match
                computed, divisor = convention_advantages(rewards, name)
                diff = np.abs(computed - logged)[known]
                largest = magnitude.max() if name == "trl_batch" else group_largest
                rounding = np.where(
                    divisor > 0,
                    (size + 4) * F32_UNIT * largest * (1 + np.abs(computed)) / divisor,
                    0.0,
                )[known]
                worst = float(diff.max())
                matched = bool(np.all(diff <= MATCH_TOLERANCE * scale + rounding))
        except (ValueError, MemoryError):
            continue
        if not math.isfinite(worst):
            continue
        ranked = (not matched, worst, name)
        if best is None or ranked[:2] < (not best[0], best[1]):
            best = (matched, worst, name)
    if best is None:
        return None, None
    matched, worst, name = best
    return (name if matched else None), worst


def normalize_then_sum(components: np.ndarray, nan_excluded: bool) -> np.ndarray:
    """TRL's ``multi_objective_aggregation="normalize_then_sum"`` for (B, G, K) components
    (weights 1): each function normalized within its group, summed, normalized over the batch.
    ``nan_excluded``: TRL ≥ 1.6, where an answer no function scored is left out (advantage 0)."""
    with np.errstate(all="ignore"):
        mean_k = np.nanmean(components, axis=1, keepdims=True)
        deviation = components - mean_k
        counts = np.isfinite(components).sum(axis=1, keepdims=True)
        variance = np.nansum(deviation * deviation, axis=1, keepdims=True) / (counts - 1)
        std_k = np.where(counts > 1, np.sqrt(variance), np.nan)
        reward_k = deviation / (std_k + TRL_EPS)
        rewards = np.nansum(reward_k, axis=2).reshape(-1)
        unscored = np.isnan(components).all(axis=2).reshape(-1)
        if nan_excluded:
            rewards[unscored] = np.nan
            kept = rewards[np.isfinite(rewards)]
            std = float(np.std(kept, ddof=1)) if kept.size > 1 else 0.0
            advantages = (rewards - (kept.mean() if kept.size else 0.0)) / (std + TRL_EPS)
            advantages = np.nan_to_num(advantages, nan=0.0)
        else:
            std = float(np.std(rewards, ddof=1)) if rewards.size > 1 else 0.0
            advantages = (rewards - rewards.mean()) / (std + TRL_EPS)
    return advantages.reshape(components.shape[:2])


def reproduces(computed: np.ndarray, logged: np.ndarray, largest: float) -> bool:
    """Whether ``computed`` matches ``logged`` within a float32 allowance for rewards up to
    ``largest`` (used to name a cause, not to claim a convention)."""
    known = np.isfinite(logged) & np.isfinite(computed)
    if not known.any():
        return False
    scale = max(1.0, float(np.abs(logged[known]).max()))
    allowance = scale * max(1e-5, 64 * F32_UNIT * max(largest, 1.0))
    with np.errstate(all="ignore"):
        return bool(np.all(np.abs(computed[known] - logged[known]) <= allowance))


def dr_grpo_scale(rewards: np.ndarray, logged: np.ndarray) -> float | None:
    """The factor c when the logged advantages are c · (r − group mean) (``scale_rewards=
    "none"`` with rewards weighted by c), else None."""
    finite = np.isfinite(rewards) & np.isfinite(logged)
    if not finite.all():
        return None
    centered = rewards - rewards.mean(axis=1, keepdims=True)
    energy = float(np.sum(centered * centered))
    if energy == 0:
        return None
    factor = float(np.sum(centered * logged)) / energy
    if not math.isfinite(factor) or factor == 0 or abs(factor - 1) < 1e-6:
        return None
    residual = float(np.abs(logged - factor * centered).max())
    largest = float(np.abs(rewards).max())
    allowed = MATCH_TOLERANCE * max(1.0, float(np.abs(logged).max()))
    allowed += (rewards.shape[1] + 4) * F32_UNIT * largest * abs(factor)
    return factor if residual <= allowed else None
