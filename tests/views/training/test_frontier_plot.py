"""FrontierPlot: the informative-group curves per G and every problem's dot on the run's curve."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QAccessible

from grpo_desktop.core.common.theme import DARK, LIGHT, PROJECTOR
from grpo_desktop.core.files.describe import frontier_text
from grpo_desktop.core.training.run import FRONTIER_GROUP_SIZES, TrainingConfig, TrainingRun
from grpo_desktop.core.training.training_snapshot import FrontierDot, build_training_snapshot
from grpo_desktop.views.training.frontier_plot import FrontierPlot, caption_text, dot_tooltip


@pytest.fixture
def frontier(qtbot):
    frontier = FrontierPlot(LIGHT)
    qtbot.addWidget(frontier)
    frontier.resize(450, 350)
    with qtbot.waitExposed(frontier):
        frontier.show()
    return frontier


def test_curves_match_the_snapshot(frontier, run):
    snapshot = build_training_snapshot(run)
    frontier.show_snapshot(snapshot)
    assert frontier.objectName() == "frontierPlot"
    assert frontier.curve_sizes() == FRONTIER_GROUP_SIZES
    for size, values in snapshot.frontier_curves:
        x, y = frontier.curve_data(size)
        np.testing.assert_array_equal(x, snapshot.frontier_p)
        np.testing.assert_array_equal(y, values)
    assert frontier.curve_label_texts() == [f"G = {size}" for size in FRONTIER_GROUP_SIZES]


def test_the_runs_group_size_is_highlighted(frontier, run):
    frontier.show_snapshot(build_training_snapshot(run))
    assert frontier.highlighted_size() == 8
    others = [frontier.curve_width(size) for size in FRONTIER_GROUP_SIZES if size != 8]
    assert all(frontier.curve_width(8) > width for width in others)

    small = TrainingRun(TrainingConfig(steps=20, seeds=2, group_size=4))
    frontier.show_snapshot(build_training_snapshot(small))
    assert frontier.highlighted_size() == 4
    assert frontier.curve_width(4) > frontier.curve_width(8)
    assert "G\u00a0=\u00a04" in frontier.caption_text()


def test_a_group_size_outside_the_usual_ones_gets_its_own_highlighted_curve(frontier):
    odd = TrainingRun(TrainingConfig(steps=20, seeds=2, group_size=6))
    frontier.show_snapshot(build_training_snapshot(odd))
    assert frontier.highlighted_size() == 6
    assert 6 in frontier.curve_sizes() and set(FRONTIER_GROUP_SIZES) <= set(frontier.curve_sizes())
    assert frontier.curve_width(6) > frontier.curve_width(8)


def test_dots_match_the_snapshot(frontier, run):
    snapshot = build_training_snapshot(run)
    frontier.show_snapshot(snapshot)
    x, y = frontier.dot_positions()
    np.testing.assert_allclose(x, [dot.pass_rate for dot in snapshot.dots])
    np.testing.assert_allclose(y, [dot.informative for dot in snapshot.dots])


def test_caption_names_the_focus_algorithm(frontier, run):
    frontier.show_snapshot(build_training_snapshot(run))
    assert frontier.caption_text().startswith(
        "Dots: each problem's pass rate under GRPO; easy problems slide off the right edge: "
        "their groups are all right and teach nothing."
    )
    frontier.show_snapshot(build_training_snapshot(run, focus="rloo"))
    assert "under RLOO;" in frontier.caption_text()
    assert frontier.accessibleDescription().startswith(frontier.caption_text() + "\n")
    assert caption_text("X", 8, True).endswith("G\u00a0=\u00a08.")


def test_focus_changes_the_dots(frontier, run):
    frontier.show_snapshot(build_training_snapshot(run, focus="reinforce"))
    snapshot = build_training_snapshot(run, focus="dr_grpo")
    frontier.show_snapshot(snapshot)
    x, _ = frontier.dot_positions()
    np.testing.assert_allclose(x, [dot.pass_rate for dot in snapshot.dots])
    assert frontier.dots.opts["brush"].color().name() == LIGHT.series[3]


def test_updates_reuse_the_same_items(frontier, run):
    # A run whose G is not a usual one adds its own curve: the most curves the plot ever needs.
    odd = TrainingRun(TrainingConfig(steps=20, seeds=3, group_size=3))
    frontier.show_snapshot(build_training_snapshot(odd))
    frontier.show_snapshot(build_training_snapshot(run))
    items = set(frontier.plot.items)
    curves = list(frontier.curves)
    for step in range(1, 6):
        partial = TrainingRun(TrainingConfig(steps=20, seeds=3, group_size=2 + step))
        partial.run(step)
        frontier.show_snapshot(build_training_snapshot(partial))
    frontier.show_snapshot(build_training_snapshot(run))
    assert set(frontier.plot.items) == items
    assert frontier.curves == curves


def test_an_unchanged_frontier_touches_nothing(frontier, run, monkeypatch):
    frontier.show_snapshot(build_training_snapshot(run))
    calls = []
    monkeypatch.setattr(frontier.dots, "setData", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(frontier.curves[0], "setData", lambda *a, **k: calls.append(a))
    frontier.show_snapshot(build_training_snapshot(run))
    assert calls == []


def test_dot_tooltip_is_plain_text(frontier, run):
    snapshot = build_training_snapshot(run)
    odd = FrontierDot("x", "<b>Bold</b> & co", 0.5, 0.99)
    frontier.show_snapshot(dataclasses.replace(snapshot, dots=(odd, *snapshot.dots[1:])))
    text = frontier.dot_tooltip_for(0)
    assert text.splitlines()[0] == "<b>Bold</b> & co"
    assert "50.0%" in text and "99.0%" in text and "G = 8" in text and "GRPO" in text
    frontier._set_tooltip((0,))  # what a hover over the dot sets
    markup = frontier.hovered_tooltip()
    assert "&lt;b&gt;Bold&lt;/b&gt; &amp; co" in markup and "<b>" not in markup
    frontier._set_tooltip(())
    assert frontier.hovered_tooltip() == ""
    assert dot_tooltip(odd, 4, "RLOO").startswith("<b>Bold</b> & co\npass rate under RLOO")


def test_hovering_a_dot_sets_its_tooltip(frontier, run, qtbot):
    snapshot = build_training_snapshot(run)
    frontier.show_snapshot(snapshot)
    points = frontier.dots.points()
    frontier._on_hovered(frontier.dots, [points[2]], None)
    assert snapshot.dots[2].title in frontier.hovered_tooltip()


@pytest.mark.parametrize("theme", [LIGHT, DARK, PROJECTOR])
def test_themes_restyle(frontier, run, theme):
    frontier.show_snapshot(build_training_snapshot(run))
    frontier.set_theme(theme)
    assert frontier.curves[2].opts["pen"].color().name() == theme.text  # G = 8, the run's
    assert frontier.curves[0].opts["pen"].color().name() == theme.muted
    assert frontier.curve_width(8) >= theme.stroke_width
    assert frontier.dots.opts["brush"].color().name() == theme.series[2]  # GRPO's colour


def test_moving_the_mouse_onto_a_dot_sets_its_tooltip(frontier, run, qtbot):
    snapshot = build_training_snapshot(run)
    frontier.show_snapshot(snapshot)
    dot = snapshot.dots[0]
    viewbox = frontier.plot.getViewBox()
    widget = frontier.plot_widget
    point = widget.mapFromScene(viewbox.mapViewToScene(QPointF(dot.pass_rate, dot.informative)))
    qtbot.mouseMove(widget.viewport(), point)
    assert dot.title in frontier.hovered_tooltip()


def test_before_the_first_step_the_caption_gives_nothing_away():
    fresh = TrainingRun(TrainingConfig(steps=20, seeds=2))
    frontier = FrontierPlot()
    frontier.show_snapshot(build_training_snapshot(fresh))
    assert "slide off" not in frontier.caption_text()  # a class predicts first
    fresh.step()
    frontier.show_snapshot(build_training_snapshot(fresh))
    assert "slide off the right edge" in frontier.caption_text()


def test_with_a_format_reward_the_caption_says_right_answers_can_still_differ():
    started = caption_text("GRPO", 8, drawn=True, weighted=True)
    assert "only format or partial credit still tells their right answers apart" in started
    assert "teach nothing" not in started
    assert "teach nothing" in caption_text("GRPO", 8, drawn=True)


def read(widget) -> tuple[str, str]:
    """A widget's accessible name and description, as a screen reader gets them."""
    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Name), iface.text(QAccessible.Text.Description)


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


def test_built_in_steps_the_curves_come_one_a_step_and_the_first_snapshot_finds_them(qtbot, run):
    """A curve with its label is a pyqtgraph item pair of 2-3 ms: one a step (the usual G's and
    the run's own), so no step of the idle prebuild holds a click for all of them."""
    frontier = FrontierPlot(LIGHT, stepwise=True)
    qtbot.addWidget(frontier)
    names = list(frontier.steps)
    curves = [name for name in names if name.startswith("curve ")]
    assert curves == [f"curve {n}" for n in range(1, len(FRONTIER_GROUP_SIZES) + 2)]
    made = len(frontier.curves)
    frontier.show_snapshot(build_training_snapshot(run))
    assert len(frontier.curves) == made  # none made by the first render
