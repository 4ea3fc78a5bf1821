"""The group's answers as a grid of :class:`TraceCard` s that reflows with the width.

A view (DESIGN §2): :meth:`TraceGrid.show_snapshot` renders a snapshot and every card's click comes
out as ``toggle_requested(index)``. The grid lays its cards out itself (plain geometries in a
container widget): as many equal columns as fit at the cards' minimum width, rows growing downwards,
vertical scrolling only. It re-lays out when the width, G, the mode, the problem, the theme or the
font change — never on an ordinary toggle, so nothing moves when nothing changed (DESIGN §6).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QScrollArea,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.views.common.render_cache import CachedScrollBar
from grpo_desktop.views.lab.trace_card import TraceCard

__all__ = ["COMPACT_ABOVE", "TraceGrid"]

COMPACT_ABOVE = 8  # groups larger than this show compact cards
MAX_CARD_SCALE = 5.0  # cards grow up to this font factor to fill a large screen's height
FILL_STEP_SCALE = 0.1  # the card scales tried: 1.1, 1.2, …
FILL_STEP = 1.0 + FILL_STEP_SCALE
SPARE_NAME = "traceCardSpare"  # hidden pooled cards; never findable as traceCard{i}
_NAVIGATION_KEYS = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down)


class TraceGrid(QScrollArea):
    """Cards for the current group, reflowed into columns; re-emits ``toggle_requested``."""

    toggle_requested = Signal(int)
    score_requested = Signal(int, float, int)  # a card's reward dragged (continuous mode)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traceGrid")
        self._theme = theme
        self._cards: list[TraceCard] = []  # card i has index i; the first _count are active
        self._count = 0
        self._compact = False
        self._problem_id: str | None = None
        self._columns = 1
        self._cell = QSize(0, 0)
        self._layout_key: tuple | None = None
        self.card_name_prefix = ""  # a second grid's cards are e.g. "easy.traceCard0"
        self.compact_above = COMPACT_ABOVE  # the comparison, short of room, sets 0
        self._highlighted: frozenset[int] = frozenset()
        self._advantages_hidden = False
        # The presentation the active cards were given (and shown with) last: a click that
        # keeps it and the group's layout touches no card for it.
        self._presented: tuple[frozenset[int], bool] | None = None
        self._fit_contents = False  # grow to show every card instead of scrolling
        self._bottom_reserve = 0  # px under the last row kept free (a banner floats there)
        self.fill = True  # cards grow while they still fit the height (a large screen)
        # px the filling leaves free at the bottom for a width (a banner floating there)
        self.fill_reserve: Callable[[int], int] | None = None
        self._card_scale = 1.0
        self._keep_scale = False
        self._fixed_scale: float | None = None  # set by the page: no search, this scale

        self.setFrameShape(QFrame.Shape.NoFrame)
        scroll_bar = CachedScrollBar(Qt.Orientation.Vertical)
        # On the window's colour (nothing beneath the grid paints): the bar paints it itself, so
        # a repaint of the bar (a scroll, a new range) paints nothing beneath it.
        scroll_bar.set_backdrop(lambda: self.palette().color(QPalette.ColorRole.Window))
        self.setVerticalScrollBar(scroll_bar)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidgetResizable(False)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes straight to the cards
        self._contents = QWidget()
        self._contents.setObjectName("traceGridContents")
        self._contents.setAutoFillBackground(False)
        self.setWidget(self._contents)
        self.viewport().setAutoFillBackground(False)  # the window colour shows through
        self.setAutoFillBackground(False)
        self._spacing = 8
        self._margin = 4
        self._update_spacing()

    # -- public API ---------------------------------------------------------------------------

    def set_presentation(self, highlighted: Sequence[int], advantages_hidden: bool) -> None:
        """Star the loud rare answers and/or hide every advantage (predict, then reveal)."""
        self._highlighted = frozenset(highlighted)
        self._advantages_hidden = advantages_hidden
        for card in self._cards[: self._count]:
            card.set_presentation(card.index in self._highlighted, advantages_hidden)
        self._presented = (self._highlighted, advantages_hidden)

    def show_snapshot(
        self,
        snapshot: LabSnapshot,
        highlighted: Sequence[int] | None = None,
        advantages_hidden: bool | None = None,
    ) -> None:
        """One card per answer of ``snapshot``; re-lays out only if G, mode or problem changed.

        ``highlighted`` and ``advantages_hidden``, when given, change the presentation in the
        same pass (see :meth:`set_presentation`), so a click styles each card once.
        """
        if highlighted is not None:
            self._highlighted = frozenset(highlighted)
        if advantages_hidden is not None:
            self._advantages_hidden = advantages_hidden
        count = snapshot.group_size
        compact = count > self.compact_above
        while len(self._cards) < count:
            self._cards.append(self._new_card(len(self._cards)))
        structure_changed = (
            count != self._count
            or compact != self._compact
            or snapshot.problem.id != self._problem_id
        )
        for card in self._cards[count : self._count]:  # retire extra cards to the pool
            card.hide()
            card.setObjectName(SPARE_NAME)
        reward_range = snapshot.reward_range if snapshot.by_hand else None
        # Only the cards in view need new pixels now: one scrolled into view is painted then.
        first, last = (0, count) if structure_changed else self._rows_in_view()
        for i, state in enumerate(snapshot.cards):
            card = self._cards[i]
            card.show_card(state, compact, reward_range, exposed=first <= i < last)
            if i >= self._count:
                card.setObjectName(f"{self.card_name_prefix}traceCard{i}")
        self._count = count
        self._compact = compact
        self._problem_id = snapshot.problem.id
        if structure_changed:
            self._layout_key = None
            self._relayout()
        elif not compact and self._row_height() > self._cell.height():
            # A toggled trace needs more room than the row has (rare): grow, never shrink,
            # and keep the cards' size (a click never rescales them).
            self._layout_key = None
            self._keep_scale = True
            try:
                self._relayout()
            finally:
                self._keep_scale = False
        if structure_changed or self._presented != (self._highlighted, self._advantages_hidden):
            for card in self._cards[:count]:
                card.set_presentation(card.index in self._highlighted, self._advantages_hidden)
                card.setVisible(True)
            self._presented = (self._highlighted, self._advantages_hidden)

    def prepare(self, snapshot: LabSnapshot) -> None:
        """Draw ahead what showing ``snapshot`` would need (idle time): each card's
        description and, for the cards in view, the drawings of its new look. Only a snapshot
        of the group laid out now (same G, mode and problem) is prepared: another re-lays out."""
        if (
            snapshot.group_size != self._count
            or (snapshot.group_size > self.compact_above) != self._compact
            or snapshot.problem.id != self._problem_id
        ):
            return
        reward_range = snapshot.reward_range if snapshot.by_hand else None
        first, last = self._rows_in_view()
        for i, state in enumerate(snapshot.cards):
            self._cards[i].prepare(state, reward_range, exposed=first <= i < last)

    def indices_in_view(self) -> tuple[int, ...]:
        """The cards the viewport shows now (a part of a card counts), in order."""
        first, last = self._rows_in_view()
        return tuple(range(first, last))

    def set_fit_contents(self, fit: bool) -> None:
        """Take the height every card needs instead of scrolling: for a page that already
        budgets its height (the comparison), where a scroll area inside a page is a trap."""
        self._fit_contents = fit
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOff if fit else Qt.ScrollBarPolicy.ScrollBarAsNeeded
        )
        if not fit:
            self.setMinimumHeight(0)
            self.setMaximumHeight(16777215)
        self._layout_key = None
        self._relayout()

    def set_card_scale(self, scale: float | None) -> None:
        """Draw the cards at ``scale`` × their font (the page decides), or None: grow them to
        fill the height when ``fill`` is on, else 1."""
        if scale is not None:
            scale = round(max(1.0, float(scale)), 2)
        if scale != self._fixed_scale:
            self._fixed_scale = scale
            self._layout_key = None
            self._relayout()

    def card_scale(self) -> float:
        """The factor the cards' font is drawn at now (1: the grid's own font)."""
        return self._card_scale

    def set_bottom_reserve(self, pixels: int) -> None:
        """Let the cards scroll ``pixels`` further, clear of a banner drawn over the grid's
        bottom edge. No card moves: only the scrollable height grows."""
        pixels = max(0, int(pixels))
        if pixels != self._bottom_reserve:
            cards_height = self._contents.height() - self._bottom_reserve
            self._bottom_reserve = pixels
            if self._layout_key is not None and self._count:
                # Planning the cards again would restyle each of them (2–4 ms) for nothing.
                self._contents.resize(self.viewport().width(), cards_height + pixels)
            else:
                self._layout_key = None
                self._relayout()

    def card(self, index: int) -> TraceCard:
        """The active card for answer ``index`` (0-based)."""
        if not 0 <= index < self._count:
            raise IndexError(f"card index {index} out of range for a group of {self._count}")
        return self._cards[index]

    def cards(self) -> tuple[TraceCard, ...]:
        """The active cards, in order."""
        return tuple(self._cards[: self._count])

    @property
    def group_size(self) -> int:
        return self._count

    @property
    def compact(self) -> bool:
        return self._compact

    def column_count(self) -> int:
        """How many columns the current layout uses."""
        return self._columns

    def set_theme(self, theme: Theme) -> None:
        if theme == self._theme:
            return
        self._theme = theme
        for card in self._cards:
            card.set_theme(theme)
        self._update_spacing()
        self._layout_key = None
        self._relayout()

    # -- Qt overrides -------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        width, height = self._cell_minimum()
        columns = max(1, min(4, self._count or 4))
        rows = 2 if self._count > columns else 1
        return QSize(
            columns * width
            + (columns - 1) * self._spacing
            + 2 * self._margin
            + self.verticalScrollBar().sizeHint().width(),
            rows * height + (rows - 1) * self._spacing + 2 * self._margin,
        )

    def minimumSizeHint(self) -> QSize:
        width, height = self._cell_minimum()
        return QSize(
            width + 2 * self._margin + self.verticalScrollBar().sizeHint().width(),
            min(height, 120) + 2 * self._margin,
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        # QAbstractScrollArea sends the viewport's resizes here too (e.g. when the scroll bar
        # appears), so the columns always match the width actually available.
        super().resizeEvent(event)
        self._relayout()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # an app-wide zoom: cards grow, so re-flow
            self._update_spacing()
            self._layout_key = None
            self._relayout()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _NAVIGATION_KEYS and not (
            event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        ):
            focus = QApplication.focusWidget()
            active = self._cards[: self._count]
            if isinstance(focus, TraceCard) and focus in active:
                target = self._neighbour(focus.index, event.key())
                if target != focus.index:
                    card = self._cards[target]
                    card.setFocus(Qt.FocusReason.TabFocusReason)
                    self.ensureWidgetVisible(card, 0, self._spacing)
                event.accept()
                return
        super().keyPressEvent(event)  # Page Up / Page Down / Home / End scroll as usual

    # -- internals ----------------------------------------------------------------------------

    def _new_card(self, index: int) -> TraceCard:
        card = TraceCard(index, self._theme, self._contents)
        card.setObjectName(SPARE_NAME)  # named traceCard{index} when show_snapshot activates it
        card.toggle_requested.connect(self.toggle_requested)
        card.score_requested.connect(self.score_requested)
        card.hide()
        return card

    def _update_spacing(self) -> None:
        em = self.fontMetrics().height() * self._theme.type_scale
        # Each card already keeps a 4 px margin for its focus ring, so bodies end up ~12 px apart.
        self._spacing = max(2, round(em * 0.3))
        self._margin = 0

    def _cell_minimum(self) -> tuple[int, int]:
        if self._count:
            probe = self._cards[0]
            width = probe.minimum_card_width()
            height = max(c.height_for_width(width) for c in self._cards[: self._count])
            if self._fixed_scale is None and self._card_scale > 1.0:
                # Grown to fill the room it has: ask for the plain size, or the grid could hold
                # the window at its grown size (the growth follows the room, not the reverse).
                return round(width / self._card_scale), round(height / self._card_scale)
            return width, height
        if not self._cards:  # no group shown yet: size the hint from a pooled (hidden) card
            self._cards.append(self._new_card(0))
        probe = self._cards[0]
        width = probe.minimum_card_width()
        return width, probe.height_for_width(width)

    def _neighbour(self, index: int, key: Qt.Key) -> int:
        columns, last = self._columns, self._count - 1
        if key == Qt.Key.Key_Left:
            return max(0, index - 1)
        if key == Qt.Key.Key_Right:
            return min(last, index + 1)
        if key == Qt.Key.Key_Up:
            return index - columns if index - columns >= 0 else index
        # Down: the card below, or the last card when the next row is shorter than this column.
        if index + columns <= last:
            return index + columns
        if index // columns < last // columns:
            return last
        return index

    def _rows_in_view(self) -> tuple[int, int]:
        """The first card and one past the last card of the rows the viewport shows (a part of
        a row counts), as laid out now: every active card when the grid is not laid out."""
        if self._layout_key is None or not self._count or self._cell.height() <= 0:
            return 0, self._count
        top = self._contents.mapFrom(self.viewport(), QPoint(0, 0)).y()
        bottom = top + self.viewport().height()  # exclusive
        pitch = self._cell.height() + self._spacing
        first_row = max(0, (top - self._margin - self._cell.height()) // pitch + 1)
        last_row = max(0, (bottom - 1 - self._margin) // pitch)  # the last row starting above
        columns = max(1, self._columns)
        return first_row * columns, min(self._count, (last_row + 1) * columns)

    def _row_height(self) -> int:
        width = self._cell.width()
        return max((c.height_for_width(width) for c in self._cards[: self._count]), default=0)

    def _plan(self, available: int) -> tuple[int, int, int, int]:
        """Columns, rows, cell width and row height for the cards at their current font."""
        minimum = self._cards[0].minimum_card_width()
        fit = max(1, (available + self._spacing) // (minimum + self._spacing))
        # As many columns as fit, then balanced over the rows that needs (8 cards in 6 columns
        # make 2 rows of 4, not 6 + 2): never more rows, never an orphan row of one.
        rows = -(-self._count // fit)
        columns = -(-self._count // rows)
        # Below one minimum width (a very narrow window) the single column shrinks rather than
        # hiding its right edge: the card elides its text and shrinks its numbers to fit.
        width = max(1, (available - (columns - 1) * self._spacing) // columns)
        height = max(c.height_for_width(width) for c in self._cards[: self._count])
        return columns, rows, width, height

    def _total_height(self, rows: int, height: int) -> int:
        return 2 * self._margin + rows * height + (rows - 1) * self._spacing

    def _set_card_scale(self, scale: float) -> None:
        """Cards draw every text from their font: a larger font makes the whole card larger."""
        if scale == self._card_scale:
            return
        self._card_scale = scale
        if scale == 1.0:
            self._contents.setFont(QFont())  # nothing set: inherit the grid's (the app's) font
            return
        font = QFont(self.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * scale)
        else:
            font.setPixelSize(max(1, round(font.pixelSize() * scale)))
        self._contents.setFont(font)

    def _fill_scale(self, available: int, rows: int, height: int) -> float:
        """The largest card scale (up to MAX_CARD_SCALE) whose layout still fits the height
        (less the banner's room); 1 when even the plain cards do not fit. Tried on a resize or
        a new group, never on a click, so cards never change size under the cursor."""
        room = self.viewport().height() - 2 * self._margin
        if self.fill_reserve is not None:
            room -= self.fill_reserve(self.viewport().width())
        plain = self._total_height(rows, height)
        if plain <= 0 or plain * FILL_STEP > room:
            return 1.0
        # Estimate first (fonts scale sizes linearly: columns shrink with 1/scale, heights grow
        # with it), then check for real, stepping down: each try restyles every card.
        probe = self._cards[0]
        min_width = probe.minimum_card_width()
        tallest = max(c.height_for_width(min_width) for c in self._cards[: self._count])
        scale = 1.0
        for step in range(round((MAX_CARD_SCALE - 1.0) / FILL_STEP_SCALE), 0, -1):
            guess = 1.0 + FILL_STEP_SCALE * step
            fit = max(1, int((available + self._spacing) // (min_width * guess + self._spacing)))
            guess_rows = -(-self._count // fit)
            if self._total_height(guess_rows, round(tallest * guess)) <= room:
                scale = round(guess, 2)
                break
        while scale > 1.0:
            self._set_card_scale(scale)
            _columns, scaled_rows, _width, scaled_height = self._plan(available)
            if self._total_height(scaled_rows, scaled_height) <= room:
                return scale
            scale = round(scale - FILL_STEP_SCALE, 2)
        return 1.0

    def _relayout(self) -> None:
        """Place the active cards: equal columns filling the viewport width, rows downwards.

        Cards grow (a larger font) while they still fit the grid's height, so a large screen
        shows them larger instead of a blank column; otherwise the grid scrolls.
        """
        if not self.testAttribute(Qt.WidgetAttribute.WA_Resized):
            # Never given a size (the window's grid gets its first group while it is built):
            # laying the cards out in the viewport's default 638 px was 2-3 ms of start-up for
            # nothing. The grid's first resize lays them out.
            return
        available = self.viewport().width() - 2 * self._margin
        filling = self.fill and not self._fit_contents and self._fixed_scale is None
        height_key = self.viewport().height() if filling else -1
        key = (available, height_key, self._count, self._compact, self._problem_id)
        if key == self._layout_key:
            return
        self._layout_key = key
        if not self._count:
            self._contents.resize(max(0, self.viewport().width()), 0)
            if self._fit_contents:
                self.setFixedHeight(0)
            return
        if self._fixed_scale is not None:
            self._set_card_scale(self._fixed_scale)
            columns, rows, width, height = self._plan(available)
        elif not self._keep_scale:
            self._set_card_scale(1.0)
            columns, rows, width, height = self._plan(available)
            if filling:
                scale = self._fill_scale(available, rows, height)
                self._set_card_scale(scale)
                if scale != 1.0:
                    columns, rows, width, height = self._plan(available)
        else:
            columns, rows, width, height = self._plan(available)
        self._cell = QSize(width, height)
        self._columns = columns
        # Spread the leftover pixels (from the integer division) over the first columns.
        extra = max(0, available - (columns * width + (columns - 1) * self._spacing))
        for i, card in enumerate(self._cards[: self._count]):
            row, column = divmod(i, columns)
            x = self._margin + column * (width + self._spacing) + min(column, extra)
            y = self._margin + row * (height + self._spacing)
            card.setGeometry(QRect(x, y, width + (1 if column < extra else 0), height))
        total = self._total_height(rows, height)
        self._contents.resize(self.viewport().width(), total + self._bottom_reserve)
        if self._fit_contents:
            self.setFixedHeight(total + 2 * self.frameWidth())
