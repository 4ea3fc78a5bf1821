"""The suite's retiring of finished tests' windows (tests/qt_retire.py): a retired window keeps
its look when the application's changes, and stops its timers; a window still in use is left
alone."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QWidget
from qt_retire import retire


def _window_with_a_label_dialog_and_timer() -> tuple[QWidget, QLabel, QDialog, QTimer]:
    window = QWidget()
    label = QLabel("text", window)
    dialog = QDialog(window)
    timer = QTimer(window)
    timer.start(1000)
    return window, label, dialog, timer


def _bigger_app_font() -> QFont:
    font = QFont(QApplication.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    return font


def test_a_retired_window_and_its_dialog_keep_their_look_when_the_application_changes(qapp):
    window, label, dialog, timer = _window_with_a_label_dialog_and_timer()
    size_before = label.font().pointSizeF()
    window_colour = window.palette().color(QPalette.ColorRole.Window)

    assert retire(window)
    QApplication.setFont(_bigger_app_font())
    palette = QPalette(QApplication.palette())
    palette.setColor(QPalette.ColorRole.Window, QColor("#123456"))
    QApplication.setPalette(palette)
    QApplication.processEvents()  # Qt hands the change to the widgets in events

    assert label.font().pointSizeF() == size_before
    assert dialog.font().pointSizeF() == size_before
    assert window.palette().color(QPalette.ColorRole.Window) == window_colour
    assert not timer.isActive()


def test_a_window_still_shown_is_not_retired(qtbot):
    window, label, _dialog, timer = _window_with_a_label_dialog_and_timer()
    qtbot.addWidget(window)
    window.show()
    size_before = label.font().pointSizeF()

    assert not retire(window)
    QApplication.setFont(_bigger_app_font())
    QApplication.processEvents()

    assert label.font().pointSizeF() == 2 * size_before
    assert timer.isActive()


def test_a_window_with_a_parent_is_not_retired(qapp):
    parent = QWidget()
    window, _label, _dialog, timer = _window_with_a_label_dialog_and_timer()
    window.setParent(parent)

    assert not retire(window)
    assert timer.isActive()
