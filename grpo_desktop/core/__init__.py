"""The pure layer: Python and numpy only, never Qt (import-linter's contracts in pyproject.toml).

The advantage math lives in :mod:`grpo_desktop.core.advantages`; its public names are re-exported
here so ``from grpo_desktop.core import group_advantages, group_stats`` keeps working; the policy
loss of :mod:`grpo_desktop.core.clipped_loss` is ``grpo_desktop.core.policy_loss``.
"""

from grpo_desktop.core.advantages import (
    CONVENTIONS,
    DEFAULT_CONVENTION,
    Convention,
    GroupStats,
    convention_names,
    get_convention,
    group_advantages,
    group_stats,
)
from grpo_desktop.core.clipped_loss import LOSS_PRESETS, PolicyLossResult, policy_loss
from grpo_desktop.core.frontier import informative_probability
from grpo_desktop.core.reward_functions import combine_rewards

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
