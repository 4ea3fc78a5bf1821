"""Every use of pyqtgraph beyond its public API, in one place, for the versions it was read for.

pyqtgraph keeps no promise about its private attributes, and the chart's speed rests on a few of
them: ``BarGraphItem._singleColor``, ``_pens``, ``_brushes`` and ``_rectarray`` (bars drawn per
look, ``GroupedBars``), ``AxisItem._tickLevels``, ``_tickSpacing``, ``_tickDensity``,
``_updateMaxTextSize``, ``picture`` and ``grid`` (drawings replayed, ``RememberingAxis``),
``FillBetweenItem.curves`` and ``updatePath`` (a band built with numpy, ``NumpyBand``),
``TextItem.fill`` and ``border`` and ``ScatterPlotItem.opts["hoverSize"]`` (which have no
setters). No other module of the package reads or writes them.

``VERIFIED`` holds the versions whose sources these were checked against (and the test suite run
on); ``tests/views/test_pyqtgraph_internals.py`` fails on any other, so a new pyqtgraph is read
here before it is allowed in ``pyproject.toml``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPen, QPicture, QTransform

from grpo_desktop.views.common import render_cache

__all__ = [
    "VERIFIED",
    "GroupedBars",
    "NumpyBand",
    "RememberingAxis",
    "is_verified",
    "set_hover_size",
    "set_text_box",
    "version_tuple",
]

#: The oldest and newest pyqtgraph this module was checked against, inclusive.
VERIFIED = ("0.13.7", "0.14.0")


def version_tuple(version: str) -> tuple[int, ...]:
    """``"0.14.0"`` → ``(0, 14, 0)``; a suffix such as ``.dev0`` or ``rc1`` ends the numbers."""
    numbers = []
    for part in version.split("."):
        digits = ""
        for character in part:
            if not character.isdigit():
                break
            digits += character
        if not digits:
            break
        numbers.append(int(digits))
        if len(digits) < len(part):
            break
    return tuple(numbers)


def is_verified(version: str = pg.__version__) -> bool:
    """Whether ``version`` lies in the range this module was checked against."""
    low, high = (version_tuple(v) for v in VERIFIED)
    ours = version_tuple(version)
    return bool(ours) and low <= ours <= high


# -- the value axes: drawings remembered per range -------------------------------------------------

_AXIS_PICTURES = 8  # drawings kept per axis: a class's clicks move among a few nice ranges


def _pen_key(pen: QPen) -> tuple:
    return (pen.color().rgba(), pen.widthF(), pen.style(), pen.isCosmetic())


class RememberingAxis(pg.AxisItem):
    """An axis that keeps its last few drawings and replays a remembered one.

    A click that changes the y range makes pyqtgraph lay the axis out and draw it again
    (``generateDrawSpecs``, ~0.3 ms for the two y axes with explicit ticks, more when pyqtgraph
    picks the ticks itself) although the chart only moves among a few nice ranges: the Update
    step's push chart, for one, goes from step 0's range to the finished step's on every toggle.
    The drawing depends only on what the key holds: the range, the ticks given (or what picks
    them: scale, log mode, tick spacing and density), the axis's size, its pens, font and style
    (no grid, so not the plot's size). Drawing also tells the axis how wide its widest label is
    (``_updateMaxTextSize``, which may resize it); a replay tells it the same width again.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._pictures: dict[tuple, tuple[QPicture, float | None]] = {}
        self._text_size: float | None = None  # what the drawing being made reported

    def paint(self, painter: QPainter, *args: object) -> None:  # pyqtgraph override
        key = None
        if render_cache.CACHING and self.picture is None and self.grid is False:
            key = self._picture_key()
            kept = self._pictures.get(key)
            if kept is not None:
                picture, text_size = kept
                if text_size is not None:  # as drawing it would have (it forgets the picture)
                    super()._updateMaxTextSize(text_size)
                self.picture = picture
        self._text_size = None
        super().paint(painter, *args)
        if key is not None and key not in self._pictures and self.picture is not None:
            if len(self._pictures) >= _AXIS_PICTURES:
                del self._pictures[next(iter(self._pictures))]  # the oldest
            self._pictures[key] = (self.picture, self._text_size)

    def _updateMaxTextSize(self, x: int) -> None:  # pyqtgraph override
        self._text_size = x
        super()._updateMaxTextSize(x)

    def _picture_key(self) -> tuple:
        font = self.style["tickFont"]
        style = tuple(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in self.style.items()
            if name != "tickFont"
        )
        levels, spacing = self._tickLevels, self._tickSpacing
        return (
            tuple(self.range),
            None if levels is None else tuple(tuple(level) for level in levels),
            None if spacing is None else tuple(tuple(level) for level in spacing),
            (self.scale, self.autoSIPrefixScale, self.logMode),
            getattr(self, "_tickDensity", 1.0),
            self.geometry().getRect(),
            self.orientation,
            _pen_key(self.pen()),
            _pen_key(self.tickPen()),
            _pen_key(self.textPen()),
            None if font is None else font.key(),
            style,
        )


# -- the bars: one call per look -------------------------------------------------------------------


class GroupedBars(pg.BarGraphItem):
    """Bars that draw every bar of one look (pen and brush) in one call.

    pyqtgraph records a multi-coloured bar chart bar by bar into a QPicture whenever the heights
    change, in a Python loop: 0.6 ms of a click at G = 64. The chart has three looks (up, down,
    no signal), so three ``drawRects`` calls draw the same bars in the same places.

    ``outline_as_fill`` (the lab's chart) fills a bar whose outline is its fill's colour grown by
    half the pen instead of stroking it: cheaper, and at some scales a pixel row off from the
    stroked outline. Without it (the push chart) every bar is stroked and filled as pyqtgraph
    draws it, pixel for pixel.
    """

    def __init__(self, *, outline_as_fill: bool = True, **opts: object) -> None:
        self._outline_as_fill = outline_as_fill
        super().__init__(**opts)

    def setOpts(self, **opts: object) -> None:  # pyqtgraph override
        # Per look: its pen, brush, bars, and whether the pen only widens them (see paint).
        self._groups: list[tuple[QPen, QBrush, list[QRectF], bool]] | None = None
        self._grown: dict[tuple, list[QRectF]] | None = None
        super().setOpts(**opts)

    def paint(self, painter: QPainter, *args: object) -> None:  # pyqtgraph override
        if self._singleColor or self._pens is None or self._brushes is None:
            super().paint(painter, *args)
            return
        if self._groups is None:
            looks: dict[tuple[int, int], tuple[QPen, QBrush, list[QRectF]]] = {}
            rects = self._rectarray.instances()
            for rect, pen, brush in zip(rects, self._pens, self._brushes, strict=True):
                looks.setdefault((id(pen), id(brush)), (pen, brush, []))[2].append(rect)
            self._groups = [
                (pen, brush, bars, self._outline_as_fill and _outline_is_fill(pen, brush))
                for pen, brush, bars in looks.values()
            ]
        transform = painter.transform()
        scale = (transform.m11(), transform.m22())
        outlined = painter.testRenderHint(QPainter.RenderHint.Antialiasing) or (
            transform.type().value > QTransform.TransformationType.TxScale.value
        )
        for index, (pen, brush, rects, widens) in enumerate(self._groups):
            if outlined or not widens:
                painter.setPen(pen)
                painter.setBrush(brush)
                painter.drawRects(rects)
                continue
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(brush)
            painter.drawRects(self._grown_rects(index, rects, pen.widthF(), scale))

    def _grown_rects(
        self, index: int, rects: list[QRectF], pen_px: float, scale: tuple[float, float]
    ) -> list[QRectF]:
        """The bars grown by half the pen on every side, in data units at this scale: filled
        without a pen they cover the pixels that the fill and its outline in the same colour
        cover, without stroking 64 outlines on every paint (an eighth of a click at G = 64)."""
        key = (index, scale)
        if self._grown is None or key not in self._grown:
            if self._grown is None or len(self._grown) > 8:
                self._grown = {}
            dx = pen_px / 2 / abs(scale[0]) if scale[0] else 0.0
            dy = pen_px / 2 / abs(scale[1]) if scale[1] else 0.0
            self._grown[key] = [rect.normalized().adjusted(-dx, -dy, dx, dy) for rect in rects]
        return self._grown[key]


def _outline_is_fill(pen: QPen, brush: QBrush) -> bool:
    """A cosmetic solid outline in the fill's own colour: it only widens the bar."""
    return (
        pen.isCosmetic()
        and pen.style() == Qt.PenStyle.SolidLine
        and pen.widthF() > 0
        and brush.style() == Qt.BrushStyle.SolidPattern
        and pen.color() == brush.color()
    )


# -- the training charts' bands --------------------------------------------------------------------


class NumpyBand(pg.FillBetweenItem):
    """A FillBetweenItem whose path is built with numpy in one go.

    pyqtgraph's own joins Qt polygons in Python, which at 6 algorithms × 2 charts × 60 frames a
    second was most of a playing run's drawing time.
    """

    def updatePath(self) -> None:  # pyqtgraph override
        curves = getattr(self, "curves", None)
        if not curves:
            super().updatePath()
            return
        x_low, y_low = curves[0].getData()
        x_high, y_high = curves[1].getData()
        if x_low is None or x_high is None or len(x_low) == 0 or len(x_high) == 0:
            self.setPath(QPainterPath())
            return
        x = np.concatenate((x_low, x_high[::-1]))
        y = np.concatenate((y_low, y_high[::-1]))
        path = pg.arrayToQPath(x, y, connect="all")
        path.closeSubpath()
        self.setPath(path)


# -- attributes with no setter ---------------------------------------------------------------------


def set_text_box(item: pg.TextItem, fill: QBrush, border: QPen) -> None:
    """The box behind a ``TextItem``'s text (its constructor's ``fill`` and ``border``)."""
    item.fill = fill
    item.border = border
    item.update()


def set_hover_size(dots: pg.ScatterPlotItem, size: float) -> None:
    """The size a scatter's dot grows to under the pointer (its constructor's ``hoverSize``)."""
    dots.opts["hoverSize"] = size
