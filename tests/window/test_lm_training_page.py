"""The Training workspace on the tiny language model, as a user meets it: the page the policy
chooses, Play and the keys, a step's group opened in the Lab, a bad checkpoint, closing mid-run.

The run steps in a worker process: tests wait for what the user would see, with generous
timeouts, never for time.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from workspaces import assert_showing, ctrl

from grpo_desktop.core.lab.recorded_group import TINYLM_FORMAT
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.training.policy_choice import PolicyChoice
from grpo_desktop.model.workbench import LAB, TRAINING
from grpo_desktop.views.training.lm_run_controls import PAUSE_TEXT, PLAY_TEXT
from grpo_desktop.window.lm_training_page import LMTrainingPage, lm_training_figure
from grpo_desktop.window.training_page import TrainingPage

TINY = LMTrainingConfig(steps=3, batch=4, group_size=4, eval_every=1)
WAIT_MS = 20_000


@pytest.fixture
def lm_window(window):
    window.workbench.apply_lm_training_config(TINY)
    window.workbench.apply_policy(PolicyChoice("tinylm"))
    yield window
    window.states.stop()


def show_training(qtbot, window) -> LMTrainingPage:
    ctrl(qtbot, window, Qt.Key.Key_T)
    QApplication.processEvents()
    assert_showing(window, TRAINING)
    page = window.pages.currentWidget()
    assert isinstance(page, LMTrainingPage) and page.isVisible()
    wait_drawn(qtbot, page, lambda snapshot: snapshot.ready)
    return page


def wait_drawn(qtbot, page: LMTrainingPage, condition) -> None:
    """Until the state's snapshot meets ``condition`` and the page shows it (the records the
    worker sends are drawn in the event-loop turn after their reading)."""

    def drawn() -> bool:
        snapshot = page.state.snapshot
        play_text = PAUSE_TEXT if snapshot.playing else PLAY_TEXT  # the status can read the same
        return (
            bool(condition(snapshot))
            and page.status.text() == snapshot.status
            and page.controls.play_button.text() == play_text
        )

    qtbot.waitUntil(drawn, timeout=WAIT_MS)


def test_the_policy_chooses_the_page_and_a_switch_swaps_it_in_place(qtbot, window):
    ctrl(qtbot, window, Qt.Key.Key_T)
    assert isinstance(window.pages.currentWidget(), TrainingPage)
    window.workbench.set_policy(PolicyChoice("tinylm"))
    try:
        page = window.pages.currentWidget()
        assert isinstance(page, LMTrainingPage) and page.isVisible()
        wait_drawn(qtbot, page, lambda snapshot: snapshot.ready)
        assert "107,820-parameter 2-layer character transformer" in page.note.text()
        assert "44-token vocabulary" in page.note.text()
        window.workbench.undo_stack.undo()
        assert isinstance(window.pages.currentWidget(), TrainingPage)
        assert not page.state.gate.shown  # the toy's page shows: the model's run rests
    finally:
        window.states.stop()


def test_play_shows_steps_on_the_curves_and_the_dots_at_the_pass_rates(qtbot, lm_window):
    page = show_training(qtbot, lm_window)
    assert page.controls.play_button.text() == PLAY_TEXT
    qtbot.mouseClick(page.controls.play_button, Qt.MouseButton.LeftButton)
    assert page.controls.play_button.text() == PAUSE_TEXT
    wait_drawn(qtbot, page, lambda snapshot: snapshot.finished and not snapshot.playing)
    assert page.controls.play_button.text() == PLAY_TEXT
    steps, _ = page.charts.metric_curve.getData()
    assert list(steps) == [1, 2, 3]
    pass_steps, _ = page.charts.pass_curve.getData()
    assert list(pass_steps) == [0, 1, 2, 3]
    x, _ = page.frontier.dot_positions()
    np.testing.assert_allclose(x, page.state.evals[-1].pass_rates)
    assert page.status.text().startswith("Step 3 of 3 (GRPO, finished)")
    assert not page.controls.step_button.isEnabled()


def test_the_keys_play_step_and_reset_the_model_run(qtbot, lm_window):
    page = show_training(qtbot, lm_window)
    qtbot.keyClick(lm_window, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: page.state.step_count == 1, timeout=WAIT_MS)
    qtbot.keyClick(lm_window, Qt.Key.Key_P)
    assert page.state.playing
    qtbot.keyClick(lm_window, Qt.Key.Key_P)
    assert not page.state.playing
    qtbot.waitUntil(lambda: not page.state.busy, timeout=WAIT_MS)
    ctrl(qtbot, lm_window, Qt.Key.Key_R)
    assert page.state.step_count == 0
    assert lm_window.states.training_run() is None  # the toy run was never made


def test_a_settings_edit_restarts_the_run_as_one_undo_step(qtbot, lm_window):
    page = show_training(qtbot, lm_window)
    page.step_once()
    qtbot.waitUntil(lambda: page.state.step_count == 1, timeout=WAIT_MS)
    page.controls.fields["seed"].setValue(7)
    assert lm_window.workbench.lm_training_config.seed == 7
    assert page.state.step_count == 0
    lm_window.workbench.undo_stack.undo()
    assert page.controls.fields["seed"].value() == 0


def test_a_steps_group_opens_in_the_lab_as_the_model_wrote_it(qtbot, lm_window):
    page = show_training(qtbot, lm_window)
    page.step_once()
    qtbot.waitUntil(lambda: page.groups.list.count() == TINY.batch, timeout=WAIT_MS)
    group = page.state.groups[0][2]
    item = page.groups.list.item(2)
    rect = page.groups.list.visualItemRect(item)
    qtbot.mouseClick(page.groups.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert lm_window.workbench.workspace == LAB
    recorded = lm_window.workbench.lab.recorded
    assert recorded.run_format == TINYLM_FORMAT and recorded.step == 1
    assert recorded.texts == group.completions and recorded.rewards == group.rewards


def test_a_bad_checkpoint_is_one_sentence_on_the_page(qtbot, tmp_path, lm_window):
    bad = tmp_path / "truncated.npz"
    bad.write_bytes(b"PK\x03\x04 cut short")
    lm_window.workbench.apply_policy(PolicyChoice("tinylm", str(bad)))
    ctrl(qtbot, lm_window, Qt.Key.Key_T)
    page = lm_window.pages.currentWidget()
    wait_drawn(qtbot, page, lambda snapshot: bool(snapshot.error))
    text = page.status.text()
    assert text.startswith("The tiny model could not be loaded:") and "\n" not in text
    assert not page.controls.play_button.isEnabled()


def test_closing_mid_run_joins_the_worker(qtbot, lm_window):
    lm_window.workbench.apply_lm_training_config(replace(TINY, steps=200))
    page = show_training(qtbot, lm_window)
    page.toggle_playing()
    qtbot.waitUntil(lambda: page.state.step_count >= 1, timeout=WAIT_MS)
    lm_window.close()
    assert not any(t.name == "lm-training" and t.is_alive() for t in threading.enumerate())


def test_export_draws_the_models_run(qtbot, lm_window):
    page = show_training(qtbot, lm_window)
    page.step_once()
    wait_drawn(qtbot, page, lambda snapshot: snapshot.step == 1)
    qtbot.waitUntil(lambda: not page.state.busy, timeout=WAIT_MS)
    wait_drawn(qtbot, page, lambda snapshot: snapshot.step == 1)
    figure = lm_window.workspace.export_figure(lm_window.theme)
    assert figure.title == "GRPO on a tiny language model"
    assert [panel.title for panel in figure.panels][2].startswith("The learning frontier")
    assert lm_training_figure(page.state.snapshot, lm_window.theme).subtitle == (page.status.text())
