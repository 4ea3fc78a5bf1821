"""File ▸ Open and Save with hostile files: symlink loops, read-only files, HTML in messages."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow

from grpo_desktop.model.settings import AppSettings
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.window.scenario_files import ScenarioFiles


@pytest.fixture
def files(qtbot, tmp_path):
    window = QMainWindow()
    qtbot.addWidget(window)
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    controller = ScenarioFiles(window, Workbench(), settings)
    controller.errors = []
    controller.show_error = lambda title, text: controller.errors.append(text)
    return controller


def test_a_symlink_loop_is_reported_and_nothing_raises(files, tmp_path):
    (tmp_path / "a.grpo.json").symlink_to(tmp_path / "b.grpo.json")
    (tmp_path / "b.grpo.json").symlink_to(tmp_path / "a.grpo.json")
    assert files.open_path(tmp_path / "a.grpo.json") is False
    assert len(files.errors) == 1 and "a.grpo.json" in files.errors[0]


def test_a_symlink_loop_in_the_recent_list_is_dropped_from_it(files, tmp_path):
    loop = tmp_path / "a.grpo.json"
    files.settings.add_recent_file(loop)  # remembered before it became a loop
    loop.symlink_to(tmp_path / "b.grpo.json")
    (tmp_path / "b.grpo.json").symlink_to(loop)
    assert files.open_path(loop) is False
    assert files.settings.recent_files == []
