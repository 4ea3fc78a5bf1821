"""TrainingControls: playback, the run's settings and what the charts show, as requests."""

from __future__ import annotations

import dataclasses
import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QCheckBox, QLabel, QWidget

from grpo_desktop.core.common.theme import DARK, LIGHT, PROJECTOR
from grpo_desktop.core.training.run import (
    ALGORITHM_INFO,
    ALGORITHMS,
    METRICS,
    TrainingConfig,
    TrainingRun,
)
from grpo_desktop.core.training.training_snapshot import build_training_snapshot
from grpo_desktop.views.training.training_controls import (
    DEFAULT_SPEED,
    PAUSE_TEXT,
    PLAY_TEXT,
    TrainingControls,
)

MENU_MNEMONICS = set("FEVPLH")


@pytest.fixture
def snapshot(run):
    return build_training_snapshot(run)


@pytest.fixture
def controls(qtbot, snapshot):
    controls = TrainingControls(LIGHT)
    qtbot.addWidget(controls)
    controls.resize(380, 420)
    with qtbot.waitExposed(controls):
        controls.show()
    controls.show_snapshot(snapshot)
    return controls


def edit(spin: QAbstractSpinBox, text: str, qtbot) -> None:
    """Type a value and press Enter, as a user does."""
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Return)


def test_object_names(controls):
    assert controls.objectName() == "trainingControls"
    for name in (
        "playButton",
        "stepButton",
        "resetButton",
        "speedSpin",
        "trainingProgress",
        "stepsSpin",
        "trainingGroupSizeSpin",
        "batchSpin",
        "trainingLrSpin",
        "seedsSpin",
        "trainingBetaSpin",
        "epochsSpin",
        "metricCombo",
        "focusCombo",
        *(f"algorithm_{name}" for name in ALGORITHMS),
    ):
        assert controls.findChild(QWidget, name) is not None, name


def test_show_snapshot_sets_every_control(controls, snapshot):
    config = snapshot.config
    assert controls.steps_spin.value() == config.steps
    assert controls.group_spin.value() == config.group_size
    assert controls.batch_spin.value() == config.batch
    assert controls.lr_spin.value() == pytest.approx(config.learning_rate)
    assert controls.seeds_spin.value() == config.seeds
    assert controls.beta_spin.value() == pytest.approx(config.beta)
    assert controls.epochs_spin.value() == config.epochs
    assert all(box.isChecked() for box in controls.algorithm_boxes.values())
    assert controls.metric_combo.currentData() == snapshot.metric
    assert controls.focus_combo.currentData() == snapshot.focus
    assert controls.speed_spin.value() == DEFAULT_SPEED
    assert controls.config() == config


def test_show_snapshot_emits_nothing(controls, qtbot, run):
    signals = [
        controls.play_requested,
        controls.step_requested,
        controls.reset_requested,
        controls.speed_requested,
        controls.config_requested,
        controls.metric_requested,
        controls.focus_requested,
    ]
    other = TrainingRun(
        TrainingConfig(
            algorithms=("rloo", "dapo"),
            steps=40,
            seeds=5,
            group_size=16,
            batch=4,
            learning_rate=2.5,
            beta=0.05,
            epochs=2,
        )
    )
    for snapshot in (
        build_training_snapshot(other, metric="kl", focus="dapo", playing=True),
        build_training_snapshot(run),
    ):
        for signal in signals:
            with qtbot.assertNotEmitted(signal):
                controls.show_snapshot(snapshot)


@pytest.mark.parametrize(
    ("spin", "text", "field", "value"),
    [
        ("steps_spin", "300", "steps", 300),
        ("group_spin", "16", "group_size", 16),
        ("batch_spin", "4", "batch", 4),
        ("lr_spin", "2.5", "learning_rate", 2.5),
        ("seeds_spin", "5", "seeds", 5),
        ("beta_spin", "0.04", "beta", 0.04),
        ("epochs_spin", "3", "epochs", 3),
    ],
)
def test_each_setting_asks_for_one_field(controls, snapshot, qtbot, spin, text, field, value):
    with qtbot.waitSignal(controls.config_requested) as blocker:
        edit(getattr(controls, spin), text, qtbot)
    (requested,) = blocker.args
    assert isinstance(requested, TrainingConfig)
    assert getattr(requested, field) == pytest.approx(value)
    assert dataclasses.replace(requested, **{field: getattr(snapshot.config, field)}) == (
        snapshot.config
    )


def test_typing_is_one_request_not_one_per_key(controls, qtbot):
    requests = []
    controls.config_requested.connect(requests.append)
    edit(controls.steps_spin, "150", qtbot)
    assert [config.steps for config in requests] == [150]


def test_algorithm_checkboxes(controls, qtbot):
    for name, box in controls.algorithm_boxes.items():
        assert box.text() == ALGORITHM_INFO[name].label
        assert ALGORITHM_INFO[name].advantage in box.toolTip()
        assert ALGORITHM_INFO[name].description in box.toolTip()
    with qtbot.waitSignal(controls.config_requested) as blocker:
        controls.algorithm_boxes["ppo_critic"].click()
    assert blocker.args[0].algorithms == tuple(name for name in ALGORITHMS if name != "ppo_critic")


def test_the_last_algorithm_cannot_be_unchecked(controls, qtbot):
    alone = TrainingRun(TrainingConfig(algorithms=("grpo",), steps=20, seeds=2))
    controls.show_snapshot(build_training_snapshot(alone))
    box = controls.algorithm_boxes["grpo"]
    assert box.isChecked()
    assert "At least one" in box.toolTip()
    with qtbot.assertNotEmitted(controls.config_requested):
        box.click()
    assert box.isChecked()
    with qtbot.waitSignal(controls.config_requested) as blocker:
        controls.algorithm_boxes["dapo"].click()
    assert blocker.args[0].algorithms == ("grpo", "dapo")


def test_play_button_follows_playing(controls, run, qtbot):
    assert controls.play_button.text() == PLAY_TEXT == "▶ Play"
    with qtbot.waitSignal(controls.play_requested) as blocker:
        controls.play_button.click()
    assert blocker.args == [True]
    controls.show_snapshot(build_training_snapshot(run, playing=True))
    assert controls.play_button.text() == PAUSE_TEXT == "❚❚ Pause"
    with qtbot.waitSignal(controls.play_requested) as blocker:
        controls.play_button.click()
    assert blocker.args == [False]


@pytest.fixture
def reduced():
    """Motion reduced (View ▸ Reduce motion) for one test, allowed again after it."""
    from grpo_desktop.views.common.motion import set_reduced_motion

    set_reduced_motion(True)
    yield
    set_reduced_motion(False)


def test_with_motion_reduced_play_advances_instead_of_playing(controls, qtbot, reduced):
    from grpo_desktop.views.training.training_controls import advance_text

    button = controls.play_button
    assert button.text() == advance_text(30) == "▶ +30 steps"
    assert button.accessibleName() == "Advance 30 steps" and "reduced" in button.toolTip()
    with (
        qtbot.assertNotEmitted(controls.play_requested),
        qtbot.waitSignal(controls.advance_requested) as blocker,
    ):
        button.click()
    assert blocker.args == [30]  # one second of playing, shown at once
    edit(controls.speed_spin, "5", qtbot)
    assert button.text() == "▶ +5 steps"


def test_the_play_button_follows_the_motion_preference(controls, run):
    from grpo_desktop.views.common.motion import set_reduced_motion

    assert controls.play_button.text() == PLAY_TEXT
    try:
        set_reduced_motion(True)
        assert controls.play_button.text() == "▶ +30 steps"
        # A run playing when motion was reduced still shows Pause until it pauses.
        controls.show_snapshot(build_training_snapshot(run, playing=True))
        assert controls.play_button.text() == PAUSE_TEXT
        controls.show_snapshot(build_training_snapshot(run, playing=False))
        assert controls.play_button.text() == "▶ +30 steps"
    finally:
        set_reduced_motion(False)
    assert controls.play_button.text() == PLAY_TEXT and controls.play_button.accessibleName() == (
        "Play"
    )


def test_step_reset_and_speed(controls, qtbot):
    with qtbot.waitSignal(controls.step_requested):
        controls.step_button.click()
    with qtbot.waitSignal(controls.reset_requested):
        controls.reset_button.click()
    with qtbot.waitSignal(controls.speed_requested) as blocker:
        edit(controls.speed_spin, "120", qtbot)
    assert blocker.args == [120]
    assert (controls.speed_spin.minimum(), controls.speed_spin.maximum()) == (1, 240)


def test_progress_text(controls, qtbot):
    run = TrainingRun(TrainingConfig(steps=200, seeds=2, algorithms=("grpo",)))
    run.run(37)
    controls.show_snapshot(build_training_snapshot(run))
    assert controls.progress.text() == "37 / 200"
    assert controls.progress.value() == 37 and controls.progress.maximum() == 200


def test_a_finished_run_cannot_step(controls, qtbot):
    run = TrainingRun(TrainingConfig(steps=10, seeds=2, algorithms=("grpo",)))
    run.run(10)
    controls.show_snapshot(build_training_snapshot(run))
    assert controls.progress.text() == "10 / 10"
    assert not controls.step_button.isEnabled()


def test_metric_and_focus_requests(controls, qtbot):
    labels = [controls.metric_combo.itemText(i) for i in range(controls.metric_combo.count())]
    assert labels == [label for label, _ in METRICS.values()]
    index = controls.metric_combo.findData("kl")
    with qtbot.waitSignal(controls.metric_requested) as blocker:
        controls.metric_combo.activated.emit(index)
    assert blocker.args == ["kl"]
    with qtbot.assertNotEmitted(controls.metric_requested):  # already shown
        controls.metric_combo.activated.emit(controls.metric_combo.findData("degenerate_fraction"))
    names = [controls.focus_combo.itemData(i) for i in range(controls.focus_combo.count())]
    assert names == list(ALGORITHMS)
    with qtbot.waitSignal(controls.focus_requested) as blocker:
        controls.focus_combo.activated.emit(controls.focus_combo.findData("rloo"))
    assert blocker.args == ["rloo"]


def test_focus_offers_only_the_runs_algorithms(controls):
    subset = TrainingRun(TrainingConfig(algorithms=("reinforce", "dapo"), steps=20, seeds=2))
    controls.show_snapshot(build_training_snapshot(subset, focus="dapo"))
    texts = [controls.focus_combo.itemText(i) for i in range(controls.focus_combo.count())]
    assert texts == ["REINFORCE", "DAPO"]
    assert controls.focus_combo.currentText() == "DAPO"


def test_every_setting_takes_its_range_from_the_core(controls):
    """The limits the run enforces are the controls' limits: no value a spin box offers is
    refused for its range, and any value a file holds can be shown (issue 24, item 6)."""
    from grpo_desktop.core.training.training_config import TRAINING_LIMITS

    spins = {
        "steps": controls.steps_spin,
        "group_size": controls.group_spin,
        "batch": controls.batch_spin,
        "learning_rate": controls.lr_spin,
        "seeds": controls.seeds_spin,
        "beta": controls.beta_spin,
        "epochs": controls.epochs_spin,
    }
    for name, spin in spins.items():
        assert (spin.minimum(), spin.maximum()) == TRAINING_LIMITS[name], name
    for spin in controls.findChildren(QAbstractSpinBox):
        assert not spin.keyboardTracking()


def test_values_from_a_file_show_as_they_are_in_force(controls):
    config = TrainingConfig(
        algorithms=("grpo",), steps=5000, seeds=32, batch=1, learning_rate=0.05, beta=0.125
    )
    controls.show_snapshot(build_training_snapshot(TrainingRun(config)))
    assert controls.steps_spin.value() == 5000 and controls.seeds_spin.value() == 32
    assert controls.lr_spin.text() == "0.05" and controls.lr_spin.value() == 0.05
    assert controls.beta_spin.text() == "0.125"
    assert controls.config() == config


def test_a_refused_edit_is_a_message_under_the_settings_and_goes_with_the_next_snapshot(
    controls, snapshot
):
    text = "Batch 32 was not applied: this run would keep 498 MB of sampled groups; it stays 8."
    controls.show_snapshot(dataclasses.replace(snapshot, refusal=text))
    assert controls.refusal.isVisible() and controls.refusal.text() == text
    assert controls.refusal.textFormat() == Qt.TextFormat.PlainText
    assert controls.refusal.accessibleName() == text
    assert controls.epochs_spin.geometry().bottom() < controls.refusal.geometry().top()
    controls.show_snapshot(snapshot)
    assert not controls.refusal.isVisible()


def test_every_control_has_a_tooltip_and_is_keyboard_reachable(controls):
    for widget in (*controls.fields(), controls.step_button, controls.reset_button):
        assert widget.toolTip(), widget.objectName()
        assert widget.focusPolicy() & Qt.FocusPolicy.TabFocus, widget.objectName()
        assert widget.accessibleName() or widget.text(), widget.objectName()
    assert controls.progress.toolTip()


def test_mnemonics_are_unique_and_avoid_the_menu_bar(controls):
    letters = []
    texts = [label.text() for label in controls.findChildren(QLabel)]
    texts += [controls.step_button.text(), controls.reset_button.text()]
    texts += [box.text() for box in controls.findChildren(QCheckBox)]
    for text in texts:
        match = re.search(r"&(\w)", text)
        if match:
            letters.append(match.group(1).upper())
    assert len(letters) >= 8
    assert len(letters) == len(set(letters))
    assert not set(letters) & MENU_MNEMONICS
    for label in controls.labels.values():
        assert label.buddy() is not None


@pytest.mark.parametrize("theme", [LIGHT, DARK, PROJECTOR])
@pytest.mark.parametrize("width", [320, 420])
def test_fits_a_narrow_column(qtbot, snapshot, theme, width):
    controls = TrainingControls(theme)
    qtbot.addWidget(controls)
    controls.show_snapshot(snapshot)
    assert controls.minimumSizeHint().width() <= width
    assert controls.minimumWidth() <= width
    controls.resize(width, max(420, controls.sizeHint().height()))
    with qtbot.waitExposed(controls):
        controls.show()
    for widget in controls.fields():
        assert controls.rect().contains(widget.geometry()), widget.objectName()
    for label in controls.labels.values():
        assert label.width() >= label.minimumSizeHint().width()
