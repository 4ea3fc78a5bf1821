"""What the window installs after its first paint (exports, lessons, the chrome's paint caches,
the typesetter) takes a turn of the event loop per part, the typesetter's import on another
thread: all in one turn held a click landing then for 150-200 ms."""

from __future__ import annotations

import sys
import threading

from PySide6.QtWidgets import QApplication

from grpo_desktop.views.common import math_render
from grpo_desktop.views.common.math_render import OBJECT_CHARACTER
from grpo_desktop.window.main_window import MainWindow


def raw_text(window: MainWindow) -> str:
    """The worked math's document as laid out (a typeset line is one object character)."""
    return window.math_panel.document().toRawText()


def test_after_the_first_paint_the_deferred_features_install_a_part_per_turn(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    # Connected after the window's own handler: what that one turn installed.
    in_the_first_turn: list[tuple[bool, bool]] = []
    window.prebuild.after_first_paint.connect(
        lambda: in_the_first_turn.append(
            (window.export_actions is not None, window.lessons is not None)
        )
    )
    window.show()
    qtbot.waitUntil(lambda: window.lessons is not None, timeout=10_000)
    assert in_the_first_turn == [(True, False)], "the export actions alone in the first turn"
    qtbot.waitUntil(lambda: OBJECT_CHARACTER in raw_text(window), timeout=10_000)
    assert window.lessons is not None and window.export_actions is not None


def test_called_directly_they_are_all_installed_at_once(qtbot):
    """A screenshot, a lesson from the command line and the presenter view need them now."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.install_deferred_features()
    assert window.lessons is not None and window.export_actions is not None
    assert math_render.typesetter_loaded()
    window.math_panel.finish_typesetting()
    assert OBJECT_CHARACTER in raw_text(window), "the worked math typeset"


def test_called_while_they_install_in_turns_they_are_all_there_after_the_call(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    window.prebuild.after_first_paint.connect(window.install_deferred_features)
    window.show()
    qtbot.waitUntil(lambda: window.lessons is not None, timeout=10_000)
    assert window.export_actions is not None
    lessons = window.lessons
    for _ in range(5):  # what was left of the turns (zero timers) finds it done: installed once
        QApplication.processEvents()
    assert window.lessons is lessons


def test_the_typesetter_is_imported_off_the_gui_thread_after_the_first_paint(qtbot, monkeypatch):
    assert math_render.load_typesetter()
    monkeypatch.setattr(math_render, "_typesetter", None)  # not loaded yet: as at start-up
    monkeypatch.setattr(math_render, "_imported", None, raising=False)
    monkeypatch.setattr(math_render, "_import_asked", False, raising=False)
    monkeypatch.delitem(sys.modules, "ziamath")  # imported afresh (its parts stay imported)
    importing: list[threading.Thread] = []

    class WatchImports:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name == "ziamath":
                importing.append(threading.current_thread())
            return None  # found where it always is

    monkeypatch.setattr(sys, "meta_path", [WatchImports(), *sys.meta_path])
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: OBJECT_CHARACTER in raw_text(window), timeout=10_000)
    assert importing and all(t is not threading.main_thread() for t in importing)
