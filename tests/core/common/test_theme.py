"""Every theme is readable: WCAG contrast of at least 4.5:1 for every text/background pair, 3:1
for every bar, chart line and focus ring; pushed up stays bluish green, pushed down vermillion."""

from __future__ import annotations

import colorsys

import pytest

from grpo_desktop.core.common.theme import (
    THEMES,
    contrast_failures,
    contrast_ratio,
    get_theme,
    graphic_pairs,
    text_pairs,
)


@pytest.mark.parametrize("theme", THEMES.values(), ids=list(THEMES))
def test_every_text_background_pair_reaches_wcag_aa(theme):
    failing = {
        name: round(contrast_ratio(fg, bg), 2)
        for name, (fg, bg) in text_pairs(theme).items()
        if contrast_ratio(fg, bg) < 4.5
    }
    assert failing == {}


@pytest.mark.parametrize("theme", THEMES.values(), ids=list(THEMES))
def test_every_text_and_chart_mark_of_every_theme_reaches_wcag_aa(theme):
    assert contrast_failures(theme) == {}
    names = set(text_pairs(theme))
    # The places the issue found unreadable are among the pairs checked.
    assert {
        "pushed-up text on window",
        "pushed-down text on window",
        "accent on down card",
    } <= names
    assert len(graphic_pairs(theme)) >= 5 + len(theme.series)


def _hue_degrees(colour: str) -> float:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(red, green, blue)[0] * 360


@pytest.mark.parametrize("theme", THEMES.values(), ids=list(THEMES))
def test_pushed_up_stays_bluish_green_and_pushed_down_vermillion(theme):
    assert 150 <= _hue_degrees(theme.up) <= 175  # Okabe–Ito bluish green #009E73: 164°
    assert 15 <= _hue_degrees(theme.down) <= 30  # vermillion #D55E00: 26°
    assert contrast_ratio(theme.up, theme.down) > 1.0  # never the same colour


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
