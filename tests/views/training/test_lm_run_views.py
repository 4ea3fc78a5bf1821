"""The tiny model's Training views: they draw an LMRunSnapshot and emit requests, nothing more."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt

from grpo_desktop.core.common.theme import LIGHT, get_theme
from grpo_desktop.core.tinylm.grpo import LMTrainingRun
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.lm_run_snapshot import LM_METRICS, build_lm_run_snapshot
from grpo_desktop.views.training.lm_frontier import LMFrontierPlot
from grpo_desktop.views.training.lm_run_charts import LMRunCharts
from grpo_desktop.views.training.lm_run_controls import PAUSE_TEXT, PLAY_TEXT, LMRunControls
from grpo_desktop.views.training.lm_step_groups import LMStepGroups

TINY = LMTrainingConfig(steps=3, batch=4, group_size=4, eval_every=1)


@pytest.fixture(scope="module")
def run() -> LMTrainingRun:
    made = LMTrainingRun(TINY)
    made.run(2)
    return made


def snapshot_of(run, **options):
    return build_lm_run_snapshot(run.config, run.metrics, run.evals, run.groups, **options)


def test_charts_draw_every_step_and_the_chosen_metric(qtbot, run):
    charts = LMRunCharts(LIGHT)
    qtbot.addWidget(charts)
    charts.show_snapshot(snapshot_of(run, metric="kl"))
    steps, values = charts.metric_curve.getData()
    assert list(steps) == [1, 2]
    np.testing.assert_allclose(values, [m.kl for m in run.metrics])
    assert charts.metric_combo.currentData() == "kl"
    assert charts.metric_combo.count() == len(LM_METRICS)  # all seven metrics can be chosen
    assert "exact pass rate" in charts.legend.text()
    with qtbot.waitSignal(charts.metric_requested) as asked:
        charts.metric_combo.activated.emit(charts.metric_combo.findData("entropy"))
    assert asked.args == ["entropy"]


def test_charts_keys_choose_a_step(qtbot, run):
    charts = LMRunCharts(LIGHT)
    qtbot.addWidget(charts)
    charts.show_snapshot(snapshot_of(run))  # the latest step (2) is listed
    with qtbot.waitSignal(charts.step_requested) as asked:
        qtbot.keyClick(charts, Qt.Key.Key_Left)
    assert asked.args == [1]
    with qtbot.waitSignal(charts.step_requested) as asked:
        qtbot.keyClick(charts, Qt.Key.Key_End)
    assert asked.args == [2]


def test_frontier_dots_sit_at_the_held_out_pass_rates(qtbot, run):
    frontier = LMFrontierPlot(LIGHT)
    qtbot.addWidget(frontier)
    snapshot = snapshot_of(run)
    frontier.show_snapshot(snapshot)
    x, y = frontier.dot_positions()
    np.testing.assert_allclose(x, run.evals[-1].pass_rates)
    np.testing.assert_allclose(y, snapshot.dots_y)
    assert frontier.caption.text().startswith("Dots: the 500 held-out prompts")
    assert "after step 2" in frontier.caption.text()


def test_controls_ask_for_one_setting_and_showing_asks_nothing(qtbot, run):
    controls = LMRunControls(LIGHT)
    qtbot.addWidget(controls)
    asked = []
    controls.config_requested.connect(asked.append)
    controls.show_snapshot(snapshot_of(run, playing=True))
    assert asked == [] and controls.play_button.text() == PAUSE_TEXT
    controls.fields["batch"].setValue(8)
    assert asked == [replace(TINY, batch=8)]
    combo = controls.fields["algorithm"]
    combo.setCurrentIndex(combo.findData("dapo"))
    combo.activated.emit(combo.currentIndex())
    assert asked[-1] == replace(TINY, algorithm="dapo")
    controls.show_snapshot(snapshot_of(run))
    assert controls.play_button.text() == PLAY_TEXT
    with qtbot.waitSignal(controls.play_requested) as play:
        qtbot.mouseClick(controls.play_button, Qt.MouseButton.LeftButton)
    assert play.args == [True]
    for field in controls.fields.values():
        assert field.accessibleName()


def test_controls_show_a_refusal_as_plain_text(qtbot, run):
    controls = LMRunControls(LIGHT)
    qtbot.addWidget(controls)
    controls.show()
    controls.show_snapshot(snapshot_of(run, refusal="<b>These settings were not applied.</b>"))
    assert controls.refusal.isVisible()
    assert controls.refusal.textFormat() == Qt.TextFormat.PlainText


def test_step_groups_list_the_step_and_ask_for_a_group(qtbot, run):
    groups = LMStepGroups(LIGHT)
    qtbot.addWidget(groups)
    groups.show_snapshot(snapshot_of(run, selected_step=1))
    assert groups.list.count() == TINY.batch
    assert groups.heading.text().startswith("Step 1's groups")
    with qtbot.waitSignal(groups.group_requested) as asked:
        groups.list.itemActivated.emit(groups.list.item(3))
    assert asked.args == [3]


@pytest.mark.parametrize("theme", ["dark", "projector"])
def test_every_view_takes_a_theme(qtbot, run, theme):
    for view in (LMRunCharts(), LMFrontierPlot(), LMRunControls(), LMStepGroups()):
        qtbot.addWidget(view)
        view.set_theme(get_theme(theme))
        view.show_snapshot(snapshot_of(run))
