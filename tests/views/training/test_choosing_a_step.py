"""Choosing a step (or the focus algorithm) redraws only what it changes: the marker, the
frontier's dots and caption, the step's groups. The curves and bands stay as they are drawn."""

from __future__ import annotations

import pytest

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.core.training.run import ALGORITHMS
from grpo_desktop.core.training.training_snapshot import (
    build_training_snapshot,
    rechoose_training_snapshot,
)
from grpo_desktop.views.training.frontier_plot import FrontierPlot
from grpo_desktop.views.training.step_groups import StepGroups
from grpo_desktop.views.training.training_charts import TrainingCharts
from grpo_desktop.views.training.training_controls import TrainingControls


@pytest.fixture
def views(qtbot):
    made = (TrainingCharts(LIGHT), FrontierPlot(LIGHT), StepGroups(LIGHT), TrainingControls(LIGHT))
    for view in made:
        qtbot.addWidget(view)
    return made


def show(views, snapshot) -> None:
    for view in views:
        view.show_snapshot(snapshot)


def curve_items(charts: TrainingCharts) -> list[object]:
    items = []
    for plot in (charts.pass_plot, charts.metric_plot):
        for slot in plot.slots:
            items.extend((slot.line, slot.low, slot.high, slot.band))
    return items


def record_set_data(charts: TrainingCharts, monkeypatch) -> list[object]:
    """Every setData call on a chart's lines and band edges, from now on."""
    calls: list[object] = []
    for plot in (charts.pass_plot, charts.metric_plot):
        for slot in plot.slots:
            for item in (slot.line, slot.low, slot.high):
                real = item.setData

                def recording(*args, _item=item, _real=real, **kwargs):
                    calls.append(_item)
                    return _real(*args, **kwargs)

                monkeypatch.setattr(item, "setData", recording)
    return calls


def test_choosing_a_step_leaves_the_curves_data_untouched(views, run, monkeypatch):
    charts = views[0]
    shown = build_training_snapshot(run)
    show(views, shown)
    items = curve_items(charts)
    drawn = {name: charts.curve_data(0, name)[1].copy() for name in run.config.algorithms}
    calls = record_set_data(charts, monkeypatch)
    chosen = rechoose_training_snapshot(shown, run, focus=shown.focus, selected_step=4)
    show(views, chosen)
    assert calls == [], "no line or band edge was set again"
    assert curve_items(charts) == items, "the same graphics items"
    for name in run.config.algorithms:
        assert (charts.curve_data(0, name)[1] == drawn[name]).all()


def test_the_marker_caption_and_groups_show_the_chosen_step(views, run):
    charts, frontier, groups, _controls = views
    shown = build_training_snapshot(run)
    show(views, shown)
    chosen = rechoose_training_snapshot(shown, run, focus=shown.focus, selected_step=4)
    show(views, chosen)
    assert charts.marker_step() == 4
    assert "at step 4" in frontier.caption_text()
    assert "at step 4" in frontier.accessibleDescription(), "a screen reader hears it too"
    assert groups.heading.text().startswith("Step 4 ")
    assert groups.list.count() == len(chosen.groups) > 0
    full = build_training_snapshot(run, selected_step=4)
    assert [groups.list.item(i).text() for i in range(groups.list.count())] == [
        f"#{g.index + 1} {g.title} · rewards {g.rewards} · {g.verdict}" for g in full.groups
    ]
    x, _y = frontier.dot_positions()
    assert sorted(x) == sorted(dot.pass_rate for dot in full.dots), "the dots at step 4"


def test_choosing_a_focus_shades_its_band_without_setting_the_lines_again(views, run, monkeypatch):
    charts, frontier, _groups, controls = views
    shown = build_training_snapshot(run, focus="grpo")
    show(views, shown)
    calls = record_set_data(charts, monkeypatch)
    chosen = rechoose_training_snapshot(shown, run, focus="rloo", selected_step=None)
    show(views, chosen)
    lines = {slot.line for plot in (charts.pass_plot, charts.metric_plot) for slot in plot.slots}
    assert not lines & set(calls), "no mean line set again"
    rloo = ALGORITHMS.index("rloo")
    assert charts.pass_plot.slots[rloo].band.isVisible()
    assert not charts.pass_plot.slots[ALGORITHMS.index("grpo")].band.isVisible()
    assert controls.focus_combo.currentData() == "rloo"
    assert "RLOO" in frontier.caption_text()
