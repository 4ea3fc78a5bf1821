"""Every use of pyqtgraph beyond its public API, in one place, for the versions it was read for.

pyqtgraph keeps no promise about its private attributes, and the chart's speed rests on a few of
them: ``BarGraphItem._singleColor``, ``_pens``, ``_brushes`` and ``_rectarray`` (bars drawn per
look, ``GroupedBars``), with the class of ``_rectarray`` (``Qt.internals.PrimitiveArray``: its
``resize``, ``ndarray`` and ``drawargs``, arrays of rectangles Qt draws in one call) and
``BarGraphItem.setOpts`` calling ``prepareGeometryChange`` and ``update`` (which ``GroupedBars``
holds back when it repaints only the rows that changed), and what its ``_prepareData`` writes
(``_rectarray``'s rows and ``_dataBounds``; ``picture`` and ``_shape`` forgotten), which
``GroupedBars`` writes itself for new heights of the same bars; ``AxisItem._tickLevels``,
``_tickSpacing``, ``_tickDensity``, ``_updateMaxTextSize``, ``picture`` and ``grid``, and what
``generateDrawSpecs`` returns (the line, tick and text specs ``drawPicture`` draws: drawings
replayed, and not replayed where they draw nothing, ``RememberingAxis``);
``FillBetweenItem.curves`` and ``updatePath`` (a band built with numpy, ``NumpyBand``),
``TextItem.fill`` and ``border`` and ``ScatterPlotItem.opts["hoverSize"]`` (which have no
setters), and ``PlotItem.ctrlMenu`` (None once ``close()`` has dropped the plot's axes and
menus: ``is_closed``). No other module of the package reads or writes them.

``VERIFIED`` holds the versions whose sources these were checked against (and the test suite run
on); ``tests/views/test_pyqtgraph_internals.py`` fails on any other, so a new pyqtgraph is read
here before it is allowed in ``pyproject.toml``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPen, QPicture, QRegion, QTransform
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from grpo_desktop.views.common import render_cache

__all__ = [
    "VERIFIED",
    "GroupedBars",
    "NumpyBand",
    "RememberingAxis",
    "is_closed",
    "is_verified",
    "repaint_exactly",
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

# Drawings kept per axis: a class's clicks move the value axes among a few nice ranges, but each
# toggle gives the answers' ✓/✗ axis a look of its own (16 cards toggled in turn: 32 looks before
# the first comes back). A drawing is a QPicture of a few KB.
_AXIS_PICTURES = 64


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

    Its ticks point into the plot, so its bounding rectangle reaches over the bars' first
    pixels, and Qt paints the axis whenever bars next to it repaint. Where the area being
    painted misses every line and text the drawing has (its ink), the axis keeps its pixels and
    replays nothing: a click's bars move in a few rows, mostly between the ticks.

    It keeps ``_AXIS_PICTURES`` drawings, the oldest going first.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._pictures: dict[tuple, tuple[QPicture, float | None, QRegion | None]] = {}
        self._text_size: float | None = None  # what the drawing being made reported
        self._ink: QRegion | None = None  # where the drawing in ``picture`` puts its lines and text

    def paint(self, painter: QPainter, *args: object) -> None:  # pyqtgraph override
        if self.picture is not None and self._ink is not None and not self._exposed(painter):
            return  # nothing it draws lies in the area being painted: its pixels stay
        key = None
        if render_cache.CACHING and self.picture is None and self.grid is False:
            key = self._picture_key()
            kept = self._pictures.get(key)
            if kept is not None:
                picture, text_size, self._ink = kept
                if text_size is not None:  # as drawing it would have (it forgets the picture)
                    super()._updateMaxTextSize(text_size)
                self.picture = picture
        self._text_size = None
        super().paint(painter, *args)
        if key is not None and key not in self._pictures and self.picture is not None:
            if len(self._pictures) >= _AXIS_PICTURES:
                del self._pictures[next(iter(self._pictures))]  # the oldest
            self._pictures[key] = (self.picture, self._text_size, self._ink)

    def generateDrawSpecs(self, p: QPainter) -> tuple | None:  # pyqtgraph override
        """pyqtgraph's lines and texts, and where they ink (see ``_exposed``)."""
        specs = super().generateDrawSpecs(p)
        self._ink = None if specs is None else _ink_of(*specs)
        return specs

    def _exposed(self, painter: QPainter) -> bool:
        """Whether the area being painted (the widget's paint region, the painter's system
        clip) reaches any of the axis's lines or texts. A bar chart's update next to the axis
        reaches its bounding rectangle (its ticks point into the plot), so Qt paints the axis
        with the bars, though mostly no tick lies in the rows repainted. No system clip (an
        export, a pixmap) or a painter that rotates: exposed."""
        engine = painter.paintEngine()
        clip = engine.systemClip() if engine is not None else QRegion()
        transform = painter.deviceTransform()
        if clip.isEmpty() or transform.type().value > QTransform.TransformationType.TxScale.value:
            return True
        return clip.intersects(transform.map(self._ink))

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


_TEXT_PAD_PX = 2  # around each text's box: antialiasing, glyph overhangs


def _ink_of(axis_spec: tuple, tick_specs: list, text_specs: list) -> QRegion:
    """The pixels ``AxisItem.drawPicture`` may touch drawing these specs, in the axis's
    coordinates (unscaled: pixels): each line with half its pen around it (its caps too),
    rounded out to whole pixels, and each text's box with a margin."""
    ink = QRegion()
    for pen, start, end in (axis_spec, *tick_specs):
        # Even without a pen: replayed from a QPicture, a tick of length 0 draws a dot.
        half = max(pen.widthF(), 1.0) / 2  # a width of 0 is a cosmetic 1 px
        line = QRectF(QPointF(start), QPointF(end)).normalized()
        ink += line.adjusted(-half, -half, half, half).toAlignedRect()
    pad = _TEXT_PAD_PX
    for rect, _flags, _text in text_specs:
        ink += QRectF(rect).toAlignedRect().adjusted(-pad, -pad, pad, pad)
    return ink


# -- the bars: one call per look -------------------------------------------------------------------


class GroupedBars(pg.BarGraphItem):
    """Bars that draw every bar of one look (pen and brush) in one call.

    pyqtgraph records a multi-coloured bar chart bar by bar into a QPicture whenever the heights
    change, in a Python loop: 0.6 ms of a click at G = 64. The chart has three looks (up, down,
    no signal), so three ``drawRects`` calls draw the same bars in the same places, each from
    one array of rectangles filled with numpy (a Python ``QRectF`` per bar cost 0.3 ms a paint).

    ``outline_as_fill`` (the lab's chart) fills a bar whose outline is its fill's colour grown by
    half the pen instead of stroking it: cheaper, and at some scales a pixel row off from the
    stroked outline. Without it (the push chart) every bar is stroked and filled as pyqtgraph
    draws it, pixel for pixel.

    ``repaint_changes_only`` (the lab's chart): new heights repaint only the rows where a bar's
    end moved, each run of bars moving alike in one rectangle, not the whole item (whose area
    reaches the axes' ticks, so the axes were painted again on every click). The item's
    bounding rectangle then covers the view's y range, so a new height does not change it.
    """

    def __init__(
        self, *, outline_as_fill: bool = True, repaint_changes_only: bool = False, **opts: object
    ) -> None:
        self._outline_as_fill = outline_as_fill
        self._repaint_changes_only = repaint_changes_only
        self._quiet = False  # within a height change repainted by rows: no whole-item update
        # Per look: its pen, brush, its bars' rectangles, whether the pen only widens them, and
        # how many bars are its (see _group_looks); what the arrays hold: (version, scale,
        # outlined).
        self._looks: list[tuple[QPen, QBrush, object, bool, int]] | None = None
        self._look_arrays: dict[tuple[int, int], object] = {}  # an array per look, kept
        self._by_look = np.zeros(0, dtype=np.intp)
        self._half_pens = np.zeros(0)
        self._drawn: tuple | None = None
        self._version = 0  # counts changes of the bars' rectangles
        self._bounds: QRectF | None = None  # with repaint_changes_only: bars and the y range
        # Without it: pyqtgraph's rectangle, kept until the bars or the view's scale change
        # (Qt asks for it about ten times per new heights, each a Python pass over pixelVectors).
        self._plain_bounds: QRectF | None = None
        super().__init__(**opts)

    def setOpts(self, **opts: object) -> None:  # pyqtgraph override
        self._version += 1
        self._plain_bounds = None
        if opts.keys() & {"pen", "pens", "brush", "brushes", "x", "x0", "x1", "width"}:
            self._looks = None
        if self._repaint_changes_only and self._repaints_by_rows(opts):
            before = self._rectarray.ndarray().copy()
            looks_before = list(zip(self._pens, self._brushes, strict=True))
            self._quiet = True
            try:
                self._set_opts(opts)
            finally:
                self._quiet = False
            looks = zip(self._pens, self._brushes, strict=True)
            recoloured = [
                index
                for index, (look, (pen, brush)) in enumerate(zip(looks_before, looks, strict=True))
                if look[0] is not pen or look[1] is not brush
            ]
            self._repaint_rows(before, self._rectarray.ndarray(), recoloured)
            return
        self._bounds = None
        self._set_opts(opts)

    def _set_opts(self, opts: dict) -> None:
        """``BarGraphItem.setOpts``; new heights (and looks) for the same bars without working
        out every bar's x again (pyqtgraph's ``_prepareData``: a tenth of the chart's part of a
        click at G = 64), each number as ``_prepareData`` computes it."""
        height = opts.get("height")
        if height is not None and not isinstance(height, np.ndarray):
            height = np.array(height)  # as _getNormalizedCoords reads it
        if height is None or not self._heights_only(opts, height):
            super().setOpts(**opts)
            return
        self.opts.update(opts)
        self.picture = None
        self._shape = None
        # As _getNormalizedCoords and _prepareData: y0 = 0, y1 = y0 + height, ordered.
        top = 0 + height
        y0 = np.minimum(0, top, dtype=np.float64)
        y1 = np.maximum(0, top, dtype=np.float64)
        memory = self._rectarray.ndarray()
        memory[:, 1] = y0
        memory[:, 3] = y1 - y0
        self._dataBounds = (self._dataBounds[0], (np.min(y0), np.max(y1)))
        self._updateColors(opts)
        self.prepareGeometryChange()
        self.update()
        self.informViewBoundsChanged()

    def _heights_only(self, opts: dict, height: np.ndarray) -> bool:
        """Whether ``opts`` give new heights (and perhaps pens and brushes) to the bars drawn,
        placed by ``x`` and ``width`` from 0 up (the x columns and bounds then stay as they
        are). Not on a pyqtgraph whose bars skip non-finite values or take a log scale (one
        with ``_rectIndices``): its ``_prepareData`` does more."""
        if not opts.keys() <= {"height", "pens", "brushes"}:
            return False
        current = self.opts
        if any(current.get(name) is not None for name in ("x0", "x1", "y", "y0", "y1")):
            return False
        if hasattr(self, "_rectIndices") or getattr(self, "_dataBounds", None) is None:
            return False
        count = len(self._rectarray)
        x, width = current.get("x"), current.get("width")
        if not isinstance(x, list | np.ndarray) or (isinstance(x, np.ndarray) and x.ndim != 1):
            return False
        if not isinstance(width, float | int) and not (
            isinstance(width, list | np.ndarray) and np.ndim(width) == 1 and len(width) == count
        ):
            return False
        return count > 0 and height.ndim == 1 and len(x) == len(height) == count

    def _repaints_by_rows(self, opts: dict) -> bool:
        """New heights, pens or brushes for the bars shown (one each): the bounds stay, and the
        rows that change repaint."""
        if not opts.keys() <= {"height", "pens", "brushes"} or "height" not in opts:
            return False
        if self._bounds is None or self.scene() is None or self._pens is None:
            return False
        count = len(self._rectarray)
        lengths = {len(opts[name]) for name in opts if opts[name] is not None}  # type: ignore[arg-type]
        return count > 0 and lengths == {count} and len(self._pens) == len(self._brushes) == count

    def prepareGeometryChange(self) -> None:  # Qt override, as pyqtgraph's setOpts calls it
        if not self._quiet:
            super().prepareGeometryChange()

    def update(self, *args: object) -> None:  # Qt override, as pyqtgraph's setOpts calls it
        if not self._quiet:
            super().update(*args)

    def boundingRect(self) -> QRectF:  # pyqtgraph override
        if not self._repaint_changes_only:
            if self._plain_bounds is None:
                self._plain_bounds = super().boundingRect()
            return QRectF(self._plain_bounds)
        if self._bounds is not None:
            return QRectF(self._bounds)
        bounds = super().boundingRect()  # its pens' padding needs the view's pixel size
        view = self.getViewBox()
        if bounds.isNull() or not isinstance(view, pg.ViewBox) or self.getViewWidget() is None:
            return bounds
        low, high = view.viewRange()[1]
        self._bounds = bounds.united(QRectF(bounds.left(), low, bounds.width(), high - low))
        return QRectF(self._bounds)

    def viewRangeChanged(self) -> None:  # pyqtgraph override: the bounds cover the y range
        super().viewRangeChanged()
        self._forget_bounds()

    def viewTransformChanged(self) -> None:  # pyqtgraph override: the pens' padding in units
        super().viewTransformChanged()
        self._forget_bounds()

    def _forget_bounds(self) -> None:
        self._plain_bounds = None
        if self._repaint_changes_only and self._bounds is not None:
            self.prepareGeometryChange()
            self._bounds = None

    def _repaint_rows(self, before: np.ndarray, after: np.ndarray, recoloured: list[int]) -> None:
        """Repaint where a bar's bottom or top moved, from its old place to its new one, and
        all of a bar whose look changed (the pen's half around each), bars whose rows are the
        same in one rectangle."""
        runs: dict[tuple[float, float], list[float]] = {}  # rows -> [left, right] of the bars
        for index in recoloured:
            low = min(before[index, 1], after[index, 1])
            high = max(before[index, 1] + before[index, 3], after[index, 1] + after[index, 3])
            left, right = after[index, 0], after[index, 0] + after[index, 2]
            run = runs.setdefault((float(low), float(high)), [left, right])
            run[0], run[1] = min(run[0], left), max(run[1], right)
        for edge in (1, None):  # the bottoms (y), then the tops (y + height)
            if edge is None:
                old, new = before[:, 1] + before[:, 3], after[:, 1] + after[:, 3]
            else:
                old, new = before[:, edge], after[:, edge]
            moved = np.flatnonzero(old != new)
            lows = np.minimum(old[moved], new[moved]).tolist()
            highs = np.maximum(old[moved], new[moved]).tolist()
            lefts = after[moved, 0].tolist()
            rights = (after[moved, 0] + after[moved, 2]).tolist()
            for low, high, left, right in zip(lows, highs, lefts, rights, strict=True):
                run = runs.get((low, high))
                if run is None:
                    runs[(low, high)] = [left, right]
                else:
                    run[0], run[1] = min(run[0], left), max(run[1], right)
        if len(runs) > _ROW_RUNS:  # bars all moving differently: one repaint of the item
            super().update()
            return
        pad = self.pixelPadding()  # half the (cosmetic) pen, in pixels (the view is not scaled)
        areas = []
        for (low, high), (left, right) in runs.items():
            rows = self.mapRectToScene(QRectF(left, low, right - left, high - low))
            areas.append(rows.adjusted(-pad, -pad, pad, pad))
        repaint_exactly(self.scene(), areas)

    def paint(self, painter: QPainter, *args: object) -> None:  # pyqtgraph override
        if self._singleColor or self._pens is None or self._brushes is None:
            super().paint(painter, *args)
            return
        transform = painter.transform()
        scale = (transform.m11(), transform.m22())
        outlined = painter.testRenderHint(QPainter.RenderHint.Antialiasing) or (
            transform.type().value > QTransform.TransformationType.TxScale.value
        )
        if self._looks is None or len(self._by_look) != len(self._rectarray):
            self._looks = self._group_looks()
        key = (self._version, scale, outlined)
        if self._drawn != key:
            self._fill_looks(scale, outlined)
            self._drawn = key
        for pen, brush, rects, widens, _count in self._looks:
            painter.setPen(Qt.PenStyle.NoPen if widens and not outlined else pen)
            painter.setBrush(brush)
            painter.drawRects(*rects.drawargs())

    def _group_looks(self) -> list[tuple[QPen, QBrush, object, bool, int]]:
        """Per look (in the order the bars first show them) its pen, brush, an array for its
        bars' rectangles (kept per look, filled per paint that needs new ones), whether the pen
        only widens them (see ``outline_as_fill``) and how many bars are its; ``_by_look``: the
        bars sorted by look. Runs on each click that recolours a bar."""
        code_of: dict[tuple[int, int], int] = {}
        firsts: list[tuple[QPen, QBrush]] = []
        codes = []
        for pen, brush in zip(self._pens, self._brushes, strict=True):
            key = (id(pen), id(brush))
            code = code_of.get(key)
            if code is None:
                code = code_of[key] = len(firsts)
                firsts.append((pen, brush))
            codes.append(code)
        by_code = np.array(codes, dtype=np.intp)
        self._by_look = np.argsort(by_code, kind="stable")
        counts = np.bincount(by_code, minlength=len(firsts)).tolist()
        widths = []
        grouped = []
        kept = self._look_arrays if len(self._look_arrays) <= 16 else {}
        for (pen, brush), count in zip(firsts, counts, strict=True):
            widens = self._outline_as_fill and _outline_is_fill(pen, brush)
            widths.append(pen.widthF() / 2 if widens else 0.0)
            key = (id(pen), id(brush))
            array = kept.get(key)
            if array is None:
                array = kept[key] = type(self._rectarray)(QRectF, 4)
            array.resize(count)
            grouped.append((pen, brush, array, widens, count))
        self._look_arrays = kept
        # Per bar in ``_by_look`` order: half its pen when the pen only widens it, else 0.
        self._half_pens = np.repeat(np.array(widths), counts)
        self._drawn = None
        return grouped

    def _fill_looks(self, scale: tuple[float, float], outlined: bool) -> None:
        """Each look's array from the bars' rectangles, in one numpy pass. A bar whose pen only
        widens it is grown by half the pen on every side, in data units at this scale, exactly
        as ``QRectF.adjusted`` grows it: filled without a pen it covers the pixels its fill and
        outline cover, without stroking 64 outlines on every paint (an eighth of a click at
        G = 64). pyqtgraph's rectangles are normalized (width, height >= 0)."""
        rects = self._rectarray.ndarray()[self._by_look]
        if not outlined:
            half = self._half_pens
            dx = half / abs(scale[0]) if scale[0] else np.zeros_like(half)
            dy = half / abs(scale[1]) if scale[1] else np.zeros_like(half)
            rects[:, 0] -= dx
            rects[:, 1] -= dy
            rects[:, 2] += dx
            rects[:, 2] += dx
            rects[:, 3] += dy
            rects[:, 3] += dy
        start = 0
        for _pen, _brush, array, _widens, count in self._looks:
            array.ndarray()[:] = rects[start : start + count]
            start += count


_ROW_RUNS = 16  # more runs of rows than this: the bars repaint as one item


# -- repainting exactly an area --------------------------------------------------------------------

_VIEW_MARGIN_PX = 2.0  # what QGraphicsView adds around an exposed area (DontAdjustForAntialiasing)


def repaint_exactly(scene: QGraphicsScene, areas: list[QRectF]) -> None:
    """Repaint these areas of the scene (scene coordinates, views not scaled), each as its own
    rectangle of whole pixels, in every view.

    ``QGraphicsItem.update(rect)`` joins an item's areas into one rectangle (an item's bands at
    the top and bottom of a plot become the whole plot between them), and a view grows every
    area it repaints by 2 px on each side, for antialiased lines past an item's bounds, unless
    told not to (``DontAdjustForAntialiasing``): each area is asked that much smaller, so the
    repaint is the pixels the area touches, not the axis line 1 px left of the first bar.
    """
    flag = QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing
    exact = any(view.optimizationFlags() & flag for view in scene.views())
    margin = 0.0 if exact else _VIEW_MARGIN_PX
    for area in areas:
        scene.update(_inset(area, margin))


def _inset(rect: QRectF, margin: float) -> QRectF:
    """``rect`` less ``margin`` on each side (less when it is narrower), so that the view,
    growing it by ``margin`` again after rounding out to whole pixels, repaints exactly the
    pixels ``rect`` touches (or more, never fewer)."""
    dx = min(margin, max(rect.width() - _THINNEST, 0.0) / 2)
    dy = min(margin, max(rect.height() - _THINNEST, 0.0) / 2)
    return rect.adjusted(dx, dy, -dx, -dy)


_THINNEST = 1e-3  # an update narrower than this the view would drop as empty


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


def is_closed(plot: pg.PlotItem) -> bool:
    """Whether ``plot`` is shut down: its widget's ``close()`` closed it, and with its axes gone
    nothing may be drawn on it any more."""
    return plot.ctrlMenu is None


def set_text_box(item: pg.TextItem, fill: QBrush, border: QPen) -> None:
    """The box behind a ``TextItem``'s text (its constructor's ``fill`` and ``border``)."""
    item.fill = fill
    item.border = border
    item.update()


def set_hover_size(dots: pg.ScatterPlotItem, size: float) -> None:
    """The size a scatter's dot grows to under the pointer (its constructor's ``hoverSize``)."""
    dots.opts["hoverSize"] = size
