"""The advantage chart writes its text alternative when a screen reader reads it, not on every
click (describing 64 bars was 60-70 µs of each click at G = 64); while one listens, the click
writes it as before, so Qt sends the change. Either way a screen reader reads the bars of the
snapshot shown, through the chart's accessible interface."""

from __future__ import annotations

import random

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QWidget

from grpo_desktop.core.files.describe import advantage_chart_text
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.lab import advantage_chart
from grpo_desktop.views.lab.advantage_chart import HIDDEN_TEXT, AdvantageChart

PROBLEM = get_problem("mult-23x47")


def snapshot_of(checked: list[bool], convention: str = "textbook") -> LabSnapshot:
    return build_snapshot(PROBLEM, checked, convention)


def screen_reader_reads(chart: AdvantageChart) -> str:
    """The description as Qt's accessibility bridge hands it to a screen reader."""
    interface = QAccessible.queryAccessibleInterface(chart)
    assert interface.role() == QAccessible.Role.Chart
    assert interface.text(QAccessible.Text.Name) == "Advantage chart"
    return interface.text(QAccessible.Text.Description)


def expected_text(chart: AdvantageChart, snapshot: LabSnapshot) -> str:
    if chart.advantages_hidden() and chart.view() == "advantage":
        return HIDDEN_TEXT
    return advantage_chart_text(snapshot, chart.view())


@pytest.fixture
def chart(qtbot) -> AdvantageChart:
    chart = AdvantageChart()
    qtbot.addWidget(chart)
    chart.set_animation_enabled(False)
    chart.resize(640, 400)
    return chart


@pytest.fixture
def describe_calls(monkeypatch) -> list[str]:
    """The views the chart described, in order (``advantage_chart_text`` counted)."""
    calls: list[str] = []
    describe = advantage_chart.advantage_chart_text

    def counted(snapshot: LabSnapshot, mode: str = "advantage") -> str:
        calls.append(mode)
        return describe(snapshot, mode)

    monkeypatch.setattr(advantage_chart, "advantage_chart_text", counted)
    return calls


@pytest.fixture
def listening():
    """A screen reader (or a test) hears accessibility events: ``accessible_events.wanted()``."""
    remove = accessible_events.add_listener(lambda event: None)
    yield
    remove()


def test_a_screen_reader_reads_the_bars_of_the_snapshot_shown_after_every_click(chart):
    """Clicks as the lab makes them (some toggles read ahead in idle time, some not), view
    switches and hidden advantages, read after each as a screen reader reads them."""
    rng = random.Random(31)
    checked = [True, False, False, True, True, False]
    for click in range(40):
        toggled = list(checked)
        toggled[rng.randrange(len(toggled))] ^= True
        snapshot = snapshot_of(toggled, rng.choice(["textbook", "dr_grpo"]))
        if click % 3:
            chart.prepare(snapshot)  # idle time after the last click read this toggle ahead
        chart.show_snapshot(snapshot)
        checked = toggled
        if click % 7 == 3:
            chart.set_view("reward" if chart.view() == "advantage" else "advantage", False)
        if click % 11 == 5:
            chart.set_advantages_hidden(not chart.advantages_hidden())
        if click % 2:  # unread snapshots between reads
            assert screen_reader_reads(chart) == expected_text(chart, snapshot), click
    assert screen_reader_reads(chart) == expected_text(chart, snapshot)


def test_a_click_does_not_describe_the_chart_while_nobody_listens(chart, describe_calls):
    assert not accessible_events.wanted()
    for rewards in ([True, False], [True, True], [False, True], [False, False]):
        chart.prepare(snapshot_of(rewards))  # idle time reads the toggle ahead: no text either
        chart.show_snapshot(snapshot_of(rewards))
    chart.set_view("reward", animate=False)
    assert describe_calls == []
    assert screen_reader_reads(chart) == advantage_chart_text(snapshot_of([False, False]), "reward")
    assert describe_calls == ["reward"]
    assert screen_reader_reads(chart) == chart.accessibleDescription()
    assert describe_calls == ["reward"], "read again unchanged: described once"


def test_while_a_screen_reader_listens_each_click_writes_the_text_qt_sends(
    chart, describe_calls, listening
):
    """Qt sends DescriptionChanged from the widget's stored description when it is set: it is
    the new snapshot's right after the click, before anything reads it."""
    for rewards in ([True, False, False], [True, True, False], [True, True, True]):
        snapshot = snapshot_of(rewards)
        chart.show_snapshot(snapshot)
        assert QWidget.accessibleDescription(chart) == advantage_chart_text(snapshot)
    assert describe_calls == ["advantage"] * 3
    chart.set_advantages_hidden(True)
    assert QWidget.accessibleDescription(chart) == HIDDEN_TEXT
    assert screen_reader_reads(chart) == HIDDEN_TEXT
    assert describe_calls == ["advantage"] * 3
