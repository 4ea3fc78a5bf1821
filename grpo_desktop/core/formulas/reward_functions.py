"""Several reward functions, one reward per answer: the weighted sum TRL takes before GRPO scores.

Pure Python + numpy; no Qt. A trainer rarely has one reward: DeepSeek-R1 adds an accuracy reward
and a format reward. TRL (``trl/trainer/grpo_trainer.py`` at f2cd577,
``GRPOTrainer._generate_and_score_completions`` after ``_calculate_rewards``) combines them per
answer with ::

    rewards = (rewards_per_func * reward_weights.unsqueeze(0)).nansum(dim=1)

before any group statistics. A reward function may return ``None`` for an answer (say, a math
checker on a coding prompt); TRL stores it as NaN and ``nansum`` skips it. An answer whose every
component is missing is treated differently by version:

* TRL ≥ 1.6 (commit 1c7c7f9, "Exclude None reward completions from GRPO/RLOO advantage
  baseline"): ``rewards[unscorable_mask] = torch.nan``, so the answer has no reward, is left out
  of its group's ``nanmean`` and ``nanstd``, and ``nan_to_num`` gives it advantage 0. This is
  ``unscored="missing"``, the default.
* TRL ≤ 1.5: ``nansum`` of all-NaN is 0, so the answer gets reward 0 and counts in its group's
  mean and std (TRL only warns). This is ``unscored="zero"``.

Weights default to 1 per function. The advantage convention then applies to this sum
(:func:`grpo_desktop.core.formulas.advantages.scored_group_stats` scores a group with missing
rewards).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

__all__ = ["UNSCORED_RULES", "combine_rewards"]

#: What an answer no reward function scored gets: ``"missing"`` (TRL ≥ 1.6: NaN, left out of the
#: group's mean and std, advantage 0) or ``"zero"`` (TRL ≤ 1.5: nansum's 0, counted like any).
UNSCORED_RULES = {
    "missing": "TRL ≥ 1.6: no reward (NaN), left out of the group's mean and std, advantage 0",
    "zero": "TRL ≤ 1.5: nansum gives it reward 0, counted in the group's mean and std",
}


def _component_array(name: str, values: object) -> np.ndarray:
    """One component as float64, ``None`` and NaN as NaN; readable errors naming ``name``."""
    if isinstance(values, (str, bytes)):
        raise ValueError(f"component {name!r} must be numbers, not text: {values!r}")
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        array = values.astype(np.float64)
    else:
        try:
            raw = np.asarray(values, dtype=object)
        except ValueError:  # numpy refuses ragged nested lists
            raise ValueError(
                f"component {name!r} is ragged: every group must have the same size"
            ) from None
        array = np.empty(raw.shape, dtype=np.float64)
        for index, value in np.ndenumerate(raw):
            if value is None:
                array[index] = math.nan
            elif isinstance(value, numbers.Real) and not isinstance(value, (str, bytes)):
                try:
                    array[index] = float(value)
                except OverflowError:  # an integer past float64
                    where = ", ".join(str(i) for i in index)
                    raise ValueError(
                        f"component {name!r} at index {where} is an integer too large for a "
                        "float64 (beyond ±1.8e308)"
                    ) from None
            elif isinstance(value, (list, tuple, np.ndarray)):  # numpy kept a ragged row whole
                raise ValueError(
                    f"component {name!r} is ragged: every group must have the same size"
                )
            else:
                where = ", ".join(str(i) for i in index)
                raise ValueError(
                    f"component {name!r} at index {where} is {value!r}: "
                    "a reward must be a number or None (missing)"
                )
    if array.ndim not in (1, 2):
        raise ValueError(
            f"component {name!r} must be one group (G,) or a batch of groups (B, G); "
            f"got shape {array.shape}"
        )
    if array.size == 0:
        raise ValueError(f"component {name!r} is empty: it needs one reward per answer")
    infinite = np.argwhere(np.isinf(array))
    if infinite.size:
        where = ", ".join(str(int(i)) for i in infinite[0])
        raise ValueError(
            f"component {name!r} at index {where} is {array[tuple(infinite[0])]}: a reward must "
            "be finite (None or NaN marks a missing reward)"
        )
    return array


def _weight(name: str, value: object) -> float:
    if isinstance(value, (str, bytes)) or not isinstance(value, numbers.Real):
        raise ValueError(f"weight of {name!r} must be a number, not {value!r}")
    try:
        weight = float(value)
    except OverflowError:  # an integer past float64
        raise ValueError(
            f"weight of {name!r} is too large for a float64 (beyond ±1.8e308)"
        ) from None
    if not math.isfinite(weight):
        raise ValueError(f"weight of {name!r} is {weight}: a weight must be a finite number")
    return weight


def combine_rewards(
    components: Mapping[str, object],
    weights: Mapping[str, float] | None = None,
    *,
    unscored: str = "missing",
) -> np.ndarray:
    """Each answer's reward from several reward functions, exactly as TRL's GRPOTrainer sums them.

    ``components`` maps a reward function's name to its rewards, shape (G,) or (B, G), the same
    shape for all; ``None`` (or NaN) marks an answer the function did not score. ``weights`` maps
    names to weights; a name left out weighs 1. Returns float64 of the common shape:
    ``nansum(weight_k * component_k)`` over the components in order, so a missing reward is
    skipped. An answer no component scored is NaN with ``unscored="missing"`` (TRL ≥ 1.6: a
    missing reward, left out of the group's statistics) and 0 with ``unscored="zero"`` (TRL ≤ 1.5:
    torch.nansum of all-NaN is 0). ValueError, naming the culprit, for an empty mapping,
    mismatched shapes, a value that is not a number, an infinite reward, a weight for an unknown
    component, a non-finite weight or an unknown ``unscored`` rule.
    """
    if unscored not in UNSCORED_RULES:
        raise ValueError(
            f"unknown unscored rule {unscored!r}; choose one of: {', '.join(UNSCORED_RULES)}"
        )
    if not isinstance(components, Mapping):
        raise TypeError(
            "components must map each reward function's name to its rewards (a dict such as "
            f"{{'accuracy': [1, 0]}}), not {type(components).__name__}"
        )
    if weights is not None and not isinstance(weights, Mapping):
        raise TypeError(
            "weights must map reward function names to weights (a dict such as "
            f"{{'format': 0.5}}), not {type(weights).__name__}"
        )
    if not components:
        raise ValueError("no reward components: give at least one reward function's rewards")
    arrays: dict[str, np.ndarray] = {}
    first_name = ""
    for name, values in components.items():
        array = _component_array(name, values)
        if not arrays:
            first_name = name
        elif array.shape != arrays[first_name].shape:
            raise ValueError(
                f"component {name!r} has shape {array.shape} but {first_name!r} has shape "
                f"{arrays[first_name].shape}: every component scores the same answers"
            )
        arrays[name] = array
    given = dict(weights or {})
    unknown = [name for name in given if name not in arrays]
    if unknown:
        raise ValueError(
            f"weight for unknown component {unknown[0]!r}; components are "
            + ", ".join(repr(name) for name in arrays)
        )
    weight_vector = np.array([_weight(name, given.get(name, 1.0)) for name in arrays])
    stacked = np.stack(list(arrays.values()), axis=-1)  # (..., K) like TRL's rewards_per_func
    with np.errstate(over="ignore", invalid="ignore"):
        combined = np.nansum(stacked * weight_vector, axis=-1)
    if not np.isfinite(combined).all():
        bad = ", ".join(str(int(i)) for i in np.argwhere(~np.isfinite(combined))[0])
        raise ValueError(
            f"combined reward at index {bad} overflows float64; rescale the rewards or weights"
        )
    if unscored == "missing":
        combined[np.isnan(stacked).all(axis=-1)] = math.nan  # TRL ≥ 1.6: rewards[unscorable] = nan
    return combined.astype(np.float64, copy=False)
