"""The Training run for every student (issue 29): keyboard only, tab order in reading order in
every workspace, and playback without motion when motion is reduced."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from grpo_desktop.window.main_window import MainWindow

CTRL = Qt.KeyboardModifier.ControlModifier


def show_training(qtbot, window: MainWindow):
    qtbot.keyClick(window, Qt.Key.Key_T, CTRL)
    QApplication.processEvents()
    return window.training_page


def focus_name(widget: QWidget) -> str:
    parent = widget.parentWidget()
    if parent is not None and parent.focusProxy() is widget:  # a spin box's line edit
        widget = parent
    return widget.objectName() or type(widget).__name__


def tab_stops(qtbot, window: MainWindow, count: int = 60) -> list[str]:
    """The widgets Tab visits, from the workspace's page round to where it started."""
    window.activateWindow()
    window.centralWidget().setFocus()
    QApplication.processEvents()
    stops: list[str] = []
    first = None
    for _ in range(count):
        qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        if focused is first:
            break
        first = first or focused
        stops.append(focus_name(focused))
    return stops


def in_order(stops: list[str], landmarks: list[str]) -> bool:
    positions = [stops.index(name) for name in landmarks]
    return positions == sorted(positions)


@pytest.fixture
def reduced(window: MainWindow):
    window.presentation.set_reduce_motion(True, remember=False)
    yield
    window.presentation.set_reduce_motion(False, remember=False)


# --- tab order ----------------------------------------------------------------------------------

TRAINING_STOPS = [
    "trainingCharts",
    "stepGroupsList",
    "playButton",
    "stepButton",
    "resetButton",
    "speedSpin",
    "stepsSpin",
    "seedsSpin",
    "trainingGroupSizeSpin",
    "batchSpin",
    "trainingLrSpin",
    "trainingBetaSpin",
    "epochsSpin",
    "algorithm_reinforce",
    "algorithm_ppo_critic",
    "algorithm_grpo",
    "algorithm_dr_grpo",
    "algorithm_rloo",
    "algorithm_dapo",
    "metricCombo",
    "focusCombo",
    "frontierPlotArea",
]
# Round the window: the tool bar's boxes at the top, the workspace bar at the bottom right.
CHROME_STOPS = ["conventionCombo", "labWorkspaceActionButton", "compareActionButton"]


def test_the_training_pages_tab_order_is_its_reading_order(qtbot, window):
    show_training(qtbot, window)
    stops = tab_stops(qtbot, window)
    page = stops[: len(TRAINING_STOPS)]
    assert page == TRAINING_STOPS  # charts, their groups, then the side column top to bottom
    assert in_order(stops, TRAINING_STOPS[-1:] + CHROME_STOPS)


@pytest.mark.parametrize(
    ("workspace", "landmarks"),
    [
        ("lab", ["problemCombo", "traceCard0", "traceCard3", "advantageChart", "explainTabs"]),
        ("update", ["tokenRows", "lossPresetCombo", "lengthBiasButton", "tokenDetail"]),
        (
            "compare",
            ["easy.problemCombo", "easy.traceCard0", "easy.advantageChart", "hard.problemCombo"],
        ),
    ],
)
def test_every_workspace_tabs_in_reading_order(qtbot, window, workspace, landmarks):
    window.workbench.set_workspace(workspace)
    QApplication.processEvents()
    stops = tab_stops(qtbot, window)
    assert in_order(stops, landmarks + CHROME_STOPS), stops


# --- steps and groups from the keyboard ---------------------------------------------------------


def test_arrows_choose_a_step_and_enter_opens_one_of_its_groups(qtbot, window):
    page = show_training(qtbot, window)
    for _ in range(5):
        qtbot.keyClick(page.controls.step_button, Qt.Key.Key_Space)
    assert page.state.run.step_count == 5
    page.charts.setFocus()
    qtbot.keyClick(page.charts, Qt.Key.Key_Left)  # from the last step: step 4
    assert page.state.snapshot.selected_step == 4
    assert page.charts.marker_step() == 4
    qtbot.keyClick(page.charts, Qt.Key.Key_Return)  # to the step's groups, as a click lists them
    qtbot.waitUntil(page.groups.list.hasFocus)
    assert page.groups.list.count() > 1 and page.groups.list.currentRow() == 0
    qtbot.keyClick(page.groups.list, Qt.Key.Key_Down)
    qtbot.keyClick(page.groups.list, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.workbench.workspace == "lab")
    assert "step 4, group 2" in window.windowTitle()


def test_enter_with_no_step_chosen_lists_the_last_steps_groups(qtbot, window):
    page = show_training(qtbot, window)
    for _ in range(3):
        page.step_once()
    page.charts.setFocus()
    qtbot.keyClick(page.charts, Qt.Key.Key_Enter)
    assert page.state.snapshot.selected_step == 3
    qtbot.waitUntil(page.groups.list.hasFocus)
    assert page.groups.list.currentRow() == 0


# --- reduced motion -----------------------------------------------------------------------------


def test_with_motion_reduced_play_advances_at_once_and_nothing_plays(qtbot, window, reduced):
    page = show_training(qtbot, window)
    (timer,) = page.state.findChildren(QTimer)
    button = page.controls.play_button
    assert button.text() == "▶ +30 steps"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert page.state.run.step_count == 30 and not page.state.playing
    assert not timer.isActive()  # no frame clock: the charts changed once, nothing moves
    assert page.controls.progress.format() == "30 / 200"
    page.toggle_playing()  # the window's P, as the page offers it
    assert page.state.run.step_count == 60 and not page.state.playing
    qtbot.mouseClick(page.controls.step_button, Qt.MouseButton.LeftButton)
    assert page.state.run.step_count == 61


def test_an_advance_stops_at_the_end_of_the_run(qtbot, window, reduced):
    page = show_training(qtbot, window)
    page.controls.speed_spin.setValue(240)
    page.toggle_playing()
    assert page.state.run.step_count == 200 and page.state.run.finished
    page.toggle_playing()
    assert page.state.run.step_count == 200 and not page.state.playing


def test_reducing_motion_pauses_a_playing_run(qtbot, window):
    page = show_training(qtbot, window)
    page.toggle_playing()
    assert page.state.playing
    try:
        window.presentation.reduce_motion_action.trigger()  # View ▸ Reduce motion
        assert not page.state.playing
        assert page.controls.play_button.text() == "▶ +30 steps"
    finally:
        window.presentation.set_reduce_motion(False, remember=False)
    assert page.controls.play_button.text() == "▶ Play"
