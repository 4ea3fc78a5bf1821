"""StepCaption: the animation caption, fitted to one band that every caption of a group shares."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.views.common.step_caption import StepCaption, unbreakable

NBSP = "\u00a0"
CAPTIONS = (
    "Step 1 of 2: subtract par (mean = 0.5): r \u2212 mean",
    "Step 2 of 2: divide by std + 1e-4 = 0.5",
    "Step 1 of 2 (reverse): multiply back by std + 1e-4 = 0.5",
    "Step 2 of 2 (reverse): add par back (mean = 0.5): r",
)


def _styled_caption(point_size: float) -> StepCaption:
    """A caption band in the light theme's bold ``point_size`` type, holding CAPTIONS."""
    made = StepCaption()
    font = QFont()
    font.setPointSizeF(point_size)
    font.setBold(True)
    made.set_style(LIGHT, font)
    made.set_captions(CAPTIONS)
    return made


@pytest.fixture
def caption(qtbot) -> StepCaption:
    return _styled_caption(12.0)


def test_phrases_never_break_across_lines():
    text = unbreakable(CAPTIONS[1])
    assert f"2{NBSP}of{NBSP}2" in text
    assert f"std{NBSP}+{NBSP}1e-4{NBSP}={NBSP}0.5" in text
    assert "G/\u2060(G" in unbreakable("divide by G/(G \u2212 1)")


def test_hidden_until_shown(caption):
    assert not caption.isVisible() and caption.shown_text() == ""
    caption.fit(800)
    caption.show_text(CAPTIONS[0], 800)
    assert caption.isVisible() and caption.shown_text() == CAPTIONS[0]
    caption.hide_text()
    assert caption.shown_text() == ""


def test_a_wide_plot_gives_one_line_and_a_narrow_one_a_taller_band(caption):
    assert caption.fit(1200)
    wide = caption.band_px()
    assert not caption.fit(1200)  # same captions, same width: cached
    caption.show_text(CAPTIONS[2], 1200)
    assert caption.textItem.textWidth() < 0  # one line, no wrap width
    assert caption.fit(260)
    assert caption.band_px() > wide
    caption.show_text(CAPTIONS[2], 260)
    document = caption.textItem.document()
    assert 0 < caption.textItem.textWidth() <= 260  # wraps inside the plot
    assert document.size().height() <= caption.band_px()  # and stays inside its band


def _lines(caption: StepCaption) -> list[str]:
    document = caption.textItem.document()
    lines, block = [], document.begin()
    while block.isValid():
        layout = block.layout()
        for index in range(layout.lineCount()):
            line = layout.lineAt(index)
            lines.append(block.text()[line.textStart() : line.textStart() + line.textLength()])
        block = block.next()
    return [line.strip() for line in lines]


def test_a_one_character_word_keeps_to_its_neighbour():
    assert unbreakable(CAPTIONS[3]).endswith(f"0.5):{NBSP}r")
    assert f"r{NBSP}\u2212{NBSP}mean" in unbreakable(CAPTIONS[0])
    assert unbreakable("A is r") == f"A{NBSP}is{NBSP}r"


def test_a_wrapped_caption_never_leaves_one_character_on_a_line(caption):
    for width in range(60, 420, 5):
        caption.fit(width)
        for text in CAPTIONS:
            caption.show_text(text, width)
            lines = _lines(caption)
            assert all(len(line) > 1 for line in lines), (width, lines)


def test_a_new_set_of_captions_lays_each_out_at_most_once_while_fitting_the_band(
    caption, monkeypatch
):
    layouts = []
    measure = StepCaption._wrapped_height
    monkeypatch.setattr(
        StepCaption,
        "_wrapped_height",
        lambda self, *args: layouts.append(args) or measure(self, *args),
    )
    caption.fit(300)  # every caption wraps here: the full search lays each out at many sizes
    assert len(layouts) <= len(CAPTIONS)
    assert not caption.fonts_fitted()  # searched for later: when shown, or in idle time
    fitting = len(layouts)
    caption.show_text(CAPTIONS[0], 300)
    assert len(layouts) > fitting  # the shown caption's font, searched for as it shows


def test_a_caption_shows_in_the_same_font_whether_fitted_in_idle_time_or_as_it_shows(qtbot):
    for width in (120, 260, 300, 520, 900):
        idle, shown = _styled_caption(24.0), _styled_caption(24.0)
        idle.fit(width)
        idle.fit_fonts()
        assert idle.fonts_fitted()
        shown.fit(width)
        for text in CAPTIONS:
            idle.show_text(text, width)
            shown.show_text(text, width)
            assert idle.textItem.font() == shown.textItem.font(), (width, text)
            assert idle.textItem.textWidth() == shown.textItem.textWidth(), (width, text)
            assert idle.textItem.document().size().height() <= idle.band_px()


def test_idle_time_after_a_fit_finds_every_captions_font(caption, qtbot):
    caption.fit(300)
    assert not caption.fonts_fitted()
    qtbot.waitUntil(caption.fonts_fitted, timeout=2000)
