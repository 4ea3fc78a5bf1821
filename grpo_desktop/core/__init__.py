"""The pure layer: Python and numpy only, never Qt (import-linter's contracts in pyproject.toml).

The advantage math lives in :mod:`grpo_desktop.core.formulas.advantages`; its public names are
re-exported
here so ``from grpo_desktop.core import group_advantages, group_stats`` keeps working; the policy
loss of :mod:`grpo_desktop.core.formulas.clipped_loss` is ``grpo_desktop.core.policy_loss``.

The loss, frontier and reward-function names load on first use (a module ``__getattr__``), so
importing the package for the advantage math does not load them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from grpo_desktop.core.formulas.advantages import (
    CONVENTIONS,
    DEFAULT_CONVENTION,
    Convention,
    GroupStats,
    convention_names,
    get_convention,
    group_advantages,
    group_stats,
)

if TYPE_CHECKING:
    from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS, PolicyLossResult, policy_loss
    from grpo_desktop.core.formulas.reward_functions import combine_rewards
    from grpo_desktop.core.training.frontier import informative_probability

_LAZY = {  # name: the module that defines it, imported the first time the name is asked for
    "LOSS_PRESETS": "grpo_desktop.core.formulas.clipped_loss",
    "PolicyLossResult": "grpo_desktop.core.formulas.clipped_loss",
    "policy_loss": "grpo_desktop.core.formulas.clipped_loss",
    "informative_probability": "grpo_desktop.core.training.frontier",
    "combine_rewards": "grpo_desktop.core.formulas.reward_functions",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "CONVENTIONS",
    "DEFAULT_CONVENTION",
    "LOSS_PRESETS",
    "Convention",
    "GroupStats",
    "PolicyLossResult",
    "combine_rewards",
    "convention_names",
    "get_convention",
    "group_advantages",
    "group_stats",
    "informative_probability",
    "policy_loss",
]
