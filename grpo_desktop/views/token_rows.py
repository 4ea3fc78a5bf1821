"""Each answer of the group as a row of token chips, coloured by how the update pushes each token.

A view (DESIGN §2): it paints the last :class:`~grpo_desktop.core.update_snapshot.UpdateSnapshot`
it was shown and emits ``token_requested(row, column)`` when a chip is clicked or reached with the
keyboard. It never selects a token itself: the selection comes back in the next snapshot.

Painted with QPainter (no child widgets, no HTML: a token reading ``<b>`` is drawn literally) so
16 answers × 2,000 tokens lay out and repaint within a frame. The work is split by what
invalidates it: per (answer text, clip marks, theme, font) each token's label and width, so a click
that only re-scores keeps every position; per width each row's chip positions; per snapshot each
chip's colours, looked up when it is first painted; a paint draws only the rows the exposed rect
touches, and a new selection repaints only the rings it moves.
"""

from __future__ import annotations

import bisect
import html
import json
import math
import operator
import re
from dataclasses import dataclass
from typing import NamedTuple

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QFont,
    QFontMetricsF,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QToolTip, QWidget

from grpo_desktop.core.formatting import MINUS, number, signed
from grpo_desktop.core.theme import LIGHT, Theme, contrast_ratio
from grpo_desktop.core.update_snapshot import AnswerRow, TokenRow, TokenView, UpdateSnapshot
from grpo_desktop.views.fonts import scaled_font
from grpo_desktop.views.render_cache import DRAWINGS, DrawingCache, transparent_pixmap

__all__ = [
    "LEGEND",
    "MIN_TINT",
    "SPACE_MARK",
    "TokenRowsScroll",
    "TokenRowsView",
    "chip_colours",
    "display_label",
    "push_summary",
]

#: What a chip shows for a space: U+2423 OPEN BOX, the typographers' visible space. A middle dot
#: read as multiplication in arithmetic ("·47" as "times 47"). The legend explains both marks.
SPACE_MARK = "␣"
NEWLINE_MARK = "↵"
LEGEND = (
    "▲ green: raises likelihood · ▼ vermillion: lowers · intensity = size of push · "
    "✂ clipped (no gradient) · underlined: the final answer the checker reads · "
    f"{SPACE_MARK} a space, {NEWLINE_MARK} a line break (tokens keep their spaces)"
)
#: The faintest tint a non-zero push gets, so a tiny push is still visibly not zero.
MIN_TINT = 0.15
_SCISSORS = "✂"
# The view draws intensities in this many steps (a step is under 1 % of the colour range, too
# small to see), so chips share colours and a new snapshot re-uses them.
_LEVELS = 128
_DIGIT = re.compile(r"\d")
_SWAPS = (("+", MINUS), ("▲", "▼"), ("raises", "lowers"), ("✓ right", "✗ wrong"))
_MIN_LEVEL = round(MIN_TINT * _LEVELS)
# Row shapes kept per shown row: its own, its other text (a card toggled back) and a few clip
# marks (ε dragged); past that the view keeps only the shown rows', so memory stays flat.
_KEPT_PER_ROW = 4
# Whitespace made visible: a space is ␣, a newline ↵ (and the flow breaks after it), a tab →,
# other control characters their Unicode "control picture" (U+2400 + code).
_VISIBLE = {ord(" "): SPACE_MARK, ord("\n"): NEWLINE_MARK, ord("\t"): "→", ord("\r"): "␍"}
_VISIBLE.update({code: chr(0x2400 + code) for code in range(32) if code not in _VISIBLE})
_VISIBLE[0x7F] = "␡"
_TEXT_CANDIDATES = ("#000000", "#ffffff")


# -- pure helpers (tested directly) -------------------------------------------------------------


def display_label(text: str) -> str:
    """The token's characters as its chip shows them: exact, with whitespace made visible."""
    return text.translate(_VISIBLE)


def _blend(base: str, target: str, amount: float) -> str:
    a = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(target[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = (round(x + (y - x) * amount) for x, y in zip(a, b, strict=True))
    return "#" + "".join(f"{c:02x}" for c in mixed)


def readable_text(background: str, theme: Theme) -> str:
    """The theme's text colour if it reads on ``background`` (4.5:1), else black or white."""
    if contrast_ratio(theme.text, background) >= 4.5:
        return theme.text
    return max(_TEXT_CANDIDATES, key=lambda colour: contrast_ratio(colour, background))


def _tint(amount: float, theme: Theme) -> tuple[str, str, str]:
    """(fill, text, outline) at a signed intensity ``amount`` in [−1, 1] (0: no push)."""
    if amount == 0:
        return theme.surface, theme.text, theme.border
    accent = theme.up if amount > 0 else theme.down
    fill = _blend(theme.surface, accent, abs(amount))
    return fill, readable_text(fill, theme), accent


def _level(push: float, max_abs: float) -> int:
    """A non-zero push as a signed colour level, 1…_LEVELS (never below the faintest tint).

    A share of the largest push, by division: ``_LEVELS / max_abs`` overflows to inf for a
    subnormal largest push (rewards of 1e-308 under RLOO), and a paint must never raise."""
    if max_abs == 0:
        level = _LEVELS
    else:
        level = min(_LEVELS, max(_MIN_LEVEL, round(abs(push) / max_abs * _LEVELS)))
    return level if push > 0 else -level


def chip_colours(token: TokenView, max_abs: float, theme: Theme) -> tuple[str, str, str]:
    """(fill, text, outline) of a token's chip, as hex strings.

    The fill goes from the surface toward ``theme.up`` (push > 0) or ``theme.down`` (push < 0) in
    proportion to |push| / ``max_abs`` (never fainter than :data:`MIN_TINT`, so any push shows);
    a push of 0 stays the surface with a thin border. The text stays readable on any tint.
    """
    push = token.push
    if not (push > 0 or push < 0):  # zero, or NaN: no signal
        return _tint(0.0, theme)
    intensity = 1.0 if max_abs <= 0 else min(1.0, abs(push) / max_abs)
    intensity = max(MIN_TINT, intensity)
    return _tint(intensity if push > 0 else -intensity, theme)


def _verdict(answer: AnswerRow) -> str:
    """The checker's verdict, or a run's logged reward where there is no verdict."""
    if answer.correct is None:
        return f"r = {number(answer.reward, 3)}"
    return "✓ right" if answer.correct else "✗ wrong"


def push_summary(total: float) -> tuple[str, int]:
    """The header text for an answer's total push, and its sign (+1, −1 or 0) for the colour."""
    text = signed(total, 3)
    if float(text.replace(MINUS, "-")) == 0.0:
        return "● 0 no push", 0
    if total > 0:
        return f"▲ {text} raises", 1
    return f"▼ {text} lowers", -1


def _flags(token: TokenView) -> list[str]:
    flags = []
    if token.dual_clipped:
        flags.append("dual-clipped")
    if token.clipped:
        flags.append("clipped (no gradient)")
    if token.is_answer:
        flags.append("final answer")
    return flags


def token_tooltip(token: TokenView, row: int, column: int) -> str:
    """What hovering a chip says: the exact text (quoted, escapes shown), its push and flags."""
    quoted = json.dumps(token.text, ensure_ascii=False)
    push = signed(token.push, 4) if token.push else "0"
    lines = [f"Answer #{row + 1}, token {column + 1}: {quoted}", f"push {push}"]
    flags = _flags(token)
    if flags:
        lines.append(", ".join(flags))
    return "\n".join(lines)


# -- prepared data ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Style:
    """Fonts, metrics and sizes for one (application font, theme) pair."""

    legend: QFont
    header: QFont
    header_bold: QFont
    chip: QFont
    mark: QFont
    legend_fm: QFontMetricsF
    header_fm: QFontMetricsF
    chip_fm: QFontMetricsF
    mark_fm: QFontMetricsF
    margin: int
    pad_x: int
    pad_y: int
    gap_x: int
    line_gap: int
    header_gap: int
    row_gap: int
    item_gap: int
    chip_h: int
    min_chip_w: int
    scissors_w: int
    radius: float
    stroke: float
    ring: float
    underline: float

    @staticmethod
    def build(theme: Theme) -> _Style:
        scale = theme.type_scale
        chip = scaled_font(scale)
        fm = QFontMetricsF(chip)
        em = fm.height()
        mark = scaled_font(scale * 0.8)
        legend = scaled_font(scale * 0.9)
        header = scaled_font(scale)
        header_bold = scaled_font(scale, bold=True)
        stroke = max(1.0, theme.stroke_width * 0.67)
        ring = max(2.5, theme.stroke_width * 1.6)
        underline = max(2.0, theme.stroke_width * 1.4)
        pad_y = max(2, round(em * 0.15))
        mark_fm = QFontMetricsF(mark)
        return _Style(
            legend=legend,
            header=header,
            header_bold=header_bold,
            chip=chip,
            mark=mark,
            legend_fm=QFontMetricsF(legend),
            header_fm=QFontMetricsF(header_bold),
            chip_fm=fm,
            mark_fm=mark_fm,
            margin=max(4, round(em * 0.5)),
            pad_x=max(3, round(em * 0.3)),
            pad_y=pad_y,
            # Between chips: room for the focus ring and a dual clip's outer outline.
            gap_x=max(round(ring) + 1, round(em * 0.18), round(2 * stroke + 4)),
            # Below each line of chips: room for the answer underline and the focus ring.
            line_gap=max(round(underline + ring) + 2, round(em * 0.35)),
            header_gap=max(round(2 * stroke + 3), round(em * 0.3)),
            row_gap=max(8, round(em * 0.9)),
            item_gap=round(em * 0.9),
            chip_h=round(em) + 2 * pad_y,
            min_chip_w=max(6, round(em * 0.5)),
            scissors_w=round(mark_fm.horizontalAdvance(_SCISSORS)) + 2,
            radius=max(2.0, em * 0.18),
            stroke=stroke,
            ring=ring,
            underline=underline,
        )


@dataclass(frozen=True, eq=False)
class _Shape:
    """What one row's chip positions depend on, token by token: the same for every click that
    only re-scores the answer (compared by identity: the view keeps one per text and marks)."""

    labels: tuple[str, ...]  # what each chip reads (whitespace made visible)
    widths: tuple[int, ...]  # natural width in px (before clamping to a narrow widget)
    rooms: tuple[int, ...]  # the part of each width that is not the label: padding and ✂
    breaks: tuple[bool, ...]  # a newline token: the flow continues on the next line


class _Chip(NamedTuple):
    """How one token's chip is painted."""

    fill: QColor
    text: QColor
    pen: QPen
    clipped: bool
    dual: bool
    answer: bool
    key: tuple = ()  # (text, level, clipped, dual, answer): what its drawing depends on


@dataclass(frozen=True)
class _Header:
    texts: tuple[tuple[str, bool, int], ...]  # (text, bold, sign of the colour: 1, −1, 0, 2=text)
    widths: tuple[int, ...]


@dataclass(frozen=True)
class _RowLayout:
    """One row's positions, with y measured from the row's top: a row whose shape, header and
    width did not change keeps its layout when another row changes or moves."""

    height: int  # header and chips
    header: tuple[tuple[int, int, int], ...]  # (x, baseline y, index into _Header.texts)
    line_tops: list[int]  # y of each line of chips
    line_starts: list[int]  # index of the first chip on each line
    chips: list[tuple[int, int, int, str]]  # (x, y, width, shown label)


@dataclass
class _Layout:
    width: int
    height: int
    legend: QRect
    row_tops: list[int]
    rows: list[_RowLayout]


class TokenRowsView(QWidget):
    """The group's answers as rows of token chips; emits ``token_requested(row, column)``."""

    token_requested = Signal(int, int)
    #: The selected chip's rect after a new snapshot, so a scroll area can keep it in view.
    selection_shown = Signal(QRect)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._snapshot: UpdateSnapshot | None = None
        self._style: _Style | None = None
        self._chips: list[list[_Chip | None]] = []  # per row and token, made when first painted
        self._shapes: list[_Shape] = []
        self._headers: list[_Header] = []
        self._row_shapes: dict[tuple, _Shape] = {}  # (texts, clip marks) → shape
        self._layouts: dict[int, _Layout] = {}
        self._row_layouts: dict[tuple, _RowLayout] = {}  # (shape, header widths, width) → layout
        self._geometry: tuple | None = None  # what chip positions depend on, last prepared
        self._chip_cache: dict[tuple, _Chip] = {}  # (text, level, flags) → chip: a click reuses
        self._max_abs = 0.0  # the shown snapshot's largest |push|: the full colour
        self._slot_widths: dict[tuple[str, bool], int] = {}  # header item shape → its width
        self._labels: dict[str, tuple[str, int, bool]] = {}  # text → (label, width, breaks)
        self._looks: dict[tuple[int, bool], tuple[QColor, QColor, QPen]] = {}
        self._colours: dict[str, QColor] = {}
        self._pens: dict[tuple[str, float], QPen] = {}
        self._chip_pixmaps = DRAWINGS  # ("token chip", key, label, width, ratio)
        self._selected: tuple[int, int] | None = None
        self._cursor: tuple[int, int] | None = None  # where the keyboard last asked to go
        # The tokens whose rings the last paint drew (solid, dashed): what a new selection clears.
        self._ringed: tuple[tuple[int, int] | None, tuple[int, int] | None] = (None, None)
        self.setObjectName("tokenRows")
        self.setAccessibleName("Answers as tokens")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    # -- public API ---------------------------------------------------------------------------

    def show_snapshot(self, snapshot: UpdateSnapshot) -> None:
        """Render ``snapshot``; a snapshot that differs only in the selection just repaints."""
        previous = self._snapshot
        self._snapshot = snapshot
        selected = (
            None if snapshot.selected is None else (snapshot.selected.row, snapshot.selected.column)
        )
        same_rows = (
            previous is not None
            and previous.rows == snapshot.rows
            and previous.max_abs_push == snapshot.max_abs_push
        )
        moved = selected != self._selected
        self._selected = selected
        self._cursor = selected
        if not same_rows and self._prepare():
            self.updateGeometry()
        self._describe()
        if same_rows:  # only the selection moved: repaint the rings it leaves and enters
            for token in {*self._ringed, selected}:
                self.update(self._ring_rect(token))
        else:
            self.update()
        if moved and selected is not None:
            rect = self.token_rect(*selected)
            if rect.isValid():
                self.selection_shown.emit(rect)

    def set_theme(self, theme: Theme) -> None:
        """Restyle for ``theme`` (fonts and strokes too: the projector's are larger)."""
        if theme == self._theme:
            return
        self._theme = theme
        self._style = None
        self._prepare()
        self.updateGeometry()
        self.update()

    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def snapshot(self) -> UpdateSnapshot | None:
        return self._snapshot

    def selected(self) -> tuple[int, int] | None:
        """(row, column) of the snapshot's selected token, or None."""
        return self._selected

    def token_rect(self, row: int, column: int) -> QRect:
        """Where the chip of token ``column`` of answer ``row`` is (widget coordinates).

        An invalid (null) QRect when there is no such token.
        """
        layout = self._layout(self.width())
        if not 0 <= row < len(layout.rows):
            return QRect()
        chips = layout.rows[row].chips
        if not 0 <= column < len(chips):
            return QRect()
        x, y, w, _label = chips[column]
        return QRect(x, layout.row_tops[row] + y, w, self._current_style().chip_h)

    def shown_label(self, row: int, column: int) -> str:
        """The text the chip draws (whitespace made visible, elided if wider than the view)."""
        return self._layout(self.width()).rows[row].chips[column][3]

    def line_of(self, row: int, column: int) -> int:
        """Which line of its row (0 = first) the chip sits on at the current width."""
        starts = self._layout(self.width()).rows[row].line_starts
        return bisect.bisect_right(starts, column) - 1

    def row_rect(self, row: int) -> QRect:
        """The band answer ``row`` occupies (header and chips), full widget width."""
        layout = self._layout(self.width())
        return QRect(0, layout.row_tops[row], self.width(), layout.rows[row].height)

    def token_at(self, point: QPoint) -> tuple[int, int] | None:
        """(row, column) of the chip under ``point``, or None."""
        layout = self._layout(self.width())
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
        return self._layout(width).height

    def sizeHint(self) -> QSize:
        # The layout at the width the widget has (cached), not at a fixed probe width: a hint
        # must not cost a second full layout on every click.
        width = self.width() if self.width() > 0 else 640
        return QSize(640, self._layout(width).height)

    def minimumSizeHint(self) -> QSize:
        style = self._current_style()
        return QSize(style.margin * 2 + style.min_chip_w * 4, style.chip_h + 2 * style.margin)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # an app-wide zoom: re-measure everything
            self._style = None
            self._prepare()
            self.updateGeometry()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            hit = self.token_at(event.pos())
            if hit is None or self._snapshot is None:
                QToolTip.hideText()
                event.ignore()
                return True
            row, column = hit
            token = self._snapshot.rows[row].tokens[column]
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
        target = self._key_target(event.key(), modifiers)
        if target is None:
            super().keyPressEvent(event)  # Page Up / Page Down … scroll the area as usual
            return
        event.accept()
        activate = event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if target != self._cursor or activate:  # at the edge a key does nothing
            self._cursor = target
            self.token_requested.emit(*target)

    def paintEvent(self, event: QPaintEvent) -> None:
        style = self._current_style()
        theme = self._theme
        layout = self._layout(self.width())
        exposed = event.rect()
        painter = QPainter(self)
        painter.fillRect(exposed, self._colour(theme.surface))
        if exposed.intersects(layout.legend):
            painter.setFont(style.legend)
            painter.setPen(self._colour(theme.muted))
            painter.drawText(
                layout.legend,
                int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap),
                LEGEND,
            )
        if not layout.rows or self._snapshot is None:
            if self._snapshot is None or not self._snapshot.rows:
                painter.setFont(style.header)
                painter.setPen(self._colour(theme.muted))
                top = layout.legend.bottom() + style.row_gap
                painter.drawText(
                    QPointF(style.margin, top + style.header_fm.ascent()), "No answers to show."
                )
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        first = max(0, bisect.bisect_right(layout.row_tops, exposed.top()) - 1)
        separator = QPen(self._colour(theme.border), 1.0)
        for index in range(first, len(layout.rows)):
            row, top = layout.rows[index], layout.row_tops[index]
            if top > exposed.bottom():
                break
            if top + row.height < exposed.top():
                continue
            if index > 0:
                y = top - style.row_gap / 2
                painter.setPen(separator)
                painter.drawLine(QPointF(style.margin, y), QPointF(self.width() - style.margin, y))
            self._paint_row(painter, style, index, row, top, exposed)
        self._paint_ring(painter, style, self._selected, exposed, dashed=False)
        self._ringed = (self._selected, None)
        if self.hasFocus():
            # Where the keys are: a dashed ring on a token asked for but not yet selected, or
            # on the first token before anything is, so a keyboard user sees focus arrive.
            cursor = self._cursor if self._cursor is not None else self._first_token()
            if cursor != self._selected:
                self._paint_ring(painter, style, cursor, exposed, dashed=True)
                self._ringed = (self._selected, cursor)
        painter.end()

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.update()

    # -- painting -----------------------------------------------------------------------------

    def _paint_row(
        self,
        painter: QPainter,
        style: _Style,
        index: int,
        row: _RowLayout,
        top: int,
        exposed: QRect,
    ) -> None:
        theme = self._theme
        header = self._headers[index]
        accents = {1: theme.up, -1: theme.down, 0: theme.neutral, 2: theme.text}
        for x, baseline, item in row.header:
            text, bold, sign = header.texts[item]
            painter.setFont(style.header_bold if bold else style.header)
            painter.setPen(self._colour(accents[sign]))
            painter.drawText(QPointF(x, top + baseline), text)

        chips = self._chips[index]
        chip_h = style.chip_h
        radius = style.radius
        focus = self._colour(theme.focus)
        underline = QPen(focus, style.underline)
        underline.setCapStyle(Qt.PenCapStyle.FlatCap)
        ratio = self.devicePixelRatioF()
        drawn = self._chip_pixmaps
        lines = row.line_tops
        first_line = max(0, bisect.bisect_right(lines, exposed.top() - top - chip_h) - 1)
        start = row.line_starts[first_line] if lines else 0
        bottom = exposed.bottom()
        for column in range(start, len(row.chips)):
            x, y, w, label = row.chips[column]
            y += top
            if y > bottom:
                break
            chip = chips[column] or self._chip(index, column)
            self._paint_chip(painter, chip, label, x, y, w, style, drawn, ratio)
            if chip.dual:  # a second, solid outline just outside: never over the label
                grow = style.stroke + 1.5
                painter.setPen(self._pen(theme.text, style.stroke))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(
                    QRectF(x, y, w, chip_h).adjusted(-grow, -grow, grow, grow),
                    radius + grow,
                    radius + grow,
                )
            if chip.answer:
                painter.setPen(underline)
                base = y + chip_h + style.underline / 2 + 1
                painter.drawLine(QPointF(x, base), QPointF(x + w, base))

    def _paint_chip(
        self,
        painter: QPainter,
        chip: _Chip,
        label: str,
        x: int,
        y: int,
        width: int,
        style: _Style,
        drawn: DrawingCache,
        ratio: float,
    ) -> None:
        """A chip's box, label and ✂ mark, blitted from its drawing (made once per look)."""

        def draw() -> QPixmap:
            pixmap = transparent_pixmap(width, style.chip_h, ratio)
            chip_painter = QPainter(pixmap)
            chip_painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            self._draw_chip(chip_painter, chip, label, width, style)
            chip_painter.end()
            return pixmap

        painter.drawPixmap(x, y, drawn.get(("token chip", chip.key, label, width, ratio), draw))

    @staticmethod
    def _draw_chip(painter: QPainter, chip: _Chip, label: str, width: int, style: _Style) -> None:
        """A chip's box, label and ✂ mark, with its top left corner at the painter's origin."""
        painter.setPen(chip.pen)
        painter.setBrush(chip.fill)
        inset = chip.pen.widthF() / 2
        box = QRectF(0, 0, width, style.chip_h).adjusted(inset, inset, -inset, -inset)
        painter.drawRoundedRect(box, style.radius, style.radius)
        painter.setPen(chip.text)
        painter.setFont(style.chip)
        painter.drawText(QPointF(style.pad_x, style.pad_y + style.chip_fm.ascent()), label)
        if chip.clipped or chip.dual:
            painter.setFont(style.mark)
            painter.drawText(
                QPointF(
                    width - style.pad_x - style.scissors_w + 1,
                    style.pad_y + style.mark_fm.ascent(),
                ),
                _SCISSORS,
            )

    def _paint_ring(
        self,
        painter: QPainter,
        style: _Style,
        token: tuple[int, int] | None,
        exposed: QRect,
        dashed: bool,
    ) -> None:
        """The focus ring around a chip: solid for the selection, dashed for the key cursor."""
        if token is None or not self._ring_rect(token).intersects(exposed):
            return
        rect = self.token_rect(*token)
        grow = style.ring / 2 + 1
        painter.setPen(self._pen(self._theme.focus, style.ring, dashed=dashed))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(
            QRectF(rect).adjusted(-grow, -grow, grow, grow),
            style.radius + grow,
            style.radius + grow,
        )

    # -- internals ----------------------------------------------------------------------------

    def _ring_rect(self, token: tuple[int, int] | None) -> QRect:
        """Where a ring around ``token``'s chip may paint (its antialiased edge included)."""
        if token is None:
            return QRect()
        rect = self.token_rect(*token)
        if not rect.isValid():
            return QRect()
        grow = math.ceil(self._current_style().ring) + 2
        return rect.adjusted(-grow, -grow, grow, grow)

    def _first_token(self) -> tuple[int, int] | None:
        snapshot = self._snapshot
        if snapshot is None:
            return None
        return next(((i, 0) for i, row in enumerate(snapshot.rows) if row.tokens), None)

    def _current_style(self) -> _Style:
        if self._style is None:
            self._style = _Style.build(self._theme)
            self._labels.clear()
            self._looks.clear()
            self._chip_cache.clear()
            self._row_shapes.clear()
            self._row_layouts.clear()
            self._chip_pixmaps.clear()
            self._slot_widths.clear()
            self._geometry = None  # new fonts: every position changes
        return self._style

    def _colour(self, value: str) -> QColor:
        colour = self._colours.get(value)
        if colour is None:
            colour = self._colours[value] = QColor(value)
        return colour

    def _pen(self, value: str, width: float, dashed: bool = False) -> QPen:
        key = (value, width if not dashed else -width)
        pen = self._pens.get(key)
        if pen is None:
            pen = QPen(self._colour(value), width)
            if dashed:
                pen.setStyle(Qt.PenStyle.DashLine)
            self._pens[key] = pen
        return pen

    def _prepare(self) -> bool:
        """Per (snapshot, theme, font): every row's shape and header; chips wait for a paint.

        Shapes are cached per (answer text, clip marks) and labels and widths per token text,
        so a new snapshot of the same answers (a click, a slider dragged) keeps every shape and
        every chip position; returns whether the positions changed.
        """
        snapshot = self._snapshot
        if snapshot is None:
            self._chips, self._shapes, self._headers = [], [], []
            return self._set_geometry(None)
        style = self._current_style()
        # Several problems' chips fit; past that start again, so a long lesson's memory stays
        # flat (benchmarks/bench_memory.py).
        if len(self._labels) > 10_000 or len(self._chip_cache) > 20_000:
            self._labels.clear()
            self._chip_cache.clear()
        self._max_abs = snapshot.max_abs_push
        self._chips = [[None] * len(answer.tokens) for answer in snapshot.rows]
        self._shapes = [self._shape(answer.tokens, style) for answer in snapshot.rows]
        if len(self._row_shapes) > _KEPT_PER_ROW * len(self._shapes) + 8:
            # Keep the shown rows' shapes, and their unmarked ones the next marks start from
            # (with their layouts); the others' answers are gone.
            shown = {id(shape) for shape in self._shapes}
            texts = {answer.tokens.texts for answer in snapshot.rows}
            self._row_shapes = {
                k: v
                for k, v in self._row_shapes.items()
                if id(v) in shown or (k[0] in texts and not any(k[1]))
            }
            self._row_layouts = {k: v for k, v in self._row_layouts.items() if id(k[0]) in shown}
        self._headers = [self._header(answer, style) for answer in snapshot.rows]
        geometry = tuple(
            (shape, header.widths)
            for shape, header in zip(self._shapes, self._headers, strict=True)
        )
        return self._set_geometry(geometry)

    def _shape(self, tokens: TokenRow, style: _Style) -> _Shape:
        """The row's labels and widths: looked up by its texts and marks, made on a miss.

        A ✂ only widens its chip, so a new set of marks (clipping moves with ε and the inner
        steps) starts from the row's unmarked shape instead of measuring every token again.
        """
        marks = tuple(map(operator.or_, tokens.clipped, tokens.dual_clipped))
        key = (tokens.texts, marks)
        shape = self._row_shapes.get(key)
        if shape is not None:
            return shape
        unmarked = (False,) * len(marks)
        plain = self._row_shapes.get((tokens.texts, unmarked))
        if plain is None:
            plain = self._row_shapes[(tokens.texts, unmarked)] = self._plain_shape(
                tokens.texts, style
            )
        if marks == unmarked:
            return plain
        extra, scissors = 2 * style.pad_x, style.scissors_w
        shape = self._row_shapes[key] = _Shape(
            plain.labels,
            tuple(w + scissors if m else w for w, m in zip(plain.widths, marks, strict=True)),
            tuple(extra + scissors if m else extra for m in marks),
            plain.breaks,
        )
        return shape

    def _plain_shape(self, texts: tuple[str, ...], style: _Style) -> _Shape:
        """The shape of a row of ``texts`` with no ✂ marks; labels and widths cached per text."""
        labels = self._labels
        fm = style.chip_fm
        extra = 2 * style.pad_x
        minimum = style.min_chip_w
        entries = []
        for text in texts:
            entry = labels.get(text)
            if entry is None:
                label = display_label(text)
                entry = labels[text] = (
                    label,
                    max(minimum, round(fm.horizontalAdvance(label)) + extra),
                    "\n" in text,
                )
            entries.append(entry)
        if not entries:
            return _Shape((), (), (), ())
        shown, widths, breaks = zip(*entries, strict=True)
        return _Shape(shown, widths, (extra,) * len(texts), breaks)

    def _chip(self, index: int, column: int) -> _Chip:
        """The chip of token ``column`` of row ``index``, made (and kept) when first painted.

        Chips are cached per (text, level, marks), so a click costs one look-up per chip on
        screen, not per token of the group.
        """
        assert self._snapshot is not None  # rows exist only for a snapshot
        tokens = self._snapshot.rows[index].tokens
        push = tokens.pushes[column]
        level = _level(push, self._max_abs) if push > 0 or push < 0 else 0  # NaN: no signal
        clipped, dual = tokens.clipped[column], tokens.dual_clipped[column]
        key = (tokens.texts[column], level, clipped, dual, tokens.is_answer[column])
        chip = self._chip_cache.get(key)
        if chip is None:
            marked = clipped or dual
            look = self._looks.get((level, marked))
            if look is None:
                look = self._looks[(level, marked)] = self._look(
                    level, marked, self._current_style()
                )
            chip = self._chip_cache[key] = _Chip(*look, clipped, dual, key[4], key)
        self._chips[index][column] = chip
        return chip

    def _set_geometry(self, geometry: tuple | None) -> bool:
        """Forget the chip positions if what they depend on changed; whether it did."""
        if geometry is not None and geometry == self._geometry and self._layouts:
            return False
        self._geometry = geometry
        self._layouts.clear()
        return True

    def _look(self, level: int, marked: bool, style: _Style) -> tuple[QColor, QColor, QPen]:
        """Fill, text colour and outline pen of a chip at a signed intensity ``level``."""
        theme = self._theme
        fill, text, outline = _tint(level / _LEVELS, theme)
        if marked:
            pen = self._pen(theme.text, style.stroke, dashed=True)
        elif level == 0:
            pen = self._pen(outline, 1.0)
        else:
            pen = self._pen(outline, style.stroke * 0.75)
        return self._colour(fill), self._colour(text), pen

    def _header(self, answer: AnswerRow, style: _Style) -> _Header:
        count = len(answer.tokens)
        push_text, sign = push_summary(answer.total_push)
        texts = (
            (f"#{answer.index + 1}", True, 2),
            (_verdict(answer), False, 2),
            (f"A = {signed(answer.advantage, 2)}", False, 2),
            (f"{count} token" if count == 1 else f"{count} tokens", False, 2),
            (push_text, True, sign),
        )
        return _Header(texts, tuple(self._slot_width(t, bold, style) for t, bold, _ in texts))

    def _slot_width(self, text: str, bold: bool, style: _Style) -> int:
        """The width of a header item: wide enough for any value with as many digits and either
        sign, so a click that changes A or the push does not move a single chip."""
        key = (_DIGIT.sub("0", text), bold)
        width = self._slot_widths.get(key)
        if width is None:
            metrics = QFontMetricsF(style.header_bold if bold else style.header)
            variants = {key[0]}
            for one, other in _SWAPS:
                variants |= {v.replace(one, other) for v in variants}
                variants |= {v.replace(other, one) for v in variants}
            width = self._slot_widths[key] = max(
                round(metrics.horizontalAdvance(v)) + 1 for v in variants
            )
        return width

    def _layout(self, width: int) -> _Layout:
        """Chip positions at ``width`` px, once per (snapshot, theme, width); each row's are
        kept per (shape, header, width), so a click that changes one answer flows one row."""
        layout = self._layouts.get(width)
        if layout is not None:
            return layout
        style = self._current_style()
        margin = style.margin
        left, right = margin, max(margin + style.min_chip_w, width - margin)
        available = right - left
        legend = style.legend_fm.boundingRect(
            QRectF(left, margin, available, 1e6),
            int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap),
            LEGEND,
        )
        legend_rect = QRect(left, margin, available, int(legend.height() + 0.999))
        y = legend_rect.bottom() + 1 + style.row_gap
        rows: list[_RowLayout] = []
        row_tops: list[int] = []
        for shape, header in zip(self._shapes, self._headers, strict=True):
            key = (shape, header.widths, width)
            row = self._row_layouts.get(key)
            if row is None:
                row = self._row_layouts[key] = self._row_layout(shape, header, left, right, style)
            rows.append(row)
            row_tops.append(y)
            y += row.height + style.row_gap
        if not rows:
            y += style.header_fm.lineSpacing() + style.row_gap  # room for "No answers to show."
        height = int(y - style.row_gap + margin) if rows else int(y)
        layout = _Layout(width, height, legend_rect, row_tops, rows)
        if len(self._layouts) >= 4:  # the current width and a few heightForWidth probes
            gone = next(iter(self._layouts))
            del self._layouts[gone]
            self._row_layouts = {k: v for k, v in self._row_layouts.items() if k[2] != gone}
        self._layouts[width] = layout
        return layout

    @staticmethod
    def _row_layout(
        shape: _Shape, header: _Header, left: int, right: int, style: _Style
    ) -> _RowLayout:
        """One row's header and chips flowed between ``left`` and ``right``, from y = 0."""
        available = right - left
        line_step = style.chip_h + style.line_gap
        gap_x = style.gap_x
        header_h = round(style.header_fm.lineSpacing())
        header_ascent = round(style.header_fm.ascent())
        fm = style.chip_fm
        y = 0
        # Header items flow like words: they wrap as units on a narrow view.
        placed: list[tuple[int, int, int]] = []
        x = left
        for item, item_w in enumerate(header.widths):
            if x > left and x + item_w > right:
                x = left
                y += header_h
            placed.append((x, y + header_ascent, item))
            x += item_w + style.item_gap
        y += header_h + style.header_gap
        line_tops = [y] if shape.widths else []
        line_starts = [0] if shape.widths else []
        placed_chips: list[tuple[int, int, int, str]] = []
        x = left
        broke = False
        for column, w in enumerate(shape.widths):
            if (broke or x + w > right) and x > left:
                x = left
                y += line_step
                line_tops.append(y)
                line_starts.append(column)
            label = shape.labels[column]
            if w > available:  # one token wider than the view: elide it to fit
                w = available
                label = fm.elidedText(label, Qt.TextElideMode.ElideRight, w - shape.rooms[column])
            placed_chips.append((x, y, w, label))
            x += w + gap_x
            broke = shape.breaks[column]
        if shape.widths:
            y += line_step
        return _RowLayout(y, tuple(placed), line_tops, line_starts, placed_chips)

    def _key_target(self, key: int, modifiers: Qt.KeyboardModifier) -> tuple[int, int] | None:
        """Where a navigation key moves the selection, or None when it is not one of ours."""
        snapshot = self._snapshot
        if snapshot is None:
            return None
        lengths = [len(row.tokens) for row in snapshot.rows]
        filled = [i for i, n in enumerate(lengths) if n]
        if not filled:
            return None
        ctrl = modifiers == Qt.KeyboardModifier.ControlModifier
        if modifiers not in (Qt.KeyboardModifier.NoModifier,) and not (
            ctrl and key in (Qt.Key.Key_Home, Qt.Key.Key_End)
        ):
            return None
        keys = (
            Qt.Key.Key_Left,
            Qt.Key.Key_Right,
            Qt.Key.Key_Up,
            Qt.Key.Key_Down,
            Qt.Key.Key_Home,
            Qt.Key.Key_End,
            Qt.Key.Key_Space,
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
        )
        if key not in keys:
            return None
        cursor = self._cursor
        if cursor is None or not (0 <= cursor[0] < len(lengths) and lengths[cursor[0]]):
            return filled[0], 0  # the first key press selects the first token
        row, column = cursor[0], min(cursor[1], lengths[cursor[0]] - 1)
        if ctrl:
            return (
                (filled[0], 0) if key == Qt.Key.Key_Home else (filled[-1], lengths[filled[-1]] - 1)
            )
        if key == Qt.Key.Key_Left:
            return row, max(0, column - 1)
        if key == Qt.Key.Key_Right:
            return row, min(lengths[row] - 1, column + 1)
        if key == Qt.Key.Key_Home:
            return row, 0
        if key == Qt.Key.Key_End:
            return row, lengths[row] - 1
        if key == Qt.Key.Key_Up:
            before = [i for i in filled if i < row]
            target = before[-1] if before else row
            return target, min(column, lengths[target] - 1)
        if key == Qt.Key.Key_Down:
            after = [i for i in filled if i > row]
            target = after[0] if after else row
            return target, min(column, lengths[target] - 1)
        return row, column  # Space / Enter: ask for the token at the cursor

    def _describe(self) -> None:
        snapshot = self._snapshot
        if snapshot is None:
            return
        parts = [f"{len(snapshot.rows)} answers, {snapshot.token_count} tokens"]
        if self._selected is not None:
            row, column = self._selected
            parts.append(f"selected: answer {row + 1}, token {column + 1}")
        parts.append("arrow keys move between tokens")
        self.setAccessibleDescription("; ".join(parts))


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
