"""The learning frontier: which pass rates still give GRPO groups that teach something.

A group of G answers to a problem the policy solves with probability p carries a signal only if it
is neither all right nor all wrong: probability 1 − p^G − (1 − p)^G. Easy problems (p near 1) and
hopeless ones (p near 0) slide off the frontier's edges, which is why runs stall and why DAPO
redraws. Pure numpy.
"""

from __future__ import annotations

import sys

import numpy as np

from grpo_desktop.core.common.real_numbers import as_float64

__all__ = ["FRONTIER_GROUP_SIZES", "informative_probability"]

FRONTIER_GROUP_SIZES = (2, 4, 8, 16, 64)
_LARGEST_FLOAT = sys.float_info.max  # a larger G cannot enter float64 arithmetic at all


def informative_probability(p: object, group_size: int) -> float | np.ndarray:
    """1 − p^G − (1 − p)^G: the chance a group of G answers is neither all right nor all wrong.

    Vectorised over ``p``; exactly 0 at p = 0 and p = 1. Only such groups carry a GRPO signal.
    ValueError with a message for a ``p`` that is not a number from 0 to 1 (text such as "0.5"
    included) and for a ``group_size`` that is not a whole number from 1 to float64's largest.
    """
    if isinstance(group_size, bool) or not isinstance(group_size, (int, np.integer)):
        raise ValueError(f"group_size must be a whole number >= 1; got {group_size!r}")
    if group_size < 1:
        raise ValueError(f"group_size must be >= 1; got {group_size}")
    if group_size > _LARGEST_FLOAT:
        raise ValueError(
            f"group_size must be at most {_LARGEST_FLOAT:.3g}; got an integer of "
            f"{len(str(group_size))} digits"
        )
    # Beyond int64, numpy cannot mix the integer into float64 arithmetic; as a float (exact up to
    # 2**53, the nearest float beyond) it gives every G that worked before the same result.
    exponent = group_size if group_size < 2**63 else float(group_size)
    array = as_float64(p, "p", plural=False)
    if not np.all((array >= 0) & (array <= 1)):
        raise ValueError("p must lie between 0 and 1")
    with np.errstate(divide="ignore"):
        # 1 − (1 − p)^G via expm1/log1p: exact for tiny p, exactly 1 at p = 1.
        none_right_complement = -np.expm1(exponent * np.log1p(-array))
    result = none_right_complement - array**exponent
    result = np.where((array == 0) | (array == 1), 0.0, np.maximum(result, 0.0))
    return float(result) if np.ndim(p) == 0 else result
