"""The Training workspace as a user meets it: keys, the workspace bar, Play, clicks, look, closing.

Every test drives the window the way a lecturer does (Ctrl+T, the workspace bar, the Play and
Step buttons, a click on a chart, a click on a group) and reads what is on screen. Playback runs
on a real timer: tests wait for what the user would see, with generous timeouts, never for time.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from workspaces import (
    assert_showing,
    ctrl,
    workspace_button,
)

from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE
from grpo_desktop.views.training.training_controls import PAUSE_TEXT, PLAY_TEXT
from grpo_desktop.window.main_window import MainWindow

LEFT = Qt.MouseButton.LeftButton
PLAY_TIMEOUT_MS = 20_000


def show_training(qtbot, window: MainWindow):
    ctrl(qtbot, window, Qt.Key.Key_T)
    QApplication.processEvents()
    assert_showing(window, TRAINING)
    return window.training_page


def timer_of(page):
    (timer,) = page.state.findChildren(QTimer)
    return timer


def click_step(qtbot, page, step: int, chart: int = 0) -> None:
    """A click on a chart at ``step`` (the middle of the plot's height)."""
    band_plot = (page.charts.pass_plot, page.charts.metric_plot)[chart]
    low, high = band_plot.viewbox.viewRange()[1]
    scene_point = band_plot.viewbox.mapViewToScene(QPointF(step, (low + high) / 2))
    point = band_plot.widget.mapFromScene(scene_point)
    qtbot.mouseClick(band_plot.widget.viewport(), LEFT, pos=point)


def type_into(qtbot, spin, text: str) -> None:
    """Type a new value into one of the run's settings and press Return, as a user does."""
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Return)


def type_group_size(qtbot, page, text: str) -> None:
    type_into(qtbot, page.controls.group_spin, text)


def take_steps(qtbot, page, count: int) -> None:
    for _ in range(count):
        qtbot.mouseClick(page.controls.step_button, LEFT)


# --- switching workspaces ---------------------------------------------------------------------


def test_the_window_opens_on_the_lab_and_builds_no_training_page(window):
    assert_showing(window, LAB)
    assert TRAINING not in window.built_pages, "built the first time it is shown"
    assert window.training_run() is None


def test_ctrl_t_shows_the_training_page_and_ctrl_t_again_returns_to_the_lab(qtbot, window):
    page = show_training(qtbot, window)
    assert page.objectName() == "trainingView" and page.isVisible()
    assert window.windowTitle().startswith("Training run — ")
    assert page.charts.isVisible() and page.frontier.isVisible() and page.controls.isVisible()
    assert page.status.text().startswith("Ready:")
    assert window.training_run() is page.state.run
    ctrl(qtbot, window, Qt.Key.Key_T)
    assert_showing(window, LAB)
    assert not page.isVisible()


def test_ctrl_l_returns_to_the_lab_and_other_workspace_keys_work_from_training(qtbot, window):
    show_training(qtbot, window)
    ctrl(qtbot, window, Qt.Key.Key_L)
    assert_showing(window, LAB)
    show_training(qtbot, window)
    ctrl(qtbot, window, Qt.Key.Key_U)
    assert_showing(window, UPDATE)
    ctrl(qtbot, window, Qt.Key.Key_T)
    assert_showing(window, TRAINING)
    ctrl(qtbot, window, Qt.Key.Key_E)
    assert_showing(window, COMPARE)
    ctrl(qtbot, window, Qt.Key.Key_T)
    assert_showing(window, TRAINING)
    ctrl(qtbot, window, Qt.Key.Key_L)
    assert_showing(window, LAB)


def test_the_workspace_bar_button_shows_training_and_again_returns_to_the_lab(qtbot, window):
    training = workspace_button(window, "trainingWorkspaceAction")
    lab = workspace_button(window, "labWorkspaceAction")
    assert training.text() == "Training run"
    qtbot.mouseClick(training, LEFT)
    assert_showing(window, TRAINING)
    assert training.isChecked() and not lab.isChecked()
    qtbot.mouseClick(training, LEFT)
    assert_showing(window, LAB)
    qtbot.mouseClick(training, LEFT)
    qtbot.mouseClick(lab, LEFT)
    assert_showing(window, LAB)


def test_the_view_menu_lists_training_with_ctrl_t(window):
    entries = {
        action.text(): action.shortcut().toString()
        for action in window.view_menu.actions()
        if action in window.workspace_actions
    }
    assert entries.get("Training run") == "Ctrl+T"
    window.training_action.trigger()  # what choosing the menu entry does
    assert_showing(window, TRAINING)
    window.lab_action.trigger()
    assert_showing(window, LAB)


def test_the_training_page_and_its_parts_are_lesson_targets(qtbot, window):
    page = show_training(qtbot, window)
    assert window.highlight_target("training") is page
    assert window.highlight_target("training-charts") is page.charts
    assert window.highlight_target("frontier") is page.frontier
    assert window.highlight_target("training-controls") is page.controls


# --- playing ----------------------------------------------------------------------------------


def test_play_plays_and_the_button_pauses(qtbot, window):
    page = show_training(qtbot, window)
    button = page.controls.play_button
    assert button.text() == PLAY_TEXT
    qtbot.mouseClick(button, LEFT)
    assert page.state.playing and button.text() == PAUSE_TEXT
    qtbot.waitUntil(lambda: page.state.snapshot.steps_done > 0, timeout=PLAY_TIMEOUT_MS)
    qtbot.waitUntil(lambda: page.controls.progress.value() > 0, timeout=PLAY_TIMEOUT_MS)
    assert "playing" in page.status.text()
    qtbot.mouseClick(button, LEFT)
    assert not page.state.playing and button.text() == PLAY_TEXT
    assert not timer_of(page).isActive()
    steps = page.state.run.step_count
    assert page.status.text().startswith(f"Step {steps} of 200 (paused)")


def test_a_short_run_plays_to_the_end_and_stops(qtbot, window):
    window.workbench.apply_training_config(
        replace(window.workbench.training_config, steps=15, seeds=2)
    )
    page = show_training(qtbot, window)
    page.controls.speed_spin.setValue(240)
    qtbot.mouseClick(page.controls.play_button, LEFT)
    qtbot.waitUntil(lambda: page.state.run.finished, timeout=PLAY_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not page.state.playing, timeout=PLAY_TIMEOUT_MS)
    assert page.controls.play_button.text() == PLAY_TEXT
    assert page.controls.progress.format() == "15 / 15"
    assert not page.controls.step_button.isEnabled(), "nothing left to step"
    assert "finished" in page.status.text()


def test_other_controls_answer_while_the_run_plays(qtbot, window):
    page = show_training(qtbot, window)
    controls = page.controls
    qtbot.mouseClick(controls.play_button, LEFT)
    qtbot.waitUntil(lambda: page.state.snapshot.steps_done > 0, timeout=PLAY_TIMEOUT_MS)
    combo = controls.metric_combo
    before = page.state.snapshot.metric
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # the next metric, chosen with the keyboard
    assert page.state.snapshot.metric != before
    chosen = page.state.snapshot.metric
    assert combo.currentData() == chosen
    assert (
        page.charts.metric_title.text()
        .lower()
        .startswith(page.state.snapshot.metric_label[:10].lower())
    )
    assert page.state.playing, "choosing a metric does not stop the run"
    steps = page.state.snapshot.steps_done
    qtbot.waitUntil(lambda: page.state.snapshot.steps_done > steps, timeout=PLAY_TIMEOUT_MS)
    assert page.state.snapshot.metric == chosen, "the choice survives the frames that follow"
    qtbot.mouseClick(controls.play_button, LEFT)
    assert not page.state.playing


def test_leaving_the_workspace_pauses_the_run(qtbot, window):
    page = show_training(qtbot, window)
    qtbot.mouseClick(page.controls.play_button, LEFT)
    qtbot.waitUntil(lambda: page.state.snapshot.steps_done > 0, timeout=PLAY_TIMEOUT_MS)
    ctrl(qtbot, window, Qt.Key.Key_L)
    assert not page.state.playing and not timer_of(page).isActive()
    show_training(qtbot, window)
    assert page.controls.play_button.text() == PLAY_TEXT


def test_a_settings_edit_restarts_the_run_and_ctrl_z_brings_the_played_run_back(qtbot, window):
    page = show_training(qtbot, window)
    take_steps(qtbot, page, 3)
    assert page.state.run.step_count == 3
    type_group_size(qtbot, page, "4")
    assert window.workbench.training_config.group_size == 4
    assert page.state.run.step_count == 0 and page.status.text().startswith("Ready:")
    assert window.undo_stack.count() == 1
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert window.workbench.training_config.group_size == 8
    assert page.controls.group_spin.value() == 8, "the control shows the old value again"
    assert page.state.run.step_count == 3 and page.state.run.config.group_size == 8
    assert page.controls.progress.format().startswith("3 / "), "the played steps came back"


def test_unticking_an_algorithm_keeps_the_steps_and_ctrl_z_brings_its_line_back(qtbot, window):
    page = show_training(qtbot, window)
    take_steps(qtbot, page, 3)
    box = page.controls.algorithm_boxes["rloo"]
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Space)
    assert "rloo" not in window.workbench.training_config.algorithms
    assert page.state.run.step_count == 3, "unticking an algorithm reset the run"
    assert page.controls.progress.format().startswith("3 / ")
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert box.isChecked() and page.state.run.step_count == 3
    assert "rloo" in {series.name for series in page.state.snapshot.series}


# --- settings the run cannot keep (issue 24, item 6) -----------------------------------------


def test_a_batch_the_run_cannot_keep_is_refused_in_words_and_the_spin_box_shows_the_batch_in_force(
    qtbot, window
):
    page = show_training(qtbot, window)
    controls = page.controls
    type_into(qtbot, controls.steps_spin, "2000")
    type_into(qtbot, controls.seeds_spin, "16")
    assert not controls.refusal.isVisible()
    type_into(qtbot, controls.batch_spin, "32")  # inside the spin box's range: raised before
    assert controls.batch_spin.value() == 8, "the control shows the batch in force"
    assert window.workbench.training_config.batch == 8 and page.state.run.config.batch == 8
    assert controls.refusal.isVisible()
    assert controls.refusal.text().startswith("Batch 32 was not applied: this run would keep ")
    assert "batch can be at most 16; it stays 8." in controls.refusal.text()
    assert window.undo_stack.count() == 2, "the refused edit is not an undo step"
    type_into(qtbot, controls.batch_spin, "16")
    assert window.workbench.training_config.batch == 16 and controls.batch_spin.value() == 16
    assert not controls.refusal.isVisible()


def test_an_algorithm_the_run_cannot_keep_is_refused_and_its_box_unticked_again(qtbot, window):
    page = show_training(qtbot, window)
    controls = page.controls
    dapo = controls.algorithm_boxes["dapo"]
    dapo.setFocus()
    qtbot.keyClick(dapo, Qt.Key.Key_Space)  # five algorithms
    assert "dapo" not in window.workbench.training_config.algorithms
    type_into(qtbot, controls.steps_spin, "2000")
    type_into(qtbot, controls.seeds_spin, "16")
    type_into(qtbot, controls.batch_spin, "10")
    type_into(qtbot, controls.group_spin, "16")
    assert window.workbench.training_config.group_size == 16
    dapo.setFocus()
    qtbot.keyClick(dapo, Qt.Key.Key_Space)
    assert not dapo.isChecked(), "unticked again: the algorithms in force"
    assert "dapo" not in window.workbench.training_config.algorithms
    assert controls.refusal.text().startswith("Adding DAPO was not applied: this run would keep")


# --- a run that diverges (issue 24, item 7) --------------------------------------------------


def test_a_diverging_run_says_which_algorithm_diverged_and_warns_nothing_on_stderr(
    qtbot, window, recwarn
):
    page = show_training(qtbot, window)
    type_into(qtbot, page.controls.beta_spin, "10")
    type_into(qtbot, page.controls.epochs_spin, "8")
    assert page.state.run.config.beta == 10.0 and page.state.run.config.epochs == 8
    assert not page.charts.divergence_note.isVisible()
    take_steps(qtbot, page, 5)
    note = page.charts.divergence_note
    assert note.isVisible()
    assert note.text().startswith("DAPO diverged ") and "step 1" in note.text()
    assert "nan" not in (note.text() + page.status.text()).lower()
    assert page.charts.slot_visible(0, "grpo"), "the others' lines stay"
    runtime = [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    assert runtime == [], [str(w.message) for w in runtime]
    # The frontier can show DAPO's problems too: no crash on a policy that is not a number.
    page.controls.focus_combo.setFocus()
    index = page.controls.focus_combo.findData("dapo")
    page.controls.focus_combo.setCurrentIndex(index)
    page.controls.focus_combo.activated.emit(index)
    assert page.state.snapshot.focus == "dapo"


# --- the reward the run uses -----------------------------------------------------------------


def test_the_page_names_the_labs_reward_beside_the_status_when_it_is_not_plain(qtbot, window):
    page = show_training(qtbot, window)
    assert page.reward.isHidden()  # the plain 0/1 reward: nothing to add
    window.workbench.set_reward_weight("format", 0.5, window.workbench.lab)
    assert page.reward.isVisible()
    assert page.reward.text() == "Reward: r = 1 × accuracy + 0.5 × format"
    assert "Lab" in page.reward.toolTip() and "checker" in page.reward.toolTip()
    assert page.state.run.reward_weights.format == 0.5
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert page.reward.isHidden() and page.state.run.reward_weights.plain


def reward_is_whole(page) -> bool:
    reward = page.reward
    column = reward.parentWidget()
    inside = column.rect().contains(reward.geometry())
    return inside and reward.height() >= reward.heightForWidth(reward.width())


@pytest.mark.parametrize("theme", ["light", "projector"])
@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_the_longest_reward_shows_whole_over_the_charts_and_the_side_column_keeps_still(
    qtbot, window, size, theme
):
    """Every weight on: the longest formula, over the charts (not in the side column, which has
    no height to spare on a laptop): whole, and at 1280×800 the controls and frontier still fit."""
    lab = window.workbench.lab
    window.workbench.set_reward_weights(replace(lab.weights, format=0.5, partial=0.5), lab)
    window.presentation.set_theme(theme, remember=False)
    window.resize(*size)
    page = show_training(qtbot, window)
    take_steps(qtbot, page, 2)  # the status becomes a long sentence
    QApplication.processEvents()
    assert page.width() <= size[0]
    assert page.reward.text().endswith("0.5 × partial credit")
    assert page.reward.parentWidget().objectName() == "trainingChartsColumn"
    assert reward_is_whole(page), "the formula is clipped"
    if size >= (1280, 800):
        assert page.side_column.verticalScrollBar().maximum() == 0


def test_a_settings_edit_keeps_the_labs_weights_out_of_the_stored_run_settings(qtbot, window):
    """The run takes the lab's weights; the saved training settings keep their own, so editing
    G pushes one undo step for G and does not copy the weights into a scenario's settings."""
    window.workbench.set_reward_weight("format", 0.5, window.workbench.lab)
    page = show_training(qtbot, window)
    edits = window.undo_stack.count()
    type_group_size(qtbot, page, "4")
    assert window.workbench.training_config.group_size == 4
    assert not hasattr(window.workbench.training_config, "reward_weights")
    assert page.state.run.reward_weights.format == 0.5
    assert window.undo_stack.count() == edits + 1


# --- a step's groups, and opening one in the Lab ---------------------------------------------


def test_clicking_a_step_on_the_charts_lists_its_groups(qtbot, window):
    page = show_training(qtbot, window)
    assert page.groups.list.count() == 0 and "Click a step" in page.groups.placeholder_text()
    take_steps(qtbot, page, 5)
    click_step(qtbot, page, 3)
    assert page.state.snapshot.selected_step == 3
    assert page.charts.marker_step() == 3
    assert page.groups.heading.text().startswith("Step 3 · GRPO")
    config = window.workbench.training_config
    assert page.groups.list.count() == config.batch
    first = page.groups.list.item(0).text()
    assert page.state.snapshot.groups[0].title in first
    click_step(qtbot, page, 5, chart=1)  # the second chart answers the same way
    assert page.groups.heading.text().startswith("Step 5 ·")


def test_clicking_a_step_moves_the_frontier_dots_to_that_step(qtbot, window):
    page = show_training(qtbot, window)
    take_steps(qtbot, page, 6)
    last = page.frontier.dot_positions()[0].copy()
    click_step(qtbot, page, 1)
    at_one = page.state.run.pass_rates("grpo")[1].mean(axis=0)
    assert list(page.frontier.dot_positions()[0]) == list(at_one)
    assert list(page.frontier.dot_positions()[0]) != list(last)
    assert "under GRPO at step 1;" in page.frontier.caption_text()


def test_clicking_a_group_opens_it_in_the_lab_and_ctrl_z_undoes_it(qtbot, window):
    page = show_training(qtbot, window)
    take_steps(qtbot, page, 4)
    click_step(qtbot, page, 2)
    before = (window.state.problem.id, window.state.snapshot.rewards)
    summary = page.state.snapshot.groups[1]
    groups = page.groups.list
    rect = groups.visualItemRect(groups.item(1))
    qtbot.mouseClick(groups.viewport(), LEFT, pos=rect.center())
    QApplication.processEvents()
    assert_showing(window, LAB)
    assert "step 2, group 2" in window.state.problem.title
    assert window.windowTitle().startswith(window.state.problem.title)
    rewards = window.state.snapshot.rewards
    assert len(rewards) == window.workbench.training_config.group_size
    assert " ".join(f"{r:g}" for r in rewards) == summary.rewards
    assert window.undo_stack.count() == 1, "one click, one undo step"
    ctrl(qtbot, window, Qt.Key.Key_Z)
    assert (window.state.problem.id, window.state.snapshot.rewards) == before


# --- closing, look ----------------------------------------------------------------------------


def test_closing_the_window_while_a_run_plays_is_clean(qtbot, window):
    page = show_training(qtbot, window)
    qtbot.mouseClick(page.controls.play_button, LEFT)
    qtbot.waitUntil(lambda: page.state.snapshot.steps_done > 0, timeout=PLAY_TIMEOUT_MS)
    with qtbot.captureExceptions() as exceptions:
        assert window.close()
        steps = page.state.run.step_count
        qtbot.wait(200)
        QApplication.processEvents()
    assert exceptions == []
    assert not window.isVisible()
    assert not timer_of(page).isActive() and not page.state.playing
    assert page.state.run.step_count == steps, "nothing steps after the window closed"


def test_switching_theme_restyles_the_page(qtbot, window):
    page = show_training(qtbot, window)
    take_steps(qtbot, page, 3)
    click_step(qtbot, page, 2)
    with qtbot.captureExceptions() as exceptions:
        window.presentation.set_theme("projector", remember=False)
        QApplication.processEvents()
    assert exceptions == []
    theme = window.presentation.theme
    assert theme.name == "projector"
    assert theme.text in page.status.styleSheet()
    assert theme.muted in page.note.styleSheet()
    assert page.state.snapshot.selected_step == 2, "the selection survives a theme change"
    assert page.groups.list.count() == window.workbench.training_config.batch
    window.presentation.set_theme("dark", remember=False)
    assert window.presentation.theme.text in page.status.styleSheet()
    window.presentation.set_theme("light", remember=False)


def test_zoom_200_enlarges_the_pages_text(qtbot, window):
    page = show_training(qtbot, window)
    before = page.status.font().pointSizeF()
    list_before = page.groups.list.font().pointSizeF()
    with qtbot.captureExceptions() as exceptions:
        window.presentation.set_zoom(2.0, remember=False)
        QApplication.processEvents()
    try:
        assert exceptions == []
        assert page.status.font().pointSizeF() > before * 1.2
        assert page.groups.list.font().pointSizeF() > list_before * 1.2
        assert page.isVisible() and page.controls.isVisible() and page.charts.isVisible()
        assert page.frontier.isVisible()
    finally:
        window.presentation.set_zoom(1.0, remember=False)


@pytest.mark.parametrize("theme", ["light", "projector"])
def test_export_draws_the_training_chart(qtbot, window, theme):
    window.presentation.set_theme(theme, remember=False)
    page = show_training(qtbot, window)
    from grpo_desktop.core.files.chart_figure import training_figure

    theme = window.theme
    assert window.export_figure() == training_figure(page.state.snapshot, theme)
    window.presentation.set_theme("light", remember=False)


# --- keys and a clicker (issue 25, item 11) ---------------------------------------------------


def key(qtbot, window: MainWindow, which: Qt.Key, modifiers=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window, which, modifiers)
    QApplication.processEvents()


def test_p_plays_and_pauses_s_steps_and_ctrl_r_resets_the_training_run(qtbot, window):
    window.install_deferred_features()
    page = show_training(qtbot, window)
    key(qtbot, window, Qt.Key.Key_S)
    key(qtbot, window, Qt.Key.Key_S)
    assert page.state.run.step_count == 2, "S takes one step"
    key(qtbot, window, Qt.Key.Key_P)
    assert page.state.playing and page.controls.play_button.text() == PAUSE_TEXT
    qtbot.waitUntil(lambda: page.state.run.step_count > 2, timeout=PLAY_TIMEOUT_MS)
    key(qtbot, window, Qt.Key.Key_P)
    assert not page.state.playing and page.controls.play_button.text() == PLAY_TEXT
    key(qtbot, window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert page.state.run.step_count == 0, "Ctrl+R resets the run"
    assert window.undo_stack.count() == 0, "and leaves the lab's group alone"


def test_page_down_steps_the_training_run_outside_a_lesson_and_shows_advantages_in_the_lab(
    qtbot, window
):
    window.install_deferred_features()
    window.workbench.set_view("reward")
    page = show_training(qtbot, window)
    key(qtbot, window, Qt.Key.Key_PageDown)
    assert page.state.run.step_count == 1, "a clicker's Page Down takes one training step"
    key(qtbot, window, Qt.Key.Key_PageUp)
    assert window.workbench.view == "reward", "Page Up leaves the unseen lab alone"
    ctrl(qtbot, window, Qt.Key.Key_L)
    key(qtbot, window, Qt.Key.Key_PageDown)
    assert window.workbench.view == "advantage", "in the lab Page Down still shows advantages"
    assert page.state.run.step_count == 1
    key(qtbot, window, Qt.Key.Key_S)
    assert page.state.run.step_count == 1, "the run's keys act only while it shows"


def test_in_a_lesson_page_down_is_the_next_step_and_the_runs_keys_still_work(qtbot, window):
    window.install_deferred_features()
    lessons = window.lessons
    lessons.start("why-runs-stall")
    lessons.go_to(1)  # a training step at step 0
    page = window.training_page
    key(qtbot, window, Qt.Key.Key_S)
    assert page.state.run.step_count == 1
    key(qtbot, window, Qt.Key.Key_PageDown)
    assert lessons.step_index == 2, "in a lesson Page Down pages the lesson"
    lessons.exit()


def test_f1_lists_the_training_runs_keys(window):
    from grpo_desktop.views.common.shortcuts_dialog import shortcut_rows

    window.install_deferred_features()
    rows = {key: text for _menu, key, text in shortcut_rows(window)}
    assert rows["P"] == "Play / pause the training run"
    assert rows["S"] == "One training step"
    assert "Reset the training run" in rows["Ctrl+R"] and "Reset all" in rows["Ctrl+R"]
    page_down = next(text for keys, text in rows.items() if "PgDown" in keys.split(" or "))
    assert "One training step (clicker, outside a lesson)" in page_down


# --- a playing run's frame, and what a click or a new sentence costs (issue 31) --------------


def frame_after_a_step(page) -> None:
    """Play at 5 steps/s and take the next frame's step (one, its timer held): the step is
    taken at once and its draw posted."""
    state = page.state
    state.set_speed(5)
    state.set_playing(True)
    timer = timer_of(page)
    timer.stop()
    QTest.qWait(250)  # one step due (at 0.2 s), the next at 0.4 s
    state.tick()
    timer.stop()


def test_a_playing_runs_frame_is_drawn_a_part_per_turn_and_ends_as_drawn_at_once(qtbot, window):
    page = show_training(qtbot, window)
    state = page.state
    state.run.run(5)
    state.step_once()
    click_step(qtbot, page, 3)
    QApplication.processEvents()
    frame_after_a_step(page)
    steps = state.run.step_count
    assert steps == 7
    charts = page.charts
    for _ in range(20):  # the draw's turn, then its parts: each plot in a turn of its own
        QApplication.processEvents()
        pass_x, _ = charts.curve_data(0, "grpo")
        metric_x, _ = charts.curve_data(1, "grpo")
        if pass_x.size and pass_x[-1] == steps:
            break
    assert metric_x[-1] < steps, "the metric plot waits for the next turn"
    for _ in range(10):
        QApplication.processEvents()
    assert charts.curve_data(1, "grpo")[0][-1] == steps
    # Checked once the frame is whole: in one shuffled run of the suite (not reproduced since)
    # the bar still read 6 in the turn the pass-rate plot first showed step 7.
    assert page.controls.progress.value() == steps and f"Step {steps} " in page.status.text()
    assert charts.marker_step() == 3 and page.groups.heading.text().startswith("Step 3 ")
    state.set_playing(False)
    whole = page.state.snapshot  # the same steps, drawn at once by a paused snapshot
    for chart in (0, 1):
        for name in whole.config.algorithms:
            x, y = charts.curve_data(chart, name)
            metric = "pass_rate" if chart == 0 else whole.metric
            band = next(s for s in whole.series if s.name == name).bands[metric]
            finite = np.isfinite(band.mean)
            assert np.array_equal(y, band.mean[finite]) and x[-1] == steps


def test_a_click_while_the_run_plays_is_shown_at_once(qtbot, window):
    page = show_training(qtbot, window)
    state = page.state
    state.run.run(5)
    state.step_once()
    QApplication.processEvents()
    frame_after_a_step(page)  # a step taken, its draw not yet shown
    click_step(qtbot, page, 4)
    assert page.charts.marker_step() == 4, "the marker moves in the click's own turn"
    assert page.groups.heading.text().startswith("Step 4 ")
    state.set_playing(False)


def test_a_new_status_sentence_or_a_chosen_step_lays_out_nothing(qtbot, window):
    # The window's own idle work first: the lesson bar, installed in a turn after the first
    # paint, lays the window out once, and the prebuild builds the Update page meanwhile.
    window.install_deferred_features()
    page = show_training(qtbot, window)
    qtbot.waitUntil(lambda: window.prebuild.done, timeout=60_000)
    state = page.state
    state.run.run(5)
    state.step_once()
    click_step(qtbot, page, 3)  # the captions of a chosen step (a line longer, maybe)
    for _ in range(5):
        QApplication.processEvents()
    requests = EventLog(QEvent.Type.LayoutRequest, window)  # the whole window laid out again
    state.step_once()  # a new status sentence, progress and curves
    click_step(qtbot, page, 2)  # new captions under the frontier and over the groups
    click_step(qtbot, page, 5)
    for _ in range(5):
        QApplication.processEvents()
    assert page.status.text().startswith("Step 7 of")
    assert "at step 5" in page.frontier.caption_text()
    assert page.groups.heading.text().startswith("Step 5 ")
    assert requests.count == 0, "the window was not laid out again"
