"""The Lab page's first layout: the cards and the chart get their shares before they show."""

from __future__ import annotations

from event_log import EventLog
from PySide6.QtCore import QEvent
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from grpo_desktop.window.main_window import MainWindow


def widths(widget) -> EventLog:
    """The widths ``widget`` is resized to, in order."""
    return EventLog(QEvent.Type.Resize, widget, record=lambda _, event: event.size().width())


def test_the_cards_and_the_chart_are_first_laid_out_at_their_balanced_widths(qtbot):
    """Balanced after the window showed, the cards were laid out at the splitter's own shares
    first (865 px of 1,260 at 1280x800), then again at three fifths."""
    base_font = QGuiApplication.font()
    window = MainWindow()
    qtbot.addWidget(window)
    cards, chart = widths(window.lab.trace_grid), widths(window.lab.chart)
    window.resize(1280, 800)
    with qtbot.waitExposed(window):
        window.show()
    QApplication.processEvents()
    left, right = window.lab_splitter.sizes()
    assert left == round((left + right) * 0.6)
    assert cards.seen and set(cards.seen) == {window.lab.trace_grid.width()}
    assert chart.seen and set(chart.seen) == {window.lab.chart.width()}
    window.undo_stack.setClean()
    QApplication.setFont(base_font)
    QApplication.setPalette(QPalette())


def test_a_window_started_on_another_workspace_gives_the_cards_three_fifths_of_the_lab(qtbot):
    base_font = QGuiApplication.font()
    window = MainWindow()
    qtbot.addWidget(window)
    window.workbench.set_workspace("update")
    window.resize(1280, 800)
    with qtbot.waitExposed(window):
        window.show()
    window.workbench.set_workspace("lab")  # the lab page is laid out the first time now
    QApplication.processEvents()
    left, right = window.lab_splitter.sizes()
    assert left == round((left + right) * 0.6)
    window.undo_stack.setClean()
    QApplication.setFont(base_font)
    QApplication.setPalette(QPalette())
