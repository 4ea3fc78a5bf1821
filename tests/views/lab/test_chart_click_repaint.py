"""A click repaints only what it changes in the chart: the rows where bars end, the clicked bar,
not the axes. What the window then shows is what a full paint of the same state draws."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pyqtgraph as pg
import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent, QRect
from PySide6.QtGui import QImage, QRegion

from grpo_desktop.core.common.theme import DARK, LIGHT, PROJECTOR
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, Push, build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.advantage_chart import AdvantageChart


def make_snapshot(correct: Sequence[bool]) -> LabSnapshot:
    return build_snapshot(get_problem("mult-23x47"), list(correct), "textbook")


@pytest.fixture
def make_chart(qtbot):
    def make(width: int = 1014, height: int = 578, theme=LIGHT) -> AdvantageChart:
        chart = AdvantageChart(theme)
        qtbot.addWidget(chart)
        chart.set_animation_enabled(False)
        chart.resize(width, height)
        with qtbot.waitExposed(chart):
            chart.show()
        qtbot.wait(30)
        return chart

    return make


@pytest.fixture
def axis_paints(monkeypatch) -> list[str]:
    """Each axis drawing (or replay) painted, by the axis's side."""
    painted: list[str] = []
    original = pg.AxisItem.paint

    def counting(axis, painter, *args):
        painted.append(axis.orientation)
        return original(axis, painter, *args)

    monkeypatch.setattr(pg.AxisItem, "paint", counting)
    return painted


def shown(chart: AdvantageChart) -> QImage:
    """What the window shows now: its pixels as painted, update after update."""
    return chart.screen().grabWindow(chart.winId()).toImage()


def painted_afresh(chart: AdvantageChart) -> QImage:
    """The same state painted whole, as a freshly shown window would be."""
    image = chart.grab().toImage()
    return image.convertToFormat(shown(chart).format())


def settle(qtbot, chart: AdvantageChart) -> None:
    """Wait until every update posted so far has painted: the window shows what a full paint
    draws. A fixed 30 ms wait ended before the last paint on a loaded machine, whose late paint
    then landed among the paints a test was counting."""
    qtbot.waitUntil(lambda: shown(chart) == painted_afresh(chart))


def assert_shows_a_full_paint(qtbot, chart: AdvantageChart) -> None:
    """What the window shows is what a full paint draws. A loaded machine paints later, never
    differently, so the check waits for the pixels to match, then holds them again once the
    event loop has run on."""
    settle(qtbot, chart)
    qtbot.wait(30)  # no stale update arrives afterwards
    assert shown(chart) == painted_afresh(chart)


def plot_rect(chart: AdvantageChart) -> QRect:
    viewbox = chart.getPlotItem().getViewBox()
    return chart.mapFromScene(viewbox.sceneBoundingRect()).boundingRect()


def test_new_heights_repaint_the_rows_they_change_and_no_axis(make_chart, qtbot, axis_paints):
    """Bar 1 (beside the value axis) stays; the others move a little: only their ends repaint."""
    chart = make_chart()
    pushes = [Push.UP, Push.DOWN] * 8
    texts = [""] * 16
    chart.advantage_plot.reserve(2.0, 5, "0")  # a range that covers both: it stays
    chart.render_bars([1.0, -0.5] * 8, pushes, texts)
    settle(qtbot, chart)
    y_range = chart.y_range()
    paints = EventLog(
        QEvent.Type.Paint, chart.viewport(), record=lambda _, event: QRegion(event.region())
    )
    axis_paints.clear()
    chart.render_bars([1.0, -0.5] + [1.1, -0.6] * 7, pushes, texts)
    qtbot.waitUntil(lambda: paints.count >= 1)  # a loaded machine paints later
    qtbot.wait(30)  # any further paint the change posted
    chart.viewport().removeEventFilter(paints)
    assert chart.y_range() == y_range
    assert axis_paints == []
    assert paints.count == 1
    region, plot = paints.seen[0], plot_rect(chart)
    assert plot.contains(region.boundingRect())
    changed = sum(rect.width() * rect.height() for rect in region)
    assert changed < plot.width() * plot.height() / 10  # two thin bands, not the plot


def test_a_new_colour_repaints_the_whole_bar(make_chart, qtbot):
    chart = make_chart()
    texts = [""] * 4
    chart.advantage_plot.reserve(1.0, 5, "0")
    chart.render_bars([1.0, -1.0, -1.0, 1.0], [Push.UP, Push.DOWN, Push.DOWN, Push.UP], texts)
    qtbot.wait(30)
    chart.render_bars([1.0, 1.0, -1.0, 1.0], [Push.UP, Push.UP, Push.DOWN, Push.UP], texts)
    assert_shows_a_full_paint(qtbot, chart)
    assert chart.bar_colours()[1] == chart.bar_colours()[0]


def test_a_bar_end_crossing_a_tick_repaints_the_tick(make_chart, qtbot, axis_paints):
    """At G = 64 bar 1 reaches under the value axis's tick marks (they point into the plot):
    its end moving across one, the axis paints the tick again over it."""
    chart = make_chart()
    pushes, texts = [Push.UP] * 64, [""] * 64
    chart.advantage_plot.reserve(1.0, 5, "0")
    chart.render_bars([0.5] * 64, pushes, texts)
    qtbot.wait(30)
    tick = min(t for t in chart.y_ticks() if t > 0)
    chart.render_bars([tick + 0.02] + [0.5] * 63, pushes, texts)
    settle(qtbot, chart)
    axis_paints.clear()
    chart.render_bars([tick - 0.02] + [0.5] * 63, pushes, texts)
    qtbot.waitUntil(lambda: axis_paints != [])  # a loaded machine paints later
    qtbot.wait(30)  # any further paint the change posted
    assert axis_paints == ["left"]
    assert_shows_a_full_paint(qtbot, chart)


@pytest.mark.parametrize(
    ("theme", "group_size", "size"),
    [
        (LIGHT, 64, (1014, 578)),
        (PROJECTOR, 64, (1014, 522)),
        (DARK, 64, (502, 318)),
        (LIGHT, 16, (1014, 578)),  # value labels shown
        (PROJECTOR, 8, (502, 318)),
    ],
)
def test_clicked_the_chart_shows_what_a_full_paint_draws(
    make_chart, qtbot, theme, group_size, size
):
    """Click after click, the partial repaints add up to the picture a fresh paint draws."""
    chart = make_chart(*size, theme=theme)
    rng = random.Random(group_size)
    correct = [rng.random() < 0.5 for _ in range(group_size)]
    chart.show_snapshot(make_snapshot(correct))
    qtbot.wait(30)
    for _ in range(12):
        index = rng.randrange(group_size)
        correct[index] = not correct[index]
        chart.show_snapshot(make_snapshot(correct))
        qtbot.wait(20)
    assert_shows_a_full_paint(qtbot, chart)


def test_a_click_in_a_thicker_stroke_shows_what_a_full_paint_draws(make_chart, qtbot):
    chart = make_chart(theme=dataclasses.replace(LIGHT, stroke_width=3.0))
    correct = [True, False] * 16
    chart.show_snapshot(make_snapshot(correct))
    qtbot.wait(30)
    for index in (0, 5, 31, 1):
        correct[index] = not correct[index]
        chart.show_snapshot(make_snapshot(correct))
        qtbot.wait(20)
    assert_shows_a_full_paint(qtbot, chart)


@pytest.mark.parametrize("group_size", [8, 64])
def test_after_an_animation_the_chart_shows_what_a_full_paint_draws(make_chart, qtbot, group_size):
    """Each frame of the reward <-> advantage animation repaints the rows its bars move."""
    chart = make_chart()
    chart.set_animation_enabled(True)
    chart.animation_ms = 240
    rng = random.Random(7)
    chart.show_snapshot(make_snapshot([rng.random() < 0.3 for _ in range(group_size)]))
    qtbot.wait(30)
    for view in ("reward", "advantage"):
        chart.set_view(view)
        qtbot.waitUntil(lambda: not chart.is_animating(), timeout=3000)
        assert_shows_a_full_paint(qtbot, chart)
    chart.set_view("reward", stepped=True)  # waits at r - mean, its caption up
    qtbot.waitUntil(chart.waiting, timeout=3000)
    assert_shows_a_full_paint(qtbot, chart)
