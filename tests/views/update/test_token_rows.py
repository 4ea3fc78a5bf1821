"""TokenRowsView: answers as rows of token chips coloured by their push; click or keys select."""

from __future__ import annotations

import dataclasses

import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage, QPainter
from PySide6.QtWidgets import QApplication, QToolTip

from grpo_desktop.core.common.theme import DARK, LIGHT, PROJECTOR, THEMES, Theme, contrast_ratio
from grpo_desktop.core.update.update_settings import UpdateSettings
from grpo_desktop.core.update.update_snapshot import (
    AnswerRow,
    PresetInfo,
    TokenComputation,
    TokenView,
    UpdateSnapshot,
)
from grpo_desktop.views.common import render_cache
from grpo_desktop.views.update import token_painter
from grpo_desktop.views.update.token_layout import row_header
from grpo_desktop.views.update.token_painter import TokenRowsPainter, draw_chip
from grpo_desktop.views.update.token_rows import (
    LEGEND,
    MIN_TINT,
    TokenRowsScroll,
    TokenRowsView,
    chip_colours,
    display_label,
    push_summary,
    token_tooltip,
)

PRESET = PresetInfo(
    name="verl/token-mean",
    label="verl · token-mean",
    formula="mean over tokens",
    description="one line",
    source="verl",
)


def tok(
    text: str, push: float, clipped: bool = False, dual: bool = False, answer: bool = False
) -> TokenView:
    return TokenView(text=text, push=push, clipped=clipped, dual_clipped=dual, is_answer=answer)


def answer_row(index: int, reward: float, advantage: float, tokens: list[TokenView]) -> AnswerRow:
    return AnswerRow(
        index=index,
        reward=reward,
        advantage=advantage,
        tokens=tuple(tokens),
        total_push=sum(t.push for t in tokens),
        compare_total_push=0.0,
        correct=reward > 0,
    )


def make_snapshot(rows: list[AnswerRow], selected: tuple[int, int] | None = None) -> UpdateSnapshot:
    max_abs = max((abs(t.push) for r in rows for t in r.tokens), default=0.0)
    return UpdateSnapshot(
        settings=UpdateSettings(),
        preset=PRESET,
        compare_preset=PRESET,
        rows=tuple(rows),
        loss=0.1,
        compare_loss=0.1,
        clip_fraction=0.0,
        kl_mean=None,
        inner_step=0,
        max_abs_push=max_abs,
        status="Step 0 is on-policy: ratio 1, nothing clipped.",
        selected=None
        if selected is None
        else TokenComputation(selected[0], selected[1], "title", (), "summary"),
        clip_c_applies=False,
        kl_estimators=("k3",),
        presets=(PRESET,),
    )


SHORT = [tok("23", 0.05), tok(" ×", 0.05), tok(" 47", 0.05), tok(" =", 0.05), tok(" 1081", 0.1)]
SHORT[-1] = tok(" 1081", 0.1, answer=True)
WORDS = ["We", "multiply", "23", "by", "47", "step", "by", "step", "and", "then", "add", "the"]
LONG = [tok(" " + w, -0.01 * (1 + i % 5), clipped=i % 9 == 4) for i, w in enumerate(WORDS)]
LONG = LONG * 4 + [tok("\n", -0.01), tok(" 10", -0.05, answer=True), tok("71", -0.05, answer=True)]
MIXED = [tok("So", 0.02), tok("\n", 0.02), tok("<b>x</b>", 0.02), tok("\t", 0.0), tok(" end", 0.03)]
ROWS = [
    answer_row(0, 1.0, 1.0, SHORT),
    answer_row(1, 0.0, -0.58, LONG),
    answer_row(2, 1.0, 0.58, MIXED),
]
SNAPSHOT = make_snapshot(ROWS, selected=(1, 4))


@pytest.fixture
def view(qtbot):
    widget = TokenRowsView()
    qtbot.addWidget(widget)
    widget.show_snapshot(SNAPSHOT)
    widget.resize(700, widget.heightForWidth(700))
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


def shown_view(qtbot, snapshot: UpdateSnapshot, width: int, theme: Theme = LIGHT):
    widget = TokenRowsView(theme)
    qtbot.addWidget(widget)
    widget.show_snapshot(snapshot)
    widget.resize(width, widget.heightForWidth(width))
    widget.show()
    return widget


def rgb(colour: str | QColor | tuple[int, int, int]) -> tuple[int, int, int]:
    if isinstance(colour, tuple):
        return colour
    c = QColor(colour)
    return c.red(), c.green(), c.blue()


def distance(a: str | tuple[int, int, int], b: str | tuple[int, int, int]) -> float:
    return sum((x - y) ** 2 for x, y in zip(rgb(a), rgb(b), strict=True)) ** 0.5


# -- identity -----------------------------------------------------------------------------------


def test_names_focus_and_scroll_wrapper(qtbot):
    scroll = TokenRowsScroll()
    qtbot.addWidget(scroll)
    view = scroll.rows_view
    assert isinstance(view, TokenRowsView)
    assert scroll.objectName() == "tokenRowsScroll"
    assert view.objectName() == "tokenRows"
    assert view.accessibleName() == "Answers as tokens"
    assert view.focusPolicy() == Qt.FocusPolicy.StrongFocus
    assert scroll.widget() is view
    assert scroll.widgetResizable()
    assert scroll.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert view.hasHeightForWidth()


def test_selected_reflects_the_snapshot(qtbot, view):
    assert view.selected() == (1, 4)
    view.show_snapshot(make_snapshot(ROWS))
    assert view.selected() is None
    view.show_snapshot(make_snapshot(ROWS, selected=(2, 0)))
    assert view.selected() == (2, 0)
    assert "answer 3, token 1" in view.accessibleDescription()


# -- mouse --------------------------------------------------------------------------------------


@pytest.mark.parametrize("row, column", [(0, 0), (0, 4), (1, 0), (1, 30), (1, len(LONG) - 1)])
def test_click_on_a_chip_requests_that_token(qtbot, view, row, column):
    rect = view.token_rect(row, column)
    assert rect.isValid()
    with qtbot.waitSignal(view.token_requested, timeout=1000) as blocker:
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=rect.center())
    assert blocker.args == [row, column]
    # The view never selects by itself: the selection comes back with the next snapshot.
    assert view.selected() == (1, 4)


def test_click_between_chips_or_with_the_right_button_requests_nothing(qtbot, view):
    with qtbot.assertNotEmitted(view.token_requested):
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=QPoint(2, 2))  # the legend margin
        qtbot.mouseClick(view, Qt.MouseButton.RightButton, pos=view.token_rect(0, 1).center())
        gap = view.token_rect(0, 0).right() + 2  # just past the first chip
        qtbot.mouseClick(
            view, Qt.MouseButton.LeftButton, pos=QPoint(gap, view.token_rect(0, 0).center().y())
        )


# -- keyboard -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, expected",
    [
        (Qt.Key.Key_Right, (1, 5)),
        (Qt.Key.Key_Left, (1, 3)),
        (Qt.Key.Key_Up, (0, 4)),  # the short row above has 5 tokens: column 4 is its last
        (Qt.Key.Key_Down, (2, 4)),
        (Qt.Key.Key_Home, (1, 0)),
        (Qt.Key.Key_End, (1, len(LONG) - 1)),
    ],
)
def test_arrow_keys_request_the_neighbouring_token(qtbot, view, key, expected):
    with qtbot.waitSignal(view.token_requested, timeout=1000) as blocker:
        qtbot.keyClick(view, key)
    assert tuple(blocker.args) == expected


def test_up_and_down_clamp_the_column_to_the_shorter_row(qtbot, view):
    view.show_snapshot(make_snapshot(ROWS, selected=(1, 40)))
    with qtbot.waitSignal(view.token_requested, timeout=1000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Up)
    assert blocker.args == [0, len(SHORT) - 1]
    view.show_snapshot(make_snapshot(ROWS, selected=(1, 40)))
    with qtbot.waitSignal(view.token_requested, timeout=1000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Down)
    assert blocker.args == [2, len(MIXED) - 1]


def test_keys_keep_moving_before_the_next_snapshot_arrives(qtbot, view):
    received: list[tuple[int, int]] = []
    view.token_requested.connect(lambda r, c: received.append((r, c)))
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_Right)
    assert received == [(1, 5), (1, 6), (1, 7)]


def test_a_key_at_the_edge_requests_nothing(qtbot, view):
    view.show_snapshot(make_snapshot(ROWS, selected=(0, 0)))
    with qtbot.assertNotEmitted(view.token_requested):
        qtbot.keyClick(view, Qt.Key.Key_Left)
        qtbot.keyClick(view, Qt.Key.Key_Up)


def test_the_first_key_without_a_selection_requests_the_first_token(qtbot, view):
    view.show_snapshot(make_snapshot(ROWS))
    with qtbot.waitSignal(view.token_requested, timeout=1000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Down)
    assert blocker.args == [0, 0]


def ring_pixels(widget: TokenRowsView, row: int, column: int, colour: str) -> int:
    """How many pixels just outside a chip are (close to) ``colour``: its focus ring."""
    image = widget.grab().toImage()
    rect = widget.token_rect(row, column)
    ratio = image.devicePixelRatio()
    y = rect.center().y()
    band = [(x, y) for x in (rect.left() - 3, rect.left() - 2, rect.right() + 2, rect.right() + 3)]
    band += [(x, rect.top() - 2) for x in range(rect.left(), rect.right())]
    return sum(
        distance(rgb(image.pixelColor(int(x * ratio), int(py * ratio))), colour) < 60
        for x, py in band
    )


def test_the_selected_token_has_a_focus_ring(qtbot, view):
    assert ring_pixels(view, 1, 4, LIGHT.focus) > 5
    assert ring_pixels(view, 1, 6, LIGHT.focus) == 0


def test_keyboard_focus_shows_where_the_keys_are_before_anything_is_selected(qtbot, view):
    view.show_snapshot(make_snapshot(ROWS))
    view.clearFocus()
    assert ring_pixels(view, 0, 0, LIGHT.focus) == 0
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    assert ring_pixels(view, 0, 0, LIGHT.focus) > 3


# -- colours ------------------------------------------------------------------------------------


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
def test_chip_colour_goes_toward_up_or_down_with_the_size_of_the_push(theme):
    weak_up, _, _ = chip_colours(tok("a", 0.2), 1.0, theme)
    strong_up, _, up_outline = chip_colours(tok("a", 0.9), 1.0, theme)
    weak_down, _, _ = chip_colours(tok("a", -0.2), 1.0, theme)
    strong_down, _, down_outline = chip_colours(tok("a", -0.9), 1.0, theme)
    assert up_outline == theme.up and down_outline == theme.down
    assert distance(strong_up, theme.up) < distance(weak_up, theme.up)
    assert distance(weak_up, theme.up) < distance(theme.surface, theme.up)
    assert distance(strong_down, theme.down) < distance(weak_down, theme.down)
    assert distance(weak_down, theme.down) < distance(theme.surface, theme.down)
    assert chip_colours(tok("a", 1.0), 1.0, theme)[0] == theme.up  # full intensity


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
def test_zero_push_stays_surface_and_a_tiny_push_is_still_visible(theme):
    fill, text, outline = chip_colours(tok("a", 0.0), 1.0, theme)
    assert (fill, text, outline) == (theme.surface, theme.text, theme.border)
    tiny, _, _ = chip_colours(tok("a", 1e-6), 1.0, theme)
    floor, _, _ = chip_colours(tok("a", MIN_TINT), 1.0, theme)
    assert tiny == floor != theme.surface


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
def test_chip_text_reads_at_every_intensity(theme):
    for step in range(0, 21):
        for sign in (1, -1):
            fill, text, _ = chip_colours(tok("a", sign * step / 20), 1.0, theme)
            assert contrast_ratio(text, fill) >= 4.5, (theme.name, sign, step, text, fill)


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
def test_painted_chips_have_their_colour(qtbot, theme):
    rows = [answer_row(0, 1.0, 1.0, [tok("aaaa", 1.0), tok("bbbb", 0.3), tok("cccc", -1.0)])]
    widget = shown_view(qtbot, make_snapshot(rows), 600, theme)
    image = widget.grab().toImage()
    ratio = image.devicePixelRatio()

    def painted(column: int) -> tuple[int, int, int]:
        rect = widget.token_rect(0, column)
        # The most common colour across the chip's middle line: its fill, not glyph or border.
        y = rect.center().y()
        samples = [
            rgb(image.pixelColor(int(x * ratio), int(y * ratio)))
            for x in range(rect.left() + 3, rect.right() - 2)
        ]
        return max(set(samples), key=samples.count)

    for column, push in ((0, 1.0), (1, 0.3), (2, -1.0)):
        expected = chip_colours(tok("x", push), 1.0, theme)[0]
        assert distance(painted(column), expected) <= 6, (column, painted(column), expected)
    assert distance(painted(1), theme.up) > distance(painted(0), theme.up)


# -- text ---------------------------------------------------------------------------------------


def test_whitespace_is_made_visible_and_nothing_else_changes():
    assert display_label(" 1081") == "␣1081"
    assert display_label("\n") == "↵"
    assert display_label("\t") == "→"
    assert display_label("<b>x</b>") == "<b>x</b>"
    assert display_label("&amp; é") == "&amp;␣é"


def test_a_space_shows_as_a_mark_no_one_reads_as_multiplication_and_the_legend_explains_it():
    # "·47" in "23 × 47" reads as "times 47": a space is ␣, and the legend names ␣ and ↵.
    for multiplication in ("·", "⋅", "×", "∙", "*"):
        assert multiplication not in display_label(" 47")
    assert display_label(" 47") == "␣47" and display_label("\n") == "↵"
    assert "␣ a space" in LEGEND and "↵ a line break" in LEGEND


def test_html_looking_tokens_are_shown_literally(qtbot, view):
    assert view.shown_label(2, 2) == "<b>x</b>"
    assert view.shown_label(2, 3) == "→"
    assert view.shown_label(0, 4) == "␣1081"


def test_a_newline_token_ends_the_line(qtbot, view):
    newline = 1  # MIXED: "So", "\n", "<b>x</b>", …
    assert view.line_of(2, newline + 1) == view.line_of(2, newline) + 1
    assert view.token_rect(2, newline + 1).left() == view.token_rect(2, 0).left()
    last = len(LONG) - 3  # LONG's own newline, before its final answer
    assert view.line_of(1, last + 1) == view.line_of(1, last) + 1


def test_a_token_wider_than_the_view_is_elided_to_fit(qtbot):
    rows = [answer_row(0, 0.0, -1.0, [tok("x" * 400, -0.1)])]
    widget = shown_view(qtbot, make_snapshot(rows), 300)
    rect = widget.token_rect(0, 0)
    assert rect.left() >= 0 and rect.right() < widget.width()
    assert widget.shown_label(0, 0).endswith("…")


def test_tooltip_and_header_words():
    token = tok(" 1081", 0.123456, clipped=True, answer=True)
    text = token_tooltip(token, 1, 6)
    assert '" 1081"' in text and "+0.1235" in text
    assert "clipped" in text and "final answer" in text and "Answer #2, token 7" in text
    assert token_tooltip(tok("\n", -0.5), 0, 0).count('"\\n"') == 1
    assert push_summary(0.25) == ("▲ +0.250 raises", 1)
    assert push_summary(-0.091) == ("▼ −0.091 lowers", -1)
    assert push_summary(0.0) == ("● 0 no push", 0)
    assert push_summary(-1e-6) == ("● 0 no push", 0)
    assert "clipped (no gradient)" in LEGEND and "underlined" in LEGEND


# -- layout -------------------------------------------------------------------------------------


def big_snapshot(rows: int = 16, tokens: int = 200) -> UpdateSnapshot:
    words = [" the", " answer", " is", "\n", " 1081", " ×", "<b>", " step", "."]
    return make_snapshot(
        [
            answer_row(
                r,
                float(r % 2),
                0.5 if r % 2 else -0.5,
                [
                    tok(words[(r + c) % len(words)], (c % 7 - 3) / 300, clipped=c % 13 == 0)
                    for c in range(tokens)
                ],
            )
            for r in range(rows)
        ]
    )


@pytest.mark.parametrize("width", [400, 1200])
@pytest.mark.parametrize("theme", [LIGHT, PROJECTOR], ids=["light", "projector"])
@pytest.mark.parametrize("snapshot", [SNAPSHOT, big_snapshot()], ids=["small", "16x200"])
def test_rows_never_overlap_and_chips_stay_inside(qtbot, width, theme, snapshot):
    widget = shown_view(qtbot, snapshot, width, theme)
    assert widget.width() == width
    bottom = -1
    for r, answer in enumerate(snapshot.rows):
        band = widget.row_rect(r)
        assert band.top() > bottom
        previous = None
        for c in range(len(answer.tokens)):
            rect = widget.token_rect(r, c)
            assert rect.left() >= 0 and rect.right() < width, (r, c, rect)
            assert band.top() <= rect.top() and rect.bottom() <= band.bottom()
            if previous is not None:
                assert not rect.intersects(previous)
            previous = rect
        bottom = band.bottom()
    assert widget.heightForWidth(width) > bottom


def test_long_rows_wrap_on_a_narrow_view(qtbot):
    widget = shown_view(qtbot, SNAPSHOT, 400)
    assert widget.line_of(1, len(LONG) - 1) >= 4
    assert widget.heightForWidth(400) > widget.heightForWidth(1200)


def test_the_projector_draws_larger_chips(qtbot, view):
    light = view.token_rect(0, 0).height()
    view.set_theme(PROJECTOR)
    assert view.token_rect(0, 0).height() > light


def test_empty_and_missing_snapshots_render(qtbot):
    widget = TokenRowsView(DARK)
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    assert not widget.grab().isNull()  # no snapshot yet
    assert not widget.token_rect(0, 0).isValid()
    widget.show_snapshot(make_snapshot([]))
    assert not widget.grab().isNull()
    assert widget.heightForWidth(400) > 0
    with qtbot.assertNotEmitted(widget.token_requested):
        qtbot.keyClick(widget, Qt.Key.Key_Right)
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPoint(50, 100))
    widget.show_snapshot(make_snapshot([answer_row(0, 0.0, 0.0, [])]))  # an answer with no tokens
    assert not widget.grab().isNull()


def test_the_scroll_area_grows_with_the_rows_and_never_scrolls_sideways(qtbot):
    scroll = TokenRowsScroll(LIGHT)
    qtbot.addWidget(scroll)
    scroll.resize(500, 300)
    scroll.show()
    scroll.show_snapshot(big_snapshot(rows=8, tokens=100))
    qtbot.waitUntil(lambda: scroll.verticalScrollBar().maximum() > 0)
    view = scroll.rows_view
    assert view.width() == scroll.viewport().width()
    assert view.height() == view.heightForWidth(view.width())
    assert not scroll.horizontalScrollBar().isVisible()
    # A selection far down scrolls into view.
    scroll.show_snapshot(make_snapshot(list(big_snapshot(8, 100).rows), selected=(7, 99)))
    rect = view.token_rect(7, 99)
    top = scroll.verticalScrollBar().value()
    assert top <= rect.top() and rect.bottom() <= top + scroll.viewport().height()


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_hovering_a_chip_shows_its_exact_text_push_and_flags(qtbot, view):
    pos = view.token_rect(2, 2).center()
    event = QHelpEvent(QEvent.Type.ToolTip, pos, view.mapToGlobal(pos))
    QApplication.sendEvent(view, event)
    qtbot.waitUntil(QToolTip.isVisible)
    text = QToolTip.text()
    assert "&quot;&lt;b&gt;x&lt;/b&gt;&quot;" in text  # escaped: shown literally, never bold
    assert "push +0.0200" in text
    QToolTip.hideText()


def test_a_runs_answer_shows_its_logged_reward_where_a_verdict_would_be(qtbot):
    from dataclasses import replace

    rows = TokenRowsView()
    qtbot.addWidget(rows)
    answer = replace(answer_row(0, 0.73, 0.4, [tok("x", 0.1)]), correct=None)
    header = row_header(answer, rows._current_style())
    assert [text for text, _, _ in header.texts][1] == "r = 0.73"


# -- drawings reused ----------------------------------------------------------------------------


class DirectPainter(TokenRowsPainter):
    """Chips drawn straight onto the view, as before they were kept as drawings: the reference
    the reused drawings must match."""

    def paint_chip(self, painter, chip, label, x, y, width, style, ratio) -> None:
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)  # drawn, not blitted: smooth
        painter.translate(x, y)
        draw_chip(painter, chip, label, width, style)
        painter.restore()


class DirectRowsView(TokenRowsView):
    def __init__(self, theme) -> None:
        super().__init__(theme)
        self.painter = DirectPainter(theme)


def channel_differences(a: QImage, b: QImage) -> list[int]:
    """Per pixel, the largest difference of its red, green and blue (0 where they agree)."""
    assert a.size() == b.size()
    a, b = (image.convertToFormat(QImage.Format.Format_RGB32) for image in (a, b))
    differences = []
    for y in range(a.height()):
        for x in range(a.width()):
            p, q = a.pixelColor(x, y), b.pixelColor(x, y)
            differences.append(
                max(abs(p.red() - q.red()), abs(p.green() - q.green()), abs(p.blue() - q.blue()))
            )
    return differences


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_chips_blitted_from_their_drawings_look_like_chips_drawn_on_the_view(qtbot, theme):
    rows = [
        answer_row(0, 1.0, 1.0, [tok(" 1081", 1.0, answer=True), tok("<b>", 0.3), tok("\n", 0)]),
        answer_row(1, 0.0, -1.0, [tok(" x", -1.0, clipped=True), tok(" y", -0.2, dual=True)]),
    ]
    images = []
    for kind in (TokenRowsView, DirectRowsView):
        widget = kind(theme)
        qtbot.addWidget(widget)
        widget.show_snapshot(make_snapshot(rows))
        widget.resize(420, widget.heightForWidth(420))
        images.append(widget.grab().toImage())
    differences = channel_differences(*images)
    # The same text pixel for pixel; only the rounded outlines' antialiased edge pixels may
    # round differently when blended through a transparent drawing.
    assert max(differences) <= 32
    assert sum(1 for d in differences if d) <= 0.02 * len(differences)


class AntialiasedBlitPainter(TokenRowsPainter):
    """Each chip blitted with antialiasing on and its outline and underline drawn right after
    it, as the rows were painted before their blits went without antialiasing (and before
    whole lines were blitted): the reference those must match to the pixel. Run with
    ``render_cache.CACHING`` off, so every row goes chip by chip."""

    def _paint_chips(self, painter, style, index, row, top, start, stop, ratio, whole_pixels):
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        super()._paint_chips(painter, style, index, row, top, start, stop, ratio, False)


@pytest.mark.parametrize("theme", [LIGHT, DARK, PROJECTOR], ids=["light", "dark", "projector"])
def test_chips_blitted_without_antialiasing_are_the_same_pixels_as_with_it(
    qtbot, monkeypatch, theme
):
    # Answers, ✂ and dual-clipped chips side by side and on consecutive lines: their outlines
    # and underlines, drawn after the row's blits, must not reach a neighbouring chip.
    row = [tok(" 1081", 1.0, answer=True), tok(" y", -0.2, dual=True), tok(" z", 0.4, dual=True)]
    row += [tok(" x", -1.0, clipped=True), tok("\n", 0), tok(" w", 0.5, dual=True, answer=True)]
    rows = [answer_row(i, 1.0, 1.0 - i, row * 12) for i in range(3)]
    images = []
    for kind in (TokenRowsPainter, AntialiasedBlitPainter):
        monkeypatch.setattr(render_cache, "CACHING", kind is TokenRowsPainter)
        painter = kind(theme)
        painter.prepare(make_snapshot(rows, selected=(1, 4)))
        width = 420
        image = QImage(width, painter.layout(width).height, QImage.Format.Format_RGB32)
        canvas = QPainter(image)
        painter.paint(canvas, image.rect(), width, 1.0, (1, 4), (2, 7))
        canvas.end()
        images.append(image)
    assert images[0] == images[1]


def test_a_new_snapshot_of_the_same_looks_blits_every_chip_from_its_drawing(qtbot, monkeypatch):
    widget = shown_view(qtbot, big_snapshot(rows=2, tokens=40), 600)
    widget.grab()
    drawn = []
    original = token_painter.draw_chip
    monkeypatch.setattr(
        token_painter, "draw_chip", lambda *args: drawn.append(args[2]) or original(*args)
    )
    widget.show_snapshot(big_snapshot(rows=2, tokens=40))  # a click that changed no chip's look
    widget.grab()
    assert drawn == []
    # One new token in each row, at the group's largest push (the colour scale stays put).
    with_new_token = make_snapshot(
        [
            answer_row(row.index, row.reward, row.advantage, [tok(" new", 0.01), *row.tokens[1:]])
            for row in big_snapshot(rows=2, tokens=40).rows
        ]
    )
    widget.show_snapshot(with_new_token)
    widget.grab()
    assert drawn == ["␣new"]  # drawn once, then blitted on the second row too


@pytest.fixture
def window_budget():
    """The drawings' budget of a 1280×800 window: an earlier test's big window may have grown
    it (``fit_budget``), and it stays grown for the process."""
    before = render_cache.DRAWINGS.max_bytes
    render_cache.DRAWINGS.set_budget(render_cache.MEMORY_BUDGET)
    yield render_cache.MEMORY_BUDGET
    render_cache.DRAWINGS.set_budget(before)


def test_the_chip_drawings_stay_within_their_byte_budget(qtbot, window_budget):
    widget = shown_view(qtbot, big_snapshot(rows=16, tokens=200), 1800, PROJECTOR)
    for shift in range(6):  # new tokens each time: new drawings, the oldest make room
        rows = big_snapshot(rows=16, tokens=200).rows
        widget.show_snapshot(
            make_snapshot(
                [
                    answer_row(
                        r.index,
                        r.reward,
                        r.advantage,
                        [tok(f"w{shift}{i}", 0.5) for i in range(200)],
                    )
                    for r in rows
                ]
            )
        )
        widget.grab()
        assert render_cache.DRAWINGS.bytes <= window_budget
    assert render_cache.DRAWINGS.bytes > window_budget // 2  # it was filled


# -- a click re-scores: what it changes is redrawn, what it keeps is reused --------------------


def test_an_answer_that_changes_to_text_of_the_same_widths_shows_the_new_text(qtbot):
    # Digits are equally wide: "1081" and "1071" flow to the same place, yet must read anew.
    right = [tok("23", 0.1), tok(" 1081", 0.1, answer=True)]
    wrong = [tok("23", -0.1), tok(" 1071", -0.1, answer=True)]
    widget = shown_view(qtbot, make_snapshot([answer_row(0, 1.0, 1.0, right)]), 400)
    assert widget.shown_label(0, 1) == "␣1081"
    widget.show_snapshot(make_snapshot([answer_row(0, 0.0, -1.0, wrong)]))
    assert widget.shown_label(0, 1) == "␣1071"


def test_a_new_snapshot_paints_every_row_in_its_own_colours(qtbot):
    words = [tok(f"w{c:02d}", 1.0) for c in range(30)]
    rows = [answer_row(r, 1.0, 1.0, words) for r in range(6)]
    widget = shown_view(qtbot, make_snapshot(rows), 500)
    widget.grab()  # paints (and so prepares) every row's chips in the old colours
    flipped = [tok(t.text, -1.0) for t in words]
    widget.show_snapshot(make_snapshot([answer_row(r, 0.0, -1.0, flipped) for r in range(6)]))
    image = widget.grab().toImage()
    ratio = image.devicePixelRatio()
    down = chip_colours(tok("x", -1.0), 1.0, LIGHT)[0]
    for row in range(6):
        rect = widget.token_rect(row, 29)
        centre = image.pixelColor(int(rect.left() * ratio + 3), int(rect.center().y() * ratio))
        assert distance(rgb(centre), down) <= 6, row


def test_a_click_that_changes_one_long_answer_flows_only_that_answer(qtbot, monkeypatch):
    snapshot = big_snapshot(rows=16, tokens=2000)
    widget = shown_view(qtbot, snapshot, 900)
    before = [widget.token_rect(row, 1999) for row in range(16)]
    flowed = []
    original = token_painter.flow_row
    monkeypatch.setattr(
        token_painter,
        "flow_row",
        lambda shape, *args: flowed.append(len(shape.widths)) or original(shape, *args),
    )
    rows = list(snapshot.rows)
    rows[3] = answer_row(3, 0.0, -0.5, [tok(" step", -0.01)] * 500)  # a shorter answer
    widget.show_snapshot(make_snapshot(rows))
    widget.resize(900, widget.heightForWidth(900))
    assert flowed == [500]  # one row flowed, once; the 15 others kept their positions
    assert widget.token_rect(3, 499).isValid() and not widget.token_rect(3, 500).isValid()
    assert widget.token_rect(2, 1999) == before[2]
    assert widget.token_rect(15, 1999).top() < before[15].top()  # later rows moved up
    assert widget.token_rect(4, 0).top() > widget.token_rect(3, 499).bottom()


def test_kept_shapes_and_row_layouts_stay_bounded_over_many_answers_and_widths(qtbot):
    widget = shown_view(qtbot, big_snapshot(rows=4, tokens=50), 600)
    for step in range(60):  # new answers every time, as a long lesson brings
        rows = [
            answer_row(r, 1.0, 0.5, [tok(f"s{step}r{r}c{c}", 0.1) for c in range(50)])
            for r in range(4)
        ]
        widget.show_snapshot(make_snapshot(rows))
        widget.resize(500 + step * 7, widget.heightForWidth(500 + step * 7))
        widget.grab()
    assert len(widget.painter.row_shapes) <= 4 * 4 + 8
    assert len(widget.painter.row_layouts) <= len(widget.painter.row_shapes) * 4
    assert widget.shown_label(3, 49) == "s59r3c49"  # and the last answers show as they are


def test_selecting_a_token_repaints_only_the_rings_and_leaves_no_old_ring(qtbot):
    widget = shown_view(qtbot, make_snapshot(ROWS), 700)
    qtbot.waitExposed(widget)
    widget.setFocus()  # a dashed ring marks where the keys are: the first token, for now
    QApplication.processEvents()
    # The state answers a request with a snapshot selecting that token, as the page does.
    widget.token_requested.connect(
        lambda row, column: widget.show_snapshot(make_snapshot(ROWS, selected=(row, column)))
    )
    painted = EventLog(QEvent.Type.Paint, record=lambda _, event: event.region().boundingRect())
    for selected in ((1, 4), (0, 2), (2, 1), (1, 4)):
        widget.installEventFilter(painted)
        centre = widget.token_rect(*selected).center()  # a real click moves the key cursor first
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=centre)
        QApplication.processEvents()
        assert widget.selected() == selected
        widget.removeEventFilter(painted)  # grab() below paints the whole view itself
        # What the screen shows after the partial repaints is what a full render draws.
        on_screen = QApplication.primaryScreen().grabWindow(widget.winId()).toImage()
        rgb = QImage.Format.Format_RGB32
        assert on_screen.convertToFormat(rgb) == widget.grab().toImage().convertToFormat(rgb)
    assert painted.seen, "the rings moved"
    whole = widget.width() * widget.height()
    assert all(r.width() * r.height() < whole / 4 for r in painted.seen), painted.seen


def test_a_pending_snapshot_keeps_every_chip_where_it_was_until_the_step_finishes(qtbot):
    """Step 0's pushes (no ✂ yet) shown while the inner steps run leave each answer's chips in
    place, a ✂'s room undrawn; the finished step's marks move them once. The row of an answer
    whose text changed flows anew at once."""
    from dataclasses import replace

    clipped = [tok(f" w{c}", 0.02, clipped=c % 3 == 0) for c in range(60)]
    plain = [tok(f" w{c}", 0.01) for c in range(60)]
    finished = make_snapshot([answer_row(r, 1.0, 0.5, clipped) for r in range(3)])
    widget = shown_view(qtbot, finished, 420)
    before = [widget.token_rect(r, 59) for r in range(3)]
    marked = widget.token_rect(0, 57)  # a clipped chip, with a ✂'s room
    other = [tok(f" v{c}", 0.01) for c in range(40)]  # row 2's answer changed (a toggle)
    rows = [answer_row(0, 1.0, 0.5, plain), answer_row(1, 1.0, 0.5, plain)]
    pending = replace(make_snapshot([*rows, answer_row(2, 0.0, -0.5, other)]), pending=True)
    widget.show_snapshot(pending)
    assert [widget.token_rect(r, 59) for r in range(2)] == before[:2]
    assert widget.token_rect(0, 57) == marked  # the room stays while pending
    assert widget.shown_label(2, 39) == "␣v39" and not widget.token_rect(2, 40).isValid()
    widget.grab()  # paints the kept rows without a ✂
    unmarked = make_snapshot([*rows, answer_row(2, 0.0, -0.5, other)])  # finished: no ✂ now
    widget.show_snapshot(unmarked)
    assert widget.token_rect(0, 57).width() < marked.width()  # the room is gone: chips move


def test_new_rows_repaint_everything_below_the_legend_and_not_the_legend(qtbot, view):
    painted: list[QRect] = []

    class Paints(QObject):
        def eventFilter(self, watched, event):  # Qt override
            if event.type() == QEvent.Type.Paint:
                painted.append(event.rect())
            return False

    QApplication.processEvents()
    view.installEventFilter(Paints(view))
    flipped = [dataclasses.replace(row, advantage=-row.advantage) for row in ROWS]
    flipped[1] = answer_row(1, 0.0, 0.58, [tok(t.text, -t.push) for t in LONG])
    view.show_snapshot(make_snapshot(flipped, selected=(1, 4)))
    QApplication.processEvents()
    legend = view.painter.layout(view.width()).legend
    assert painted and not any(rect.intersects(legend) for rect in painted)
    assert any(  # every row, from just under the legend to the bottom
        rect.top() <= legend.bottom() + 1 and rect.bottom() >= view.height() - 1 for rect in painted
    )


def test_the_kept_lines_stay_within_their_budget_when_every_row_is_grabbed(qtbot, monkeypatch):
    from grpo_desktop.views.update import token_lines

    monkeypatch.setattr(token_lines, "MAX_LINE_BUDGET", 2**20)
    widget = shown_view(qtbot, big_snapshot(rows=16, tokens=200), 1200)
    widget.grab()  # every row's lines, far taller than any screen
    lines = widget.painter.lines
    assert lines.budget == 2**20 and 0 < lines.bytes <= 2**20
