"""The advantage chart's text alternative: what a screen reader reads, updated with every
snapshot (the push chart's and the frontier's are tested beside them)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAccessible

from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.advantage_chart import HIDDEN_TEXT, AdvantageChart

PROBLEM = get_problem("mult-23x47")


def read(widget) -> tuple[str, str]:
    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Name), iface.text(QAccessible.Text.Description)


@pytest.fixture
def advantage_chart(qtbot):
    chart = AdvantageChart()
    qtbot.addWidget(chart)
    chart.set_animation_enabled(False)
    chart.resize(640, 400)
    return chart


def test_the_advantage_chart_lists_every_bar_and_follows_each_snapshot(advantage_chart):
    advantage_chart.show_snapshot(build_snapshot(PROBLEM, [True, True, True, False]))
    assert read(advantage_chart) == (
        "Advantage chart",
        "Advantage per card (3 pushed up, 1 down): card 1 +0.58 above zero; card 2 +0.58 above "
        "zero; card 3 +0.58 above zero; card 4 −1.73 below zero.",
    )
    advantage_chart.show_snapshot(build_snapshot(PROBLEM, [True, True, True, True]))
    assert read(advantage_chart)[1] == (
        "Advantage per card (nothing pushed): card 1 0.00 zero; card 2 0.00 zero; card 3 0.00 "
        "zero; card 4 0.00 zero."
    )


def test_the_advantage_chart_text_follows_the_view(advantage_chart):
    advantage_chart.show_snapshot(build_snapshot(PROBLEM, [True, False]))
    advantage_chart.set_view("reward", animate=False)
    assert read(advantage_chart)[1] == (
        "Reward per card, par 0.5: card 1 1 above par; card 2 0 below par."
    )
    advantage_chart.set_view("advantage", animate=False)
    assert read(advantage_chart)[1].startswith("Advantage per card (1 pushed up, 1 down)")


def test_hidden_advantages_stay_hidden_in_the_text(advantage_chart):
    advantage_chart.show_snapshot(build_snapshot(PROBLEM, [True, False]))
    advantage_chart.set_advantages_hidden(True)
    assert read(advantage_chart)[1] == HIDDEN_TEXT
    advantage_chart.set_advantages_hidden(False)
    assert "card 1 +1.00 above zero" in read(advantage_chart)[1]
