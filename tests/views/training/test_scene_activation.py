"""Showing a page of charts paints each chart once: the charts' scenes are kept active, so the
show activates none of their items (each activated item repaints, and the scene's update makes
its view paint the window then and there, before the rest of the page is ready)."""

from __future__ import annotations

from collections import Counter

import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QLabel, QStackedWidget, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.views.training.frontier_plot import FrontierPlot
from grpo_desktop.views.training.lm_frontier import LMFrontierPlot
from grpo_desktop.views.training.lm_run_charts import LMRunCharts
from grpo_desktop.views.training.training_charts import TrainingCharts


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
    counter = EventLog(QEvent.Type.Paint, record=lambda painted, _: id(painted))
    counter.watch(QApplication.instance())
    try:
        window.setCurrentIndex(1)
        settle()
    finally:
        QApplication.instance().removeEventFilter(counter)
    shown = [id(viewport) for viewport in viewports]
    paints = Counter(shown.index(painted) for painted in counter.seen if painted in shown)
    assert paints == dict.fromkeys(range(len(viewports)), 1)
