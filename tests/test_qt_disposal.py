"""The suite deletes the windows a test made (``qt_disposal``), and only those it safely can."""

from __future__ import annotations

import threading

import shiboken6
from PySide6.QtCore import QThread
from PySide6.QtWidgets import QApplication, QWidget
from qt_disposal import dispose


def top_level_count() -> int:
    return len(QApplication.topLevelWidgets())


def test_a_closed_main_window_goes_with_its_charts_parentless_menus(qapp):
    from grpo_desktop.window.main_window import MainWindow

    before = top_level_count()
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    QApplication.processEvents()
    window.workbench.set_workspace("update")
    QApplication.processEvents()
    assert top_level_count() > before + 20  # the window, its menus, pyqtgraph's parentless menus
    window.undo_stack.setClean()
    window.close()
    assert dispose(window)
    assert not shiboken6.isValid(window)
    assert top_level_count() == before


def test_a_window_still_shown_or_inside_another_is_left_alone(qapp):
    shown = QWidget()
    shown.show()
    parent = QWidget()
    child = QWidget(parent)
    assert not dispose(shown)
    assert not dispose(child)
    assert shiboken6.isValid(shown) and shiboken6.isValid(child)
    shown.close()
    assert dispose(shown)
    assert dispose(parent)


def test_a_window_whose_thread_still_runs_is_left_alone(qapp):
    release = threading.Event()

    class Waiting(QThread):
        def run(self) -> None:
            release.wait(10)

    window = QWidget()
    thread = Waiting(window)
    thread.start()
    try:
        assert not dispose(window)
        assert shiboken6.isValid(window)
    finally:
        release.set()
        thread.wait()
    assert dispose(window)
