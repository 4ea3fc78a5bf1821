"""How the workspace tests read which workspace is on screen, and reach it the way a user does.

Shared by test_update_page.py and test_training_page.py (the test folder is on the path).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton, QWidget

from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE
from grpo_desktop.window.main_window import MainWindow

CONTROL = Qt.KeyboardModifier.ControlModifier
NAMES = {
    LAB: "Lab",
    UPDATE: "Update step",
    TRAINING: "Training run",
    COMPARE: "Easy vs hard, side by side",
}


def ctrl(qtbot, window: MainWindow, key: Qt.Key) -> None:
    qtbot.keyClick(window, key, CONTROL)


def on_screen(window: MainWindow) -> str:
    """Which workspace the window shows, read from the page stack (not the model)."""
    page = window.pages.currentWidget()
    for name, built in window.built_pages.items():
        if page is built:
            return name
    raise AssertionError(f"unknown page {page.objectName()!r}")


def checked_workspaces(window: MainWindow) -> list[str]:
    return [action.text() for action in window.workspace_actions if action.isChecked()]


def assert_showing(window: MainWindow, workspace: str) -> None:
    """The page, the model, the View menu, the workspace bar and the title all agree."""
    assert on_screen(window) == workspace
    assert window.workbench.workspace == workspace
    assert checked_workspaces(window) == [NAMES[workspace]], "exactly one workspace is checked"
    buttons = window.statusBar().findChild(QWidget, "workspaceBar").findChildren(QToolButton)
    checked = [button.defaultAction().text() for button in buttons if button.isChecked()]
    assert checked == [NAMES[workspace]], "exactly one workspace button is down"
    title = window.windowTitle()
    assert ("Update step" in title) == (workspace == UPDATE)
    assert ("Training run" in title) == (workspace == TRAINING)


def workspace_button(window: MainWindow, action_name: str) -> QToolButton:
    bar = window.statusBar().findChild(QWidget, "workspaceBar")
    button = bar.findChild(QToolButton, f"{action_name}Button")
    assert button is not None and button.isVisible(), f"{action_name} button not shown"
    return button
