"""File ▸ Open and Save with hostile files: symlink loops, read-only files, HTML in messages."""

from __future__ import annotations

import os
import stat

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QMainWindow, QMessageBox

from grpo_desktop.core.files.scenario import save_scenario, scenario_to_json
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


def read_only_scenario(files, tmp_path):
    target = tmp_path / "kept.grpo.json"
    save_scenario(files.workbench.current_scenario(), target)
    before = target.read_bytes()
    target.chmod(0o444)
    files.workbench.toggle(0)  # a change to save
    return target, before


def test_saving_over_a_read_only_file_asks_and_cancel_keeps_it(files, tmp_path):
    target, before = read_only_scenario(files, tmp_path)
    asked = []
    files.ask_replace_read_only = lambda path: asked.append(path) or False
    files.ask_save_path = lambda: str(target)
    assert files.save_as() is False
    assert asked == [target]
    assert target.read_bytes() == before
    assert files.modified


def test_saving_over_a_read_only_file_replaces_it_when_the_user_agrees(files, tmp_path):
    target, before = read_only_scenario(files, tmp_path)
    files.ask_replace_read_only = lambda path: True
    files.ask_save_path = lambda: str(target)
    assert files.save_as() is True
    assert target.read_bytes() != before and not files.modified


def test_a_writable_file_is_saved_without_a_question(files, tmp_path):
    target = tmp_path / "plain.grpo.json"
    save_scenario(files.workbench.current_scenario(), target)
    files.ask_replace_read_only = lambda path: pytest.fail("asked about a writable file")
    files.ask_save_path = lambda: str(target)
    assert files.save_as() is True


def test_saving_through_a_symlink_updates_the_linked_file(files, tmp_path):
    real = tmp_path / "real.grpo.json"
    save_scenario(files.workbench.current_scenario(), real)
    link = tmp_path / "link.grpo.json"
    link.symlink_to(real)
    files.workbench.toggle(0)
    files.ask_save_path = lambda: str(link)
    assert files.save_as() is True
    assert link.is_symlink() and stat.S_ISREG(os.lstat(real).st_mode)
    assert real.read_text(encoding="utf-8") == scenario_to_json(files.workbench.current_scenario())


def test_error_messages_are_shown_as_plain_text(files):
    box = files.message_box(QMessageBox.Icon.Warning, "t", "x.grpo.json: got '<img src=a>'")
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert box.text() == "x.grpo.json: got '<img src=a>'"


def test_recent_file_tooltips_show_the_path_as_text(files, tmp_path):
    path = tmp_path / "<img src=x width=900>.grpo.json"
    save_scenario(files.workbench.current_scenario(), path)
    assert files.open_path(path)
    files._fill_recent_menu()
    document = QTextDocument()
    document.setHtml(files.recent_menu.actions()[0].toolTip())
    assert document.toPlainText() == str(path.resolve())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_opening_a_named_pipe_says_why_instead_of_freezing(files, tmp_path):
    import threading

    fifo = tmp_path / "pipe.grpo.json"
    os.mkfifo(fifo)
    result: list[bool] = []
    worker = threading.Thread(target=lambda: result.append(files.open_path(fifo)), daemon=True)
    worker.start()
    worker.join(3.0)
    assert not worker.is_alive(), "File ▸ Open blocked on a FIFO"
    assert result == [False]
    assert files.errors == ["pipe.grpo.json: is a named pipe (FIFO), not a scenario file"]


def test_the_file_dialogs_suffix_is_the_scenario_formats():
    from grpo_desktop.core.files import scenario
    from grpo_desktop.window import scenario_files

    assert scenario_files.SCENARIO_SUFFIX == scenario.SCENARIO_SUFFIX


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_saving_onto_a_named_pipe_says_so_and_leaves_it_a_pipe(files, tmp_path):
    pipe = tmp_path / "pipe.grpo.json"
    os.mkfifo(pipe)
    files.workbench.toggle(0)
    files.ask_save_path = lambda: str(pipe)
    assert files.save_as() is False
    assert files.errors == [f"{pipe}: it is a named pipe (FIFO), not a regular file"]
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert files.modified


def test_a_scenario_whose_group_cannot_be_computed_changes_nothing(files, tmp_path, monkeypatch):
    from dataclasses import replace

    import grpo_desktop.core.lab.lab_snapshot as snapshot_module
    from grpo_desktop.core.lab.problems import get_problem

    workbench = files.workbench
    other = replace(
        workbench.current_scenario(),
        problem=get_problem("hard-remainder-7-pow-100"),
        correct=(True, False, False, False, False),
        convention="verl",
        workspace="update",
    )
    target = tmp_path / "other.grpo.json"
    save_scenario(other, target)
    before = (workbench.lab.snapshot, workbench.convention, workbench.workspace, workbench.path)

    def explain_overflows(*args, **kwargs):
        raise OverflowError("(34, 'Numerical result out of range')")

    monkeypatch.setattr(snapshot_module, "explain", explain_overflows)
    assert files.open_path(target) is False
    assert files.errors == ["other.grpo.json: (34, 'Numerical result out of range')"]
    after = (workbench.lab.snapshot, workbench.convention, workbench.workspace, workbench.path)
    assert after == before
    assert workbench.lab.problem.id == before[0].problem.id


def test_open_recent_is_enabled_after_the_first_save_in_a_fresh_profile(files, tmp_path):
    assert not files.recent_menu.isEnabled(), "a fresh profile has nothing recent"
    files.ask_save_path = lambda: str(tmp_path / "first.grpo.json")
    assert files.save_as() is True
    assert files.recent_menu.isEnabled(), "the file just saved must be reachable from the menu"
    assert [a.text() for a in files.recent_menu.actions()] == ["&1 first.grpo.json"]


def test_open_recent_greys_again_when_its_last_file_is_dropped(files, tmp_path):
    broken = tmp_path / "broken.grpo.json"
    broken.write_text("{", encoding="utf-8")
    files.settings.add_recent_file(broken)
    files._fill_recent_menu()
    assert files.recent_menu.isEnabled()
    assert files.open_path(broken) is False
    assert not files.recent_menu.isEnabled()
