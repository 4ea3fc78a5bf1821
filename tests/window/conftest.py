"""Fixtures the window's tests share: windows made at a size and theme, the rollouts controller's
messages and the groups it opens."""

from __future__ import annotations

import pytest


@pytest.fixture
def errors(window, monkeypatch):
    """The messages the rollouts controller would show, instead of modal boxes."""
    shown: list[str] = []
    monkeypatch.setattr(window.rollouts, "show_error", shown.append)
    return shown


@pytest.fixture
def opened(monkeypatch):
    """The groups handed to the workbench (``Workbench.open_recorded_group`` is replaced: the
    tests check what reaches it)."""
    from grpo_desktop.model.workbench import Workbench

    groups = []
    monkeypatch.setattr(Workbench, "open_recorded_group", lambda self, group: groups.append(group))
    return groups


@pytest.fixture
def sized(qtbot):
    """Makes main windows: ``sized(size, theme="light", group_size=4)`` gives one with its deferred
    features installed, shown at ``size`` in ``theme``. Each is left clean and light afterwards."""
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.window.main_window import MainWindow

    made = []

    def make(size: tuple[int, int], theme: str = "light", group_size: int = 4) -> MainWindow:
        window = MainWindow()
        qtbot.addWidget(window)
        window.install_deferred_features()
        window.presentation.set_theme(theme, remember=False)
        if group_size != 4:
            window.request_group_size(group_size)
        window.resize(*size)
        window.show()
        QApplication.processEvents()
        made.append(window)
        return window

    yield make
    for window in made:
        window.undo_stack.setClean()
        window.presentation.set_theme("light", remember=False)
