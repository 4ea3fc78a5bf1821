"""pyqtgraph's internals are read in one module, and only on a pyqtgraph it was checked against."""

from __future__ import annotations

import ast
import pathlib

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QApplication

import grpo_desktop.views
from grpo_desktop.views.common import pyqtgraph_internals
from grpo_desktop.views.common.pyqtgraph_internals import (
    VERIFIED,
    RememberingAxis,
    is_verified,
    version_tuple,
)

# The private attributes the module reads, and the pyqtgraph class that must still have them.
_PRIVATE = {
    "_singleColor": pg.BarGraphItem,
    "_pens": pg.BarGraphItem,
    "_brushes": pg.BarGraphItem,
    "_rectarray": pg.BarGraphItem,
    "_dataBounds": pg.BarGraphItem,
    "_shape": pg.BarGraphItem,
    "_updateColors": pg.BarGraphItem,
    "_tickLevels": pg.AxisItem,
    "_tickSpacing": pg.AxisItem,
    "_tickDensity": pg.AxisItem,
    "_updateMaxTextSize": pg.AxisItem,
}


def test_the_installed_pyqtgraph_is_one_the_internals_were_verified_with():
    assert is_verified(pg.__version__), (
        f"pyqtgraph {pg.__version__} is outside the verified range {VERIFIED[0]}–{VERIFIED[1]}: "
        "check every attribute views/common/pyqtgraph_internals.py reads against its source, "
        "run the "
        "views tests, then widen VERIFIED and the pin in pyproject.toml"
    )


def test_versions_outside_the_range_are_refused():
    assert version_tuple("0.14.0") == (0, 14, 0)
    assert version_tuple("0.13.7.dev0") == (0, 13, 7)
    assert version_tuple("0.15.0rc1") == (0, 15, 0)
    assert is_verified(VERIFIED[0]) and is_verified(VERIFIED[1])
    for version in ("0.13.6", "0.14.1", "0.15.0", "1.0.0", "", "dev"):
        assert not is_verified(version), version


def test_the_private_attributes_still_exist_on_the_items_that_use_them(qtbot):
    bars = pg.BarGraphItem(x=[1, 2], height=[1, -1], width=0.6, pens=["r", "g"], brushes=["r", "g"])
    axis = pg.AxisItem("left")
    axis.setTicks([[(0.0, "0")]])
    for name, kind in _PRIVATE.items():
        item = bars if kind is pg.BarGraphItem else axis
        assert hasattr(item, name), name
    assert hasattr(axis, "picture") and axis.grid is False
    band = pyqtgraph_internals.NumpyBand(pg.PlotCurveItem([0, 1], [0, 1]), pg.PlotCurveItem())
    assert band.curves is not None
    text = pg.TextItem("x")
    assert hasattr(text, "fill") and hasattr(text, "border")
    assert "hoverSize" in pg.ScatterPlotItem().opts


# What only pyqtgraph_internals.py may touch: private attributes on any object, and pyqtgraph's
# undocumented attributes inside a subclass of one of its items.
_PRIVATE_ANYWHERE = {"_singleColor", "_rectarray", "_tickLevels"}
_INTERNAL_ON_SELF = {*_PRIVATE, "picture", "curves"}


def _pyqtgraph_classes(tree: ast.Module) -> list[ast.ClassDef]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(ast.unparse(base).startswith(("pg.", "pyqtgraph.")) for base in node.bases)
    ]


@pytest.mark.parametrize(
    "path",
    sorted(pathlib.Path(grpo_desktop.views.__file__).parent.rglob("*.py")),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_no_other_view_touches_pyqtgraphs_internals(path):
    if path.name == "pyqtgraph_internals.py":
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    offending = [
        f"{path.name}:{node.lineno} {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in _PRIVATE_ANYWHERE
    ]
    for cls in _pyqtgraph_classes(tree):
        offending += [
            f"{path.name}:{node.lineno} {ast.unparse(node)}"
            for node in ast.walk(cls)
            if isinstance(node, ast.Attribute)
            and ast.unparse(node.value) == "self"
            and node.attr in _INTERNAL_ON_SELF
        ]
    assert not offending, offending


def _painted(item: pg.BarGraphItem, scale: tuple[float, float]) -> QImage:
    """``item`` painted on white at ``scale`` (data units to pixels, y up, the origin between
    pixels), as a view does."""
    image = QImage(240, 200, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.translate(10.37, 100.61)
    painter.scale(scale[0], -scale[1])
    item.paint(painter)
    painter.end()
    return image


@pytest.mark.parametrize("pen_px", [1.0, 1.5, 2.0, 3.0])
@pytest.mark.parametrize("scale", [(20.0, 40.0), (13.7, 91.3), (7.25, 18.6)])
def test_grouped_bars_stroked_paint_the_pixels_pyqtgraphs_bars_paint(qtbot, pen_px, scale):
    heights = [0.83, -0.41, 0.0, 1.137, -1.02, 0.5, -0.077, 0.31]
    xs = [index + 1 - 0.2 for index in range(len(heights))]
    looks = []
    for colour, style in (
        ("#0b6e4f", Qt.BrushStyle.SolidPattern),
        ("#b34700", Qt.BrushStyle.SolidPattern),
        ("#0b6e4f", Qt.BrushStyle.BDiagPattern),
    ):
        pen = QPen(QColor(colour))
        pen.setWidthF(pen_px)
        pen.setCosmetic(True)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        looks.append((QBrush(QColor(colour), style), pen))
    chosen = [looks[index % 3] for index in range(len(heights))]
    options = dict(
        x=xs,
        height=heights,
        width=0.38,
        brushes=[brush for brush, _ in chosen],
        pens=[pen for _, pen in chosen],
    )
    expected = _painted(pg.BarGraphItem(**options), scale)
    grouped = pyqtgraph_internals.GroupedBars(outline_as_fill=False, **options)
    assert _painted(grouped, scale) == expected


def _axis_plot(qtbot, left: pg.AxisItem) -> pg.PlotWidget:
    widget = pg.PlotWidget(axisItems={"left": left})
    qtbot.addWidget(widget)
    widget.resize(320, 240)
    font = QFont()
    font.setPointSizeF(11.0)
    left.setTickFont(font)
    left.enableAutoSIPrefix(False)
    widget.getPlotItem().getViewBox().disableAutoRange()
    widget.show()
    return widget


def test_an_axis_with_its_own_ticks_replays_a_range_it_drew_as_pyqtgraph_draws_it(
    qtbot, monkeypatch
):
    remembering = pyqtgraph_internals.RememberingAxis("left")
    plain = pg.AxisItem("left")
    widgets = (_axis_plot(qtbot, remembering), _axis_plot(qtbot, plain))
    drawn: list[pg.AxisItem] = []
    generate = pg.AxisItem.generateDrawSpecs
    monkeypatch.setattr(
        pg.AxisItem, "generateDrawSpecs", lambda self, p: drawn.append(self) or generate(self, p)
    )
    narrow, wide = (-0.05, 0.05), (-1234.5, 1234.5)  # -1234.5 widens the axis, 0.05 not
    replayed = []
    for visit, (low, high) in enumerate((narrow, wide) * 3):
        for widget in widgets:
            widget.getPlotItem().getViewBox().setYRange(low, high, padding=0)
        drawn.clear()
        for _ in range(2):  # painted, then re-laid out to its labels' width and painted again
            images = [widget.grab().toImage() for widget in widgets]
            QApplication.processEvents()
        assert images[0] == images[1], (visit, low, high)
        # The axis's width follows its widest label, replayed or drawn.
        assert remembering.width() == plain.width() and remembering.textWidth == plain.textWidth
        assert plain in drawn
        replayed.append(remembering not in drawn)
    assert replayed[-2:] == [True, True], "ranges seen before are replayed, not drawn again"


def test_the_bars_array_has_what_grouped_bars_draw_from(qtbot):
    bars = pg.BarGraphItem(x=[1, 2], height=[1, -1], width=0.6, pens=["r", "g"], brushes=["r", "g"])
    array = type(bars._rectarray)(QRectF, 4)
    array.resize(2)
    array.ndarray()[:] = [[0, 0, 1, 1], [2, 0, 1, 1]]
    assert len(array.drawargs()) in (1, 2)  # PySide: (first, count); PyQt: (array,)


def test_an_axis_keeps_its_pixels_where_the_area_painted_misses_its_lines_and_texts(qtbot):
    """Its ticks point into the plot, so its bounding rectangle takes the plot's first pixels:
    an area there between two ticks paints nothing of the axis; one over a tick paints it."""
    axis = RememberingAxis("left")
    widget = pg.PlotWidget(axisItems={"left": axis})
    qtbot.addWidget(widget)
    widget.setYRange(0, 10, padding=0)
    axis.setTicks([[(v, str(v)) for v in (0, 5, 10)]])
    widget.resize(400, 300)
    with qtbot.waitExposed(widget):
        widget.show()
    qtbot.wait(30)
    painted = []
    original = pg.AxisItem.paint

    def counting(item, painter, *args):
        painted.append(item)
        return original(item, painter, *args)

    pg.AxisItem.paint = counting
    try:
        view = widget.getPlotItem().getViewBox()
        edge = widget.mapFromScene(view.sceneBoundingRect()).boundingRect().left()
        between = widget.mapFromScene(view.mapViewToScene(QPointF(0, 7.5))).y()
        on_tick = widget.mapFromScene(view.mapViewToScene(QPointF(0, 5.0))).y()
        widget.viewport().repaint(QRect(edge + 2, round(between) - 2, 3, 4))
        assert axis not in painted
        widget.viewport().repaint(QRect(edge + 2, round(on_tick) - 2, 3, 4))
        assert axis in painted
    finally:
        pg.AxisItem.paint = original
