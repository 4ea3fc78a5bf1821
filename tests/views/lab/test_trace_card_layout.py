"""trace_card_layout: a card's sizes, rectangles, wrapped trace and texts, with no widget."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetricsF
from test_trace_card import make_snapshot

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.lab.trace_display import display_lines
from grpo_desktop.views.lab.trace_card_layout import (
    MARGIN,
    MAX_VISIBLE_LINES,
    CardStyle,
    advantage_text,
    card_height,
    content_rect,
    describe,
    final_answer,
    footer_rect,
    header_text,
    minimum_width,
    only_advantage_changed,
    reward_stamp,
    slider_height,
    stamp_size,
    tooltip_trace,
    track_rect,
    wrap,
)


@pytest.fixture
def style(qapp) -> CardStyle:
    return CardStyle.build(QFont(), LIGHT)


def test_the_projectors_style_is_larger_in_every_font(qapp):
    light, projector = CardStyle.build(QFont(), LIGHT), CardStyle.build(QFont(), PROJECTOR)
    assert projector.advantage.pointSizeF() > light.advantage.pointSizeF()
    assert projector.pad >= light.pad
    assert light.fm(light.trace).height() == QFontMetricsF(light.trace).height()


def test_a_boxed_answer_is_wrapped_with_its_box_inside_the_line(style):
    lines = wrap(display_lines("so \\boxed{1081} it is"), style.trace, style.fm(style.trace), 500)
    assert len(lines) == 1 and "\\" not in lines[0].text
    ((start, end),) = lines[0].boxes
    assert 0 < start < end <= style.fm(style.trace).horizontalAdvance(lines[0].text) + 1
    narrow = wrap(
        display_lines("one two three four five six"), style.trace, style.fm(style.trace), 40
    )
    assert len(narrow) > 1 and all(line.text for line in narrow)


def test_the_rectangles_nest_inside_the_card(style):
    content = content_rect(240, 200, style, None)
    assert content.left() == MARGIN + style.pad and content.right() == 240 - MARGIN - style.pad
    slid = content_rect(240, 200, style, (0.0, 1.0))
    assert slid.bottom() == content.bottom() - slider_height(style, (0.0, 1.0))
    footer = footer_rect(style, content, compact=False)
    assert footer.bottom() <= content.bottom() + 1 and footer.top() > content.top()
    assert footer_rect(style, content, compact=True).height() < footer.height()
    track = track_rect(style, slid)
    assert track.top() == slid.bottom() + style.gap and track.width() < slid.width()
    assert stamp_size(style, "reward 0.54").width() > stamp_size(style, "r = 0").width()


def test_width_and_height_follow_the_mode_and_the_trace(style):
    card = make_snapshot([1, 0, 0, 1]).cards[0]
    assert minimum_width(style, compact=True) < minimum_width(style, compact=False)
    short = card_height(style, False, 2, card, None)
    assert card_height(style, False, 5, card, None) > short
    capped = card_height(style, False, MAX_VISIBLE_LINES, card, None)
    assert card_height(style, False, 100, card, None) == capped  # a long trace scrolls instead
    assert card_height(style, False, 2, card, (0.0, 1.0)) > short  # room for the slider
    assert card_height(style, True, 50, card, None) < short


def test_the_texts_of_a_card(style):
    snapshot = make_snapshot([1, 0, 0, 1])
    right, wrong = snapshot.cards[0], snapshot.cards[1]
    assert header_text(2, False) == "#3" and header_text(2, True) == "#3 ★"
    assert advantage_text(right, "A = ", hidden=True) == "A = ?"
    assert advantage_text(right, "", hidden=False).endswith("▲")
    assert reward_stamp(right, compact=True) == "r = 1" and reward_stamp(right, False) == "reward 1"
    assert final_answer(wrong).endswith("· checker ✗") and final_answer(wrong, True).endswith("✗")
    description, tooltip = describe(right, 0, False, tooltip_trace(display_lines(right.text)))
    assert description.startswith("final answer 1081, checker: right, reward 1")
    assert "<b>Answer 1</b>" in tooltip and "Drag sideways" not in tooltip
    assert "Drag sideways" in describe(right, 0, True, "")[1]
    assert tooltip_trace(display_lines("\\boxed{7}")) == "<b>[7]</b>"


def test_only_a_new_size_of_advantage_keeps_the_cards_layer():
    a = make_snapshot([1, 0, 0, 0]).cards[0]
    b = make_snapshot([1, 1, 0, 0]).cards[0]  # the same answer, a smaller A of the same sign
    c = make_snapshot([1, 1, 1, 1]).cards[0]  # A = 0: the box changes colour
    assert only_advantage_changed(a, b) and not only_advantage_changed(a, c)
    assert not only_advantage_changed(None, a)
