"""A toggle's captions are measured ahead, in idle time: the click that brings them looks their
band up instead of measuring their text (every click brings new numbers into the captions), and
finds what measuring them in the click finds."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.views.common.step_caption import StepCaption


def captions_for(mean: str, std: str) -> tuple[str, ...]:
    return (
        f"Step 1 of 2: subtract par (mean = {mean}): r \u2212 mean",
        f"Step 2 of 2: divide by std + 1e-4 = {std}",
        f"Step 1 of 2 (reverse): multiply back by std + 1e-4 = {std}",
        f"Step 2 of 2 (reverse): add par back (mean = {mean}): r",
    )


GROUPS = [captions_for(mean, std) for mean, std in (("0.5", "0.5"), ("0.75", "0.433"), ("1", "0"))]


def bold(point_size: float) -> QFont:
    font = QFont()
    font.setPointSizeF(point_size)
    font.setBold(True)
    return font


def styled(theme=LIGHT, point_size: float = 24.0) -> StepCaption:
    caption = StepCaption()
    caption.set_style(theme, bold(point_size))
    return caption


@pytest.fixture
def measured_text(monkeypatch) -> list[str]:
    """The caption texts measured (one line or laid out), in order."""
    measured: list[str] = []
    advance, wrapped = StepCaption._advance, StepCaption._wrapped_height
    monkeypatch.setattr(
        StepCaption,
        "_advance",
        lambda self, text, size: measured.append(text) or advance(self, text, size),
    )
    monkeypatch.setattr(
        StepCaption,
        "_wrapped_height",
        lambda self, text, size, width: measured.append(text) or wrapped(self, text, size, width),
    )
    return measured


@pytest.mark.parametrize("width", [140, 300, 640, 1400])
def test_a_click_fits_captions_measured_ahead_without_measuring_them(qtbot, measured_text, width):
    caption = styled()
    caption.set_captions(GROUPS[0])
    caption.fit(width)
    for group in GROUPS[1:]:
        caption.measure_ahead(group, width)  # idle time after the click before
        del measured_text[:]
        caption.set_captions(group)
        assert caption.fit(width)
        assert measured_text == [], "the click measured the captions again"


@pytest.mark.parametrize("theme", [LIGHT, PROJECTOR])
@pytest.mark.parametrize("width", [140, 300, 640, 1400])
def test_captions_measured_ahead_get_the_band_and_fonts_measured_in_the_click(qtbot, theme, width):
    ahead, fresh = styled(theme), styled(theme)
    for group in GROUPS:
        ahead.measure_ahead(group, width)
        for caption in (ahead, fresh):
            caption.set_captions(group)
            caption.fit(width)
        assert ahead.band_px() == fresh.band_px(), group
        for text in group:
            ahead.show_text(text, width)
            fresh.show_text(text, width)
            assert ahead.textItem.font() == fresh.textItem.font(), text
            assert ahead.textItem.textWidth() == fresh.textItem.textWidth(), text


def test_a_new_font_measures_again(qtbot, measured_text):
    """Measured ahead in one font, shown in another (the theme or zoom changed): the click
    measures them in the font it shows."""
    caption = styled(point_size=24.0)
    caption.measure_ahead(GROUPS[1], 640)
    larger = styled(point_size=30.0)
    larger.set_captions(GROUPS[1])
    larger.fit(640)
    caption.set_style(LIGHT, bold(30.0))
    del measured_text[:]
    caption.set_captions(GROUPS[1])
    caption.fit(640)
    assert measured_text, "a band measured in the old font was used"
    assert caption.band_px() == larger.band_px()
