"""The learning frontier: which pass rates still give GRPO groups that teach something.

A group of G answers to a problem the policy solves with probability p carries a signal only if it
is neither all right nor all wrong: probability 1 − p^G − (1 − p)^G. Easy problems (p near 1) and
hopeless ones (p near 0) slide off the frontier's edges, which is why runs stall and why DAPO
redraws. Pure numpy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FRONTIER_GROUP_SIZES", "informative_probability"]

FRONTIER_GROUP_SIZES = (2, 4, 8, 16, 64)


def informative_probability(p, group_size: int):
    """1 − p^G − (1 − p)^G: the chance a group of G answers is neither all right nor all wrong.

    Vectorised over ``p``; exactly 0 at p = 0 and p = 1. Only such groups carry a GRPO signal.
    """
    if isinstance(group_size, bool) or not isinstance(group_size, (int, np.integer)):
        raise ValueError(f"group_size must be a whole number >= 1; got {group_size!r}")
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1; got {group_size}")
    array = np.asarray(p, dtype=np.float64)
    if not np.all((array >= 0) & (array <= 1)):
        raise ValueError("p must lie between 0 and 1")
    with np.errstate(divide="ignore"):
        # 1 − (1 − p)^G via expm1/log1p: exact for tiny p, exactly 1 at p = 1.
        none_right_complement = -np.expm1(group_size * np.log1p(-array))
    result = none_right_complement - array**group_size
    result = np.where((array == 0) | (array == 1), 0.0, np.maximum(result, 0.0))
    return float(result) if np.ndim(p) == 0 else result
