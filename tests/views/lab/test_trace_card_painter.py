"""CardPainter: what a card keeps (its layers, wrapped trace, shared drawings) and its switch."""

from __future__ import annotations

from test_trace_card import make_snapshot

from grpo_desktop.core.common.theme import PROJECTOR
from grpo_desktop.views.common import render_cache
from grpo_desktop.views.lab import trace_card_painter
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.views.lab.trace_card_painter import CardPainter


def shown_card(qtbot, rewards=(1, 0, 0, 1), compact=False) -> TraceCard:
    card = TraceCard(0)
    qtbot.addWidget(card)
    card.show_card(make_snapshot(list(rewards)).cards[0], compact)
    card.resize(card.sizeHint())
    return card


def test_the_painter_keeps_one_layer_per_look_and_shares_the_advantage_lines(qtbot):
    card = shown_card(qtbot)
    assert isinstance(card.painter, CardPainter) and card.painter.face is card
    render_cache.DRAWINGS.clear("advantage line")
    card.grab()
    assert len(card.painter.layers) == 1
    assert render_cache.DRAWINGS.kept("advantage line") == 1
    other = shown_card(qtbot)
    other.grab()  # the same value, size and colour: the same drawing
    assert render_cache.DRAWINGS.kept("advantage line") == 1
    card.painter.forget()
    assert not card.painter.layers


def test_a_new_font_or_theme_is_a_new_style_and_forgets_the_layers(qtbot):
    card = shown_card(qtbot)
    card.grab()
    before = card.painter.style()
    card.set_theme(PROJECTOR)
    assert card.painter.style() is not before and not card.painter.layers


def test_with_caching_off_a_card_is_drawn_afresh_to_the_same_pixels(qtbot, monkeypatch):
    card = shown_card(qtbot, compact=True)
    kept = card.grab().toImage()
    calls = []
    original = CardPainter.paint_layer
    monkeypatch.setattr(
        CardPainter, "paint_layer", lambda self, *a: calls.append(1) or original(self, *a)
    )
    card.grab()
    assert calls == []  # blitted from the kept layer
    monkeypatch.setattr(render_cache, "CACHING", False)
    assert card.grab().toImage() == kept
    assert card.grab().toImage() == kept
    assert len(calls) == 2  # drawn on each paint, nothing new kept


def test_a_trace_wrapped_for_one_card_is_not_wrapped_again_for_another_in_the_same_look(
    qtbot, monkeypatch
):
    # A group's cards repeat a problem's few traces, and every window lays its cards out at the
    # same widths: a trace is wrapped once per look and width, whichever card asks.
    wrapped = []
    original = trace_card_painter.wrap
    monkeypatch.setattr(trace_card_painter, "wrap", lambda *a: wrapped.append(1) or original(*a))
    first = shown_card(qtbot)
    lines = first.painter.trace_lines(first.painter.style(), 240.0)
    count = len(wrapped)
    second = shown_card(qtbot)  # the same trace, another card (another window alike)
    assert second.painter.trace_lines(second.painter.style(), 240.0) == lines
    assert len(wrapped) == count
    second.set_theme(PROJECTOR)  # another look: its own fonts, wrapped afresh
    second.painter.trace_lines(second.painter.style(), 240.0)
    assert len(wrapped) == count + 1
