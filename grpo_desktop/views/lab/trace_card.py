"""One sampled answer as a card: its trace, the checker's reward and the advantage GRPO gives it.

A view (DESIGN §2): it paints the last :class:`~grpo_desktop.core.lab.lab_snapshot.CardState` it
was shown
and emits ``toggle_requested(index)`` when clicked or activated from the keyboard. It never restyles
itself on a click: the state changes, a new snapshot comes back and :meth:`TraceCard.show_card`
repaints it.

Painted with QPainter (no stylesheets, no child labels) so restyling 64 cards fits in one frame.
Every font is derived from the widget's font times ``theme.type_scale``, so an app-wide zoom
scales the card, and its size hints come from font metrics, never from pixel constants. The widget
holds the card's state and answers input and accessibility; where things go and what the card
says is ``trace_card_layout.py`` (plain functions), the drawing and its caches
``trace_card_painter.py``.
"""

from __future__ import annotations

from PySide6.QtCore import Property, QEvent, QSize, Qt, Signal
from PySide6.QtGui import (
    QAccessible,
    QAccessibleStateChangeEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QApplication, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.lab_snapshot import CardState
from grpo_desktop.core.lab.trace_display import display_lines
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.common.render_cache import DRAWINGS
from grpo_desktop.views.lab.accessible_card import CardAccessible
from grpo_desktop.views.lab.trace_card_layout import (
    HINT,
    MARGIN,
    MAX_VISIBLE_LINES,
    TOOLTIP_CHARS,
    CardStyle,
    Line,
    advantage_text,
    card_height,
    describe,
    header_height,
    minimum_width,
    only_advantage_changed,
    tooltip_trace,
)
from grpo_desktop.views.lab.trace_card_painter import CardPainter

__all__ = ["MAX_VISIBLE_LINES", "TraceCard"]

_NUDGE_UP_KEYS = (Qt.Key.Key_Plus, Qt.Key.Key_Equal)
_NUDGE_DOWN_KEYS = (Qt.Key.Key_Minus, Qt.Key.Key_Underscore)
_NUDGES = 20  # + and − move a reward by 1/20 of its slider's span
_DRAG_STEP = 0.01  # a dragged reward snaps to hundredths: no noise digits on the cards
_WHEEL_LINES = 3
#: Descriptions kept per card: a card toggled back and forth (or G spun) meets a handful of
#: states again; more would only hold memory (64 cards × 256 states was 10 MB of tooltips).
_DESCRIBED_STATES = 16
_ACTIVATE_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
#: Where the card boxes are kept, under the name benchmarks/bench_memory.py reads.
_BOXES = DRAWINGS


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
        self._trace_html: tuple[str, str | None] = ("", None)  # the tooltip's trace, per text
        self._texts: dict[CardState, tuple[str, str]] = {}  # description and tooltip per state
        self._shown_texts = ("", HINT)  # the description and tooltip the widget has now
        self._described: CardState | None = None  # the state _shown_texts describe
        self._focus_visible = False
        self._highlighted = False  # a rare, loud answer the lecturer wants the class to see
        self._advantage_hidden = False  # predict-then-reveal: the class guesses the sign first
        self._reward_range: tuple[float, float] | None = None  # continuous mode: the slider span
        self._first_line = 0  # a long trace scrolls inside the card
        self._press: tuple[float, float] | None = None  # (x, reward) where a drag started
        self._dragging = False
        self._gesture = 0
        self.painter = CardPainter(self)
        self.setObjectName(f"traceCard{index}")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setProperty("drawsOwnFocusRing", True)  # its own ring: no second one
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        # A screen reader meets a check box "Card 3" (accessible_card.py): checked = right.
        self.setAccessibleName(f"Card {index + 1}")
        self.setToolTip(HINT)

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

    @property
    def theme(self) -> Theme:
        return self._theme

    def focus_ring_shown(self) -> bool:
        """Whether the card shows its focus ring (keyboard focus, not a click's)."""
        return self.hasFocus() and self._focus_visible

    def show_card(
        self,
        card: CardState,
        compact: bool,
        reward_range: tuple[float, float] | None = None,
        exposed: bool = True,
    ) -> None:
        """Render ``card``; does nothing at all when it and the mode are what is already shown.

        ``reward_range`` (continuous mode) puts a reward slider on the card, over that span.
        ``exposed`` False: the card is scrolled out of its grid's view, so it asks for no repaint
        now (Qt paints it when a scroll brings it into view: at G = 64 on a large zoom most
        cards are out of view, and their repaints were a tenth of the grid's share of a click).
        """
        shown = self._card
        same_mode = compact == self._compact and reward_range == self._reward_range
        if same_mode and card is shown:
            return
        # A click gives every card of the group a new advantage, and most nothing else: then
        # the card's layer, size and verdict stay, and only its advantage lines may change (an
        # equal state changes nothing: its lines show the same, so nothing is repainted).
        footer_only = same_mode and only_advantage_changed(shown, card)
        self._card = card
        if not same_mode:
            self._described = None  # described again in the new mode when next read
        if not footer_only:
            hint_changes = (
                compact != self._compact
                or shown is None
                or card.text != shown.text
                or (reward_range is None) != (self._reward_range is None)
                or bool(card.breakdown) != bool(shown.breakdown)
            )
            if shown is None or card.text != shown.text:
                self._first_line = 0
            self._reward_range = reward_range
            self._compact = compact
            if hint_changes:
                self.updateGeometry()
        if accessible_events.wanted():
            # Someone listens: the new description (and the verdict's change) go out now.
            self._current_texts()
            if shown is not None and shown.correct != card.correct:
                changed = QAccessible.State()
                changed.checked = True
                accessible_events.send(QAccessibleStateChangeEvent(self, changed))
        # Otherwise the description and tooltip are written when read (_current_texts): 64
        # cards each described afresh were a tenth of a click at G = 64.
        if not exposed:
            return
        if footer_only:
            if advantage_text(shown, "", self._advantage_hidden) == advantage_text(
                card, "", self._advantage_hidden
            ):
                return  # the same sign, push and shown number: the same pixels
            # The layer beneath the advantage lines is the same: repaint only their pixels (at
            # 200 % zoom a whole card's blit is most of its paint, and a click repaints them all).
            self.update(self.painter.text_rects(self.painter.style())[1])
        else:
            self.update()

    def prepare(
        self, card: CardState, reward_range: tuple[float, float] | None, exposed: bool
    ) -> None:
        """Work out ahead (idle time) what :meth:`show_card` would need for ``card`` in the
        mode shown now: its description and, ``exposed``, the drawings of its advantage lines
        and its body, kept where painting them looks them up."""
        if card == self._card or reward_range != self._reward_range:
            return
        if card not in self._texts:
            if len(self._texts) >= _DESCRIBED_STATES:
                self._texts.clear()
            self._texts[card] = self._describe(card)
        if not exposed:
            return
        painter = self.painter
        style = painter.style()
        advantage = 0.0 if self._advantage_hidden else card.advantage
        accent = style.colour(self._theme.push_colour(advantage))
        content, footer = painter.text_rects(style)
        painter.footer(style, card, accent, content, footer)
        same_text = self._card is not None and card.text == self._card.text
        # A full card lays its trace out from the card shown, so its body is drawn ahead only
        # for a new push colour on the same text (its own toggle draws it in its frame, as
        # before); a compact card shows no trace, so its toggled body is drawn ahead too.
        if not only_advantage_changed(self._card, card) and (same_text or self._compact):
            scrolled = painter.last_first_line  # what the card shown now can scroll, kept
            painter.layer(style, card, accent, advantage)
            painter.last_first_line = scrolled

    def toolTip(self) -> str:  # Qt override (for Python callers): the card's tooltip now
        return self._current_texts()[1]

    def accessibleDescription(self) -> str:  # Qt override (for Python callers and CardAccessible)
        """What a screen reader reads after the card's name: its verdict, reward and advantage."""
        return self._current_texts()[0]

    def event(self, event: QEvent) -> bool:  # Qt override
        # Every click changes every card's tooltip (it states the advantage); Qt's setToolTip
        # sends an event through every filter each time (a twentieth of a click at G = 64), so
        # the text is handed to Qt only when a tooltip is about to show.
        if event.type() == QEvent.Type.ToolTip:
            tooltip = self._current_texts()[1]
            if super().toolTip() != tooltip:
                self.setToolTip(tooltip)
        return super().event(event)

    def _current_texts(self) -> tuple[str, str]:
        """The description and tooltip of the state shown now, written (and the description
        handed to Qt) on first read after a change rather than on every click."""
        card = self._card
        if card is None or self._described is card:
            return self._shown_texts
        texts = self._texts.get(card)
        if texts is None:
            if len(self._texts) >= _DESCRIBED_STATES:
                self._texts.clear()
            texts = self._texts[card] = self._describe(card)
        if texts[0] != self._shown_texts[0]:  # compared here: asking Qt costs a call per text
            self.setAccessibleDescription(texts[0])
        self._shown_texts = texts  # the tooltip goes to Qt when one is about to show
        self._described = card
        return texts

    def _describe(self, card: CardState) -> tuple[str, str]:
        """The accessible description and the tooltip of ``card`` (cached per state: answers
        toggled back and forth come back to the same few states)."""
        if self._trace_html[0] != card.text or self._trace_html[1] is None:
            text = card.text
            if len(text) > TOOLTIP_CHARS:
                text = text[:TOOLTIP_CHARS] + " …"
            self._trace_html = (card.text, tooltip_trace(display_lines(text)))
        return describe(card, self._index, self._reward_range is not None, self._trace_html[1])

    def request_toggle(self) -> None:
        """Ask for this answer to be toggled, exactly as a click or Space does (the screen
        reader's Toggle action comes here)."""
        self.toggle_requested.emit(self._index)

    def request_nudge(self, direction: int) -> None:
        """Continuous mode: ask for the reward one step up (+1) or down (−1), as + and − do."""
        self._nudge(direction, False)

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
        return minimum_width(self.painter.style(), self._compact)

    def height_for_width(self, width: int) -> int:
        """The height the current text needs at ``width`` px (the grid sizes its rows with it)."""
        style = self.painter.style()
        lines = 0
        if not self._compact:
            lines = len(self.painter.trace_lines(style, width - 2 * (MARGIN + style.pad)))
        return card_height(style, self._compact, lines, self._card, self._reward_range)

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
        track = max(1.0, self.painter.track_rect(self.painter.style()).width())
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
            self.request_toggle()
            return
        super().mouseReleaseEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        """A long trace scrolls inside the card; a short one leaves the wheel to the grid."""
        notches = event.angleDelta().y() / 120
        target = self._first_line - round(notches * _WHEEL_LINES) if notches else self._first_line
        target = min(max(0, target), self.painter.last_first_line)
        if self.painter.last_first_line == 0 or target == self._first_line:
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
                self.request_toggle()
            return
        super().keyPressEvent(event)  # arrows, Page Up/Down … go on to the grid

    def focusInEvent(self, event) -> None:
        # Like CSS :focus-visible: a ring for keyboard focus, none for the card just clicked.
        self._focus_visible = event.reason() != Qt.FocusReason.MouseFocusReason
        super().focusInEvent(event)
        self.update()

    def hideEvent(self, event) -> None:
        # A card retired to the grid's pool (G went down) keeps nothing it would redraw anyway.
        self.painter.forget()
        super().hideEvent(event)

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        self.painter.paint(painter)
        painter.end()

    # -- for the grid, tests and benchmarks ---------------------------------------------------

    def _current_style(self) -> CardStyle:
        """The fonts and sizes drawn with now (the painter's)."""
        return self.painter.style()

    def _trace_lines(self, style: CardStyle, width: float) -> tuple[Line, ...]:
        return self.painter.trace_lines(style, width)

    @staticmethod
    def _header_height(style: CardStyle) -> float:
        return header_height(style)

    def _show_focus_ring(self) -> None:
        if not self._focus_visible:
            self._focus_visible = True
            self.update()


accessible_events.register(TraceCard, CardAccessible)
