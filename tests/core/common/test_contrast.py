"""WCAG 2.1 relative luminance and contrast, against the standard's own reference values."""

from __future__ import annotations

import pytest

from grpo_desktop.core.common.contrast import (
    AA_LARGE_TEXT,
    AA_TEXT,
    best_text_on,
    contrast_ratio,
    relative_luminance,
    required_ratio,
)


@pytest.mark.parametrize(
    ("colour", "luminance"),
    [
        ("#000000", 0.0),
        ("#ffffff", 1.0),
        ("#ff0000", 0.2126),  # the coefficients themselves
        ("#00ff00", 0.7152),
        ("#0000ff", 0.0722),
        ("#808080", 0.21586),  # ((128/255 + 0.055)/1.055)^2.4
        ("#0a0a0a", 10 / 255 / 12.92),  # below the 0.04045 threshold: the linear segment
    ],
)
def test_relative_luminance_follows_wcag_2_1(colour, luminance):
    assert relative_luminance(colour) == pytest.approx(luminance, abs=1e-5)


def test_contrast_ratio_matches_known_pairs_in_either_order():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#123456", "#123456") == pytest.approx(1.0)
    # The grey pair every AA checker quotes: #767676 just passes on white, #777777 just fails.
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_large_text_needs_3_to_1_and_body_text_4_5():
    assert required_ratio(13) == AA_TEXT
    assert required_ratio(18.66) == AA_TEXT
    assert required_ratio(18.66, bold=True) == AA_LARGE_TEXT
    assert required_ratio(24) == AA_LARGE_TEXT


def test_best_text_on_picks_black_or_white():
    assert best_text_on("#56b4e9") == "#000000"
    assert best_text_on("#0072b2") == "#ffffff"


@pytest.mark.parametrize("bad", ["red", "#fff", "#gggggg", ""])
def test_a_colour_not_written_rrggbb_is_refused(bad):
    with pytest.raises(ValueError, match="#rrggbb"):
        relative_luminance(bad)
