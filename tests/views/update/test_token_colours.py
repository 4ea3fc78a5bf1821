"""token_colours: a chip's tint, by the size and sign of its push (pure arithmetic)."""

from __future__ import annotations

import math

import numpy as np

from grpo_desktop.core.common.theme import DARK, LIGHT, THEMES, contrast_ratio
from grpo_desktop.views.update.token_colours import (
    LEVELS,
    MIN_TINT,
    blend,
    level,
    levels,
    readable_text,
    tint,
)


def test_blend_moves_each_channel_part_of_the_way():
    assert blend("#000000", "#ffffff", 0.0) == "#000000"
    assert blend("#000000", "#ffffff", 1.0) == "#ffffff"
    assert blend("#102030", "#304050", 0.5) == "#203040"


def test_no_push_is_the_surface_and_a_push_tints_toward_its_sign():
    assert tint(0.0, LIGHT) == (LIGHT.surface, LIGHT.text, LIGHT.border)
    assert tint(1.0, LIGHT)[0] == LIGHT.up and tint(-1.0, LIGHT)[0] == LIGHT.down
    assert tint(0.5, DARK)[2] == DARK.up


def test_levels_never_fall_below_the_faintest_tint_and_survive_a_subnormal_scale():
    assert level(1.0, 1.0) == LEVELS and level(-1.0, 1.0) == -LEVELS
    assert level(1e-9, 1.0) == round(MIN_TINT * LEVELS)
    assert level(5e-324, 5e-324) == LEVELS and level(-1.0, 0.0) == -LEVELS
    assert not math.isnan(level(1e-308, 1e-308))


def test_chip_text_stays_readable_on_every_tint_of_every_theme():
    for theme in THEMES.values():
        for step in range(-LEVELS, LEVELS + 1, 8):
            fill = tint(step / LEVELS, theme)[0]
            assert contrast_ratio(readable_text(fill, theme), fill) >= 4.5 or step == 0


def test_a_rows_levels_computed_together_equal_each_chips_level():
    """The painter colours a row's visible chips in one vector pass: the same levels as chip
    by chip, halves rounded to even as Python's round does, zero and NaN pushes level 0."""
    rng = np.random.default_rng(7)
    pushes = [*rng.normal(0.0, 0.3, 500).tolist(), 0.0, -0.0, float("nan"), 1e-12, -1e-12]
    pushes += [(k + 0.5) / LEVELS * sign for k in range(15, 40) for sign in (1, -1)]  # halves
    for max_abs in (float(np.nanmax(np.abs(pushes))), 1.0, 0.0):
        shown = [p for p in pushes if not abs(p) > max_abs] if max_abs else pushes
        expected = [level(p, max_abs) if p > 0 or p < 0 else 0 for p in shown]
        assert levels(shown, max_abs) == expected
    assert levels([5e-324, -5e-324, 0.0], 5e-324) == [LEVELS, -LEVELS, 0]
