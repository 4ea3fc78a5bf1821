"""A lesson's worksheet as a printable PDF: questions, the app's figures, ruled tables, lines.

Qt's own PDF writer (``QPdfWriter``) draws it, so nothing beyond PySide6 is needed and every word
is real text in the file: a student can search it, a screen reader can read it, and a lecturer
can copy a question into a slide. The figures are the exported charts (``paint_figure``, the same
drawing as File ▸ Export ▸ Chart as SVG), painted as vectors. The page is laid out in points
(1/72 inch) and paginated in two passes, blocks first and pages after, so no block is cut at a
page's foot and every page can say "Page 2 of 5". The student's version leaves the key's cells
blank and prints ruled lines where the key prints its answers.

Only QtCore and QtGui: ``grpo-desktop worksheet`` writes it under a QGuiApplication with no
display.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QLineF, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPageLayout, QPageSize, QPainter, QPdfWriter

from grpo_desktop.core.common.theme import Theme, get_theme
from grpo_desktop.core.files.chart_figure import Figure
from grpo_desktop.core.files.worksheet import PRINT_THEME, Worksheet, WorksheetStep, WorksheetTable
from grpo_desktop.views.files.export_figures import CANVAS, paint_figure

__all__ = ["PAPERS", "worksheet_pdf_bytes"]

#: The papers a worksheet prints on: A4 for most of the world, Letter for North America.
PAPERS: dict[str, QPageSize.PageSizeId] = {
    "a4": QPageSize.PageSizeId.A4,
    "letter": QPageSize.PageSizeId.Letter,
}
RESOLUTION = 1200  # dots per inch of the writer's device; the layout itself is in points
MARGIN = 50.0  # points: about 18 mm, inside every printer's unprintable edge
HEADER_GAP = 26.0  # from the top margin to the first block, under the running header
FOOTER_GAP = 22.0

# Type sizes in points (a printed page is read at arm's length, not across a room).
TITLE_PT = 20
HEADING_PT = 14
BODY_PT = 11
SMALL_PT = 9
TABLE_PT = 10
HEADER_PT = 8

INK = "#1b1f24"
MUTED = "#4f5863"
RULE = "#8a929c"
GIVEN_FILL = "#eef0f3"  # a cell the student does not fill: printed, lightly shaded
ANSWER_INK = "#0b4f9c"  # the key's numbers: blue, as a marker pen's corrections
WRITING_LINE_GAP = 22.0  # handwriting needs about 7 mm a line
BLANK_ROW_HEIGHT = 21.0


def _font(points: int, bold: bool = False, italic: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(points)  # the layout's unit is the point: one "pixel" is one point
    font.setBold(bold)
    font.setItalic(italic)
    # Unhinted outlines: the metrics the layout measures are the ones the PDF positions.
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    # No ligatures: "ﬁ" and "ﬀ" glyphs would be searched and copied as one odd character, so a
    # search for "first" or "off" in the PDF would miss them.
    for tag in ("liga", "clig", "dlig"):
        font.setFeature(QFont.Tag(tag), 0)
    return font


_WRAP = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)


def _text_height(text: str, font: QFont, width: float) -> float:
    if not text:
        return 0.0
    rect = QFontMetricsF(font).boundingRect(QRectF(0, 0, width, 100_000), _WRAP, text)
    return rect.height()


@dataclass
class _Block:
    """A piece of the page that is never split: measured first, painted at its place later."""

    height: float
    paint: Callable[[QPainter, float], None]  # given the painter and the block's top
    keep_with_next: bool = False  # a heading stays with what it introduces
    space_after: float = 6.0


class _Layout:
    """Turns a worksheet into blocks for one paper width, and paints them onto pages."""

    def __init__(self, worksheet: Worksheet, answers: bool, page: QRectF) -> None:
        self.worksheet = worksheet
        self.answers = answers
        self.page = page
        self.left = MARGIN
        self.width = page.width() - 2 * MARGIN
        self.top = MARGIN + HEADER_GAP
        self.bottom = page.height() - MARGIN - FOOTER_GAP
        self.theme: Theme = get_theme(PRINT_THEME)

    # --- blocks --------------------------------------------------------------------------------

    def paragraph(
        self,
        text: str,
        font: QFont,
        colour: str = INK,
        indent: float = 0.0,
        keep_with_next: bool = False,
        space_after: float = 4.0,
    ) -> _Block:
        width = self.width - indent
        height = _text_height(text, font, width)

        def paint(painter: QPainter, top: float) -> None:
            painter.setFont(font)
            painter.setPen(QColor(colour))
            painter.drawText(QRectF(self.left + indent, top, width, height + 2), _WRAP, text)

        return _Block(height, paint, keep_with_next, space_after)

    def labelled(self, label: str, text: str, colour: str = INK) -> _Block:
        """``Predict.`` in bold, then the sentence: the label's width is the text's indent."""
        label_font, body = _font(BODY_PT, bold=True), _font(BODY_PT)
        indent = QFontMetricsF(label_font).horizontalAdvance(label) + 6
        width = self.width - indent
        height = _text_height(text, body, width)

        def paint(painter: QPainter, top: float) -> None:
            painter.setFont(label_font)
            painter.setPen(QColor(colour))
            painter.drawText(QRectF(self.left, top, indent, height + 2), _WRAP, label)
            painter.setFont(body)
            painter.drawText(QRectF(self.left + indent, top, width, height + 2), _WRAP, text)

        return _Block(height, paint, keep_with_next=True, space_after=4.0)

    def figure(self, figure: Figure) -> _Block:
        wide = len(figure.panels) > 1
        width = self.width if wide else self.width * 0.78
        height = width * CANVAS[1] / CANVAS[0]
        left = self.left + (self.width - width) / 2

        def paint(painter: QPainter, top: float) -> None:
            painter.save()
            painter.translate(left, top)
            painter.scale(width / CANVAS[0], height / CANVAS[1])
            paint_figure(painter, figure, self.theme)
            painter.restore()
            painter.setPen(QColor(self.theme.border))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(left, top, width, height))

        return _Block(height, paint, space_after=10.0)

    def table(self, table: WorksheetTable) -> list[_Block]:
        caption = self.paragraph(
            table.caption, _font(BODY_PT, bold=True), keep_with_next=True, space_after=3.0
        )
        return [caption, self._grid(table)]

    def _column_widths(self, table: WorksheetTable, font: QFont, bold: QFont) -> list[float]:
        columns = len(table.header)
        metrics = QFontMetricsF(font)
        first = max(
            [metrics.horizontalAdvance(row[0].shown(True)) for row in table.rows]
            + [QFontMetricsF(bold).horizontalAdvance(table.header[0])]
        )
        first = min(first + 14, self.width * 0.38)
        if columns == 1:
            return [self.width]
        rest = (self.width - first) / (columns - 1)
        return [first] + [rest] * (columns - 1)

    def _grid(self, table: WorksheetTable) -> _Block:
        font, bold = _font(TABLE_PT), _font(TABLE_PT - 1, bold=True)
        answer_font = _font(TABLE_PT, bold=True)
        widths = self._column_widths(table, font, bold)
        pad = 5.0
        header_height = max(
            _text_height(h, bold, w - 2 * pad) for h, w in zip(table.header, widths)
        )
        header_height += 2 * pad
        row_heights = []
        for row in table.rows:
            texts = [cell.shown(self.answers) for cell in row]
            tallest = max(_text_height(t, font, w - 2 * pad) for t, w in zip(texts, widths))
            row_heights.append(max(BLANK_ROW_HEIGHT, tallest + 2 * pad))
        height = header_height + sum(row_heights)

        def paint(painter: QPainter, top: float) -> None:
            y = top
            self._row(painter, y, header_height, widths, table.header, bold, GIVEN_FILL, pad)
            y += header_height
            for row, row_height in zip(table.rows, row_heights):
                x = self.left
                for cell, width in zip(row, widths):
                    box = QRectF(x, y, width, row_height)
                    if not cell.is_blank:
                        painter.fillRect(box, QColor(GIVEN_FILL))
                    text = cell.shown(self.answers)
                    if text:
                        filled = cell.is_blank and self.answers
                        painter.setFont(answer_font if filled else font)
                        painter.setPen(QColor(ANSWER_INK if filled else INK))
                        inner = box.adjusted(pad, pad, -pad, -pad)
                        flags = Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap
                        flags |= (
                            Qt.AlignmentFlag.AlignLeft
                            if x == self.left
                            else (Qt.AlignmentFlag.AlignHCenter)
                        )
                        painter.drawText(inner, int(flags), text)
                    x += width
                y += row_height
            self._rules(painter, top, [header_height, *row_heights], widths)

        return _Block(height, paint, space_after=10.0)

    def _row(
        self,
        painter: QPainter,
        top: float,
        height: float,
        widths: list[float],
        texts: tuple[str, ...],
        font: QFont,
        fill: str,
        pad: float,
    ) -> None:
        x = self.left
        painter.setFont(font)
        for text, width in zip(texts, widths):
            box = QRectF(x, top, width, height)
            painter.fillRect(box, QColor(fill))
            painter.setPen(QColor(INK))
            flags = Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap
            flags |= Qt.AlignmentFlag.AlignLeft if x == self.left else Qt.AlignmentFlag.AlignHCenter
            painter.drawText(box.adjusted(pad, pad, -pad, -pad), int(flags), text)
            x += width

    def _rules(
        self, painter: QPainter, top: float, heights: list[float], widths: list[float]
    ) -> None:
        pen = painter.pen()
        pen.setColor(QColor(RULE))
        pen.setWidthF(0.6)
        painter.setPen(pen)
        total_width = sum(widths)
        total_height = sum(heights)
        y = top
        for height in [0.0, *heights]:
            y += height
            painter.drawLine(QLineF(self.left, y, self.left + total_width, y))
        x = self.left
        for width in [0.0, *widths]:
            x += width
            painter.drawLine(QLineF(x, top, x, top + total_height))

    def writing_lines(self, count: int, label: str) -> _Block:
        label_block = self.paragraph(label, _font(SMALL_PT, italic=True), MUTED)
        height = label_block.height + count * WRITING_LINE_GAP

        def paint(painter: QPainter, top: float) -> None:
            label_block.paint(painter, top)
            pen = painter.pen()
            pen.setColor(QColor(RULE))
            pen.setWidthF(0.5)
            painter.setPen(pen)
            y = top + label_block.height
            for _ in range(count):
                y += WRITING_LINE_GAP
                painter.drawLine(QLineF(self.left, y, self.left + self.width, y))

        return _Block(height, paint, space_after=14.0)

    # --- the worksheet -------------------------------------------------------------------------

    def blocks(self) -> list[_Block]:
        sheet = self.worksheet
        kind = "Answer key" if self.answers else "Predict-and-observe worksheet"
        out = [
            self.paragraph(sheet.title, _font(TITLE_PT, bold=True), space_after=2.0),
            self.paragraph(f"{kind} · GRPO Desktop", _font(BODY_PT), MUTED, space_after=8.0),
            self.paragraph(sheet.summary, _font(BODY_PT), space_after=8.0),
        ]
        if self.answers:
            out.append(
                self.paragraph(
                    "The key's numbers (in blue) are the app's own, computed by the same code "
                    "the lab shows on screen.",
                    _font(SMALL_PT, italic=True),
                    MUTED,
                    space_after=16.0,
                )
            )
        else:
            out.append(
                self.paragraph(
                    "Name: ______________________________    Date: ________________",
                    _font(BODY_PT),
                    space_after=8.0,
                )
            )
            out.append(
                self.paragraph(
                    "For each step: write your prediction first, before the lecturer reveals "
                    "it. Then watch the app and write what it shows beside your guess. Shaded "
                    "cells are given; white cells are yours to fill in.",
                    _font(SMALL_PT, italic=True),
                    MUTED,
                    space_after=16.0,
                )
            )
        total = len(sheet.steps)
        for step in sheet.steps:
            out += self.step_blocks(step, total)
        return out

    def step_blocks(self, step: WorksheetStep, total: int) -> list[_Block]:
        out = [
            self.paragraph(
                f"Step {step.number} of {total}: {step.title}",
                _font(HEADING_PT, bold=True),
                keep_with_next=True,
                space_after=2.0,
            ),
            self.paragraph(step.context, _font(SMALL_PT), MUTED, keep_with_next=True),
        ]
        out += [self.labelled("Predict.", question) for question in step.predict]
        out.append(self.labelled("Observe.", " ".join(step.observe)))
        out[-1].space_after = 8.0
        out.append(self.figure(step.answer_figure if self.answers else step.student_figure))
        for table in step.tables:
            out += self.table(table)
        if self.answers:
            heading = self.paragraph(
                "Answer key", _font(BODY_PT, bold=True), ANSWER_INK, keep_with_next=True
            )
            out.append(heading)
            out += [self.paragraph(line, _font(BODY_PT), ANSWER_INK) for line in step.key]
            out.append(
                self.paragraph(
                    f"What the lesson says: {step.explanation}",
                    _font(BODY_PT, italic=True),
                    space_after=18.0,
                )
            )
        else:
            out.append(
                self.writing_lines(
                    step.writing_lines, "Your prediction and why; then what you saw:"
                )
            )
        return out

    # --- pages ---------------------------------------------------------------------------------

    def paginate(self, blocks: list[_Block]) -> list[list[tuple[_Block, float]]]:
        """Blocks placed top to bottom; a block that would cross the foot starts a new page,
        taking the headings it must stay with along."""
        pages: list[list[tuple[_Block, float]]] = [[]]
        y = self.top
        index = 0
        while index < len(blocks):
            # A heading travels with the block after it: measure the whole chain.
            end = index
            while end < len(blocks) - 1 and blocks[end].keep_with_next:
                end += 1
            chain = blocks[index : end + 1]
            chain_height = sum(b.height + b.space_after for b in chain[:-1]) + chain[-1].height
            fits_empty_page = chain_height <= self.bottom - self.top
            if y + chain_height > self.bottom and pages[-1] and fits_empty_page:
                pages.append([])
                y = self.top
            for block in chain:
                if y + block.height > self.bottom and pages[-1]:
                    pages.append([])
                    y = self.top
                pages[-1].append((block, y))
                y += block.height + block.space_after
            index = end + 1
        return pages

    def paint_page_frame(self, painter: QPainter, number: int, count: int) -> None:
        font = _font(HEADER_PT)
        painter.setFont(font)
        painter.setPen(QColor(MUTED))
        line_height = QFontMetricsF(font).height()
        header = QRectF(self.left, MARGIN, self.width, line_height)
        painter.drawText(header, int(Qt.AlignmentFlag.AlignLeft), self.worksheet.title)
        kind = "Answer key" if self.answers else "Student worksheet"
        painter.drawText(header, int(Qt.AlignmentFlag.AlignRight), kind)
        pen = painter.pen()
        pen.setColor(QColor(RULE))
        pen.setWidthF(0.5)
        painter.setPen(pen)
        rule_y = MARGIN + line_height + 3
        painter.drawLine(QLineF(self.left, rule_y, self.left + self.width, rule_y))
        painter.setPen(QColor(MUTED))
        footer = QRectF(
            self.left, self.page.height() - MARGIN - line_height, self.width, line_height
        )
        painter.drawText(footer, int(Qt.AlignmentFlag.AlignHCenter), f"Page {number} of {count}")


def worksheet_pdf_bytes(worksheet: Worksheet, paper: str = "a4", answers: bool = False) -> bytes:
    """The worksheet as a PDF on ``paper`` ("a4" or "letter"): the student's version, or with
    ``answers`` the key. Rendered in memory, so a caller writes the file whole or not at all."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; choose from: {', '.join(PAPERS)}")
    page_size = QPageSize(PAPERS[paper])
    data = QByteArray()
    buffer = QBuffer(data)
    if not buffer.open(QIODevice.OpenModeFlag.WriteOnly):
        raise OSError("could not open a memory buffer for the PDF")
    writer = QPdfWriter(buffer)
    writer.setResolution(RESOLUTION)
    writer.setPageLayout(
        QPageLayout(
            page_size,
            QPageLayout.Orientation.Portrait,
            QMarginsF(0, 0, 0, 0),
            QPageLayout.Unit.Point,
        )
    )
    kind = "answer key" if answers else "worksheet"
    writer.setTitle(f"{worksheet.title} ({kind})")
    writer.setCreator("GRPO Desktop")
    size = page_size.size(QPageSize.Unit.Point)
    page = QRectF(0, 0, size.width(), size.height())
    layout = _Layout(worksheet, answers, page)
    pages = layout.paginate(layout.blocks())
    painter = QPainter()
    if not painter.begin(writer):
        buffer.close()
        raise OSError("could not start the PDF")
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        for number, placed in enumerate(pages, start=1):
            if number > 1:
                writer.newPage()
            painter.save()
            painter.scale(RESOLUTION / 72, RESOLUTION / 72)
            layout.paint_page_frame(painter, number, len(pages))
            for block, top in placed:
                block.paint(painter, top)
            painter.restore()
    finally:
        painter.end()
        buffer.close()
    if not data.size():
        raise ValueError("the worksheet could not be drawn")
    return bytes(data)
