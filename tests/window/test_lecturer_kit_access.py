"""The lecturer's kit's new controls have a name a screen reader reads and a keyboard reaches
(Qt's accessibility interface, what the AT-SPI bridge publishes: tests/atspi walks the rest)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QTableWidget,
)

CONTROLS = (QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit, QTableWidget)


def unnamed_controls(widget) -> list[str]:
    """The visible controls of ``widget`` a screen reader would read without a name, or that
    Tab cannot reach."""
    problems = []
    for control in (c for kind in CONTROLS for c in widget.findChildren(kind)):
        if not control.isVisibleTo(widget) or isinstance(
            control.parent(), (QAbstractSpinBox, QComboBox)
        ):
            continue  # a spin box's or combo box's own line edit: read as the box itself
        interface = QAccessible.queryAccessibleInterface(control)
        if not interface.text(QAccessible.Text.Name).strip():
            problems.append(f"{type(control).__name__} {control.objectName()} has no name")
        if not control.focusPolicy() & Qt.FocusPolicy.TabFocus:
            problems.append(f"{control.objectName()} cannot be reached with Tab")
    return problems


def test_the_one_step_tab(window):
    window.explain_tabs.setCurrentIndex(3)
    QApplication.processEvents()
    panel = window.lab_page.one_step_panel
    assert unnamed_controls(panel) == []
    window.take_step_action.trigger()
    QApplication.processEvents()
    bars = QAccessible.queryAccessibleInterface(panel.bars)
    assert bars.text(QAccessible.Text.Name) == "Each answer's probability before and after"
    assert "answer 1:" in bars.text(QAccessible.Text.Description)


def test_the_presenter_console(window):
    window.presenter_action.trigger()
    QApplication.processEvents()
    console = window.presenter.console
    assert unnamed_controls(console) == []
    clock = QAccessible.queryAccessibleInterface(console.clock)
    assert clock.text(QAccessible.Text.Name) == "Time since the presenter view started"
    window.presenter.stop()


def test_the_experiment_dialog(window):
    window.experiment_action.trigger()
    QApplication.processEvents()
    assert unnamed_controls(window.experiment_dialog) == []
