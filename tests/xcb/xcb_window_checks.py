"""Real-display checks: the window on Qt's xcb platform, run by test_real_display.py under Xvfb.

Not collected by the offscreen suite (the file name has no ``test_`` prefix): a QApplication's
platform is fixed at start, and the offscreen platform hides real-display bugs (DESIGN §3; e.g.
``QKeySequence.StandardKey.Redo`` is Ctrl+Y offscreen but Ctrl+Shift+Z under xcb).
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QShortcut

from grpo_desktop.views.shortcuts_dialog import shortcut_rows
from grpo_desktop.window.main_window import MainWindow

CONTROL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture(autouse=True)
def real_display(qapp):
    assert QGuiApplication.platformName() == "xcb", (
        "these checks need Qt's xcb platform; run them with "
        "`pytest tests/xcb` (it starts them under xvfb-run with QT_QPA_PLATFORM=xcb)"
    )


@pytest.fixture
def active(qtbot, window) -> MainWindow:
    """The shown window with the keyboard focus: window shortcuts need the active window."""
    with qtbot.waitActive(window):
        window.activateWindow()
    return window


def ambiguous(qtlog) -> list[str]:
    return [record.message for record in qtlog.records if "Ambiguous shortcut" in record.message]


def press(qtbot, window: MainWindow, key: Qt.Key, modifiers=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window, key, modifiers)


def rewards(window: MainWindow) -> tuple[int, ...]:
    return window.state.snapshot.rewards


@pytest.mark.parametrize(
    ("name", "key", "modifiers"),
    [("Ctrl+Shift+Z", Qt.Key.Key_Z, CONTROL | SHIFT), ("Ctrl+Y", Qt.Key.Key_Y, CONTROL)],
)
def test_ctrl_z_undoes_and_each_redo_key_redoes(qtbot, qtlog, active, name, key, modifiers):
    window = active
    window.workbench.toggle(1)
    assert rewards(window) == (1, 1, 0, 1)
    press(qtbot, window, Qt.Key.Key_Z, CONTROL)
    assert rewards(window) == (1, 0, 0, 1), "Ctrl+Z did not undo"
    press(qtbot, window, key, modifiers)
    assert rewards(window) == (1, 1, 0, 1), f"{name} did not redo"
    press(qtbot, window, Qt.Key.Key_Z, CONTROL)
    assert rewards(window) == (1, 0, 0, 1), "Ctrl+Z did not undo after a redo"
    assert ambiguous(qtlog) == []


def enabled_bindings(window: MainWindow) -> dict[str, list[str]]:
    """Every key an enabled action or shortcut of the window answers to, with who binds it."""
    bindings: dict[str, list[str]] = defaultdict(list)
    actions = {id(a): a for a in (*window.actions(), *window.findChildren(QAction))}
    for action in actions.values():
        if action.isEnabled():
            for sequence in action.shortcuts():
                name = action.objectName() or action.text().replace("&", "")
                bindings[sequence.toString()].append(name)
    for shortcut in window.findChildren(QShortcut):
        sequences = shortcut.keys()  # a QShortcut's key sequences (not a dict)
        if shortcut.isEnabled():
            for sequence in sequences:
                bindings[sequence.toString()].append(f"QShortcut {sequence.toString()}")
    bindings.pop("", None)
    return bindings


def conflicts(window: MainWindow) -> dict[str, list[str]]:
    return {key: who for key, who in enabled_bindings(window).items() if len(who) > 1}


def test_no_key_is_bound_twice_in_the_lab_or_in_a_lesson(qtbot, qtlog, window):
    window.install_deferred_features()
    window.workbench.toggle(1)
    window.workbench.toggle(2)
    window.undo_action.trigger()  # undo and redo both enabled: their keys count too
    assert window.undo_action.isEnabled() and window.redo_action.isEnabled()
    bindings = enabled_bindings(window)
    for key in ("Ctrl+Z", "Ctrl+Shift+Z", "Ctrl+Y", "V", "F1", "PgDown"):
        assert key in bindings, key
    assert conflicts(window) == {}
    window.lessons.start("group-is-baseline")
    assert "Esc" in enabled_bindings(window)  # the lesson's keys count too
    assert conflicts(window) == {}
    window.lessons.go_to(1)  # a predict step: R reveals
    assert "R" in enabled_bindings(window)
    assert conflicts(window) == {}
    window.lessons.exit()
    assert ambiguous(qtlog) == []


def test_the_redo_action_lists_each_key_once(window):
    keys = [QKeySequence(key).toString() for key in window.redo_action.shortcuts()]
    assert keys == list(dict.fromkeys(keys))
    assert {"Ctrl+Shift+Z", "Ctrl+Y"} <= set(keys)


def test_f1_names_each_redo_key_once(window):
    (redo,) = [key for _menu, key, text in shortcut_rows(window) if text == "Redo"]
    keys = redo.split(" or ")
    assert len(keys) == len(set(keys)) and {"Ctrl+Shift+Z", "Ctrl+Y"} <= set(keys), redo
