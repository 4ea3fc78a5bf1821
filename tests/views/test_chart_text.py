"""The charts' text alternatives: what a screen reader reads, updated with every snapshot."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAccessible
from test_push_chart import LENGTH_BIAS

from grpo_desktop.core.describe import frontier_text
from grpo_desktop.core.problems import get_problem
from grpo_desktop.core.snapshot import build_snapshot
from grpo_desktop.core.training_snapshot import build_training_snapshot
from grpo_desktop.views.advantage_chart import HIDDEN_TEXT, AdvantageChart
from grpo_desktop.views.frontier_plot import FrontierPlot
from grpo_desktop.views.push_chart import PushChart

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


def test_the_push_chart_gives_each_answers_totals_under_both_presets(qtbot):
    chart = PushChart()
    qtbot.addWidget(chart)
    chart.show_snapshot(LENGTH_BIAS)
    name, description = read(chart)
    assert name == "Push per answer chart"
    assert description == (
        f"{chart.caption_text()}\n"
        "Total push per answer, verl · token-mean then verl · seq-mean-token-mean:\n"
        "answer 1: +0.200 and +0.577\n"
        "answer 2: −0.550 and −0.289\n"
        "answer 3: −0.400 and 0.000"
    )


def test_the_frontier_gives_each_problems_pass_rate_and_whether_it_teaches(qtbot, run):
    frontier = FrontierPlot()
    qtbot.addWidget(frontier)
    snapshot = build_training_snapshot(run)
    frontier.show_snapshot(snapshot)
    name, description = read(frontier)
    assert name == "Learning frontier"
    lines = description.split("\n")
    assert lines[0] == frontier.caption_text()
    assert "\n".join(lines[1:]) == frontier_text(snapshot.dots, snapshot.config.group_size)
    assert len(lines) == 1 + len(snapshot.dots)
    assert all(": pass rate " in line and "teach" in line for line in lines[1:])
    early = build_training_snapshot(run, selected_step=0)
    frontier.show_snapshot(early)
    assert read(frontier)[1].split("\n")[1:] == frontier_text(early.dots, 8).split("\n")
