"""Showing a page of charts paints each chart once: the charts' scenes are kept active, so the
show activates none of their items (each activated item repaints, and the scene's update makes
its view paint the window then and there, before the rest of the page is ready)."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLabel, QStackedWidget, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.views.training.frontier_plot import FrontierPlot
from grpo_desktop.views.training.lm_frontier import LMFrontierPlot
from grpo_desktop.views.training.lm_run_charts import LMRunCharts
from grpo_desktop.views.training.training_charts import TrainingCharts


class PaintCounter(QObject):
    def __init__(self, watched: list[QWidget]) -> None:
        super().__init__()
        self.watched = {id(widget): name for name, widget in enumerate(watched)}
        self.paints: Counter[int] = Counter()

    def eventFilter(self, obj, event):  # Qt override
        if event.type() == QEvent.Type.Paint and id(obj) in self.watched:
            self.paints[self.watched[id(obj)]] += 1
        return False


def settle() -> None:
    for _ in range(10):
        QApplication.processEvents()


@pytest.mark.parametrize(
    ("charts_view", "frontier_view"),
    [(TrainingCharts, FrontierPlot), (LMRunCharts, LMFrontierPlot)],
    ids=["toy run", "tiny model"],
)
def test_showing_a_page_of_charts_paints_each_chart_once(qtbot, charts_view, frontier_view):
    window = QStackedWidget()
    qtbot.addWidget(window)
    window.addWidget(QLabel("the lab"))
    page = QWidget()
    column = QVBoxLayout(page)
    charts, frontier = charts_view(LIGHT), frontier_view(LIGHT)
    column.addWidget(charts)
    column.addWidget(QLabel("between the charts"))
    column.addWidget(frontier)
    column.addWidget(QLabel("after them"))
    window.addWidget(page)
    window.resize(900, 900)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    for shown in (1, 0, 1, 0):  # shown and hidden before: the count holds on every show
        window.setCurrentIndex(shown)
        settle()
    viewports = [plot.viewport() for plot in (*charts.plots(), frontier.plot_widget)]
    counter = PaintCounter(viewports)
    QApplication.instance().installEventFilter(counter)
    try:
        window.setCurrentIndex(1)
        settle()
    finally:
        QApplication.instance().removeEventFilter(counter)
    assert counter.paints == dict.fromkeys(range(len(viewports)), 1)
