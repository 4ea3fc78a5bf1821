"""The token rows' painter: what the rows look like, and everything kept to draw them fast.

The work is split by what invalidates it: per (answer text, clip marks, theme, font) each token's
label and width, so a click that only re-scores keeps every position; per width each row's chip
positions; per snapshot each chip's colours, looked up when it is first painted; each chip's
drawing in the shared budget of ``render_cache``. A paint draws only the rows the exposed rect
touches. With ``render_cache.CACHING`` off nothing is carried from one snapshot to the next and
every chip is drawn afresh (the positions of the shown snapshot are still made once per width).
"""

from __future__ import annotations

import bisect
import math

import numpy as np
from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap, QTransform

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.update.update_snapshot import AnswerRow, TokenRow, UpdateSnapshot
from grpo_desktop.views.common import render_cache
from grpo_desktop.views.common.render_cache import DRAWINGS, DrawingCache, transparent_pixmap
from grpo_desktop.views.update.chip_looks import Chip, ChipLooks, draw_chip
from grpo_desktop.views.update.token_colours import level_array, levels
from grpo_desktop.views.update.token_layout import (
    LEGEND,
    RowHeader,
    RowLayout,
    RowShape,
    RowsLayout,
    TokenStyle,
    flow_row,
    legend_rect,
    marked_shape,
    plain_shape,
    row_header,
    slot_key,
    slot_width,
)
from grpo_desktop.views.update.token_lines import LineDrawings, answer_columns, line_key

__all__ = ["Chip", "TokenRowsPainter", "draw_chip"]

# Row shapes kept per shown row: its own, its other text (a card toggled back) and a few clip
# marks (ε dragged); past that the painter keeps only the shown rows', so memory stays flat.
_KEPT_PER_ROW = 4
_CHIP = "token chip"  # the kind of drawing in render_cache.DRAWINGS
_SEEN_KEPT = 256  # shapes looked up by their texts' identity, at most
_HEADERS_KEPT = 1024  # rows' headers kept by what they say, at most


class TokenRowsPainter:
    """Lays out and paints one snapshot's rows for one theme, keeping what a click leaves alone."""

    def __init__(self, theme: Theme) -> None:
        self.theme = theme
        self.snapshot: UpdateSnapshot | None = None
        self._style: TokenStyle | None = None
        self._chips: list[dict[int, Chip]] = []  # per row, by token: made when first painted
        # Per row of the snapshot, made when first painted: its chips' colour levels, and its
        # outlined or underlined chips as (column, dual, answer), by column.
        self._levels: list[np.ndarray | None] = []
        self._decorated: list[list[tuple[int, bool, bool]] | None] = []
        self.lines = LineDrawings()  # whole lines of chips, blitted at whole pixels
        self._shapes: list[RowShape] = []
        self.headers: list[RowHeader] = []
        # (texts, clip marks as bytes, b"" for none) → shape
        self.row_shapes: dict[tuple[tuple[str, ...], bytes], RowShape] = {}
        # (id of the texts, marks) → (the texts, their shape): row_shapes by identity
        self._seen_shapes: dict[tuple[int, bytes], tuple[tuple[str, ...], RowShape]] = {}
        self._layouts: dict[int, RowsLayout] = {}
        self.row_layouts: dict[tuple, RowLayout] = {}  # (shape, header widths, width) → layout
        self._geometry: tuple | None = None  # what chip positions depend on, last prepared
        self._max_abs = 0.0  # the shown snapshot's largest |push|: the full colour
        self._slot_widths: dict[tuple[str, bool], int] = {}  # header item shape → its width
        # (index, verdict, reward, A, tokens, total push) → the row's header: a group's states
        # recur, and each header's texts are formatted and measured anew otherwise.
        self._headers: dict[tuple, RowHeader] = {}
        self._legends: dict[int, QRect] = {}  # width → where the legend goes
        self._labels: dict[str, tuple[str, int, bool]] = {}  # text → (label, width, breaks)
        self.looks = ChipLooks()  # colours, pens and chips by what they show
        self.drawings: DrawingCache = DRAWINGS  # each chip's drawing: (kind, key, label, w, ratio)

    # -- style and caches ---------------------------------------------------------------------

    def style(self) -> TokenStyle:
        """Fonts and sizes for the theme (and the application font): made once, and a new one
        forgets everything measured with the old."""
        if self._style is None:
            self._style = TokenStyle.build(self.theme)
            self._forget()
        return self._style

    def restyle(self, theme: Theme | None = None) -> None:
        """A new theme, or a new application font (``theme`` None): measure everything again."""
        if theme is not None:
            self.theme = theme
        self._style = None

    def _forget(self) -> None:
        self._labels.clear()
        self.looks.forget()
        self.row_shapes.clear()
        self._seen_shapes.clear()
        self.row_layouts.clear()
        self.drawings.clear(_CHIP)
        self.lines.clear()
        self._slot_widths.clear()
        self._headers.clear()
        self._legends.clear()
        self._geometry = None  # new fonts: every position changes

    def colour(self, value: str) -> QColor:
        return self.looks.colour(value)

    def pen(self, value: str, width: float, dashed: bool = False) -> QPen:
        return self.looks.pen(value, width, dashed)

    # -- a new snapshot -----------------------------------------------------------------------

    def prepare(self, snapshot: UpdateSnapshot | None) -> bool:
        """Per (snapshot, theme, font): every row's shape and header; chips wait for a paint.

        Shapes are cached per (answer text, clip marks) and labels and widths per token text,
        so a new snapshot of the same answers (a click, a slider dragged) keeps every shape and
        every chip position; returns whether the positions changed. While the snapshot is
        pending (step 0's pushes, the inner steps still running) an answer's row keeps the
        shape it had.
        """
        previous, self.snapshot = self.snapshot, snapshot
        if snapshot is None:
            self._chips, self._shapes, self.headers = [], [], []
            self._levels, self._decorated = [], []
            return self._set_geometry(None)
        restyled = self._style is None  # new fonts: no shape made before fits
        style = self.style()
        if not render_cache.CACHING:
            self._forget()
        # Several problems' chips fit; past that start again, so a long lesson's memory stays
        # flat (benchmarks/bench_memory.py).
        if len(self._labels) > 10_000 or self.looks.chips_kept() > 20_000:
            self._labels.clear()
            self.looks.forget_chips()
        self._max_abs = snapshot.max_abs_push
        self._chips = [{} for _ in snapshot.rows]
        self._levels = [None] * len(snapshot.rows)
        self._decorated = [None] * len(snapshot.rows)
        shapes = [self._shape(answer.tokens, style) for answer in snapshot.rows]
        kept = not restyled and previous is not None and len(previous.rows) == len(shapes)
        if snapshot.pending and kept:
            # Step 0's pushes while the inner steps run: its marks are not the step's, so a row
            # of the same answer keeps its chips where they are (a ✂'s room stays, undrawn)
            # and moves once, when the finished step brings its marks: no jump and back.
            shapes = [
                had
                if before.tokens.texts is answer.tokens.texts
                or before.tokens.texts == answer.tokens.texts
                else shape
                for had, shape, before, answer in zip(
                    self._shapes, shapes, previous.rows, snapshot.rows, strict=True
                )
            ]
        self._shapes = shapes
        if len(self.row_shapes) > _KEPT_PER_ROW * len(self._shapes) + 8:
            # Keep the shown rows' shapes, their unmarked ones the next marks start from (with
            # their layouts), and the latest unmarked shapes of as many answers again (a card
            # toggled back shows its other text: measuring 2,000 labels again took 1.5 ms); the
            # others' answers are gone.
            shown = {id(shape) for shape in self._shapes}
            texts = {answer.tokens.texts for answer in snapshot.rows}
            others = [k for k in self.row_shapes if not k[1] and k[0] not in texts]
            recent = set(others[-len(self._shapes) :]) if self._shapes else set()
            self.row_shapes = {
                k: v
                for k, v in self.row_shapes.items()
                if id(v) in shown or (not k[1] and (k[0] in texts or k in recent))
            }
            kept = {id(shape) for shape in self.row_shapes.values()} | shown
            self.row_layouts = {k: v for k, v in self.row_layouts.items() if id(k[0]) in kept}
            self._seen_shapes = {k: v for k, v in self._seen_shapes.items() if id(v[1]) in kept}
        self.headers = [self._header(answer, style) for answer in snapshot.rows]
        geometry = tuple(
            (shape, header.widths) for shape, header in zip(self._shapes, self.headers, strict=True)
        )
        return self._set_geometry(geometry)

    def warm_row(self, index: int, texts: tuple[str, ...], width: int) -> bool:
        """Row ``index`` showing ``texts`` instead (the text a toggle of its card brings), with
        its header as it is now, shaped and flowed at ``width`` and kept: the toggle then finds
        its row's chips in place (measuring and flowing 2,000 chips took 2 ms of its frame).
        Whether there was anything to do."""
        if self.snapshot is None or not 0 <= index < len(self.headers) or width <= 0:
            return False
        style = self.style()
        unmarked = (texts, b"")
        shape = self.row_shapes.get(unmarked)
        made = shape is None
        if shape is None:
            shape = self.row_shapes[unmarked] = plain_shape(texts, style, self._labels)
        header = self.headers[index]
        key = (shape, header.widths, width)
        if key in self.row_layouts:
            return made
        margin = style.margin
        right = max(margin + style.min_chip_w, width - margin)
        self.row_layouts[key] = flow_row(shape, header, margin, right, style)
        return True

    def _shape(self, tokens: TokenRow, style: TokenStyle) -> RowShape:
        """The row's labels and widths: looked up by its texts and marks, made on a miss.

        A ✂ only widens its chip, so a new set of marks (clipping moves with ε and the inner
        steps) starts from the row's unmarked shape instead of measuring every token again.
        """
        marks = tokens.marks  # the snapshot's bytes: no pass over the row's columns here
        texts = tokens.texts
        # First by the texts' identity: a tuple's hash is not kept, and hashing 16 tuples of
        # 2,000 texts for the look-up below took 0.3 ms of a click (the builder hands the same
        # tuple for the same answer, so this nearly always hits).
        seen = self._seen_shapes.get((id(texts), marks))
        if seen is not None and seen[0] is texts:
            return seen[1]
        shape = self._shape_of(texts, marks, style)
        if len(self._seen_shapes) >= _SEEN_KEPT:  # equal texts in new tuples: start again
            self._seen_shapes.clear()
        self._seen_shapes[(id(texts), marks)] = (texts, shape)
        return shape

    def _shape_of(self, texts: tuple[str, ...], marks: bytes, style: TokenStyle) -> RowShape:
        key = (texts, marks)
        shape = self.row_shapes.get(key)
        if shape is not None:
            return shape
        unmarked = (texts, b"")
        plain = self.row_shapes.get(unmarked)
        if plain is None:
            plain = self.row_shapes[unmarked] = plain_shape(texts, style, self._labels)
        if not marks:
            return plain
        flags = np.frombuffer(marks, dtype=bool)
        shape = self.row_shapes[key] = marked_shape(plain, flags, style)
        return shape

    def _header(self, answer: AnswerRow, style: TokenStyle) -> RowHeader:
        """``answer``'s header, kept by what its texts say (``header_texts`` reads these)."""
        key = (
            answer.index,
            answer.correct,
            answer.reward,
            answer.advantage,
            len(answer.tokens),
            answer.total_push,
        )
        header = self._headers.get(key)
        if header is None:
            if len(self._headers) >= _HEADERS_KEPT:
                self._headers.clear()
            header = self._headers[key] = row_header(answer, style, self._slot_width)
        return header

    def _slot_width(self, text: str, bold: bool) -> int:
        key = slot_key(text, bold)
        width = self._slot_widths.get(key)
        if width is None:
            width = self._slot_widths[key] = slot_width(text, bold, self.style())
        return width

    def _set_geometry(self, geometry: tuple | None) -> bool:
        """Forget the chip positions if what they depend on changed; whether it did."""
        if geometry is not None and geometry == self._geometry and self._layouts:
            return False
        self._geometry = geometry
        self._layouts.clear()
        return True

    # -- positions ----------------------------------------------------------------------------

    def layout(self, width: int) -> RowsLayout:
        """Chip positions at ``width`` px, once per (snapshot, theme, width); each row's are
        kept per (shape, header, width), so a click that changes one answer flows one row."""
        layout = self._layouts.get(width)
        if layout is not None:
            return layout
        style = self.style()
        margin = style.margin
        left, right = margin, max(margin + style.min_chip_w, width - margin)
        legend = self._legends.get(width)
        if legend is None:  # word-wrapped text measured: once per width and style
            if len(self._legends) >= 8:
                self._legends.clear()
            legend = self._legends[width] = legend_rect(style, width)
        y = legend.bottom() + 1 + style.row_gap
        rows: list[RowLayout] = []
        row_tops: list[int] = []
        for shape, header in zip(self._shapes, self.headers, strict=True):
            key = (shape, header.widths, width)
            row = self.row_layouts.get(key)
            if row is None:
                row = self.row_layouts[key] = flow_row(shape, header, left, right, style)
            rows.append(row)
            row_tops.append(y)
            y += row.height + style.row_gap
        if not rows:
            y += style.header_fm.lineSpacing() + style.row_gap  # room for "No answers to show."
        height = int(y - style.row_gap + margin) if rows else int(y)
        layout = RowsLayout(width, height, legend, row_tops, rows)
        if len(self._layouts) >= 4:  # the current width and a few heightForWidth probes
            gone = next(iter(self._layouts))
            del self._layouts[gone]
            self.row_layouts = {k: v for k, v in self.row_layouts.items() if k[2] != gone}
        self._layouts[width] = layout
        return layout

    def token_rect(self, row: int, column: int, width: int) -> QRect:
        """Where a chip is at ``width``; an invalid QRect when there is no such token."""
        layout = self.layout(width)
        if not 0 <= row < len(layout.rows):
            return QRect()
        chips = layout.rows[row].chips
        if not 0 <= column < len(chips):
            return QRect()
        x, y, w, _label = chips[column]
        return QRect(x, layout.row_tops[row] + y, w, self.style().chip_h)

    def ring_rect(self, token: tuple[int, int] | None, width: int) -> QRect:
        """Where a ring around ``token``'s chip may paint (its antialiased edge included)."""
        if token is None:
            return QRect()
        rect = self.token_rect(*token, width)
        if not rect.isValid():
            return QRect()
        grow = math.ceil(self.style().ring) + 2
        return rect.adjusted(-grow, -grow, grow, grow)

    # -- painting -----------------------------------------------------------------------------

    def paint(
        self,
        painter: QPainter,
        exposed: QRect,
        width: int,
        ratio: float,
        selected: tuple[int, int] | None,
        cursor: tuple[int, int] | None,
    ) -> bool:
        """The legend, the exposed rows, a solid ring on ``selected`` and a dashed one on
        ``cursor`` (the keys' place; None: no dashed ring); whether there were rows to paint."""
        style = self.style()
        theme = self.theme
        layout = self.layout(width)
        self.lines.exposed(exposed.width(), exposed.height())
        painter.fillRect(exposed, self.colour(theme.surface))
        if exposed.intersects(layout.legend):
            painter.setFont(style.legend)
            painter.setPen(self.colour(theme.muted))
            painter.drawText(
                layout.legend,
                int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap),
                LEGEND,
            )
        snapshot = self.snapshot
        if not layout.rows or snapshot is None:
            if snapshot is None or not snapshot.rows:
                painter.setFont(style.header)
                painter.setPen(self.colour(theme.muted))
                top = layout.legend.bottom() + style.row_gap
                painter.drawText(
                    QPointF(style.margin, top + style.header_fm.ascent()), "No answers to show."
                )
            return False
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        first = max(0, bisect.bisect_right(layout.row_tops, exposed.top()) - 1)
        separator = QPen(self.colour(theme.border), 1.0)
        for index in range(first, len(layout.rows)):
            row, top = layout.rows[index], layout.row_tops[index]
            if top > exposed.bottom():
                break
            if top + row.height < exposed.top():
                continue
            if index > 0:
                y = top - style.row_gap / 2
                painter.setPen(separator)
                painter.drawLine(QPointF(style.margin, y), QPointF(width - style.margin, y))
            self._paint_row(painter, style, index, row, top, exposed, ratio)
        self._paint_ring(painter, style, selected, exposed, width, dashed=False)
        if cursor is not None:
            self._paint_ring(painter, style, cursor, exposed, width, dashed=True)
        return True

    def _paint_row(
        self,
        painter: QPainter,
        style: TokenStyle,
        index: int,
        row: RowLayout,
        top: int,
        exposed: QRect,
        ratio: float,
    ) -> None:
        theme = self.theme
        header = self.headers[index]
        accents = {1: theme.up, -1: theme.down, 0: theme.neutral, 2: theme.text}
        for x, baseline, item in row.header:
            text, bold, sign = header.texts[item]
            painter.setFont(style.header_bold if bold else style.header)
            painter.setPen(self.colour(accents[sign]))
            painter.drawText(QPointF(x, top + baseline), text)

        chip_h = style.chip_h
        focus = self.colour(theme.focus)
        underline = QPen(focus, style.underline)
        underline.setCapStyle(Qt.PenCapStyle.FlatCap)
        lines = row.line_tops
        first_line = max(0, bisect.bisect_right(lines, exposed.top() - top - chip_h) - 1)
        start = row.line_starts[first_line] if lines else 0
        bottom = exposed.bottom()
        # Only the exposed lines' chips, their colour levels computed together (once a
        # snapshot: a chip is kept once made).
        last_line = bisect.bisect_right(lines, bottom - top)
        stop = row.line_starts[last_line] if last_line < len(lines) else len(row.chips)
        # The drawings are blitted at whole pixels, where antialiasing changes no pixel but
        # costs Qt's rasteriser five times the blit (6 against 1.3 µs a chip, 270 chips a
        # click); the outlines and underlines are drawn antialiased after them (neither
        # reaches a neighbouring chip: gap_x and line_gap leave them room), so the pixels are
        # the same as drawing each chip's after it. A fractional or scaling transform keeps
        # antialiasing on throughout, as before.
        transform = painter.deviceTransform()
        whole_pixels = (
            ratio == 1.0
            and transform.type().value <= QTransform.TransformationType.TxTranslate.value
            and transform.dx().is_integer()
            and transform.dy().is_integer()
        )
        if not whole_pixels or not render_cache.CACHING:
            self._paint_chips(painter, style, index, row, top, start, stop, ratio, whole_pixels)
            return
        # Whole lines blitted, each drawn once per look (token_lines.py), then the outlines
        # and underlines antialiased over them, as the chip by chip blits are followed.
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        steps = self._row_levels(index)
        for line in range(first_line, last_line):
            x, pixmap = self._line(index, row, line, steps, style)
            painter.drawPixmap(x, top + lines[line], pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        row_chips = row.chips
        for column, dual, answer in self._decorations(index, start, stop):
            x, y, w, _label = row_chips[column]
            self._decorate(painter, style, dual, answer, x, top + y, w, underline)

    def _paint_chips(
        self,
        painter: QPainter,
        style: TokenStyle,
        index: int,
        row: RowLayout,
        top: int,
        start: int,
        stop: int,
        ratio: float,
        whole_pixels: bool,
    ) -> None:
        """Chips ``start``…``stop`` of row ``index`` blitted one by one (caching off, or not
        at whole pixels), each made and kept when first painted in a snapshot."""
        chips = self._chips[index]
        underline = QPen(self.colour(self.theme.focus), style.underline)
        underline.setCapStyle(Qt.PenCapStyle.FlatCap)
        steps = None
        if whole_pixels:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        decorated: list[tuple[Chip, int, int, int]] = []
        row_chips = row.chips
        for column in range(start, stop):
            x, y, w, label = row_chips[column]
            y += top
            chip = chips.get(column)
            if chip is None:
                if steps is None:
                    assert self.snapshot is not None  # rows exist only for a snapshot
                    pushes = self.snapshot.rows[index].tokens.push_array
                    steps = levels(pushes[start:stop], self._max_abs)
                chip = self._chip(index, column, steps[column - start])
            self.paint_chip(painter, chip, label, x, y, w, style, ratio)
            if chip.dual or chip.answer:
                if whole_pixels:
                    decorated.append((chip, x, y, w))
                else:
                    self._decorate(painter, style, chip.dual, chip.answer, x, y, w, underline)
        if whole_pixels:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            for chip, x, y, w in decorated:
                self._decorate(painter, style, chip.dual, chip.answer, x, y, w, underline)

    def _decorate(
        self,
        painter: QPainter,
        style: TokenStyle,
        dual: bool,
        answer: bool,
        x: int,
        y: int,
        w: int,
        underline: QPen,
    ) -> None:
        """A dual-clipped chip's second outline and a final-answer chip's underline."""
        if dual:  # a second, solid outline just outside: never over the label
            grow = style.stroke + 1.5
            radius = style.radius
            painter.setPen(self.pen(self.theme.text, style.stroke))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(
                QRectF(x, y, w, style.chip_h).adjusted(-grow, -grow, grow, grow),
                radius + grow,
                radius + grow,
            )
        if answer:
            painter.setPen(underline)
            base = y + style.chip_h + style.underline / 2 + 1
            painter.drawLine(QPointF(x, base), QPointF(x + w, base))

    def paint_chip(
        self,
        painter: QPainter,
        chip: Chip,
        label: str,
        x: int,
        y: int,
        width: int,
        style: TokenStyle,
        ratio: float,
    ) -> None:
        """A chip's box, label and ✂ mark, blitted from its drawing (made once per look)."""
        key = (_CHIP, chip.key, label, width, ratio)
        pixmaps = self.drawings.pixmaps
        pixmap = pixmaps.pop(key, None)  # DrawingCache.get's hit, without making a closure
        if pixmap is not None:
            pixmaps[key] = pixmap  # the most recently used now
        else:

            def draw() -> QPixmap:
                pixmap = transparent_pixmap(width, style.chip_h, ratio)
                chip_painter = QPainter(pixmap)
                chip_painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                draw_chip(chip_painter, chip, label, width, style)
                chip_painter.end()
                return pixmap

            pixmap = self.drawings.get(key, draw)
        painter.drawPixmap(x, y, pixmap)

    def _row_levels(self, index: int) -> np.ndarray:
        """Row ``index``'s chips' colour levels (once a snapshot)."""
        found = self._levels[index]
        if found is None:
            assert self.snapshot is not None  # rows exist only for a snapshot
            pushes = self.snapshot.rows[index].tokens.push_array
            found = self._levels[index] = level_array(pushes, self._max_abs)
        return found

    def _line(
        self, index: int, row: RowLayout, line: int, steps: np.ndarray, style: TokenStyle
    ) -> tuple[int, QPixmap]:
        """Where line ``line`` of row ``index`` starts (x) and its chips' drawing, made once
        per look of the line (token_lines.line_key) from the chips' own drawings."""
        starts = row.line_starts
        begin = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(row.chips)
        chips = row.chips
        left = chips[begin][0]
        assert self.snapshot is not None  # rows exist only for a snapshot
        key = line_key(
            chips[begin:end], steps[begin:end], self.snapshot.rows[index].tokens.marks[begin:end]
        )

        def draw() -> QPixmap:
            last_x, _y, last_w, _label = chips[end - 1]
            pixmap = transparent_pixmap(last_x + last_w - left, style.chip_h, 1.0)
            line_painter = QPainter(pixmap)
            for column, step in enumerate(steps[begin:end].tolist(), begin):
                x, _y, w, label = chips[column]
                chip = self._chip(index, column, step)
                self.paint_chip(line_painter, chip, label, x - left, 0, w, style, 1.0)
            line_painter.end()
            return pixmap

        return left, self.lines.get(key, draw)

    def _decorations(self, index: int, start: int, stop: int) -> list[tuple[int, bool, bool]]:
        """Row ``index``'s chips ``start``…``stop`` that are outlined (dual clip) or underlined
        (the final answer): (column, dual, answer) each, by column."""
        found = self._decorated[index]
        if found is None:
            assert self.snapshot is not None  # rows exist only for a snapshot
            tokens = self.snapshot.rows[index].tokens
            answers = answer_columns(tokens.is_answer)
            duals: list[int] = []
            if tokens.marks:
                duals = [i for i, dual in enumerate(tokens.dual_clipped) if dual]
            dual_set, answer_set = set(duals), set(answers)
            found = self._decorated[index] = [
                (column, column in dual_set, column in answer_set)
                for column in sorted(dual_set | answer_set)
            ]
        low = bisect.bisect_left(found, (start,))
        high = bisect.bisect_left(found, (stop,))
        return found[low:high]

    def _paint_ring(
        self,
        painter: QPainter,
        style: TokenStyle,
        token: tuple[int, int] | None,
        exposed: QRect,
        width: int,
        dashed: bool,
    ) -> None:
        """The focus ring around a chip: solid for the selection, dashed for the key cursor."""
        if token is None or not self.ring_rect(token, width).intersects(exposed):
            return
        rect = self.token_rect(*token, width)
        grow = style.ring / 2 + 1
        painter.setPen(self.pen(self.theme.focus, style.ring, dashed=dashed))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(
            QRectF(rect).adjusted(-grow, -grow, grow, grow),
            style.radius + grow,
            style.radius + grow,
        )

    def _chip(self, index: int, column: int, step: int) -> Chip:
        """The chip of token ``column`` of row ``index`` at colour level ``step``, made (and
        kept) when first painted: a click costs one look-up per chip on screen, not per token
        of the group."""
        assert self.snapshot is not None  # rows exist only for a snapshot
        tokens = self.snapshot.rows[index].tokens
        chip = self.looks.chip(
            (
                tokens.texts[column],
                step,
                tokens.clipped[column],
                tokens.dual_clipped[column],
                tokens.is_answer[column],
            ),
            self.theme,
            self.style(),
        )
        self._chips[index][column] = chip
        return chip
