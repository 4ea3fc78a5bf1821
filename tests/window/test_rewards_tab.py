"""The Rewards tab and continuous mode in the window: what a lecturer sets, the cards show."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QLabel, QPlainTextEdit
from rollout_files import recorded
from test_main_window import card, stat


def show_rewards_tab(window) -> None:
    window.show_explanation("rewards")
    QApplication.processEvents()


def test_a_format_weight_reaches_every_card_the_stats_and_one_undo_step(qtbot, window):
    show_rewards_tab(window)
    spin = window.findChild(QDoubleSpinBox, "weight_format")
    assert spin.isVisible() and spin.value() == 0
    spin.setValue(0.5)
    assert window.state.snapshot.rewards == (1.0, 0.5, 0.5, 1.5)
    assert "reward 0.5 · checker: ✗ wrong" in card(window, 1).toolTip()
    assert "(accuracy 0 · format 1)" in card(window, 1).accessibleDescription()
    assert stat(window, "statPar") == "0.875"
    assert window.findChild(QLabel, "rewardFormula").text() == "r = 1 × accuracy + 0.5 × format"
    window.undo_stack.undo()
    assert window.state.snapshot.rewards == (1, 0, 0, 1) and spin.value() == 0


def test_ctrl_shift_r_turns_on_continuous_mode_and_a_drag_moves_one_reward(qtbot, window):
    assert window.by_hand_action.shortcut() == QKeySequence("Ctrl+Shift+R")
    window.by_hand_action.trigger()
    assert window.state.by_hand
    target = card(window, 2)
    assert target.reward_range == (0.0, 1.0)
    start = QPoint(target.width() // 4, target.height() // 2)
    qtbot.mousePress(target, Qt.MouseButton.LeftButton, pos=start)
    for step in (8, 16, target.width() // 4):
        qtbot.mouseMove(target, start + QPoint(step, 0))
    qtbot.mouseRelease(
        target, Qt.MouseButton.LeftButton, pos=start + QPoint(target.width() // 4, 0)
    )
    reward = window.state.snapshot.rewards[2]
    assert 0.1 < reward < 1.0
    assert card(window, 2).property("correct") is False, "a drag is not a click"
    assert window.undo_stack.count() == 2  # continuous on, one drag
    window.undo_stack.undo()
    assert window.state.snapshot.rewards[2] == 0


def test_a_runs_group_shows_its_origin_prompt_and_keeps_its_size(qtbot, window):
    prompt = "<b>System</b>: be brief.\n" * 40 + "What is 2 + 2?"
    group = recorded(
        (1.0, 0.0, 1.0), texts=("four: 4", "five: 5", "4"), file_name="12.jsonl", step=12,
        prompt=prompt, answer_key=None,
    )  # fmt: skip
    window.workbench.open_recorded_group(group)
    QApplication.processEvents()
    details = window.findChild(QLabel, "problemDetails").text()
    assert details == "A real run's group · verl rollouts, 12.jsonl · Step 12 · group 1 of 3"
    box = window.findChild(QPlainTextEdit, "runPrompt")
    assert box.isVisible() and box.toPlainText() == prompt  # literal, never rich text
    assert box.height() < window.height() // 5
    assert window.findChild(QLabel, "answerKey").text() == "No answer key logged"
    assert not window.group_size_spin.isEnabled()
    assert card(window, 0).property("correct") is False  # no verdict: the run's reward only
    assert "reward 1" in card(window, 0).accessibleDescription()
    show_rewards_tab(window)
    assert not window.findChild(QDoubleSpinBox, "weight_format").isVisible()
    window.undo_stack.undo()
    assert window.group_size_spin.isEnabled()
