"""The presenter view on two screens: run by test_presenter_screens.py under Xvfb with two screens.

Not collected by the offscreen suite (no ``test_`` prefix): the offscreen platform has one screen.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication


@pytest.fixture(autouse=True)
def two_screens(qapp):
    assert QGuiApplication.platformName() == "xcb"
    assert len(QGuiApplication.screens()) == 2, "these checks need Xvfb with two screens"


def screen_of(widget) -> int:
    """0 or 1: which screen ``widget`` shows on (QScreen wrappers are not kept: ask afresh)."""
    return QGuiApplication.screens().index(widget.screen())


def test_the_room_sees_the_lab_on_the_second_screen_and_the_console_keys_drive_it(qtbot, window):
    with qtbot.waitActive(window):
        window.activateWindow()
    assert screen_of(window) == 0
    window.presenter.start()
    console = window.presenter.console
    qtbot.waitUntil(lambda: window.isFullScreen() and screen_of(window) == 1, timeout=5000)
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    assert console.isVisible() and screen_of(console) == 0
    console.start_requested.emit("group-is-baseline")
    with qtbot.waitActive(console):
        console.activateWindow()
    qtbot.keyClick(console, Qt.Key.Key_PageDown)  # a clicker's "next", pressed on the console
    assert window.lessons.step_index == 1
    assert console.step_label.text().endswith("step 2 of 7: Predict, then reveal")
    before = window.state.snapshot.rewards
    qtbot.keyClick(console, Qt.Key.Key_2)  # card 2, from the console
    assert window.state.snapshot.rewards != before
    console.close()
    QApplication.processEvents()
    assert not window.presenter.active
    qtbot.waitUntil(lambda: window.isVisible() and not window.isFullScreen(), timeout=5000)
    assert window.menuBar().isVisible() and window.statusBar().isVisible()
    qtbot.waitUntil(lambda: screen_of(window) == 0, timeout=5000)
