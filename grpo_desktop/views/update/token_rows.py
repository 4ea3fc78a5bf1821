"""Each answer of the group as a row of token chips, coloured by how the update pushes each token.

A view (DESIGN §2): it paints the last
:class:`~grpo_desktop.core.update.update_snapshot.UpdateSnapshot`
it was shown and emits ``token_requested(row, column)`` when a chip is clicked or reached with the
keyboard. It never selects a token itself: the selection comes back in the next snapshot.

Painted with QPainter (no child widgets, no HTML: a token reading ``<b>`` is drawn literally) so
16 answers × 2,000 tokens lay out and repaint within a frame. The widget holds the snapshot, the
selection and the keys' cursor and answers Qt's events; where things go is ``token_layout.py``
(plain functions), their colours ``token_colours.py``, and the painter that keeps what a click
leaves alone ``token_painter.py``. A new selection repaints only the rings it moves.
"""

from __future__ import annotations

import bisect
import html
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAccessible,
    QAccessibleEvent,
    QFocusEvent,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QToolTip, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.update.update_snapshot import UpdateSnapshot
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.update.accessible_tokens import TokenRowsAccessible, child_index
from grpo_desktop.views.update.token_colours import MIN_TINT, chip_colours, readable_text
from grpo_desktop.views.update.token_layout import (
    LEGEND,
    NEWLINE_MARK,
    SPACE_MARK,
    TokenStyle,
    display_label,
    key_target,
    push_summary,
    token_tooltip,
)
from grpo_desktop.views.update.token_painter import TokenRowsPainter

__all__ = [
    "LEGEND",
    "MIN_TINT",
    "NEWLINE_MARK",
    "SPACE_MARK",
    "TokenRowsScroll",
    "TokenRowsView",
    "chip_colours",
    "display_label",
    "push_summary",
    "readable_text",
    "token_tooltip",
]

_ACTIVATE_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)


class TokenRowsView(QWidget):
    """The group's answers as rows of token chips; emits ``token_requested(row, column)``."""

    token_requested = Signal(int, int)
    #: The selected chip's rect after a new snapshot, so a scroll area can keep it in view.
    selection_shown = Signal(QRect)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.painter = TokenRowsPainter(theme)
        self._selected: tuple[int, int] | None = None
        self._cursor: tuple[int, int] | None = None  # where the keyboard last asked to go
        # The tokens whose rings the last paint drew (solid, dashed): what a new selection clears.
        self._ringed: tuple[tuple[int, int] | None, tuple[int, int] | None] = (None, None)
        self.setObjectName("tokenRows")
        self.setAccessibleName("Answers as tokens")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setProperty("drawsOwnFocusRing", True)  # its own ring: no second one
        self.setMouseTracking(True)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        # Rows to lay out in idle time, showing the text a toggle of their card brings: (row,
        # pre-tokens), last first; one row a turn of the event loop (see warm_rows).
        self._to_warm: list[tuple[int, tuple[str, ...]]] = []
        self._warm_timer = QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(0)
        self._warm_timer.timeout.connect(self._warm_next)

    # -- public API ---------------------------------------------------------------------------

    def show_snapshot(self, snapshot: UpdateSnapshot) -> None:
        """Render ``snapshot``; a snapshot that differs only in the selection just repaints."""
        previous = self.painter.snapshot
        selected = (
            None if snapshot.selected is None else (snapshot.selected.row, snapshot.selected.column)
        )
        same_rows = (
            previous is not None
            and previous.rows == snapshot.rows
            and previous.max_abs_push == snapshot.max_abs_push
            and previous.pending == snapshot.pending  # a pending row keeps its old shape
        )
        moved = selected != self._selected
        shown_before = previous is not None and self.width() > 0 and self.isVisible()
        if not same_rows:  # rows laid out for the old group's toggles would be for nothing
            self._to_warm.clear()
            self._warm_timer.stop()
        self._selected = selected
        self._cursor = selected
        if same_rows:
            self.painter.snapshot = snapshot
        else:
            # New positions at the same height ask nothing of the scroll area: a re-layout of
            # the column (and the splitters above it) only when the rows' height changes.
            width = self.width()
            before = self.painter.layout(width).height if shown_before else -1
            if self.painter.prepare(snapshot) and (
                not shown_before or self.painter.layout(width).height != before
            ):
                self.updateGeometry()
        self._describe()
        if same_rows:  # only the selection moved: repaint the rings it leaves and enters
            for token in {*self._ringed, selected}:
                self.update(self.painter.ring_rect(token, self.width()))
        elif shown_before:  # new rows under the same legend: the legend is not drawn again
            top = self.painter.layout(self.width()).legend.bottom() + 1
            self.update(QRect(0, top, self.width(), max(0, self.height() - top)))
        else:
            self.update()
        if moved and selected is not None:
            rect = self.token_rect(*selected)
            if rect.isValid():
                self.selection_shown.emit(rect)
        if accessible_events.wanted():
            self._tell_screen_reader(not same_rows, selected if moved else None)

    def warm_rows(self, rows: Sequence[tuple[str, ...] | None]) -> None:
        """Lay out in idle time each row showing the text a toggle of its card would bring
        (``rows``: its pre-tokens, or None), at the current width, one row a turn of the event
        loop (a row's chips take 1–2 ms to measure and flow): a toggle then finds its row's
        chips in place and its frame does not flow 2,000 of them. A new group cancels it."""
        self._to_warm = [(i, texts) for i, texts in enumerate(rows) if texts is not None]
        self._to_warm.reverse()
        if self._to_warm:
            self._warm_timer.start()

    @property
    def warming(self) -> bool:
        """Whether rows are still waiting to be laid out in idle time (see :meth:`warm_rows`)."""
        return bool(self._to_warm)

    def _warm_next(self) -> None:
        while self._to_warm:
            index, texts = self._to_warm.pop()
            if self.painter.warm_row(index, texts, self.width()):
                break  # one row's work a turn: input is served between them
        if self._to_warm:
            self._warm_timer.start()

    def set_theme(self, theme: Theme) -> None:
        """Restyle for ``theme`` (fonts and strokes too: the projector's are larger)."""
        if theme == self.painter.theme:
            return
        self.painter.restyle(theme)
        self.painter.prepare(self.painter.snapshot)
        self.updateGeometry()
        self.update()

    @property
    def theme(self) -> Theme:
        return self.painter.theme

    @property
    def snapshot(self) -> UpdateSnapshot | None:
        return self.painter.snapshot

    def key_cursor(self) -> tuple[int, int] | None:
        """(row, column) where the keys last went (the selection, or a token asked for)."""
        return self._cursor

    def selected(self) -> tuple[int, int] | None:
        """(row, column) of the snapshot's selected token, or None."""
        return self._selected

    def token_rect(self, row: int, column: int) -> QRect:
        """Where the chip of token ``column`` of answer ``row`` is (widget coordinates).

        An invalid (null) QRect when there is no such token.
        """
        return self.painter.token_rect(row, column, self.width())

    def shown_label(self, row: int, column: int) -> str:
        """The text the chip draws (whitespace made visible, elided if wider than the view)."""
        return self.painter.layout(self.width()).rows[row].chips[column][3]

    def line_of(self, row: int, column: int) -> int:
        """Which line of its row (0 = first) the chip sits on at the current width."""
        starts = self.painter.layout(self.width()).rows[row].line_starts
        return bisect.bisect_right(starts, column) - 1

    def row_rect(self, row: int) -> QRect:
        """The band answer ``row`` occupies (header and chips), full widget width."""
        layout = self.painter.layout(self.width())
        return QRect(0, layout.row_tops[row], self.width(), layout.rows[row].height)

    def token_at(self, point: QPoint) -> tuple[int, int] | None:
        """(row, column) of the chip under ``point``, or None."""
        layout = self.painter.layout(self.width())
        x, y = point.x(), point.y()
        index = bisect.bisect_right(layout.row_tops, y) - 1
        if index < 0:
            return None
        row = layout.rows[index]
        y -= layout.row_tops[index]
        if y >= row.height or not row.line_tops:
            return None
        line = bisect.bisect_right(row.line_tops, y) - 1
        if line < 0 or y >= row.line_tops[line] + self._current_style().chip_h:
            return None
        end = row.line_starts[line + 1] if line + 1 < len(row.line_starts) else len(row.chips)
        for column in range(row.line_starts[line], end):
            cx, _cy, cw, _label = row.chips[column]
            if cx <= x < cx + cw:
                return index, column
        return None

    # -- Qt overrides -------------------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self.painter.layout(width).height

    def sizeHint(self) -> QSize:
        # The layout at the width the widget has (cached), not at a fixed probe width: a hint
        # must not cost a second full layout on every click.
        width = self.width() if self.width() > 0 else 640
        return QSize(640, self.painter.layout(width).height)

    def minimumSizeHint(self) -> QSize:
        style = self._current_style()
        return QSize(style.margin * 2 + style.min_chip_w * 4, style.chip_h + 2 * style.margin)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # an app-wide zoom: re-measure everything
            self.painter.restyle()
            self.painter.prepare(self.painter.snapshot)
            self.updateGeometry()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            hit = self.token_at(event.pos())
            snapshot = self.painter.snapshot
            if hit is None or snapshot is None:
                QToolTip.hideText()
                event.ignore()
                return True
            row, column = hit
            token = snapshot.rows[row].tokens[column]
            # Escaped rich text: plain text that looks like HTML would otherwise be rendered.
            text = "<br>".join(
                html.escape(line) for line in token_tooltip(token, row, column).splitlines()
            )
            QToolTip.showText(
                event.globalPos(),
                f"<p style='white-space:pre'>{text}</p>",
                self,
                self.token_rect(row, column),
            )
            return True
        return super().event(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        over = self.token_at(event.position().toPoint()) is not None
        shape = Qt.CursorShape.PointingHandCursor if over else Qt.CursorShape.ArrowCursor
        if self.cursor().shape() != shape:
            self.setCursor(shape)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            hit = self.token_at(event.position().toPoint())
            if hit is not None:
                event.accept()
                self._cursor = hit
                self.token_requested.emit(*hit)
                return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        snapshot = self.painter.snapshot
        lengths = [] if snapshot is None else [len(row.tokens) for row in snapshot.rows]
        target = key_target(event.key(), modifiers, lengths, self._cursor)
        if target is None:
            super().keyPressEvent(event)  # Page Up / Page Down … scroll the area as usual
            return
        event.accept()
        activate = event.key() in _ACTIVATE_KEYS
        if target != self._cursor or activate:  # at the edge a key does nothing
            self._cursor = target
            self.token_requested.emit(*target)

    def paintEvent(self, event: QPaintEvent) -> None:
        cursor = None
        if self.hasFocus():
            # Where the keys are: a dashed ring on a token asked for but not yet selected, or
            # on the first token before anything is, so a keyboard user sees focus arrive.
            cursor = self._cursor if self._cursor is not None else self._first_token()
            if cursor == self._selected:
                cursor = None
        painter = QPainter(self)
        painted = self.painter.paint(
            painter, event.rect(), self.width(), self.devicePixelRatioF(), self._selected, cursor
        )
        painter.end()
        if painted:
            self._ringed = (self._selected, cursor)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.update()

    # -- internals ----------------------------------------------------------------------------

    def _current_style(self) -> TokenStyle:
        """The fonts and sizes drawn with now (the painter's)."""
        return self.painter.style()

    def _first_token(self) -> tuple[int, int] | None:
        snapshot = self.painter.snapshot
        if snapshot is None:
            return None
        return next(((i, 0) for i, row in enumerate(snapshot.rows) if row.tokens), None)

    def _tell_screen_reader(self, rows_changed: bool, selected: tuple[int, int] | None) -> None:
        """Accessibility events: the token items changed, or the selection (and, with the
        keyboard here, the focus) moved to another token item."""
        if rows_changed:
            accessible_events.send(QAccessibleEvent(self, QAccessible.Event.ObjectReorder))
        if selected is None:
            return
        index = child_index(self, *selected)
        if index < 0:
            return
        kinds = [QAccessible.Event.Selection]
        if self.hasFocus():
            kinds.append(QAccessible.Event.Focus)
        for kind in kinds:
            event = QAccessibleEvent(self, kind)
            event.setChild(index)
            accessible_events.send(event)

    def _describe(self) -> None:
        snapshot = self.painter.snapshot
        if snapshot is None:
            return
        parts = [f"{len(snapshot.rows)} answers, {snapshot.token_count} tokens"]
        if self._selected is not None:
            row, column = self._selected
            parts.append(f"selected: answer {row + 1}, token {column + 1}")
        parts.append("arrow keys move between tokens")
        self.setAccessibleDescription("; ".join(parts))


accessible_events.register(TokenRowsView, TokenRowsAccessible)


class TokenRowsScroll(QScrollArea):
    """The token rows in a vertical scroll area: the page adds this, never the bare view."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tokenRowsScroll")
        self.rows_view = TokenRowsView(theme)
        self.setWidget(self.rows_view)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes straight to the rows
        self.rows_view.selection_shown.connect(self._reveal)

    def show_snapshot(self, snapshot: UpdateSnapshot) -> None:
        self.rows_view.show_snapshot(snapshot)

    def set_theme(self, theme: Theme) -> None:
        self.rows_view.set_theme(theme)

    def _reveal(self, rect: QRect) -> None:
        center = rect.center()
        self.ensureVisible(center.x(), center.y(), rect.width(), rect.height())
