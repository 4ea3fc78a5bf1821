"""One sampled answer as a card: its trace, the checker's reward and the advantage GRPO gives it.

A view (DESIGN §2): it paints the last :class:`~grpo_desktop.core.snapshot.CardState` it was shown
and emits ``toggle_requested(index)`` when clicked or activated from the keyboard. It never restyles
itself on a click: the state changes, a new snapshot comes back and :meth:`TraceCard.show_card`
repaints it.

Painted with QPainter (no stylesheets, no child labels) so restyling 64 cards fits in one frame.
Every font is derived from the widget's font times ``theme.type_scale``, so an app-wide zoom
scales the card, and its size hints come from font metrics, never from pixel constants.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, fields
from operator import attrgetter

from PySide6.QtCore import Property, QPointF, QRect, QRectF, QSize, QSizeF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QPixmap,
    QTextLayout,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import QApplication, QWidget

from grpo_desktop.core.formatting import number, signed
from grpo_desktop.core.snapshot import CardState
from grpo_desktop.core.theme import LIGHT, Theme
from grpo_desktop.core.trace_display import Run, display_lines
from grpo_desktop.views.render_cache import DRAWINGS, filled_pixmap, transparent_pixmap

__all__ = ["TraceCard"]

# Full-mode cards fit about 26 characters of a typical trace line ("20 × 47 = 940 + 141 = 1081"
# is 26): mostly digits, with narrower spaces and signs, so 24 digits wide.
_WIDTH_SAMPLE = "0" * 24
# The widest usual advantage texts; a card is wide enough for them at their (largest) size.
_ADVANTAGE_SAMPLE_FULL = "A = −0.00 ▼"
_ADVANTAGE_SAMPLE_COMPACT = "−0.00 ▼"
_HINT = "Click, Space or Enter to mark it right/wrong"
_DRAG_HINT = "Drag sideways, or press + or −, to set its reward"
_RECORDED_HINT = "A run's answer, as the model wrote it"
_NUDGE_UP_KEYS = (Qt.Key.Key_Plus, Qt.Key.Key_Equal)
_NUDGE_DOWN_KEYS = (Qt.Key.Key_Minus, Qt.Key.Key_Underscore)
_NUDGES = 20  # + and − move a reward by 1/20 of its slider's span
_DRAG_STEP = 0.01  # a dragged reward snaps to hundredths: no noise digits on the cards
#: A long trace (a real run's completion) shows this many lines and scrolls inside its card.
MAX_VISIBLE_LINES = 14
_WHEEL_LINES = 3
_TOOLTIP_CHARS = 1200
#: Descriptions kept per card: a card toggled back and forth (or G spun) meets a handful of
#: states again; more would only hold memory (64 cards × 256 states was 10 MB of tooltips).
_DESCRIBED_STATES = 16  # the tooltip shows the start of a long trace, not a screenful of it
_ACTIVATE_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
_FOCUS_RING = 3.0  # px, the focus ring's pen width
_MARGIN = 4  # px around the card body, reserved for the focus ring so focus never moves anything


def _scaled(base: QFont, factor: float, bold: bool = False) -> QFont:
    font = QFont(base)
    if base.pointSizeF() > 0:
        font.setPointSizeF(base.pointSizeF() * factor)
    else:  # a pixel-sized font
        font.setPixelSize(max(1, round(base.pixelSize() * factor)))
    if bold:
        font.setWeight(QFont.Weight.Bold)
    return font


@dataclass(frozen=True)
class _Style:
    """Fonts and sizes for one (widget font, theme) pair; rebuilt only when either changes."""

    header: QFont
    stamp: QFont
    trace: QFont
    note: QFont  # the reward functions' values: smaller than the trace, which it summarises
    answer: QFont
    advantage: QFont
    word: QFont
    compact_header: QFont
    compact_answer: QFont
    compact_advantage: QFont
    pad: float
    gap: float
    border: float
    radius: float
    colours: dict[str, QColor]  # the theme's colours by field name, parsed once
    _by_value: dict[str, QColor]
    _metrics: dict[int, QFontMetricsF]  # by id() of the fonts above, which this object keeps alive

    def colour(self, value: str) -> QColor:
        """A theme colour given as its hex string (as ``Theme.push_colour`` returns it)."""
        colour = self._by_value.get(value)
        if colour is None:
            colour = self._by_value[value] = QColor(value)
        return colour

    def fm(self, font: QFont) -> QFontMetricsF:
        """Metrics of one of this style's fonts (computed once), or of any other font."""
        metrics = self._metrics.get(id(font))
        return metrics if metrics is not None else QFontMetricsF(font)

    @staticmethod
    def build(base: QFont, theme: Theme) -> _Style:
        base = _scaled(base, theme.type_scale)
        em = QFontMetricsF(base).height()
        style = _Style(
            header=_scaled(base, 1.1, bold=True),
            stamp=_scaled(base, 0.95, bold=True),
            trace=_scaled(base, 1.0),
            note=_scaled(base, 0.85),
            answer=_scaled(base, 1.15, bold=True),
            advantage=_scaled(base, 1.9, bold=True),  # the largest text on the card
            word=_scaled(base, 1.0, bold=True),
            compact_header=_scaled(base, 0.95, bold=True),
            compact_answer=_scaled(base, 0.95),
            compact_advantage=_scaled(base, 1.45, bold=True),  # largest in compact mode too
            pad=round(em * 0.7),
            gap=round(em * 0.35),
            border=max(2.0, theme.stroke_width * 2.0),
            radius=round(em * 0.6),
            colours={
                field.name: QColor(getattr(theme, field.name))
                for field in fields(theme)
                if field.type in (str, "str")
                and QColor.isValidColorName(getattr(theme, field.name))
            },
            _by_value={},
            _metrics={},
        )
        for font in (
            style.header,
            style.stamp,
            style.trace,
            style.note,
            style.answer,
            style.advantage,
            style.word,
            style.compact_header,
            style.compact_answer,
            style.compact_advantage,
        ):
            style._metrics[id(font)] = QFontMetricsF(font)
        return style


# A boxed answer is laid out with a narrow no-break space either side, room for its rectangle.
_BOX_PAD = "\u202f"


@dataclass(frozen=True)
class _Line:
    """One visual line of the trace: its text and where its boxes are (x from its left, px)."""

    text: str
    boxes: tuple[tuple[float, float], ...] = ()


def _paragraph(runs: tuple[Run, ...]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The runs of one line as a string, and the character span of each boxed run in it."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    length = 0
    for run in runs:
        piece = f"{_BOX_PAD}{run.text}{_BOX_PAD}" if run.boxed else run.text
        if run.boxed:
            spans.append((length, length + len(piece)))
        parts.append(piece)
        length += len(piece)
    return "".join(parts), tuple(spans)


def _wrap(
    paragraphs: tuple[tuple[Run, ...], ...], font: QFont, fm: QFontMetricsF, width: float
) -> tuple[_Line, ...]:
    """The visual lines of the typeset trace, word-wrapped (or broken anywhere) to ``width`` px."""
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    lines: list[_Line] = []
    for runs in paragraphs:
        paragraph, spans = _paragraph(runs)
        if not paragraph.strip():
            lines.append(_Line(""))
            continue
        layout = QTextLayout(paragraph, font)
        layout.setTextOption(option)
        layout.beginLayout()
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(max(1.0, width))
            start, end = line.textStart(), line.textStart() + line.textLength()
            text = paragraph[start:end].rstrip()
            boxes = tuple(
                (
                    fm.horizontalAdvance(paragraph[start : max(start, box_start)]),
                    fm.horizontalAdvance(paragraph[start : min(end, box_end)]),
                )
                for box_start, box_end in spans
                if box_start < end and box_end > start
            )
            lines.append(_Line(text, boxes))
        layout.endLayout()
    return tuple(lines)


_BOXES = DRAWINGS  # the rounded card boxes: every size and colour a lesson shows
_STYLE_TOKENS: dict[tuple[str, Theme], int] = {}  # (font key, theme) -> a number, per pair
#: The advantage lines, per text, colour and place: a click gives every card a new A, but a
#: group holds few distinct values (two when every reward is 0 or 1).
_FOOTERS = DRAWINGS


def _rounded_box(
    size: QSizeF, outline: QColor, fill: QColor, width: float, radius: float, widget: QWidget
) -> QPixmap:
    """An antialiased rounded rectangle, rendered once per look and reused by every card.

    At G = 64 a click restyles every card; blitting a cached pixmap instead of stroking two
    antialiased rounded rectangles per card keeps the repaint within a frame.
    """
    ratio = widget.devicePixelRatioF()
    key = (
        "card box",
        round(size.width(), 2),
        round(size.height(), 2),
        outline.rgba(),
        fill.rgba(),
        round(width, 2),
        round(radius, 2),
        ratio,
    )

    def render() -> QPixmap:
        pixmap = transparent_pixmap(size.width(), size.height(), ratio)
        box = QPainter(pixmap)
        box.setRenderHint(QPainter.RenderHint.Antialiasing)
        box.setPen(QPen(outline, width))
        box.setBrush(fill)
        half = width / 2
        box.drawRoundedRect(
            QRectF(half, half, size.width() - width, size.height() - width), radius, radius
        )
        box.end()
        return pixmap

    return _BOXES.get(key, render)


# Two meanings a card shows apart (issue 25, item 6): the checker's verdict on the final answer
# (✓ / ✗, on the answer's line, never coloured) and the push (the card's colour, ▲ / ▼ and its
# word, from the reward against par). A hand-set 0.54 above par is a green card whose answer the
# checker still marks ✗; under accuracy + format a right answer below par is red and ✓.
_PUSH_WORDS = {
    "up": "pushed up · above par",
    "down": "pushed down · below par",
    "none": "no signal · at par",
}


def _reward_stamp(card: CardState, compact: bool) -> str:
    """The reward alone: ``reward 0.54`` (``r = 0.54`` on a compact card)."""
    value = number(card.reward, 3)
    return f"r = {value}" if compact else f"reward {value}"


def _verdict(card: CardState, compact: bool) -> str:
    """The checker's verdict on the final answer ("" for a run's answer, which has none)."""
    if card.correct is None:
        return ""
    if compact:
        return "✓" if card.correct else "✗"
    return "checker ✓" if card.correct else "checker ✗"


def _final_answer(card: CardState, compact: bool = False) -> str:
    """The answer the checker read, and its verdict: ``→ 1091 · checker ✗``."""
    answer = "→ (no answer)" if card.final_answer is None else f"→ {card.final_answer}"
    verdict = _verdict(card, compact)
    if not verdict:
        return answer
    return f"{answer} {verdict}" if compact else f"{answer} · {verdict}"


# What a card's layer (all but its advantage lines) draws of its state: all but the numbers a
# click changes (the sign of A counts as well: it colours the box). One C call reads them all.
_layer_fields = attrgetter(
    *(f.name for f in fields(CardState) if f.name not in ("advantage", "centered"))
)


def _only_advantage_changed(shown: CardState | None, card: CardState) -> bool:
    """Whether ``card`` differs from the card ``shown`` only in the size of its advantage, so the
    card's layer is the same and only the advantage lines need new pixels."""
    return (
        shown is not None
        and (shown.advantage > 0) == (card.advantage > 0)
        and (shown.advantage < 0) == (card.advantage < 0)
        and _layer_fields(shown) == _layer_fields(card)
    )


class TraceCard(QWidget):
    """One answer of the group, painted from a :class:`CardState`; emits ``toggle_requested``."""

    toggle_requested = Signal(int)
    #: (index, reward, gesture): a drag or a key press sets the card's reward in continuous
    #: mode; every request of one drag carries the same gesture number (one undo step).
    score_requested = Signal(int, float, int)

    def __init__(self, index: int, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The layer covers every pixel, over the window's colour: Qt paints nothing beneath.
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._index = index
        self._theme = theme
        self._card: CardState | None = None
        self._compact = False
        self._style: _Style | None = None
        self._style_key: tuple[QFont, Theme] | None = None
        self._style_token = -1  # _STYLE_TOKENS' number for the style, set with it
        # The text and advantage-line rectangles, per size and look (see _text_rects).
        self._rects: tuple[tuple, QRectF, QRect] | None = None
        self._wrap_cache: dict[tuple[str, float], tuple[_Line, ...]] = {}
        self._typeset: tuple[str, tuple[tuple[Run, ...], ...]] = ("", ())  # parsed once per text
        self._trace_html: tuple[str, str | None] = ("", None)  # the tooltip's trace, per text
        self._texts: dict[CardState, tuple[str, str]] = {}  # description and tooltip per state
        self._shown_texts = ("", _HINT)  # the description and tooltip the widget has now
        self._layers: dict[tuple, QPixmap] = {}  # the card without its advantage, per look
        self._focus_visible = False
        self._highlighted = False  # a rare, loud answer the lecturer wants the class to see
        self._advantage_hidden = False  # predict-then-reveal: the class guesses the sign first
        self._reward_range: tuple[float, float] | None = None  # continuous mode: the slider span
        self._first_line = 0  # a long trace scrolls inside the card
        self._last_first_line = 0  # the most a long trace can scroll, as last painted
        self._press: tuple[float, float] | None = None  # (x, reward) where a drag started
        self._dragging = False
        self._gesture = 0
        self.setObjectName(f"traceCard{index}")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName(f"Answer {index + 1}")
        self.setToolTip(_HINT)

    # -- public API ---------------------------------------------------------------------------

    @property
    def index(self) -> int:
        return self._index

    @property
    def compact(self) -> bool:
        return self._compact

    @property
    def card_state(self) -> CardState | None:
        """The last state shown (None before the first :meth:`show_card`)."""
        return self._card

    def _get_correct(self) -> bool:
        return self._card is not None and self._card.correct

    #: Whether the answer shown is right (reward 1); read-only, follows the last CardState shown.
    correct = Property(bool, _get_correct)

    @property
    def reward_range(self) -> tuple[float, float] | None:
        """The span its reward can be dragged over (continuous mode), or None."""
        return self._reward_range

    @property
    def first_line(self) -> int:
        """The first trace line shown (a long trace scrolls inside the card)."""
        return self._first_line

    def show_card(
        self, card: CardState, compact: bool, reward_range: tuple[float, float] | None = None
    ) -> None:
        """Render ``card``; does nothing at all when it and the mode are what is already shown.

        ``reward_range`` (continuous mode) puts a reward slider on the card, over that span.
        """
        if card == self._card and compact == self._compact and reward_range == self._reward_range:
            return
        hint_changes = (
            compact != self._compact
            or self._card is None
            or card.text != self._card.text
            or (reward_range is None) != (self._reward_range is None)
            or bool(card.breakdown) != bool(self._card.breakdown)
        )
        if self._card is None or card.text != self._card.text:
            self._first_line = 0
        footer_only = (
            compact == self._compact
            and reward_range == self._reward_range
            and _only_advantage_changed(self._card, card)
        )
        self._reward_range = reward_range
        self._card = card
        self._compact = compact
        texts = self._texts.get(card)
        if texts is None:
            if len(self._texts) >= _DESCRIBED_STATES:
                self._texts.clear()
            texts = self._texts[card] = self._describe(card)
        if texts != self._shown_texts:  # compared here: asking Qt costs a call per text
            description, tooltip = texts
            if description != self._shown_texts[0]:
                self.setAccessibleDescription(description)
            if tooltip != self._shown_texts[1]:
                self.setToolTip(tooltip)
            self._shown_texts = texts
        if hint_changes:
            self.updateGeometry()
        if footer_only:
            # The layer beneath the advantage lines is the same: repaint only their pixels (at
            # 200 % zoom a whole card's blit is most of its paint, and a click repaints them all).
            self.update(self._text_rects(self._current_style())[1])
        else:
            self.update()

    def _describe(self, card: CardState) -> tuple[str, str]:
        """The accessible description and the tooltip of ``card`` (cached per state: answers
        toggled back and forth come back to the same few states)."""
        answer = (
            "no final answer" if card.final_answer is None else f"final answer {card.final_answer}"
        )
        if card.correct is not None:
            answer += ", checker: right" if card.correct else ", checker: wrong"
        reward = number(card.reward, 4)
        parts = f" ({card.breakdown})" if card.breakdown else ""
        push = _PUSH_WORDS[card.push.value]
        description = (
            f"{answer}, reward {reward}{parts}, advantage {signed(card.advantage, 2)}, {push}"
        )
        checked = ""
        if card.correct is not None:
            checked = " · checker: ✓ right" if card.correct else " · checker: ✗ wrong"
        summary = (
            f"<b>Answer {self._index + 1}</b> — {html.escape(_reward_stamp(card, False))}"
            f"{checked}; A = {signed(card.advantage, 2)} {card.push.glyph} {html.escape(push)}"
        )
        if self._trace_html[0] != card.text or self._trace_html[1] is None:
            self._trace_html = (card.text, self._tooltip_trace(card.text))
        trace = self._trace_html[1]
        breakdown = f"<p>{html.escape(card.breakdown)}</p>" if card.breakdown else ""
        hints = [_HINT] if card.correct is not None else [_RECORDED_HINT]
        if self._reward_range is not None:
            hints.append(_DRAG_HINT)
        hint = html.escape("; ".join(hints))
        return description, f"<p>{summary}</p>{breakdown}<p>{trace}</p><p><i>{hint}</i></p>"

    def _tooltip_trace(self, text: str) -> str:
        """The trace as tooltip rich text (built once per text: a click changes only A)."""
        if len(text) > _TOOLTIP_CHARS:
            text = text[:_TOOLTIP_CHARS] + " …"
        return "<br>".join(
            "".join(
                f"<b>[{html.escape(run.text)}]</b>" if run.boxed else html.escape(run.text)
                for run in runs
            )
            for runs in self._typeset_lines(text)
        )

    def set_presentation(self, highlighted: bool, advantage_hidden: bool) -> None:
        """Mark the card as a loud rare answer, and/or hide its advantage until revealed."""
        if (highlighted, advantage_hidden) == (self._highlighted, self._advantage_hidden):
            return
        self._highlighted, self._advantage_hidden = highlighted, advantage_hidden
        self.update()

    @property
    def highlighted(self) -> bool:
        return self._highlighted

    @property
    def advantage_hidden(self) -> bool:
        return self._advantage_hidden

    def set_theme(self, theme: Theme) -> None:
        if theme == self._theme:
            return
        self._theme = theme
        self.updateGeometry()
        self.update()

    def minimum_card_width(self) -> int:
        """The narrowest this card can be in its current mode while staying legible (px)."""
        style = self._current_style()
        if self._compact:
            content = max(
                style.fm(style.compact_advantage).horizontalAdvance(_ADVANTAGE_SAMPLE_COMPACT),
                style.fm(style.compact_header).horizontalAdvance("#64")
                + style.gap * 2
                + self._stamp_size(style, "r = 0", compact=True).width(),
            )
        else:
            content = max(
                style.fm(style.trace).horizontalAdvance(_WIDTH_SAMPLE),
                style.fm(style.advantage).horizontalAdvance(_ADVANTAGE_SAMPLE_FULL),
            )
        return int(content + 2 * (_MARGIN + style.pad) + 0.999)

    def height_for_width(self, width: int) -> int:
        """The height the current text needs at ``width`` px (the grid sizes its rows with it)."""
        style = self._current_style()
        if self._compact:
            body = (
                self._stamp_size(style, "r = 0", compact=True).height()
                + style.gap
                + style.fm(style.compact_answer).height()
                + style.gap * 0.5
                + style.fm(style.compact_advantage).height()
            )
        else:
            inner = width - 2 * (_MARGIN + style.pad)
            lines = min(len(self._trace_lines(style, inner)), MAX_VISIBLE_LINES)
            body = (
                self._header_height(style)
                + style.gap
                + lines * style.fm(style.trace).lineSpacing()
                + style.gap * 2
                + self._footer_height(style)
                + self._breakdown_height(style)
            )
        return int(body + self._slider_height(style) + 2 * (_MARGIN + style.pad) + 0.999)

    # -- Qt overrides -------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        width = self.minimum_card_width()
        return QSize(width, self.height_for_width(width))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._card is not None:
            self._press = (event.position().x(), self._card.reward)
            self._dragging = False
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        press, span = self._press, self._reward_range
        if press is None or span is None or not event.buttons() & Qt.MouseButton.LeftButton:
            super().mouseMoveEvent(event)
            return
        moved = event.position().x() - press[0]
        if not self._dragging and abs(moved) < QApplication.startDragDistance():
            return
        if not self._dragging:
            self._dragging = True
            self._gesture += 1
        low, high = span
        track = max(1.0, self._track_rect(self._current_style()).width())
        value = press[1] + moved / track * (high - low)
        value = min(high, max(low, round(value / _DRAG_STEP) * _DRAG_STEP))
        event.accept()
        self._request_score(value)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        dragged, self._dragging, self._press = self._dragging, False, None
        if event.button() == Qt.MouseButton.LeftButton and dragged:
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            event.accept()
            self.toggle_requested.emit(self._index)
            return
        super().mouseReleaseEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        """A long trace scrolls inside the card; a short one leaves the wheel to the grid."""
        notches = event.angleDelta().y() / 120
        target = self._first_line - round(notches * _WHEEL_LINES) if notches else self._first_line
        target = min(max(0, target), self._last_first_line)
        if self._last_first_line == 0 or target == self._first_line:
            # Nothing to scroll here (or the trace is at its end): the grid scrolls instead.
            super().wheelEvent(event)
            return
        event.accept()
        self._first_line = target
        self.update()

    def _request_score(self, value: float) -> None:
        if self._card is not None and value != self._card.reward:
            self.score_requested.emit(self._index, float(value), self._gesture)

    def _nudge(self, direction: int, repeat: bool) -> None:
        if self._card is None or self._reward_range is None:
            return
        if not repeat:
            self._gesture += 1
        low, high = self._reward_range
        step = (high - low) / _NUDGES
        value = round((self._card.reward + direction * step) / _DRAG_STEP) * _DRAG_STEP
        self._request_score(min(high, max(low, value)))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        nudge = 1 if event.key() in _NUDGE_UP_KEYS else -1 if event.key() in _NUDGE_DOWN_KEYS else 0
        if nudge and self._reward_range is not None:
            event.accept()
            self._show_focus_ring()
            self._nudge(nudge, event.isAutoRepeat())
            return
        if event.key() in _ACTIVATE_KEYS and not (
            event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        ):
            event.accept()
            self._show_focus_ring()
            if not event.isAutoRepeat():  # holding Space must not flicker the answer
                self.toggle_requested.emit(self._index)
            return
        super().keyPressEvent(event)  # arrows, Page Up/Down … go on to the grid

    def focusInEvent(self, event) -> None:
        # Like CSS :focus-visible: a ring for keyboard focus, none for the card just clicked.
        self._focus_visible = event.reason() != Qt.FocusReason.MouseFocusReason
        super().focusInEvent(event)
        self.update()

    def hideEvent(self, event) -> None:
        # A card retired to the grid's pool (G went down) keeps nothing it would redraw anyway.
        self._layers.clear()
        super().hideEvent(event)

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        # What a click leaves alone (the box in its push colour, the header, the reward stamp,
        # the answer, the trace) is drawn once into a pixmap per look and blitted; only the
        # advantage (and its word) is drawn on top. A click at G = 64 changes every card's A.
        style = self._current_style()
        card = self._card
        advantage = 0.0 if card is None or self._advantage_hidden else card.advantage
        accent = style.colour(self._theme.push_colour(advantage))
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._layer(style, card, accent, advantage))
        if card is not None:
            content, footer = self._text_rects(style)
            painter.drawPixmap(footer.topLeft(), self._footer(style, card, accent, content, footer))
        painter.end()

    def _text_rects(self, style: _Style) -> tuple[QRectF, QRect]:
        """``_content_rect`` and ``_footer_rect``, kept per size and look: a click asks for them
        twice for every card (its repaint region, then its paint)."""
        key = (self.width(), self.height(), self._compact, self._reward_range, self._style_token)
        if self._rects is None or self._rects[0] != key:
            content = self._content_rect(style)
            self._rects = (key, content, self._footer_rect(style, content))
        return self._rects[1], self._rects[2]

    def _footer_rect(self, style: _Style, content: QRectF) -> QRect:
        """Whole pixels that hold the advantage lines (and nothing a click leaves alone)."""
        height = style.fm(style.compact_advantage if self._compact else style.advantage).height()
        if not self._compact:
            height += style.fm(style.word).height()
        top = math.floor(content.bottom() - height)
        left = math.floor(content.left())
        return QRect(
            left, top, math.ceil(content.right()) - left, math.ceil(content.bottom()) - top
        )

    def _footer(
        self, style: _Style, card: CardState, accent: QColor, content: QRectF, footer: QRect
    ) -> QPixmap:
        """The advantage lines, drawn where ``paintEvent`` would draw them, shared by every card
        of this size that shows the same text in the same colour."""
        key = (
            "advantage line",
            self._advantage_text(card, ""),
            None if self._advantage_hidden else card.push,  # hidden: "?" for every card
            self._compact,
            accent.rgba(),
            self._style_token,
            footer.getRect(),
            content.getRect(),
            self.devicePixelRatioF(),
        )

        def render() -> QPixmap:
            pixmap = transparent_pixmap(footer.width(), footer.height(), self.devicePixelRatioF())
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.translate(-footer.left(), -footer.top())
            if self._compact:
                self._paint_compact(painter, style, card, content, accent, layer=False)
            else:
                self._paint_full(painter, style, card, content, accent, layer=False)
            painter.end()
            return pixmap

        return _FOOTERS.get(key, render)

    def _content_rect(self, style: _Style) -> QRectF:
        """Where the card's text goes: inside the padding, above the reward slider if any."""
        body = QRectF(self.rect()).adjusted(_MARGIN, _MARGIN, -_MARGIN, -_MARGIN)
        inner = body.adjusted(style.pad, style.pad, -style.pad, -style.pad)
        return inner.adjusted(0, 0, 0, -self._slider_height(style))

    def _track_rect(self, style: _Style) -> QRectF:
        """The reward slider's track: the knob's centre runs from its left to its right end."""
        knob = self._knob_size(style)
        content = self._content_rect(style)
        return QRectF(
            content.left() + knob / 2, content.bottom() + style.gap, content.width() - knob, knob
        )

    def _layer(
        self, style: _Style, card: CardState | None, accent: QColor, advantage: float
    ) -> QPixmap:
        """The card without its advantage, cached per look (a card keeps one per push sign).

        Opaque, over the window's colour that shows around the rounded box: a blit that needs
        no blending, and Qt paints nothing beneath the card (``WA_OpaquePaintEvent``).
        """
        ratio = self.devicePixelRatioF()
        backdrop = self.palette().color(QPalette.ColorRole.Window)
        key = (
            None if card is None else _layer_fields(card),
            self._reward_range,
            self._first_line,
            self._compact,
            self._highlighted,
            self._advantage_hidden,
            self.hasFocus() and self._focus_visible,
            self.width(),
            self.height(),
            ratio,
            accent.rgba(),
            advantage > 0,
            advantage < 0,
            id(style),  # a new style (font or theme) also empties the cache
            backdrop.rgba(),
        )
        pixmap = self._layers.get(key)
        if pixmap is None:
            if len(self._layers) >= 6:  # the three push colours, focused or not
                self._layers.clear()
            pixmap = filled_pixmap(self.width(), self.height(), ratio, backdrop)
            painter = QPainter(pixmap)
            self._paint_layer(painter, style, card, accent, advantage)
            painter.end()
            self._layers[key] = pixmap
        return pixmap

    def _paint_layer(
        self,
        painter: QPainter,
        style: _Style,
        card: CardState | None,
        accent: QColor,
        advantage: float,
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colours = style.colours
        body = QRectF(self.rect()).adjusted(_MARGIN, _MARGIN, -_MARGIN, -_MARGIN)

        border = style.border * (2 if self._highlighted else 1)
        fill = style.colour(self._theme.push_fill(advantage))
        painter.drawPixmap(
            body.topLeft(), _rounded_box(body.size(), accent, fill, border, style.radius, self)
        )

        if self.hasFocus() and self._focus_visible:
            ring = QRectF(self.rect()).adjusted(
                _FOCUS_RING / 2, _FOCUS_RING / 2, -_FOCUS_RING / 2, -_FOCUS_RING / 2
            )
            painter.setPen(QPen(colours["focus"], _FOCUS_RING))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            radius = style.radius + _MARGIN - _FOCUS_RING / 2
            painter.drawRoundedRect(ring, radius, radius)

        if card is None:
            return
        content = self._content_rect(style)
        if self._compact:
            self._paint_compact(painter, style, card, content, accent, layer=True)
        else:
            self._paint_full(painter, style, card, content, accent, layer=True)
        if self._reward_range is not None:
            self._paint_slider(painter, style, card, accent)

    def _paint_slider(
        self, painter: QPainter, style: _Style, card: CardState, accent: QColor
    ) -> None:
        """The reward as a knob on a track (continuous mode): drag the card sideways to move it."""
        low, high = self._reward_range or (0.0, 1.0)
        track = self._track_rect(style)
        fraction = 0.0 if high <= low else min(1.0, max(0.0, (card.reward - low) / (high - low)))
        x = track.left() + fraction * track.width()
        middle = track.center().y()
        thickness = max(2.0, track.height() / 3)
        painter.setPen(Qt.PenStyle.NoPen)
        groove_colour = QColor(style.colours["muted"])
        groove_colour.setAlphaF(0.35)  # the empty part of the track: faint in every theme
        painter.setBrush(groove_colour)
        groove = QRectF(track.left(), middle - thickness / 2, track.width(), thickness)
        painter.drawRoundedRect(groove, thickness / 2, thickness / 2)
        painter.setBrush(accent if card.advantage else style.colours["text"])
        filled = QRectF(track.left(), middle - thickness / 2, x - track.left(), thickness)
        painter.drawRoundedRect(filled, thickness / 2, thickness / 2)
        painter.setPen(QPen(style.colours["surface"], max(1.0, thickness / 2)))
        painter.setBrush(accent if card.advantage else style.colours["text"])
        radius = track.height() / 2
        painter.drawEllipse(QPointF(x, middle), radius, radius)

    # -- painting -----------------------------------------------------------------------------

    def _paint_full(
        self,
        painter: QPainter,
        style: _Style,
        card: CardState,
        rect: QRectF,
        accent: QColor,
        layer: bool,
    ) -> None:
        """The card's text: with ``layer`` all but the advantage and its word, else just those."""
        text = style.colours["text"]
        top = rect.top()
        header_h = self._header_height(style)

        # Footer, anchored to the bottom so the advantages of a row line up.
        word_fm = style.fm(style.word)
        adv_fm = style.fm(style.advantage)
        ans_fm = style.fm(style.answer)
        y = rect.bottom() - word_fm.height()
        if not layer:
            self._draw_line(
                painter,
                style,
                style.word,
                accent,
                "predict, then reveal" if self._advantage_hidden else _PUSH_WORDS[card.push.value],
                rect.left(),
                y,
                word_fm.height(),
                rect.width(),
            )
            y -= adv_fm.height()
            advantage_text = self._advantage_text(card, "A = ")
            self._draw_fitted(
                painter,
                style,
                style.advantage,
                accent,
                advantage_text,
                rect.left(),
                y,
                rect.width(),
            )
            return
        y -= adv_fm.height()

        # Header: "#3" on the left, the reward stamp on the right.
        stamp = self._paint_stamp(painter, style, card, rect.right(), top, header_h, compact=False)
        self._draw_line(
            painter,
            style,
            style.header,
            text,
            self._header_text(),
            rect.left(),
            top,
            header_h,
            stamp.left() - style.gap - rect.left(),
        )

        y -= ans_fm.height()
        self._draw_line(
            painter,
            style,
            style.answer,
            text if card.final_answer is not None else style.colours["muted"],
            _final_answer(card),
            rect.left(),
            y,
            ans_fm.height(),
            rect.width(),
        )
        if card.breakdown:
            small = style.fm(style.note)
            y -= self._breakdown_height(style)
            self._draw_line(
                painter,
                style,
                style.note,
                style.colours["muted"],
                card.breakdown,
                rect.left(),
                y,
                small.height(),
                rect.width(),
            )
        footer_top = y - style.gap

        # A hairline between the trace and the verdict.
        painter.setPen(QPen(style.colours["border"], 1.0))
        painter.drawLine(QPointF(rect.left(), footer_top), QPointF(rect.right(), footer_top))

        # The trace, word-wrapped, from its first shown line; when more follows, the last line
        # that fits is elided and a scroll bar says how much there is.
        fm = style.fm(style.trace)
        lines = self._trace_lines(style, rect.width())
        y = top + header_h + style.gap
        limit = footer_top - style.gap
        fitting = max(1, int((limit - y - fm.height() + 0.5) // fm.lineSpacing()) + 1)
        self._last_first_line = max(0, len(lines) - fitting)
        first = min(self._first_line, self._last_first_line)
        if len(lines) > fitting:
            self._paint_scroll_bar(painter, style, rect, y, limit, first, fitting, len(lines))
        painter.setFont(style.trace)
        painter.setPen(text)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for i, line in enumerate(lines[first:], start=first):
            if y + fm.height() > limit + 0.5:
                break
            shown = line.text
            last_fitting = y + fm.lineSpacing() + fm.height() > limit + 0.5
            if last_fitting and i < len(lines) - 1:
                shown = fm.elidedText(shown + " …", Qt.TextElideMode.ElideRight, rect.width())
            painter.drawText(QPointF(rect.left(), y + fm.ascent()), shown)
            if line.boxes:  # a boxed answer, typeset as LaTeX draws \boxed
                self._paint_boxes(painter, line, shown, fm, rect.left(), y, text)
                painter.setPen(text)
            y += fm.lineSpacing()

    @staticmethod
    def _paint_scroll_bar(
        painter: QPainter,
        style: _Style,
        rect: QRectF,
        top: float,
        bottom: float,
        first: int,
        shown: int,
        total: int,
    ) -> None:
        """A thin bar in the card's right padding: where the shown lines sit in a long trace."""
        width = max(3.0, style.pad / 3)
        left = rect.right() + (style.pad - width) / 2
        height = bottom - top
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(style.colours["border"])
        painter.drawRoundedRect(QRectF(left, top, width, height), width / 2, width / 2)
        painter.setBrush(style.colours["muted"])
        thumb = max(width * 2, height * shown / total)
        offset = (height - thumb) * first / max(1, total - shown)
        painter.drawRoundedRect(QRectF(left, top + offset, width, thumb), width / 2, width / 2)

    @staticmethod
    def _paint_boxes(
        painter: QPainter,
        line: _Line,
        shown: str,
        fm: QFontMetricsF,
        left: float,
        top: float,
        colour: QColor,
    ) -> None:
        right = fm.horizontalAdvance(shown) if shown != line.text else math.inf
        pen = QPen(colour, max(1.0, fm.height() / 16))
        painter.setPen(pen)
        half = pen.widthF() / 2
        for start, end in line.boxes:
            end = min(end, right)
            if end > start:
                painter.drawRect(
                    QRectF(
                        left + start + half,
                        top + half,
                        end - start - 2 * half,
                        fm.height() - 2 * half,
                    )
                )

    def _paint_compact(
        self,
        painter: QPainter,
        style: _Style,
        card: CardState,
        rect: QRectF,
        accent: QColor,
        layer: bool,
    ) -> None:
        """The card's text: with ``layer`` all but the advantage, else just the advantage."""
        adv_fm = style.fm(style.compact_advantage)
        y = rect.bottom() - adv_fm.height()
        if not layer:
            advantage_text = self._advantage_text(card, "")
            self._draw_fitted(
                painter,
                style,
                style.compact_advantage,
                accent,
                advantage_text,
                rect.left(),
                y,
                rect.width(),
            )
            return
        text = style.colours["text"]
        stamp_h = self._stamp_size(style, "r = 0", compact=True).height()
        top = rect.top()
        stamp = self._paint_stamp(painter, style, card, rect.right(), top, stamp_h, compact=True)
        self._draw_line(
            painter,
            style,
            style.compact_header,
            text,
            self._header_text(),
            rect.left(),
            top,
            stamp_h,
            stamp.left() - style.gap - rect.left(),
        )
        ans_fm = style.fm(style.compact_answer)
        y -= ans_fm.height() + style.gap * 0.5
        self._draw_line(
            painter,
            style,
            style.compact_answer,
            text if card.final_answer is not None else style.colours["muted"],
            _final_answer(card, compact=True),
            rect.left(),
            y,
            ans_fm.height(),
            rect.width(),
        )

    def _header_text(self) -> str:
        return f"#{self._index + 1} ★" if self._highlighted else f"#{self._index + 1}"

    def _advantage_text(self, card: CardState, prefix: str) -> str:
        if self._advantage_hidden:
            return f"{prefix}?"
        return f"{prefix}{signed(card.advantage, 2)} {card.push.glyph}"

    def _paint_stamp(
        self,
        painter: QPainter,
        style: _Style,
        card: CardState,
        right: float,
        top: float,
        height: float,
        compact: bool,
    ) -> QRectF:
        """Draw the reward pill right-aligned at ``right``; returns its rectangle."""
        label = _reward_stamp(card, compact)
        size = self._stamp_size(style, label, compact)
        pill = QRectF(
            right - size.width(), top + (height - size.height()) / 2, size.width(), size.height()
        )
        painter.drawPixmap(
            pill.topLeft(),
            _rounded_box(
                pill.size(),
                style.colours["muted"],
                style.colours["surface"],
                1.0,
                pill.height() / 2,
                self,
            ),
        )
        painter.setFont(style.stamp)
        painter.setPen(style.colours["text"])
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, label)
        return pill

    @staticmethod
    def _stamp_size(style: _Style, label: str, compact: bool) -> QSize:
        fm = style.fm(style.stamp)
        return QSize(
            int(fm.horizontalAdvance(label) + fm.height() + 0.999),
            int(fm.height() * 1.25 + 0.999),
        )

    @staticmethod
    def _draw_line(
        painter: QPainter,
        style: _Style,
        font: QFont,
        colour: QColor,
        text: str,
        left: float,
        top: float,
        height: float,
        width: float,
    ) -> None:
        """One line, vertically centred in ``height``, elided to ``width``."""
        fm = style.fm(font)
        text = fm.elidedText(text, Qt.TextElideMode.ElideRight, max(0.0, width))
        painter.setFont(font)
        painter.setPen(colour)
        baseline = top + (height - fm.height()) / 2 + fm.ascent()
        painter.drawText(QPointF(left, baseline), text)

    @staticmethod
    def _draw_fitted(
        painter: QPainter,
        style: _Style,
        font: QFont,
        colour: QColor,
        text: str,
        left: float,
        top: float,
        width: float,
    ) -> None:
        """One line at ``font``, shrunk (never elided: it is a number) until it fits ``width``."""
        fm = style.fm(font)
        advance = fm.horizontalAdvance(text)
        baseline = top + fm.ascent()
        if advance > width > 0:
            font = _scaled(font, width / advance)
            small = QFontMetricsF(font)
            baseline = top + (fm.height() - small.height()) / 2 + small.ascent()
        painter.setFont(font)
        painter.setPen(colour)
        painter.drawText(QPointF(left, baseline), text)

    # -- metrics ------------------------------------------------------------------------------

    def _current_style(self) -> _Style:
        key = (self.font(), self._theme)
        if self._style is None or key != self._style_key:
            self._style = _Style.build(self.font(), self._theme)
            self._style_key = key
            # Cards built from the same font and theme draw alike: one number for that pair
            # lets them share drawings without hashing a whole theme on every paint.
            self._style_token = _STYLE_TOKENS.setdefault(
                (self.font().key(), self._theme), len(_STYLE_TOKENS)
            )
            self._wrap_cache.clear()
            self._layers.clear()
        return self._style

    def _header_height(self, style: _Style) -> float:
        return max(
            style.fm(style.header).height(),
            self._stamp_size(style, "reward 0", compact=False).height(),
        )

    def _breakdown_height(self, style: _Style) -> float:
        """The line of reward functions' values, in full mode when the card has one."""
        if self._compact or self._card is None or not self._card.breakdown:
            return 0.0
        return style.fm(style.note).height() + style.gap * 0.5

    @staticmethod
    def _knob_size(style: _Style) -> float:
        return round(style.fm(style.stamp).height() * 0.9)

    def _slider_height(self, style: _Style) -> float:
        """Room under the text for the reward slider (continuous mode only)."""
        return 0.0 if self._reward_range is None else style.gap + self._knob_size(style)

    @staticmethod
    def _footer_height(style: _Style) -> float:
        return (
            style.fm(style.answer).height()
            + style.fm(style.advantage).height()
            + style.fm(style.word).height()
        )

    def _typeset_lines(self, text: str) -> tuple[tuple[Run, ...], ...]:
        """The trace's lines as plain and boxed runs, parsed once per text."""
        if self._typeset[0] != text or not self._typeset[1]:
            self._typeset = (text, display_lines(text))
        return self._typeset[1]

    def _trace_lines(self, style: _Style, width: float) -> tuple[_Line, ...]:
        text = "" if self._card is None else self._card.text
        key = (text, round(width, 1))
        lines = self._wrap_cache.get(key)
        if lines is None:
            if len(self._wrap_cache) > 32:
                self._wrap_cache.clear()
            paragraphs = self._typeset_lines(text)
            lines = _wrap(paragraphs, style.trace, style.fm(style.trace), width) if text else ()
            self._wrap_cache[key] = lines
        return lines

    def _show_focus_ring(self) -> None:
        if not self._focus_visible:
            self._focus_visible = True
            self.update()
