"""TraceCard: paints a CardState, emits toggle_requested on click/Space/Enter, never restyles."""

from __future__ import annotations

import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent, QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QWheelEvent
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.core.lab.lab_snapshot import CardState, LabSnapshot, Push, build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.views.lab.trace_card_painter import CardPainter


def make_snapshot(rewards, problem_id: str = "mult-23x47") -> LabSnapshot:
    """A snapshot built exactly as the state builds it: the checker grades each card's text."""
    return build_snapshot(get_problem(problem_id), [bool(r) for r in rewards])


SEED = make_snapshot([1, 0, 0, 1])


@pytest.fixture
def card(qtbot):
    widget = TraceCard(1)
    qtbot.addWidget(widget)
    widget.show_card(SEED.cards[1], compact=False)  # reward 0, advantage −1.00
    widget.resize(widget.sizeHint())
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


def test_object_name_and_accessible_name_follow_the_index(qtbot):
    widget = TraceCard(3)
    qtbot.addWidget(widget)
    assert widget.objectName() == "traceCard3"
    assert widget.accessibleName() == "Card 4"
    assert widget.focusPolicy() == Qt.FocusPolicy.StrongFocus
    assert widget.cursor().shape() == Qt.CursorShape.PointingHandCursor


def test_mouse_click_emits_toggle_requested_and_does_not_restyle_the_card(qtbot, card):
    assert card.property("correct") is False
    with qtbot.waitSignal(card.toggle_requested, timeout=1000) as blocker:
        qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    assert blocker.args == [1]
    # The card only changes when a new snapshot comes back (DESIGN §2).
    assert card.property("correct") is False
    assert card.card_state == SEED.cards[1]


def test_right_click_does_not_emit(qtbot, card):
    with qtbot.assertNotEmitted(card.toggle_requested):
        qtbot.mouseClick(card, Qt.MouseButton.RightButton)


@pytest.mark.parametrize("key", [Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter])
def test_space_and_enter_on_a_focused_card_emit_toggle_requested(qtbot, card, key):
    card.setFocus()
    with qtbot.waitSignal(card.toggle_requested, timeout=1000) as blocker:
        qtbot.keyClick(card, key)
    assert blocker.args == [1]
    assert card.property("correct") is False


def test_other_keys_do_not_emit(qtbot, card):
    card.setFocus()
    with qtbot.assertNotEmitted(card.toggle_requested):
        qtbot.keyClick(card, Qt.Key.Key_A)
        qtbot.keyClick(card, Qt.Key.Key_Down)


def test_show_card_sets_correct_property_and_accessible_description(qtbot, card):
    assert card.property("correct") is False
    description = card.accessibleDescription()
    assert "final answer 1091" in description
    assert "reward 0" in description
    assert "−1.00" in description  # the real minus sign, as the seeds write it
    assert "pushed down" in description

    card.show_card(SEED.cards[0], compact=False)
    assert card.property("correct") is True
    assert "final answer 1081, checker: right, reward 1," in card.accessibleDescription()
    assert "+1.00" in card.accessibleDescription()
    assert "pushed up" in card.accessibleDescription()


def test_degenerate_group_says_no_signal(qtbot):
    widget = TraceCard(0)
    qtbot.addWidget(widget)
    widget.show_card(make_snapshot([1, 1, 1, 1]).cards[0], compact=False)
    assert "advantage 0.00, no signal" in widget.accessibleDescription()


def test_tooltip_holds_the_full_trace_and_how_to_toggle(qtbot, card):
    tooltip = card.toolTip()
    for line in SEED.cards[1].text.splitlines():
        assert line in tooltip
    assert "Click, Space or Enter to mark it right/wrong" in tooltip


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the tooltip shows offscreen
def test_the_tooltip_that_shows_states_the_advantage_of_the_latest_click(qtbot):
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QWidget

    widget = TraceCard(0)
    qtbot.addWidget(widget)
    widget.show_card(make_snapshot([1, 0, 0, 0]).cards[0], compact=False)
    widget.show_card(make_snapshot([1, 1, 0, 0]).cards[0], compact=False)
    wanted = widget.toolTip()
    assert "+1.00" in wanted  # the latest advantage, not the first click's +1.50
    # Qt is handed the text when a tooltip is about to show (not on every click).
    help_event = QHelpEvent(QEvent.Type.ToolTip, QPoint(5, 5), widget.mapToGlobal(QPoint(5, 5)))
    QApplication.sendEvent(widget, help_event)
    assert QWidget.toolTip(widget) == wanted


def test_showing_the_same_state_again_does_nothing(qtbot, card, monkeypatch):
    calls = []
    monkeypatch.setattr(card, "update", lambda *args: calls.append(args))
    card.show_card(SEED.cards[1], compact=False)
    assert calls == []
    card.show_card(SEED.cards[1], compact=True)  # the mode changed: repaint
    assert len(calls) == 1


def test_compact_mode_is_smaller_than_full_mode(qtbot):
    widget = TraceCard(0)
    qtbot.addWidget(widget)
    widget.show_card(SEED.cards[0], compact=False)
    full = widget.sizeHint()
    widget.show_card(SEED.cards[0], compact=True)
    compact = widget.sizeHint()
    assert compact.width() < full.width()
    assert compact.height() < full.height()
    assert widget.minimumSizeHint().width() <= compact.width()


def test_full_mode_height_grows_with_the_trace_lines(qtbot):
    short, long = TraceCard(0), TraceCard(1)
    for widget, text in ((short, "1 + 1 = 2"), (long, "a\nb\nc\nd\ne\nf\nAnswer: 2")):
        qtbot.addWidget(widget)
        widget.show_card(CardState(0, text, "2", 1, 0.0, 0.0, Push.NONE), compact=False)
    assert long.sizeHint().height() > short.sizeHint().height()


def test_size_hint_scales_with_the_widget_font(qtbot):
    widget = TraceCard(0)
    qtbot.addWidget(widget)
    widget.show_card(SEED.cards[0], compact=False)
    before = widget.sizeHint()
    font = QFont(widget.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    widget.setFont(font)
    after = widget.sizeHint()
    assert after.width() > before.width() * 1.5
    assert after.height() > before.height() * 1.5


def test_keyboard_focus_draws_a_focus_ring(qtbot, card):
    focus = QColor(LIGHT.focus)
    edge_y = card.height() // 2
    card.clearFocus()
    assert card.grab().toImage().pixelColor(1, edge_y) != focus
    card.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(card.hasFocus, timeout=1000)
    assert card.grab().toImage().pixelColor(1, edge_y) == focus


def test_set_theme_repaints_with_the_new_colours(qtbot, card):
    from dataclasses import replace

    dark_border = replace(LIGHT, name="test", down="#123456", type_scale=1.5)
    before = card.sizeHint()
    card.set_theme(dark_border)
    assert card.sizeHint().height() > before.height()
    image = card.grab().toImage()
    # The border is drawn in the push colour of the shown card (pushed down).
    assert image.pixelColor(5, card.height() // 2) == QColor("#123456")


def boxed_card(qtbot, problem_id: str = "percent-increase-40-50") -> tuple[TraceCard, CardState]:
    snapshot = make_snapshot([1] * get_problem(problem_id).group_size, problem_id)
    state = next(card for card in snapshot.cards if "\\boxed{" in card.text)
    widget = TraceCard(state.index)
    qtbot.addWidget(widget)
    widget.show_card(state, compact=False)
    widget.resize(widget.sizeHint())
    widget.show()
    return widget, state


def test_a_boxed_answer_is_drawn_in_a_box_and_no_latex_shows(qtbot):
    widget, state = boxed_card(qtbot)
    assert "\\boxed{25\\%}" in state.text  # the checker grades the raw text …
    assert widget.card_state.text == state.text
    style = widget._current_style()
    fm = style.fm(style.trace)
    inner = widget.width() - 2 * (4 + style.pad)
    lines = widget._trace_lines(style, inner)
    shown = " ".join(line.text for line in lines)
    assert "\\" not in shown and "{" not in shown  # … the reader sees it typeset
    boxed = [line for line in lines if line.boxes]
    assert len(boxed) == 1
    line = boxed[0]
    assert line.text.strip("\u202f").endswith("25%")
    start, end = line.boxes[0]
    # The rectangle surrounds the answer's glyphs, inside the card's content width.
    answer_left = fm.horizontalAdvance(line.text[: line.text.index("25%")])
    answer_right = answer_left + fm.horizontalAdvance("25%")
    assert start < answer_left and answer_right < end <= inner
    # And it is painted: the box's left edge has ink where a plain line would have none.
    image = widget.grab().toImage()
    body_top = 4 + style.pad + widget._header_height(style) + style.gap
    row = body_top + lines.index(line) * fm.lineSpacing() + fm.height() / 2
    x = round(4 + style.pad + start + 0.5)
    assert image.pixelColor(x, round(row)).lightness() < 128


def test_the_tooltip_shows_the_typeset_trace(qtbot):
    widget, _ = boxed_card(qtbot)
    assert "\\boxed" not in widget.toolTip() and "25%" in widget.toolTip()


@pytest.mark.parametrize("compact", [False, True])
def test_a_card_drawn_from_its_cached_layer_looks_like_a_card_drawn_afresh(qtbot, compact):
    # A click changes every advantage: the card keeps what did not change (box, header, stamp,
    # trace) as a pixmap and draws only the advantage again. The result must be pixel-identical.
    states = [make_snapshot(r).cards[1] for r in ([1, 0, 0, 1], [1, 0, 1, 1], [1, 1, 0, 1])]
    reused = TraceCard(1)
    qtbot.addWidget(reused)
    reused.show_card(states[0], compact)
    reused.resize(reused.sizeHint())
    reused.show()
    for state in (*states, states[0], states[2]):
        reused.show_card(state, compact)
        seen = reused.grab().toImage()
        fresh = TraceCard(1)
        qtbot.addWidget(fresh)
        fresh.show_card(state, compact)
        fresh.resize(reused.size())
        fresh.show()
        assert seen == fresh.grab().toImage(), state


class DirectCard(TraceCard):
    """A card that draws its advantage lines straight onto itself, as cards did before they
    shared those drawings: the reference the shared footers must match."""

    def paintEvent(self, event) -> None:
        cards = self.painter
        style = cards.style()
        state = self.card_state
        advantage = 0.0 if self.advantage_hidden else state.advantage
        accent = style.colour(self.theme.push_colour(advantage))
        painter = QPainter(self)
        painter.drawPixmap(0, 0, cards.layer(style, state, accent, advantage))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        paint = cards._paint_compact if self.compact else cards._paint_full
        paint(painter, style, state, cards.content_rect(style), accent, layer=False)
        painter.end()


@pytest.mark.parametrize("compact", [False, True])
def test_shared_advantage_drawings_look_like_text_drawn_on_the_card(qtbot, compact):
    from grpo_desktop.views.common.render_cache import DRAWINGS

    states = [make_snapshot(r).cards[1] for r in ([1, 0, 0, 1], [1, 0, 1, 1], [1, 1, 1, 1])]
    DRAWINGS.clear("advantage line")
    for hidden in (False, True):
        for state in states:
            cards = []
            for kind in (TraceCard, DirectCard):
                card = kind(1)
                qtbot.addWidget(card)
                card.show_card(state, compact)
                card.set_presentation(False, hidden)
                card.resize(card.sizeHint() + QSize(7, 3))  # fractional-free and odd sizes
                cards.append(card.grab().toImage())
            assert cards[0] == cards[1], (state.advantage, hidden)
    DRAWINGS.clear("advantage line")
    for index in range(5):  # five cards of one size showing one advantage: one drawing
        card = TraceCard(index)
        qtbot.addWidget(card)
        card.show_card(states[0], compact)
        card.resize(200, 160)
        card.grab()
    assert DRAWINGS.kept("advantage line") == 1


def test_a_new_advantage_of_the_same_sign_reuses_the_cards_layer(qtbot, monkeypatch):
    calls = []
    original = CardPainter.paint_layer
    monkeypatch.setattr(
        CardPainter, "paint_layer", lambda self, *a: calls.append(1) or original(self, *a)
    )
    widget = TraceCard(0)
    qtbot.addWidget(widget)
    right = make_snapshot([1, 0, 0, 0]).cards[0]  # A = +1.73
    widget.show_card(right, compact=True)
    widget.resize(widget.sizeHint())
    widget.grab()
    assert len(calls) == 1
    widget.show_card(make_snapshot([1, 1, 0, 0]).cards[0], compact=True)  # A = +1.00
    widget.grab()
    assert len(calls) == 1, "only the advantage changed: the layer is drawn from its cache"
    widget.show_card(make_snapshot([1, 1, 1, 1]).cards[0], compact=True)  # A = 0: grey box
    widget.grab()
    assert len(calls) == 2


@pytest.mark.parametrize("compact", [False, True])
def test_a_new_advantage_of_the_same_sign_repaints_only_the_advantage_lines(qtbot, compact):
    # At 200 % zoom the blit of a whole card was most of its paint, and a click repaints every
    # card whose A changed. What the screen shows must still be the whole card drawn afresh.
    widget = TraceCard(1)
    qtbot.addWidget(widget)
    widget.show_card(make_snapshot([1, 0, 0, 1]).cards[1], compact)  # A = −1.00
    widget.resize(widget.sizeHint())
    with qtbot.waitExposed(widget):
        widget.show()
    painted = EventLog(QEvent.Type.Paint, widget, record=lambda _, event: event.rect())
    for rewards, whole in (([1, 0, 0, 0], False), ([1, 0, 1, 1], False), ([0, 0, 0, 0], True)):
        # −0.58 and −1.73 only change the number; 0 (no signal) turns the box grey.
        painted.seen.clear()
        widget.show_card(make_snapshot(rewards).cards[1], compact)
        qtbot.waitUntil(lambda: bool(painted.seen))
        QApplication.processEvents()
        assert (painted.seen == [widget.rect()]) == whole, (rewards, painted.seen)
        if not whole:
            (rect,) = painted.seen
            assert rect.width() < widget.width() and rect.height() < widget.height() / 2
        screen = QApplication.primaryScreen().grabWindow(widget.winId()).toImage()
        drawn = widget.grab().toImage()
        assert screen.convertToFormat(drawn.format()) == drawn, rewards


def test_the_cached_card_boxes_stay_within_their_byte_budget(qtbot):
    from PySide6.QtCore import QSizeF
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QWidget

    from grpo_desktop.views.common.render_cache import DRAWINGS
    from grpo_desktop.views.lab.trace_card_painter import rounded_box

    widget = QWidget()
    qtbot.addWidget(widget)
    for width in range(200, 700, 2):  # card sizes change with G, zoom and the workspace
        rounded_box(QSizeF(width, 300), QColor("#00745a"), QColor("#e3f4ee"), 1.5, 8.0, widget)
    boxes = DRAWINGS
    held = sum(p.width() * p.height() * 4 for p in boxes.pixmaps.values())
    assert held <= boxes.max_bytes
    assert held == boxes.bytes


# --- continuous mode, reward functions and long completions ---------------------------------


def _hand_set(rewards=(1, 0, 0.5, 1)):
    return build_snapshot(
        get_problem("mult-23x47"), [True, False, False, True], scores=[float(r) for r in rewards]
    )


@pytest.fixture
def editable(qtbot):
    widget = TraceCard(2)
    qtbot.addWidget(widget)
    widget.show_card(_hand_set().cards[2], compact=False, reward_range=(0.0, 1.0))
    widget.resize(widget.sizeHint())
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


def test_dragging_sideways_sets_the_reward_as_one_gesture_and_does_not_toggle(qtbot, editable):
    track = editable.painter.track_rect(editable.painter.style())
    start = editable.rect().center()
    requests = []
    editable.score_requested.connect(lambda *args: requests.append(args))
    with qtbot.assertNotEmitted(editable.toggle_requested):
        qtbot.mousePress(editable, Qt.MouseButton.LeftButton, pos=start)
        for step in (10, 20, round(track.width() / 4)):
            qtbot.mouseMove(editable, start + QPoint(step, 0))
        qtbot.mouseRelease(
            editable, Qt.MouseButton.LeftButton, pos=start + QPoint(round(track.width() / 4), 0)
        )
    assert requests, "a drag asks for a reward"
    assert {gesture for _, _, gesture in requests} == {requests[0][2]}
    assert requests[-1][0] == 2 and requests[-1][1] == pytest.approx(0.75, abs=0.02)


def test_a_plain_click_in_continuous_mode_still_marks_the_card(qtbot, editable):
    with qtbot.waitSignal(editable.toggle_requested, timeout=1000):
        qtbot.mouseClick(editable, Qt.MouseButton.LeftButton)


def test_plus_and_minus_nudge_the_reward_by_a_twentieth_of_the_span(qtbot, editable):
    editable.setFocus()
    with qtbot.waitSignal(editable.score_requested, timeout=1000) as up:
        qtbot.keyClick(editable, Qt.Key.Key_Plus)
    assert up.args[:2] == [2, pytest.approx(0.55)]
    with qtbot.waitSignal(editable.score_requested, timeout=1000) as down:
        qtbot.keyClick(editable, Qt.Key.Key_Minus)
    assert down.args[:2] == [2, pytest.approx(0.45)]


def test_without_continuous_mode_a_drag_sets_nothing(qtbot, card):
    end = card.rect().center() + QPoint(60, 0)
    with qtbot.assertNotEmitted(card.score_requested):
        qtbot.mousePress(card, Qt.MouseButton.LeftButton, pos=card.rect().center())
        qtbot.mouseMove(card, end)
        qtbot.keyClick(card, Qt.Key.Key_Plus)
    # Released after it, whatever it asked for (its click toggles the card): a button left
    # held stays held for the application, and the next window's prebuild waits for the drag.
    qtbot.mouseRelease(card, Qt.MouseButton.LeftButton, pos=end)


def test_a_card_names_its_reward_functions_and_a_hand_set_reward(qtbot):
    from grpo_desktop.core.lab.lab_rewards import RewardWeights

    weighted = build_snapshot(
        get_problem("mult-23x47"), [True, False, False, True], weights=RewardWeights(format=0.5)
    )
    widget = TraceCard(1)
    qtbot.addWidget(widget)
    widget.show_card(weighted.cards[1], compact=False)
    assert "checker: wrong, reward 0.5 (accuracy 0 · format 1)" in (widget.accessibleDescription())
    widget.show_card(_hand_set().cards[2], compact=False, reward_range=(0.0, 1.0))
    assert "checker: wrong, reward 0.5," in widget.accessibleDescription()
    assert "Drag sideways, or press + or −, to set its reward" in widget.toolTip()


def test_a_long_completion_shows_a_few_lines_and_scrolls_inside_the_card(qtbot):
    long_text = "\n".join(f"line {i}: <b>not bold</b>" for i in range(200))
    state = CardState(0, long_text, None, 0.5, 0.0, 0.0, Push.NONE, None, "")
    widget = TraceCard(0)
    qtbot.addWidget(widget)
    widget.show_card(state, compact=False)
    short = TraceCard(1)
    qtbot.addWidget(short)
    short.show_card(SEED.cards[0], compact=False)
    assert widget.sizeHint().height() < short.sizeHint().height() * 3
    widget.resize(widget.sizeHint())
    with qtbot.waitExposed(widget):
        widget.show()
    widget.grab()  # paints, so the card knows how far its trace can scroll
    centre = QPointF(widget.rect().center())
    wheel = QWheelEvent(
        centre, widget.mapToGlobal(centre), QPoint(), QPoint(0, -240),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
        False,
    )  # fmt: skip
    QApplication.sendEvent(widget, wheel)
    assert widget.first_line == 6
    assert "&lt;b&gt;not bold&lt;/b&gt;" in widget.toolTip()  # plain text, even in the tooltip
    assert len(widget.toolTip()) < 3000


def test_a_card_paints_every_pixel_over_the_window_colour_so_nothing_beneath_is_painted(card):
    # Opaque: Qt skips painting the grid and window beneath a card, and the layer's blit needs no
    # blending. Around the rounded box the window's own colour shows, as it did through it.
    from PySide6.QtGui import QPalette

    assert card.testAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
    window_colour = card.palette().color(QPalette.ColorRole.Window)
    image = card.grab().toImage()
    for x, y in ((0, 0), (card.width() - 1, 0), (0, card.height() - 1)):
        assert image.pixelColor(x, y) == window_colour
    assert not any(layer.hasAlphaChannel() for layer in card.painter.layers.values())
    card.setPalette(QPalette(QColor("#123456")))  # a new window colour: a new layer
    assert card.grab().toImage().pixelColor(0, 0) == QColor("#123456")


def _painted_texts(widget: TraceCard, monkeypatch) -> list[str]:
    """Every string the card draws on its next full paint."""
    from PySide6.QtGui import QPainter

    drawn: list[str] = []
    original = QPainter.drawText

    def record(painter, *args):
        drawn.extend(a for a in args if isinstance(a, str))
        return original(painter, *args)

    from grpo_desktop.views.common import render_cache

    monkeypatch.setattr(QPainter, "drawText", record)
    widget.painter.forget()
    render_cache.DRAWINGS.clear("advantage line")  # the advantage lines, drawn afresh too
    widget.grab()
    monkeypatch.undo()
    return drawn


@pytest.mark.parametrize("compact", [False, True])
def test_the_checkers_verdict_and_the_push_are_shown_apart(qtbot, monkeypatch, compact):
    """Issue 25, item 6: a hand-set 0.54 above par is a green card whose answer the checker marks
    ✗; under accuracy + format a right answer below par is red and ✓. The verdict sits on the
    answer the checker read, never on the reward stamp; the push names par."""
    from grpo_desktop.core.lab.lab_rewards import RewardWeights

    hand = build_snapshot(
        get_problem("mult-23x47"), [True, False, False, True], scores=[0.2, 0.54, 0.0, 1.0]
    )
    wrong_up = hand.cards[1]
    assert wrong_up.correct is False and wrong_up.push is Push.UP
    r1 = build_snapshot(
        get_problem("mult-23x47"),
        [True, False, False, True],
        weights=RewardWeights(accuracy=1, format=1),
    )
    right_down = r1.cards[0]
    assert right_down.correct is True and right_down.push is Push.DOWN
    for card, glyph, word, push in (
        (wrong_up, "✗", "wrong", "pushed up · above par"),
        (right_down, "✓", "right", "pushed down · below par"),
    ):
        widget = TraceCard(card.index)
        qtbot.addWidget(widget)
        widget.show_card(card, compact=compact)
        widget.resize(widget.sizeHint())
        texts = _painted_texts(widget, monkeypatch)
        stamp = next(t for t in texts if t.startswith(("reward ", "r = ")))
        assert "✓" not in stamp and "✗" not in stamp, stamp  # the reward alone
        answer = next(t for t in texts if t.startswith("→"))
        assert glyph in answer, answer
        if not compact:
            assert answer.endswith(f"checker {glyph}"), answer  # whole, at the narrowest card
            assert push in texts, texts
        assert f"checker: {word}" in widget.accessibleDescription()


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize(
    ("index", "shown_group", "toggled_group", "body_ahead"),
    [
        (1, [1, 0, 0, 1], [1, 0, 1, 1], True),  # another card toggled: a new advantage only
        (0, [1, 0, 0, 0], [1, 1, 1, 1], True),  # a new push colour on the same text
        (1, [1, 0, 0, 1], [1, 1, 0, 1], False),  # its own toggle: a new text (full: in the frame)
    ],
)
def test_a_card_prepared_ahead_shows_its_new_state_from_kept_drawings_and_looks_the_same(
    qtbot, monkeypatch, compact, index, shown_group, toggled_group, body_ahead
):
    from grpo_desktop.views.common.render_cache import DRAWINGS

    shown = make_snapshot(shown_group).cards[index]
    toggled = make_snapshot(toggled_group).cards[index]
    prepared = TraceCard(index)
    qtbot.addWidget(prepared)
    prepared.show_card(shown, compact)
    prepared.resize(prepared.sizeHint() + QSize(11, 0))
    prepared.show()
    prepared.grab()
    DRAWINGS.clear("advantage line")
    prepared.prepare(toggled, None, exposed=True)
    described, layers = [], []
    monkeypatch.setattr(TraceCard, "_describe", lambda self, card: described.append(card))
    original = CardPainter.paint_layer
    monkeypatch.setattr(
        CardPainter, "paint_layer", lambda self, *a: layers.append(1) or original(self, *a)
    )
    kept = DRAWINGS.kept("advantage line")
    prepared.show_card(toggled, compact)
    seen = prepared.grab().toImage()
    assert described == []  # worked out ahead
    assert DRAWINGS.kept("advantage line") == kept == 1  # drawn ahead, blitted in the frame
    assert layers == ([] if body_ahead or compact else [1])  # a compact card shows no trace
    monkeypatch.undo()
    fresh = TraceCard(index)
    qtbot.addWidget(fresh)
    fresh.show_card(toggled, compact)
    fresh.resize(prepared.size())
    fresh.show()
    assert seen == fresh.grab().toImage()
    assert prepared.accessibleDescription() == fresh.accessibleDescription()


def test_a_card_out_of_view_prepares_only_its_description(qtbot):
    from grpo_desktop.views.common.render_cache import DRAWINGS

    card = TraceCard(1)
    qtbot.addWidget(card)
    card.show_card(SEED.cards[1], compact=True)
    DRAWINGS.clear("advantage line")
    card.prepare(make_snapshot([1, 1, 0, 1]).cards[1], None, exposed=False)
    assert DRAWINGS.kept("advantage line") == 0
