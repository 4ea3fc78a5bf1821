"""Paint a :class:`~grpo_desktop.core.files.chart_figure.Figure` for a slide: PNG or SVG.

The exported chart is its own drawing, not the on-screen widget decorated for a moment: the
widgets create their graphics items once and never remove them (PySide6 crashed on repeated
scene removals), they size their text for a panel of the window, and a picture must not depend
on how large that panel happens to be. So the figure is laid out on a 16:9 canvas of 1280 × 720
units whatever the window, with type sized for a slide (ticks 20 units: 30 px in a 1920 × 1080
PNG), and painted with ``QPainter`` onto a ``QImage`` (PNG) or a ``QSvgGenerator`` (SVG: every
text stays a ``<text>`` element, so it can be searched, edited and read by a screen reader).

A view (DESIGN §2): it draws the figure it is given and computes nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QLineF, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.files.chart_figure import Figure, LegendEntry, Mark, Panel

__all__ = ["CANVAS", "PNG_SIZE", "figure_png_image", "figure_svg_bytes", "paint_figure"]

CANVAS = (1280.0, 720.0)  # layout units: a 16:9 slide
PNG_SIZE = (1920, 1080)  # full HD: a slide's own size

# Type sizes in canvas units (pixels at 1280 × 720).
TITLE_PX = 30
SUBTITLE_PX = 19
PANEL_TITLE_PX = 22
LABEL_PX = 20  # axis labels
TICK_PX = 19
LEGEND_PX = 18
VALUE_PX = 17
NOTE_PX = 17
MARGIN = 28.0
BAND_ALPHA = 56

# A dash pattern per training algorithm (solid, dash, dot, dash-dot, dash-dot-dot, long dash),
# as the training charts draw them: colour is never the only cue.
_DASHES: tuple[tuple[float, ...], ...] = (
    (),
    (4.0, 2.0),
    (1.0, 2.0),
    (4.0, 2.0, 1.0, 2.0),
    (4.0, 2.0, 1.0, 2.0, 1.0, 2.0),
    (7.0, 2.0, 1.0, 2.0, 1.0, 2.0),
)


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def _pen(colour: str, width: float, style: int = 0) -> QPen:
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    dashes = _DASHES[style % len(_DASHES)]
    if dashes:
        pen.setDashPattern(list(dashes))
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    return pen


class _Painter:
    """One figure on one paint device, in canvas units."""

    def __init__(self, painter: QPainter, figure: Figure, theme: Theme) -> None:
        self.p = painter
        self.figure = figure
        self.theme = theme
        self.stroke = 2.0 + max(0.0, theme.stroke_width - 1.5) * 0.5  # projector: 2.75

    # --- text helpers -----------------------------------------------------------------------

    def text(
        self, rect: QRectF, flags: Qt.AlignmentFlag, text: str, font: QFont, colour: str
    ) -> QRectF:
        self.p.setFont(font)
        self.p.setPen(QColor(colour))
        bounds = self.p.boundingRect(rect, int(flags), text)
        self.p.drawText(rect, int(flags), text)
        return bounds

    @staticmethod
    def height(font: QFont, text: str, width: float) -> float:
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap)
        return QFontMetricsF(font).boundingRect(QRectF(0, 0, width, 10_000), flags, text).height()

    # --- the whole figure -------------------------------------------------------------------

    def paint(self) -> None:
        width, height = CANVAS
        theme, figure = self.theme, self.figure
        self.p.fillRect(QRectF(0, 0, width, height), QColor(theme.surface))
        inner = width - 2 * MARGIN
        wrap = Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
        top = MARGIN * 0.7
        title_font = _font(TITLE_PX * theme.type_scale, bold=True)
        h = self.height(title_font, figure.title, inner)
        self.text(QRectF(MARGIN, top, inner, h), wrap, figure.title, title_font, theme.text)
        top += h + 2
        if figure.subtitle:
            font = _font(SUBTITLE_PX * theme.type_scale)
            h = self.height(font, figure.subtitle, inner)
            self.text(QRectF(MARGIN, top, inner, h), wrap, figure.subtitle, font, theme.muted)
            top += h + 6
        if figure.legend:
            top = self.legend(figure.legend, QRectF(MARGIN, top, inner, 0)) + 6
        bottom = height - MARGIN * 0.6
        if figure.note:
            font = _font(NOTE_PX * theme.type_scale)
            h = self.height(font, figure.note, inner)
            bottom -= h
            self.text(QRectF(MARGIN, bottom, inner, h), wrap, figure.note, font, theme.text)
            bottom -= 6
        count = max(1, len(figure.panels))
        gap = 30.0
        panel_width = (inner - gap * (count - 1)) / count
        # Every panel's plot starts and ends at the same height, whatever its title and note.
        header = max(self.header_height(panel, panel_width) for panel in figure.panels)
        footer = max(self.footer_height(panel, panel_width) for panel in figure.panels)
        for index, panel in enumerate(figure.panels):
            left = MARGIN + index * (panel_width + gap)
            self.panel(panel, QRectF(left, top, panel_width, bottom - top), header, footer)

    def header_height(self, panel: Panel, width: float) -> float:
        scale = self.theme.type_scale
        height = self.height(_font(PANEL_TITLE_PX * scale, bold=True), panel.title, width) + 4
        if panel.legend:
            height += self.legend(panel.legend, QRectF(0, 0, width, 0), draw=False) + 4
        return height

    def footer_height(self, panel: Panel, width: float) -> float:
        if not panel.note:
            return 0.0
        return self.height(_font(NOTE_PX * self.theme.type_scale), panel.note, width) + 8

    def legend(self, entries: tuple[LegendEntry, ...], area: QRectF, draw: bool = True) -> float:
        """Entries left to right, wrapping; returns the y below the last row (only measures
        when ``draw`` is False)."""
        font = _font(LEGEND_PX * self.theme.type_scale)
        metrics = QFontMetricsF(font)
        row_height = metrics.height() * 1.25
        sample = 34.0
        x, y = area.left(), area.top()
        for entry in entries:
            width = sample + 8 + metrics.horizontalAdvance(entry.text)
            if x > area.left() and x + width > area.right():
                x, y = area.left(), y + row_height
            if not draw:
                x += width + 22
                continue
            self.sample(entry, QRectF(x, y + 2, sample, row_height - 4))
            self.text(
                QRectF(x + sample + 8, y, width, row_height),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                entry.text,
                font,
                self.theme.text,
            )
            x += width + 22
        return y + row_height

    def sample(self, entry: LegendEntry, rect: QRectF) -> None:
        p, middle = self.p, rect.center().y()
        if entry.kind in ("bar", "hatched"):
            box = QRectF(rect.left() + 6, rect.top() + 2, rect.width() - 12, rect.height() - 4)
            self.bar(box, entry.colour, entry.kind == "hatched")
        elif entry.kind == "dot":
            self.dot(QPointF(rect.center().x(), middle), entry.colour)
        else:
            p.setPen(_pen(entry.colour, self.stroke * entry.width, entry.style))
            p.drawLine(QLineF(rect.left(), middle, rect.right(), middle))

    def bar(self, rect: QRectF, colour: str, hatched: bool) -> None:
        p = self.p
        rect = rect.normalized()
        if not hatched:
            p.fillRect(rect, QColor(colour))
            return
        p.fillRect(rect, QColor(self.theme.surface))
        p.setPen(_pen(colour, max(1.5, self.stroke * 0.75)))
        step = 7.0
        # Diagonal hatch lines clipped to the rectangle by hand (SVG clipping is unreliable).
        offset = -rect.height()
        while offset < rect.width():
            start = QPointF(rect.left() + offset, rect.bottom())
            end = QPointF(rect.left() + offset + rect.height(), rect.top())
            line = _clip(QLineF(start, end), rect)
            if line is not None:
                p.drawLine(line)
            offset += step
        p.setPen(_pen(colour, max(1.5, self.stroke * 0.75)))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(rect)

    def dot(self, centre: QPointF, colour: str) -> None:
        radius = 6.0 * self.theme.type_scale
        self.p.setPen(_pen(self.theme.surface, 1.5))
        self.p.setBrush(QColor(colour))
        self.p.drawEllipse(centre, radius, radius)
        self.p.setBrush(Qt.BrushStyle.NoBrush)

    # --- one panel --------------------------------------------------------------------------

    def panel(self, panel: Panel, area: QRectF, header: float, footer: float) -> None:
        theme, scale = self.theme, self.theme.type_scale
        wrap = Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
        top = area.top()
        font = _font(PANEL_TITLE_PX * scale, bold=True)
        h = self.height(font, panel.title, area.width())
        self.text(QRectF(area.left(), top, area.width(), h), wrap, panel.title, font, theme.text)
        top += h + 4
        if panel.legend:
            self.legend(panel.legend, QRectF(area.left(), top, area.width(), 0))
        top = area.top() + header
        bottom = area.bottom() - footer
        if panel.note:
            note_font = _font(NOTE_PX * scale)
            h = self.height(note_font, panel.note, area.width())
            note_box = QRectF(area.left(), bottom + 8, area.width(), h)
            self.text(note_box, wrap, panel.note, note_font, theme.text)
        tick_font = _font(TICK_PX * scale)
        label_font = _font(LABEL_PX * scale)
        tick_metrics = QFontMetricsF(tick_font)
        label_height = QFontMetricsF(label_font).height()
        tick_width = max((tick_metrics.horizontalAdvance(t) for _, t in panel.y_ticks), default=0)
        left = area.left() + label_height + 8 + tick_width + 10
        right = area.right() - tick_metrics.horizontalAdvance("0000") / 2
        plot_bottom = bottom - label_height - 6 - tick_metrics.height() - 8
        plot_top = top + tick_metrics.height() / 2 + 4
        plot = QRectF(QPointF(left, plot_top), QPointF(right, plot_bottom))
        if plot.width() < 40 or plot.height() < 40:
            return
        (x0, x1), (y0, y1) = panel.x_range, panel.y_range

        def to_x(value: float) -> float:
            return plot.left() + (value - x0) / (x1 - x0) * plot.width()

        def to_y(value: float) -> float:
            clamped = min(max(value, y0), y1)
            return plot.bottom() - (clamped - y0) / (y1 - y0) * plot.height()

        p = self.p
        grid = QPen(QColor(theme.border).lighter(100))
        grid_colour = QColor(theme.border)
        grid_colour.setAlpha(130)  # lighter than the axes, even in the projector's black border
        grid.setColor(grid_colour)
        grid.setWidthF(1.0)
        axis = _pen(theme.muted, max(1.5, self.stroke * 0.75))
        for value, text in panel.y_ticks:
            y = to_y(value)
            p.setPen(grid)
            p.drawLine(QLineF(plot.left(), y, plot.right(), y))
            p.setPen(axis)
            p.drawLine(QLineF(plot.left() - 6, y, plot.left(), y))
            self.text(
                QRectF(
                    plot.left() - 10 - tick_width,
                    y - tick_metrics.height() / 2,
                    tick_width,
                    tick_metrics.height(),
                ),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                text,
                tick_font,
                theme.text,
            )
        for value, text in panel.x_ticks:
            x = to_x(value)
            p.setPen(axis)
            p.drawLine(QLineF(x, plot.bottom(), x, plot.bottom() + 6))
            width = tick_metrics.horizontalAdvance(text) + 4
            self.text(
                QRectF(x - width / 2, plot.bottom() + 8, width, tick_metrics.height()),
                Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                text,
                tick_font,
                theme.text,
            )
        p.setPen(axis)
        p.drawLine(QLineF(plot.bottomLeft(), plot.topLeft()))
        p.drawLine(QLineF(plot.bottomLeft(), plot.bottomRight()))
        # Axis labels: x under the ticks, y turned along the axis.
        self.text(
            QRectF(
                plot.left(), plot_bottom + tick_metrics.height() + 12, plot.width(), label_height
            ),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            panel.x_label,
            label_font,
            theme.muted,
        )
        p.save()
        p.translate(area.left(), plot.center().y())
        p.rotate(-90)
        self.text(
            QRectF(-plot.height() / 2 - 60, 0, plot.height() + 120, label_height),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            panel.y_label,
            label_font,
            theme.muted,
        )
        p.restore()

        for mark in panel.marks:
            if mark.kind == "band":
                self.band(mark, to_x, to_y)
        if panel.reference is not None:
            value, text = panel.reference
            if y0 <= value <= y1:
                y = to_y(value)
                p.setPen(_pen(theme.text, self.stroke))
                p.drawLine(QLineF(plot.left(), y, plot.right(), y))
                if text and text != "0":
                    self.text(
                        QRectF(
                            plot.right() - 300,
                            y - tick_metrics.height() - 2,
                            296,
                            tick_metrics.height(),
                        ),
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom,
                        text,
                        tick_font,
                        theme.text,
                    )
        for mark in panel.marks:
            if mark.kind == "bars":
                self.bars(mark, plot, to_x, to_y)
            elif mark.kind == "line":
                self.line(mark, to_x, to_y)
        for mark in panel.marks:
            if mark.kind == "dots":
                for x, y in zip(mark.x, mark.y):
                    self.dot(QPointF(to_x(x), to_y(y)), mark.colour())
        if panel.marker_x is not None and x0 <= panel.marker_x <= x1:
            x = to_x(panel.marker_x)
            p.setPen(_pen(theme.focus, self.stroke, style=1))
            p.drawLine(QLineF(x, plot.top(), x, plot.bottom()))

    def bars(self, mark: Mark, plot: QRectF, to_x, to_y) -> None:
        width_px = abs(to_x(mark.width) - to_x(0.0))
        zero = to_y(0.0)
        font = _font(VALUE_PX * self.theme.type_scale, bold=True)
        metrics = QFontMetricsF(font)
        widest = max((metrics.horizontalAdvance(t) for t in mark.labels), default=0.0)
        # An answer's room: all of it for one bar, half each for two side by side.
        slot = abs(to_x(0.95 if mark.width > 0.5 else 0.48) - to_x(0.0))
        labelled = bool(mark.labels) and widest <= slot * 0.95
        for index, (x, y) in enumerate(zip(mark.x, mark.y)):
            centre = to_x(x)
            top = to_y(y)
            rect = QRectF(centre - width_px / 2, min(top, zero), width_px, abs(zero - top))
            if rect.height() < 1.5:
                rect = QRectF(rect.left(), zero - 1, width_px, 2)
            self.bar(rect, mark.colour(index), mark.hatched)
            if labelled and index < len(mark.labels):
                height = metrics.height()
                box_width = widest + 8
                if y >= 0:
                    box = QRectF(centre - box_width / 2, rect.top() - height - 2, box_width, height)
                else:
                    box = QRectF(centre - box_width / 2, rect.bottom() + 2, box_width, height)
                self.text(
                    box, Qt.AlignmentFlag.AlignCenter, mark.labels[index], font, self.theme.text
                )

    def line(self, mark: Mark, to_x, to_y) -> None:
        if len(mark.x) < 1:
            return
        points = QPolygonF([QPointF(to_x(x), to_y(y)) for x, y in zip(mark.x, mark.y)])
        self.p.setPen(_pen(mark.colour(), self.stroke * mark.width, mark.style))
        self.p.setBrush(Qt.BrushStyle.NoBrush)
        self.p.drawPolyline(points)
        if mark.tag:
            at = min(range(len(mark.x)), key=lambda i: abs(mark.x[i] - mark.tag_x))
            centre = QPointF(to_x(mark.x[at]), to_y(mark.y[at]))
            font = _font(TICK_PX * 0.9 * self.theme.type_scale, bold=mark.width > 1)
            metrics = QFontMetricsF(font)
            width = metrics.horizontalAdvance(mark.tag) + 8
            box = QRectF(
                centre.x() - width / 2, centre.y() - metrics.height() / 2, width, metrics.height()
            )
            self.p.fillRect(box, QColor(self.theme.surface))
            self.text(box, Qt.AlignmentFlag.AlignCenter, mark.tag, font, self.theme.text)

    def band(self, mark: Mark, to_x, to_y) -> None:
        if len(mark.x) < 2:
            return
        path = QPainterPath()
        path.moveTo(to_x(mark.x[0]), to_y(mark.y[0]))
        for x, y in zip(mark.x[1:], mark.y[1:]):
            path.lineTo(to_x(x), to_y(y))
        for x, y in zip(reversed(mark.x), reversed(mark.low)):
            path.lineTo(to_x(x), to_y(y))
        path.closeSubpath()
        colour = QColor(mark.colour())
        colour.setAlpha(BAND_ALPHA)
        self.p.fillPath(path, QBrush(colour))


def _clip(line: QLineF, rect: QRectF) -> QLineF | None:
    """The part of ``line`` inside ``rect`` (Liang–Barsky), or None."""
    x0, y0, dx, dy = line.x1(), line.y1(), line.dx(), line.dy()
    t0, t1 = 0.0, 1.0
    for p, q in (
        (-dx, x0 - rect.left()),
        (dx, rect.right() - x0),
        (-dy, y0 - rect.top()),
        (dy, rect.bottom() - y0),
    ):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return QLineF(x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy)


def paint_figure(painter: QPainter, figure: Figure, theme: Theme) -> None:
    """Draw ``figure`` on ``painter``, whose coordinates span the canvas (1280 × 720)."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    _Painter(painter, figure, theme).paint()


def figure_png_image(figure: Figure, theme: Theme, size: tuple[int, int] = PNG_SIZE) -> QImage:
    """The figure as an image of ``size`` pixels (default 1920 × 1080, a slide)."""
    width, height = size
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    if image.isNull():
        raise ValueError("could not allocate the image")
    image.fill(QColor(theme.surface))
    painter = QPainter(image)
    try:
        painter.scale(width / CANVAS[0], height / CANVAS[1])
        paint_figure(painter, figure, theme)
    finally:
        painter.end()
    dots_per_metre = round(144 / 0.0254)  # shown at 1280 × 720 points: text keeps its size
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    return image


def figure_svg_bytes(figure: Figure, theme: Theme) -> bytes:
    """The figure as SVG text of 1280 × 720 units, its words as ``<text>`` elements."""
    from PySide6.QtSvg import QSvgGenerator  # only when exporting SVG: keeps start-up quick

    data = QByteArray()
    buffer = QBuffer(data)
    if not buffer.open(QIODevice.OpenModeFlag.WriteOnly):
        raise OSError("could not open a memory buffer for the SVG")
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    width, height = (round(v) for v in CANVAS)
    generator.setSize(QSize(width, height))
    generator.setViewBox(QRectF(0, 0, width, height))
    generator.setResolution(96)
    generator.setTitle(figure.title)
    generator.setDescription(figure.subtitle)
    painter = QPainter(generator)
    try:
        paint_figure(painter, figure, theme)
    finally:
        painter.end()
        buffer.close()
    if not data.size():
        raise ValueError("the chart could not be drawn")
    return bytes(data)
