"""Charts are charts to a screen reader: role Chart with their name and text alternative, not the
"filler" (layout) a plot widget is otherwise, which Orca skips over."""

from __future__ import annotations

from PySide6.QtGui import QAccessible

from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.advantage_chart import AdvantageChart
from grpo_desktop.views.training.frontier_plot import FrontierPlot
from grpo_desktop.views.update.push_chart import PushChart


def test_the_advantage_chart_is_a_chart_with_its_bars_in_its_description(qtbot):
    chart = AdvantageChart()
    qtbot.addWidget(chart)
    chart.show_snapshot(build_snapshot(get_problem("mult-23x47"), [True, False, False, True]))
    interface = QAccessible.queryAccessibleInterface(chart)
    assert interface.role() == QAccessible.Role.Chart
    assert interface.text(QAccessible.Text.Name) == "Advantage chart"
    assert "card 2 −1.00 below zero" in interface.text(QAccessible.Text.Description)


def test_the_push_chart_and_the_frontier_are_charts(qtbot):
    for chart in (PushChart(), FrontierPlot()):
        qtbot.addWidget(chart)
        assert QAccessible.queryAccessibleInterface(chart).role() == QAccessible.Role.Chart
