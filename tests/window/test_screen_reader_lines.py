"""What a screen reader hears from the window: one line per toggle however it was made, and
Help ▸ Describe reading the group in one paragraph (issue 29, items 2-3)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QMessageBox

from grpo_desktop.views.common import accessible_events


@pytest.fixture
def heard():
    messages: list[str] = []

    def listen(event):
        if event.type() == QAccessible.Event.Announcement:
            messages.append(event.message())

    remove = accessible_events.add_listener(listen)
    yield messages
    remove()


def test_each_toggle_is_announced_once_whether_clicked_keyed_or_pressed(qtbot, window, heard):
    window.show()
    QApplication.processEvents()
    # the mult-23x47 group starts 1, 0, 0, 1: a click on card 2 makes it right
    qtbot.mouseClick(window.lab.trace_grid.card(1), Qt.MouseButton.LeftButton)
    assert heard == ["Card 2 now right. Par 0.75, std 0.433; 3 pushed up, 1 down"]
    qtbot.keyClick(window, Qt.Key.Key_2)  # key 2 toggles it back
    assert heard[1] == "Card 2 now wrong. Par 0.5, std 0.5; 2 pushed up, 2 down"
    interface = QAccessible.queryAccessibleInterface(window.lab.trace_grid.card(2))
    interface.actionInterface().doAction("Toggle")
    assert len(heard) == 3 and heard[2].startswith("Card 3 now right.")
    window.undo_stack.undo()  # undo is not a toggle request: the numbers speak for themselves
    assert len(heard) == 3


def test_describe_reads_the_group_in_one_paragraph_and_shows_it(qtbot, window, heard):
    shown: list[str] = []

    def read_and_close():
        box = window.findChild(QMessageBox, "describeBox")
        shown.append(box.text())
        assert box.textFormat() == Qt.TextFormat.PlainText
        box.accept()

    QTimer.singleShot(0, read_and_close)
    window.describe_action.trigger()
    assert len(heard) == 1 and shown == heard
    assert heard[0].startswith("A group of 4 answers to")
    assert "Par (the group's mean reward, the baseline) is 0.5" in heard[0]
    assert window.describe_action.shortcut().toString() == "Ctrl+Shift+D"
    assert window.describe_action in window.help_menu.actions()
