"""Every theme is readable: WCAG contrast of at least 4.5:1 for every text/background pair."""

from __future__ import annotations

import pytest

from grpo_desktop.core.theme import THEMES, contrast_ratio, get_theme, text_pairs


@pytest.mark.parametrize("theme", THEMES.values(), ids=list(THEMES))
def test_every_text_background_pair_reaches_wcag_aa(theme):
    failing = {
        name: round(contrast_ratio(fg, bg), 2)
        for name, (fg, bg) in text_pairs(theme).items()
        if contrast_ratio(fg, bg) < 4.5
    }
    assert failing == {}


def test_contrast_ratio_matches_the_wcag_reference_values():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_projector_theme_is_larger_and_bolder():
    projector, light = get_theme("projector"), get_theme("light")
    assert projector.content_scale == pytest.approx(1.35)
    assert projector.chrome_scale > light.chrome_scale  # menus and toolbar grow too
    assert projector.type_scale >= light.type_scale
    assert projector.stroke_width > light.stroke_width


def test_unknown_theme_lists_the_valid_names():
    with pytest.raises(ValueError, match="light, dark, projector"):
        get_theme("neon")
