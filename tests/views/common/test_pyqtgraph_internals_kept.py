"""What the charts keep between clicks: the answers' axis's drawings and the bars' bounds."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QApplication

from grpo_desktop.views.common.pyqtgraph_internals import GroupedBars, RememberingAxis


def _shown(qtbot, widget: pg.PlotWidget) -> pg.PlotWidget:
    qtbot.addWidget(widget)
    widget.resize(640, 320)
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


def test_the_answers_axis_replays_every_look_of_a_class_toggling_its_sixteen_cards(
    qtbot, monkeypatch
):
    """Toggling cards 1..16 in turn, twice over, shows 32 looks of the ✓/✗ axis before the first
    comes back; the second round replays each (8 kept drawings drew every one afresh)."""
    axis = RememberingAxis("bottom")
    widget = _shown(qtbot, pg.PlotWidget(axisItems={"bottom": axis}))
    widget.setXRange(0.4, 16.6, padding=0)
    drawn: list[pg.AxisItem] = []
    generate = pg.AxisItem.generateDrawSpecs
    monkeypatch.setattr(
        pg.AxisItem, "generateDrawSpecs", lambda self, p: drawn.append(self) or generate(self, p)
    )
    marks = [True] * 16
    looks = []
    for toggle in range(32):
        marks[toggle % 16] = not marks[toggle % 16]
        looks.append([(i + 1.0, f"#{i + 1} {'✓' if m else '✗'}") for i, m in enumerate(marks)])
    rounds = []
    for _round in range(2):
        drawn.clear()
        for ticks in looks:
            axis.setTicks([ticks])
            widget.grab()
            QApplication.processEvents()
        rounds.append(drawn.count(axis))
    assert rounds[0] >= 32
    assert rounds[1] == 0, "looks seen in the round before are replayed, not drawn again"


def _bars_plot(qtbot) -> tuple[pg.PlotWidget, GroupedBars]:
    widget = _shown(qtbot, pg.PlotWidget())
    bars = GroupedBars(
        outline_as_fill=False,
        x=[1.0, 2.0, 3.0],
        height=[1.0, -0.5, 0.25],
        width=0.4,
        pens=[pg.mkPen("r", width=3)] * 3,
        brushes=[pg.mkBrush("r")] * 3,
    )
    widget.addItem(bars)
    widget.getPlotItem().getViewBox().disableAutoRange()
    widget.setRange(xRange=(0, 4), yRange=(-2, 2), padding=0)
    QApplication.processEvents()
    return widget, bars


def _pyqtgraphs(bars: GroupedBars) -> QRectF:
    return pg.BarGraphItem.boundingRect(bars)


def test_bars_work_out_their_bounds_once_per_change_not_each_time_qt_asks(qtbot, monkeypatch):
    _widget, bars = _bars_plot(qtbot)
    bars.setOpts(height=[1.5, -0.5, 0.25])
    asked: list[GroupedBars] = []
    bounds = pg.BarGraphItem.boundingRect
    monkeypatch.setattr(
        pg.BarGraphItem, "boundingRect", lambda self: asked.append(self) or bounds(self)
    )
    rects = [bars.boundingRect() for _ in range(5)]
    assert len(asked) <= 1
    assert all(rect == rects[0] for rect in rects)


def test_bars_kept_bounds_follow_new_heights_and_the_views_scale(qtbot):
    widget, bars = _bars_plot(qtbot)
    before = bars.boundingRect()
    assert before == _pyqtgraphs(bars)
    bars.setOpts(height=[1.8, -1.2, 0.25])  # new heights: new bounds
    assert bars.boundingRect() == _pyqtgraphs(bars) != before
    padded = bars.boundingRect()
    widget.setRange(yRange=(-20, 20), padding=0)  # a pixel is 10x taller: the pen's pad grows
    QApplication.processEvents()
    assert bars.boundingRect() == _pyqtgraphs(bars) != padded
    padded = bars.boundingRect()
    widget.resize(320, 160)  # the view shrinks: a pixel spans more data
    qtbot.waitUntil(lambda: _pyqtgraphs(bars) != padded, timeout=10000)
    assert bars.boundingRect() == _pyqtgraphs(bars)
