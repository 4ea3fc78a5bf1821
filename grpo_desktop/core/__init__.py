"""The pure layer: Python and numpy only, never Qt (import-linter's contracts in pyproject.toml).

The advantage math lives in :mod:`grpo_desktop.core.advantages`; its public names are re-exported
here so ``from grpo_desktop.core import group_advantages, group_stats`` keeps working.
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

__all__ = [
    "CONVENTIONS",
    "DEFAULT_CONVENTION",
    "Convention",
    "GroupStats",
    "convention_names",
    "get_convention",
    "group_advantages",
    "group_stats",
]
