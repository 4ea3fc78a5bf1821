"""The colour of a token's chip: the surface tinted toward up or down by the size of its push.

Pure arithmetic on the theme's hex colours (no Qt), tested directly; the token rows' painter
(``token_painter.py``) draws what these return.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grpo_desktop.core.common.theme import Theme, contrast_ratio
from grpo_desktop.core.update.update_snapshot import TokenView

__all__ = [
    "LEVELS",
    "MIN_TINT",
    "blend",
    "chip_colours",
    "level",
    "level_array",
    "levels",
    "readable_text",
    "tint",
]

#: The faintest tint a non-zero push gets, so a tiny push is still visibly not zero.
MIN_TINT = 0.15
#: The view draws intensities in this many steps (a step is under 1 % of the colour range, too
#: small to see), so chips share colours and a new snapshot re-uses them.
LEVELS = 128
_MIN_LEVEL = round(MIN_TINT * LEVELS)
_TEXT_CANDIDATES = ("#000000", "#ffffff")


def blend(base: str, target: str, amount: float) -> str:
    """``base`` moved ``amount`` (0…1) of the way toward ``target``, channel by channel."""
    a = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(target[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = (round(x + (y - x) * amount) for x, y in zip(a, b, strict=True))
    return "#" + "".join(f"{c:02x}" for c in mixed)


def readable_text(background: str, theme: Theme) -> str:
    """The theme's text colour if it reads on ``background`` (4.5:1), else black or white."""
    if contrast_ratio(theme.text, background) >= 4.5:
        return theme.text
    return max(_TEXT_CANDIDATES, key=lambda colour: contrast_ratio(colour, background))


def tint(amount: float, theme: Theme) -> tuple[str, str, str]:
    """(fill, text, outline) at a signed intensity ``amount`` in [−1, 1] (0: no push)."""
    if amount == 0:
        return theme.surface, theme.text, theme.border
    accent = theme.up if amount > 0 else theme.down
    fill = blend(theme.surface, accent, abs(amount))
    return fill, readable_text(fill, theme), accent


def level(push: float, max_abs: float) -> int:
    """A non-zero push as a signed colour level, 1…LEVELS (never below the faintest tint).

    A share of the largest push, by division: ``LEVELS / max_abs`` overflows to inf for a
    subnormal largest push (rewards of 1e-308 under RLOO), and a paint must never raise."""
    if max_abs == 0:
        step = LEVELS
    else:
        step = min(LEVELS, max(_MIN_LEVEL, round(abs(push) / max_abs * LEVELS)))
    return step if push > 0 else -step


def level_array(pushes: Sequence[float] | np.ndarray, max_abs: float) -> np.ndarray:
    """:func:`level` of each push in a few vector passes (0 for a zero or NaN push), as an
    int64 array: a row's chips coloured at once, not chip by chip. ``round`` and ``np.rint``
    both round half to even, so the levels are :func:`level`'s to the last one."""
    push = np.asarray(pushes, dtype=np.float64)
    if max_abs == 0:
        size = np.full(push.shape, float(LEVELS))
    else:
        size = np.clip(np.rint(np.abs(push) / max_abs * LEVELS), _MIN_LEVEL, LEVELS)
    signed_size = np.where(push > 0, size, np.where(push < 0, -size, 0.0))
    return signed_size.astype(np.int64)


def levels(pushes: Sequence[float] | np.ndarray, max_abs: float) -> list[int]:
    """:func:`level_array` as a list of Python ints."""
    return level_array(pushes, max_abs).tolist()


def chip_colours(token: TokenView, max_abs: float, theme: Theme) -> tuple[str, str, str]:
    """(fill, text, outline) of a token's chip, as hex strings.

    The fill goes from the surface toward ``theme.up`` (push > 0) or ``theme.down`` (push < 0) in
    proportion to |push| / ``max_abs`` (never fainter than :data:`MIN_TINT`, so any push shows);
    a push of 0 stays the surface with a thin border. The text stays readable on any tint.
    """
    push = token.push
    if not (push > 0 or push < 0):  # zero, or NaN: no signal
        return tint(0.0, theme)
    intensity = 1.0 if max_abs <= 0 else min(1.0, abs(push) / max_abs)
    intensity = max(MIN_TINT, intensity)
    return tint(intensity if push > 0 else -intensity, theme)
