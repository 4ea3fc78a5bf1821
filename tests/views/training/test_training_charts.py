"""TrainingCharts: each algorithm's pass rate and chosen metric over steps, with seed bands."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from grpo_desktop.core.common.theme import DARK, LIGHT, PROJECTOR
from grpo_desktop.core.training.run import ALGORITHM_INFO, ALGORITHMS, TrainingConfig, TrainingRun
from grpo_desktop.core.training.training_snapshot import build_training_snapshot
from grpo_desktop.views.training.training_charts import PASS_RATE_TITLE, TrainingCharts, line_style


@pytest.fixture
def charts(qtbot):
    charts = TrainingCharts(LIGHT)
    qtbot.addWidget(charts)
    charts.resize(700, 500)
    with qtbot.waitExposed(charts):
        charts.show()
    return charts


def finite(band):
    mask = np.isfinite(band.mean) & np.isfinite(band.low) & np.isfinite(band.high)
    return np.flatnonzero(mask), mask


def test_lines_and_bands_show_the_snapshots_numbers(charts, run):
    snapshot = build_training_snapshot(run, metric="degenerate_fraction")
    charts.show_snapshot(snapshot)
    assert charts.objectName() == "trainingCharts"
    for series in snapshot.series:
        for chart, metric in ((0, "pass_rate"), (1, "degenerate_fraction")):
            band = series.bands[metric]
            steps, mask = finite(band)
            x, y = charts.curve_data(chart, series.name)
            np.testing.assert_array_equal(x, steps)
            np.testing.assert_allclose(y, band.mean[mask])
            assert charts.slot_visible(chart, series.name)
            assert charts.slot_items(chart, series.name)[1].isVisible() is series.band
            if not series.band:
                continue  # an unshaded band's edges are not kept up to date
            bx, low, high = charts.band_data(chart, series.name)
            np.testing.assert_array_equal(bx, steps)
            np.testing.assert_allclose(low, band.low[mask])
            np.testing.assert_allclose(high, band.high[mask])
    assert any(series.band for series in snapshot.series)


def test_a_band_shaded_later_shows_the_numbers_of_its_line(charts, run):
    """Edges skipped while a band is unshaded are drawn when it shades (the focus moves)."""
    charts.show_snapshot(build_training_snapshot(run, metric="degenerate_fraction"))
    other = next(name for name in run.config.algorithms[1:])
    snapshot = build_training_snapshot(run, metric="degenerate_fraction", focus=other)
    charts.show_snapshot(snapshot)
    (series,) = [series for series in snapshot.series if series.name == other]
    assert series.band
    band = series.bands["pass_rate"]
    steps, mask = finite(band)
    bx, low, high = charts.band_data(0, other)
    np.testing.assert_array_equal(bx, steps)
    np.testing.assert_allclose(low, band.low[mask])
    np.testing.assert_allclose(high, band.high[mask])
    assert charts.slot_items(0, other)[1].isVisible()


def test_step_zero_nan_is_skipped_not_drawn(charts, run):
    snapshot = build_training_snapshot(run, metric="degenerate_fraction")
    charts.show_snapshot(snapshot)
    band = snapshot.series[0].bands["degenerate_fraction"]
    assert np.isnan(band.mean[0])  # sampled metrics have nothing at step 0
    x, y = charts.curve_data(1, snapshot.series[0].name)
    assert x[0] == 1 and np.isfinite(y).all()
    x, _ = charts.curve_data(0, snapshot.series[0].name)
    assert x[0] == 0  # the pass rate is measured at step 0


def test_titles_and_legend(charts, run):
    snapshot = build_training_snapshot(run, metric="entropy")
    charts.show_snapshot(snapshot)
    assert charts.pass_title.text() == PASS_RATE_TITLE
    assert charts.metric_title.text().startswith("Entropy of the policy")
    assert "nats" in charts.metric_title.text()
    assert charts.legend_texts() == [ALGORITHM_INFO[name].label for name in ALGORITHMS]
    styles = {charts.legend_pen(name).style() for name in ALGORITHMS}
    assert len(styles) >= 5  # colour is never the only cue (the sixth is a custom dash)
    for index, name in enumerate(ALGORITHMS):
        pen = charts.legend_pen(name)
        assert pen.color().name() == LIGHT.series[index]
        line, _ = charts.slot_items(0, name)
        assert line.opts["pen"].color().name() == LIGHT.series[index]
        assert line.opts["pen"].style() == pen.style()
    assert line_style(0) == Qt.PenStyle.SolidLine
    assert line_style(1) != line_style(0)


def test_selected_step_marker(charts, run):
    charts.show_snapshot(build_training_snapshot(run))
    assert charts.marker_step() is None
    charts.show_snapshot(build_training_snapshot(run, selected_step=4))
    assert charts.marker_step() == 4
    assert charts.metric_plot.marker.isVisible()
    charts.show_snapshot(build_training_snapshot(run))
    assert charts.marker_step() is None


def click_at(qtbot, charts, chart: int, x: float, y: float = 0.5) -> None:
    band_plot = (charts.pass_plot, charts.metric_plot)[chart]
    scene_point = band_plot.viewbox.mapViewToScene(QPointF(x, y))
    point = band_plot.widget.mapFromScene(scene_point)
    qtbot.mouseClick(band_plot.widget.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_clicking_a_plot_asks_for_the_nearest_step(charts, run, qtbot):
    charts.show_snapshot(build_training_snapshot(run))
    with qtbot.waitSignal(charts.step_requested) as blocker:
        click_at(qtbot, charts, 0, 3.3)
    assert blocker.args == [3]
    with qtbot.waitSignal(charts.step_requested) as blocker:
        click_at(qtbot, charts, 1, 6.7, 0.05)
    assert blocker.args == [7]
    # Beyond the steps done (the axis runs to the total) or before step 1: the nearest done.
    with qtbot.waitSignal(charts.step_requested) as blocker:
        click_at(qtbot, charts, 0, 17.0)
    assert blocker.args == [10]
    with qtbot.waitSignal(charts.step_requested) as blocker:
        click_at(qtbot, charts, 0, 0.2)
    assert blocker.args == [1]


def test_a_drag_across_a_plot_asks_for_no_step(charts, run, qtbot):
    charts.show_snapshot(build_training_snapshot(run))
    plot = charts.pass_plot
    start = plot.widget.mapFromScene(plot.viewbox.mapViewToScene(QPointF(3.0, 0.5)))
    viewport = plot.widget.viewport()
    with qtbot.assertNotEmitted(charts.step_requested):
        qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
        qtbot.mouseMove(viewport, start + QPoint(40, 0))
        qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=start + QPoint(40, 0))
    with qtbot.waitSignal(charts.step_requested) as blocker:  # a click after it does
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=start)
    assert blocker.args == [3]


def test_no_step_before_the_first_step(charts, qtbot):
    charts.show_snapshot(build_training_snapshot(TrainingRun(TrainingConfig(steps=20, seeds=2))))
    with qtbot.assertNotEmitted(charts.step_requested):
        click_at(qtbot, charts, 0, 5.0)
        qtbot.keyClick(charts, Qt.Key.Key_Left)
    for name in ALGORITHMS:  # step 0's pass rate is one point; sampled metrics have none
        assert len(charts.curve_data(0, name)[0]) == 1
        assert not charts.slot_visible(1, name)


def test_arrow_keys_move_the_selected_step(charts, run, qtbot):
    charts.show_snapshot(build_training_snapshot(run, selected_step=5))
    charts.setFocus()
    with qtbot.waitSignal(charts.step_requested) as blocker:
        qtbot.keyClick(charts, Qt.Key.Key_Left)
    assert blocker.args == [4]
    with qtbot.waitSignal(charts.step_requested) as blocker:
        qtbot.keyClick(charts, Qt.Key.Key_End)
    assert blocker.args == [10]


def test_enter_lists_the_chosen_steps_groups(charts, run, qtbot):
    charts.show_snapshot(build_training_snapshot(run, selected_step=5))
    charts.setFocus()
    with qtbot.assertNotEmitted(charts.step_requested), qtbot.waitSignal(charts.groups_requested):
        qtbot.keyClick(charts, Qt.Key.Key_Return)  # step 5 is chosen: its groups
    charts.show_snapshot(build_training_snapshot(run))  # no step chosen: Enter picks the last
    asked: list[object] = []
    charts.step_requested.connect(asked.append)
    charts.groups_requested.connect(lambda: asked.append("groups"))
    qtbot.keyClick(charts, Qt.Key.Key_Enter)
    assert asked == [10, "groups"]


def test_enter_before_the_first_step_asks_for_nothing(charts, qtbot):
    charts.show_snapshot(build_training_snapshot(TrainingRun(TrainingConfig(steps=20, seeds=2))))
    charts.setFocus()
    with qtbot.assertNotEmitted(charts.groups_requested):
        qtbot.keyClick(charts, Qt.Key.Key_Return)


def test_a_subset_hides_the_other_slots(charts, qtbot):
    run = TrainingRun(TrainingConfig(algorithms=("grpo", "dapo"), steps=20, seeds=2))
    run.run(3)
    charts.show_snapshot(build_training_snapshot(run))
    for name in ALGORITHMS:
        shown = name in ("grpo", "dapo")
        assert charts.slot_visible(0, name) is shown
        assert charts.slot_visible(1, name) is shown
        assert charts.slot_items(0, name)[1].isVisible() is shown
    assert charts.legend_texts() == ["GRPO", "DAPO"]


def test_updates_reuse_the_same_items(charts, run):
    before = {item for item in charts.pass_plot.plot.items}
    before_metric = {item for item in charts.metric_plot.plot.items}
    items = [charts.slot_items(c, n) for c in (0, 1) for n in ALGORITHMS]
    for step in range(1, 11):
        partial = TrainingRun(TrainingConfig(steps=20, seeds=3))
        partial.run(step)
        charts.show_snapshot(build_training_snapshot(partial, metric="kl", selected_step=step))
    charts.show_snapshot(build_training_snapshot(run, metric="grad_norm"))
    assert {item for item in charts.pass_plot.plot.items} == before
    assert {item for item in charts.metric_plot.plot.items} == before_metric
    assert [charts.slot_items(c, n) for c in (0, 1) for n in ALGORITHMS] == items


def test_an_unchanged_snapshot_touches_nothing(charts, run, monkeypatch):
    snapshot = build_training_snapshot(run)
    charts.show_snapshot(snapshot)
    line, _ = charts.slot_items(0, "grpo")
    calls = []
    monkeypatch.setattr(line, "setData", lambda *a, **k: calls.append(a))
    charts.show_snapshot(build_training_snapshot(run))  # new arrays, same numbers
    assert calls == []


def test_metric_without_values_hides_that_slot(charts, run):
    charts.show_snapshot(build_training_snapshot(run, metric="critic_error"))
    assert charts.slot_visible(1, "ppo_critic")
    assert not charts.slot_visible(1, "grpo")  # no critic, no critic error
    assert charts.slot_visible(0, "grpo")


def test_pass_rate_axis_is_zero_to_one_and_metric_axis_fits(charts, run):
    snapshot = build_training_snapshot(run, metric="groups_sampled")
    charts.show_snapshot(snapshot)
    low, high = charts.pass_plot.viewbox.viewRange()[1]
    assert low < 0 < 1 < high < 1.1
    low, high = charts.metric_plot.viewbox.viewRange()[1]
    values = np.concatenate([s.bands["groups_sampled"].high[1:] for s in snapshot.series])
    assert low <= values.min() and high >= values.max()
    x_low, x_high = charts.pass_plot.viewbox.viewRange()[0]
    assert x_low == pytest.approx(0) and x_high == pytest.approx(20)


@pytest.mark.parametrize("theme", [LIGHT, DARK, PROJECTOR])
def test_themes_restyle_lines(charts, run, theme, qtbot):
    charts.show_snapshot(build_training_snapshot(run))
    charts.set_theme(theme)
    for index, name in enumerate(ALGORITHMS):
        pen = charts.slot_items(0, name)[0].opts["pen"]
        assert pen.color().name() == theme.series[index]
        assert pen.widthF() >= theme.stroke_width
    light = TrainingCharts(LIGHT)
    qtbot.addWidget(light)
    assert (
        charts.slot_items(0, "grpo")[0].opts["pen"].widthF()
        >= light.slot_items(0, "grpo")[0].opts["pen"].widthF()
    )


def test_accessible_names(charts, run):
    charts.show_snapshot(build_training_snapshot(run, metric="kl"))
    assert charts.accessibleName() == "Training charts"
    first, second = charts.plots()
    assert first.accessibleName() == "Pass rate chart"
    assert "KL" in second.accessibleName()


def test_legend_labels_are_plain_text(charts, run):
    snapshot = build_training_snapshot(run)
    odd = dataclasses.replace(snapshot.series[0], label="<b>bold</b>")
    charts.show_snapshot(dataclasses.replace(snapshot, series=(odd, *snapshot.series[1:])))
    assert charts.legend_labels[0].textFormat() == Qt.TextFormat.PlainText
    assert charts.legend_texts()[0] == "<b>bold</b>"


def test_a_flat_non_negative_metric_starts_at_zero(charts):
    fresh = TrainingRun(TrainingConfig(steps=20, seeds=2))
    charts.show_snapshot(build_training_snapshot(fresh, metric="kl"))  # 0 for all at step 0
    low, high = charts.metric_plot.viewbox.viewRange()[1]
    assert low == pytest.approx(0) and high > 0


def test_a_diverged_algorithm_is_named_in_a_visible_note_over_the_charts(charts):
    run = TrainingRun(
        TrainingConfig(algorithms=("grpo", "dapo"), steps=6, seeds=2, beta=10.0, epochs=8)
    )
    run.run()
    charts.show_snapshot(build_training_snapshot(run))
    note = charts.divergence_note
    assert note.isVisible()
    assert note.text().startswith("DAPO diverged ") and "step 1" in note.text()
    assert note.textFormat() == Qt.TextFormat.PlainText
    assert note.geometry().bottom() < charts.pass_plot.widget.geometry().top()
    assert charts.slot_visible(0, "grpo")


def test_a_stable_run_shows_no_divergence_note(charts, run):
    charts.show_snapshot(build_training_snapshot(run))
    assert not charts.divergence_note.isVisible() and charts.divergence_note.text() == ""


def test_with_six_algorithms_only_the_focus_algorithms_band_is_shaded(qtbot):
    from grpo_desktop.core.training.run import TrainingConfig, TrainingRun
    from grpo_desktop.core.training.training_snapshot import build_training_snapshot
    from grpo_desktop.views.training.training_charts import TrainingCharts

    charts = TrainingCharts()
    qtbot.addWidget(charts)
    run = TrainingRun(TrainingConfig(steps=6, seeds=2, batch=2))
    run.run(3)
    for focus in ("grpo", "dapo"):
        charts.show_snapshot(build_training_snapshot(run, focus=focus))
        for chart in (0, 1):
            shaded = {
                name
                for name in run.config.algorithms
                if charts.slot_items(chart, name)[1].isVisible()
            }
            lines = {
                name
                for name in run.config.algorithms
                if charts.slot_items(chart, name)[0].isVisible()
            }
            assert shaded == {focus}, (chart, focus)
            assert lines >= {"grpo", "dapo", "rloo"}


def test_a_screen_reader_gets_the_charts_as_a_chart_with_each_algorithms_latest_value(charts, run):
    from PySide6.QtGui import QAccessible

    from grpo_desktop.core.files.describe import training_charts_text

    snapshot = build_training_snapshot(run)
    charts.show_snapshot(snapshot)
    interface = QAccessible.queryAccessibleInterface(charts)
    assert interface.role() == QAccessible.Role.Chart
    told = interface.text(QAccessible.Text.Description)
    assert told == training_charts_text(snapshot)
    assert told.startswith("Training run at step 10 of 20.") and "GRPO 0." in told


def test_built_in_steps_each_plots_lines_and_bands_come_in_two_halves(qtbot):
    """Six slots of pyqtgraph items (a line, two edges and a band each) are 10-14 ms: half a
    step, so no step of the idle prebuild holds a click for a plot's whole set."""
    charts = TrainingCharts(LIGHT, stepwise=True)
    qtbot.addWidget(charts)
    names = list(charts.steps)
    for plot in ("pass rate plot", "metric plot"):
        halves = [name for name in names if name.startswith(f"{plot}: lines and bands")]
        assert halves == [
            f"{plot}: lines and bands 1–3",
            f"{plot}: lines and bands 4–6 and the marker",
        ]
    assert all(len(plot.slots) == 6 for plot in (charts.pass_plot, charts.metric_plot))
