"""Errors reach the user: uncaught exceptions are logged with their traceback and shown once."""

from __future__ import annotations

import logging
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QEventLoop, Qt, QTimer, qInstallMessageHandler, qWarning
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from grpo_desktop import error_handling as errors


@pytest.fixture(autouse=True)
def restore_error_state(private_home, monkeypatch):
    """Each test logs under its private home and leaves every hook as it found it."""
    monkeypatch.setenv("XDG_STATE_HOME", str(private_home / ".local" / "state"))
    yield
    errors.uninstall_error_handling()
    errors.stop_logging()
    # pytest and pytest-qt swap their own hooks per phase, so check that ours are gone.
    assert sys.excepthook is not errors._excepthook
    assert threading.excepthook is not errors._threading_excepthook


@pytest.fixture
def dialogs(monkeypatch) -> list[tuple[str, str, Path]]:
    """Every (message, details, log path) the dialog would have shown; nothing is shown."""
    calls: list[tuple[str, str, Path]] = []
    monkeypatch.setattr(
        errors,
        "show_error_dialog",
        lambda message, details, path: calls.append((message, details, path)),
    )
    return calls


@pytest.fixture
def installed(qapp, dialogs) -> Path:
    return errors.install_error_handling(qapp)


def boom_in_a_slot() -> None:
    raise ValueError("the slot broke: 7 / 0")


def log_text(path: Path) -> str:
    for handler in logging.getLogger("grpo_desktop").handlers:
        handler.flush()
    return path.read_text(encoding="utf-8")


def run_event_loop(ms: int = 50) -> None:
    """Run a real (nested) event loop, as app.exec() does, for ``ms`` milliseconds."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


# --- uncaught exceptions ----------------------------------------------------------------------


def test_exception_in_a_button_slot_is_logged_and_shown(qtbot, installed, dialogs):
    button = QPushButton("Break")
    qtbot.addWidget(button)
    button.clicked.connect(boom_in_a_slot)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(dialogs) == 1)

    message, details, path = dialogs[0]
    assert message == "ValueError: the slot broke: 7 / 0"
    assert "Traceback (most recent call last)" in details
    assert "boom_in_a_slot" in details
    assert path == installed
    assert installed == errors.log_file_path()
    text = log_text(installed)
    assert "Uncaught exception" in text
    assert "Traceback (most recent call last)" in text
    assert 'raise ValueError("the slot broke: 7 / 0")' in text


def test_exception_in_a_timer_slot_inside_the_event_loop_is_shown_and_the_app_runs_on(
    qtbot, qapp, installed, dialogs
):
    QTimer.singleShot(0, boom_in_a_slot)
    run_event_loop()  # a running loop: the dialog is queued, then shown from the loop
    qtbot.waitUntil(lambda: len(dialogs) == 1)
    assert dialogs[0][0] == "ValueError: the slot broke: 7 / 0"
    assert "boom_in_a_slot" in log_text(installed)

    ran = []
    QTimer.singleShot(0, lambda: ran.append(True))
    qtbot.waitUntil(lambda: bool(ran))
    assert QApplication.instance() is qapp


def test_an_uncaught_exception_outside_the_event_loop_is_shown_at_once(installed, dialogs):
    try:
        raise KeyError("problem id")
    except KeyError:
        sys.excepthook(*sys.exc_info())
    assert [message for message, _, _ in dialogs] == ["KeyError: 'problem id'"]


def test_a_storm_of_the_same_error_shows_one_dialog_but_logs_every_one(qtbot, installed, dialogs):
    for _ in range(5):
        QTimer.singleShot(0, boom_in_a_slot)
    run_event_loop()
    qtbot.wait(20)
    assert len(dialogs) == 1
    assert log_text(installed).count("Uncaught exception") == 5

    QTimer.singleShot(0, lambda: 1 / 0)  # a different error is shown
    run_event_loop()
    qtbot.waitUntil(lambda: len(dialogs) == 2)
    assert dialogs[1][0] == "ZeroDivisionError: division by zero"


def test_the_same_error_is_shown_again_after_a_quiet_spell(monkeypatch, installed, dialogs):
    monkeypatch.setattr(errors, "REPEAT_SECONDS", 0.05)
    for _ in range(2):
        try:
            raise RuntimeError("again")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
        time.sleep(0.1)
    assert len(dialogs) == 2


def test_an_error_inside_the_dialog_is_logged_not_raised(qtbot, qapp, monkeypatch):
    calls = []

    def broken_dialog(message, details, path):
        calls.append(message)
        raise RuntimeError("the dialog broke")

    monkeypatch.setattr(errors, "show_error_dialog", broken_dialog)
    log_path = errors.install_error_handling(qapp)
    QTimer.singleShot(0, boom_in_a_slot)
    run_event_loop()
    qtbot.waitUntil(lambda: bool(calls))
    run_event_loop()
    assert calls == ["ValueError: the slot broke: 7 / 0"]
    text = log_text(log_path)
    assert "the error dialog itself failed" in text
    assert "RuntimeError: the dialog broke" in text
    assert text.count("Uncaught exception") == 1  # the dialog's error did not loop back


def test_errors_while_the_dialog_is_open_are_only_logged(qtbot, qapp, monkeypatch):
    calls = []

    def dialog_whose_loop_hits_another_error(message, details, path):
        calls.append(message)
        QTimer.singleShot(0, lambda: 1 / 0)  # another slot fails while the modal dialog runs
        run_event_loop()

    monkeypatch.setattr(errors, "show_error_dialog", dialog_whose_loop_hits_another_error)
    log_path = errors.install_error_handling(qapp)
    QTimer.singleShot(0, boom_in_a_slot)
    run_event_loop()
    qtbot.waitUntil(lambda: bool(calls))
    run_event_loop()
    assert calls == ["ValueError: the slot broke: 7 / 0"]
    text = log_text(log_path)
    assert "ZeroDivisionError: division by zero" in text
    assert text.count("Uncaught exception") == 2


def test_an_exception_in_a_worker_thread_is_logged_and_shown_from_the_gui_thread(
    qtbot, installed, dialogs, monkeypatch
):
    shown_in = []

    def dialog(message, details, path):
        dialogs.append((message, details, path))
        shown_in.append(threading.get_ident())

    monkeypatch.setattr(errors, "show_error_dialog", dialog)

    def work():
        raise OSError("disk full")

    worker = threading.Thread(target=work, name="saver")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(dialogs))
    assert dialogs[0][0] == "OSError: disk full"
    assert shown_in == [threading.get_ident()]
    text = log_text(installed)
    assert "in thread saver" in text
    assert "OSError: disk full" in text


def test_keyboard_interrupt_goes_to_the_previous_hook_without_a_dialog(qapp, dialogs, monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "excepthook", lambda *exc_info: seen.append(exc_info[0]))
    errors.install_error_handling(qapp)
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
    assert seen == [KeyboardInterrupt]
    assert dialogs == []


def test_uninstall_restores_the_hooks_and_install_twice_is_safe(qapp, dialogs):
    before = sys.excepthook, threading.excepthook
    errors.install_error_handling(qapp)
    errors.install_error_handling(qapp)
    assert sys.excepthook is errors._excepthook
    assert threading.excepthook is errors._threading_excepthook
    errors.uninstall_error_handling()
    assert (sys.excepthook, threading.excepthook) == before


# --- Qt's own messages ------------------------------------------------------------------------


@pytest.mark.qt_log_ignore("grpo-desktop test warning")
def test_qt_warnings_go_to_the_log_and_still_reach_the_earlier_handler(qapp, qtlog, dialogs):
    log_path = errors.install_error_handling(qapp)
    qWarning("grpo-desktop test warning one")
    text = log_text(log_path)
    assert "WARNING" in text
    assert "grpo_desktop.qt" in text
    assert "grpo-desktop test warning one" in text
    assert any("test warning one" in record.message for record in qtlog.records)

    errors.uninstall_error_handling()
    current = qInstallMessageHandler(None)
    qInstallMessageHandler(current)  # put it straight back
    assert current is not errors._qt_message_handler
    qWarning("grpo-desktop test warning two")
    assert "warning two" not in log_text(log_path)
    assert any("test warning two" in record.message for record in qtlog.records)


# --- the dialog -------------------------------------------------------------------------------


def test_the_dialog_names_the_error_the_log_and_holds_the_traceback(qtbot, tmp_path):
    log_path = tmp_path / "grpo-desktop.log"
    box = errors.build_error_dialog(
        "ValueError: bad G", "Traceback (most recent call last):\n  ...", log_path
    )
    qtbot.addWidget(box)
    assert box.windowTitle() == "GRPO Desktop hit a problem"
    assert box.icon() == QMessageBox.Icon.Critical
    assert "ValueError: bad G" in box.text()
    assert f"A report was written to {log_path}" in box.informativeText()
    assert box.detailedText().startswith("Traceback (most recent call last)")


def test_the_real_dialog_does_not_block_where_nobody_can_click(qapp, tmp_path):
    started = time.monotonic()
    errors.show_error_dialog("ValueError: x", "Traceback", tmp_path / "log")  # offscreen
    assert time.monotonic() - started < 5


def test_summary_is_one_line_of_type_and_message():
    assert errors.summarize(ValueError, ValueError("")) == "ValueError"
    assert errors.summarize(ValueError, ValueError("two\nlines")) == "ValueError: two lines"
    long = errors.summarize(ValueError, ValueError("x" * 1000))
    assert len(long) == errors.MAX_SUMMARY_CHARS
    assert long.endswith("…")


# --- the log file -----------------------------------------------------------------------------


def test_log_file_path_honours_xdg_state_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert errors.log_file_path("linux") == tmp_path / "state" / "grpo-desktop" / "grpo-desktop.log"


def test_log_file_path_defaults_to_local_state_and_ignores_a_relative_xdg(
    monkeypatch, private_home
):
    expected = private_home / ".local" / "state" / "grpo-desktop" / "grpo-desktop.log"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert errors.log_file_path("linux") == expected
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    assert errors.log_file_path("linux") == expected


def test_log_file_path_on_windows_and_macos(monkeypatch, private_home, tmp_path):
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert errors.log_file_path("win32") == (
        tmp_path / "Local" / "GRPO Desktop" / "Logs" / "grpo-desktop.log"
    )
    assert errors.log_file_path("darwin") == (
        private_home / "Library" / "Logs" / "GRPO Desktop" / "grpo-desktop.log"
    )


def test_configure_logging_creates_the_folder_writes_and_is_idempotent():
    path = errors.configure_logging()
    assert path == errors.log_file_path()
    assert errors.configure_logging() == path
    file_handlers = [
        handler
        for handler in logging.getLogger("grpo_desktop").handlers
        if isinstance(handler, logging.FileHandler)
    ]
    assert len(file_handlers) == 1
    logging.getLogger("grpo_desktop.model.lab_state").warning("hello log")
    assert "hello log" in log_text(path)


def test_configure_logging_survives_an_unwritable_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    path = errors.configure_logging()
    assert path.parent == tmp_path
    assert path.name.startswith("grpo-desktop-")
    logging.getLogger("grpo_desktop").error("still logged")
    text = log_text(path)
    assert "still logged" in text
    assert "could not open the log file" in text  # the fallback says why


def test_configure_logging_survives_when_no_file_can_be_opened(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("read-only file system")

    monkeypatch.setattr(errors, "_open_log_file", refuse)
    path = errors.configure_logging()  # must not raise
    assert path == errors.log_file_path()
    logging.getLogger("grpo_desktop").error("nowhere to write, but no crash")


def test_ensure_streams_replaces_missing_streams(monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    errors.ensure_streams()
    assert sys.stdout is not None and sys.stderr is not None
    print("no crash", file=sys.stderr)
    print("no crash")
    assert not errors.has_console()


def test_no_console_means_no_stderr_handler_but_a_log_file(monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    path = errors.configure_logging()
    handlers = logging.getLogger("grpo_desktop").handlers
    assert not any(type(handler) is errors._ConsoleHandler for handler in handlers)
    logging.getLogger("grpo_desktop").error("for the file only")
    assert "for the file only" in log_text(path)
