"""File ▸ Open rollouts…: read a real run's rollout files and browse them; a group goes to the Lab.

The controller asks for a verl ``{step}.jsonl`` / TRL ``completions_*.parquet`` file or a folder
of them, reads it on a worker thread (a large file takes a while, and the window must keep
painting), and shows a progress dialog only when reading takes more than about a second; Cancel
stops the reading. A file that cannot be read shows one message (the core's sentence naming the
file, as plain text) and changes nothing. The browser then lists the steps and groups; choosing
one reads that group back (:func:`~grpo_desktop.core.lab.recorded_group.recorded_group`) and hands
it
to ``workbench.open_recorded_group``, which shows it in the Lab as one undo step.

The dialogs are methods (``ask_file``, ``ask_folder``, ``show_error``) that tests replace. Every
text from outside (a file or folder name, a message quoting one) reaches a label through
:func:`~grpo_desktop.core.common.unsafe_text.visible`, so a bidi override cannot disguise a name.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QEventLoop, QObject, QStandardPaths, Qt, QThread, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QStatusBar,
    QWidget,
)

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.common import gui_collector

if TYPE_CHECKING:  # the browser loads on first use: start-up does not pay for it
    from grpo_desktop.core.runs.rollouts import RolloutSource
    from grpo_desktop.views.files.rollouts_browser import RolloutsBrowser

__all__ = ["FILE_FILTER", "SHORTCUTS", "RolloutsController", "RolloutsWindow"]

log = logging.getLogger(__name__)

FILE_FILTER = (
    "Rollout files (*.jsonl *.parquet);;verl step files (*.jsonl);;"
    "TRL completions (*.parquet);;All files (*)"
)
#: Free elsewhere in the window (see export_controller.SHORTCUTS for the keys already taken).
SHORTCUTS = {"openRolloutsAction": "Ctrl+Shift+O", "rolloutsBrowserAction": "Ctrl+Shift+B"}
PROGRESS_STEPS = 1000
SHOW_PROGRESS_AFTER_MS = 1000  # a quick read shows no dialog at all
HEADLESS_PLATFORMS = ("offscreen", "minimal")  # no window stacking to change there


class RolloutsWindow(Protocol):
    """What the controller asks of the window: a parent for dialogs, its theme, its status bar."""

    theme: Theme

    def addAction(self, action: QAction) -> None: ...

    def statusBar(self) -> QStatusBar: ...


class _Cancelled(BaseException):
    """Raised from the progress callback to stop reading: a BaseException, so no reader's
    ``except Exception`` turns it into a "bad file" message."""


class _ReadThread(QThread):
    """Runs ``open_rollouts`` off the GUI thread; the result or the error is kept for the caller."""

    progressed = Signal(int)  # per mille

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.source: RolloutSource | None = None
        self.error: str | None = None
        self.cancelled = False
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    def _progress(self, fraction: float) -> None:
        if self._cancel.is_set():
            raise _Cancelled
        self.progressed.emit(round(fraction * PROGRESS_STEPS))

    def run(self) -> None:  # Qt override: runs on the worker thread
        # The readers load on first use, not with the window (start-up, DESIGN §5).
        from grpo_desktop.core.runs.rollouts import RolloutError, open_rollouts

        try:
            self.source = open_rollouts(self.path, self._progress)
        except _Cancelled:
            self.cancelled = True
        except RolloutError as error:
            self.error = str(error)
        except Exception as error:  # a bug or MemoryError: still one message, and logged
            log.exception("reading rollouts from %s failed", self.path)
            self.error = f"{self.path.name}: cannot read the rollouts ({error})"
        if self._cancel.is_set() and self.source is not None:
            self.source, self.cancelled = None, True  # cancelled as it finished: nothing loads


class RolloutsController(QObject):
    """The rollouts actions of one window, the run last read, and its browser."""

    source_changed = Signal(object)  # RolloutSource: a run was read and the browser shows it

    def __init__(self, window: RolloutsWindow, workbench: Workbench) -> None:
        self.widget = cast(QWidget, window)  # a QMainWindow: the dialogs' parent
        super().__init__(self.widget)
        self.window = window
        self.workbench = workbench
        self.source: RolloutSource | None = None
        self._browser: RolloutsBrowser | None = None
        self._reading = False
        self.open_action = self._action(
            "Open ro&llouts…",
            "openRolloutsAction",
            "Open a verl {step}.jsonl or TRL completions_*.parquet file and browse its groups",
        )
        self.open_action.triggered.connect(self.open_file_dialog)
        self.open_folder_action = self._action(
            "Open rollouts &folder…",
            "openRolloutsFolderAction",
            "Open a folder of verl step files or TRL completions files and browse its groups",
        )
        self.open_folder_action.triggered.connect(self.open_folder_dialog)
        self.browser_action = self._action(
            "Rollouts &browser",
            "rolloutsBrowserAction",
            "Back to the steps and groups of the rollouts last opened",
        )
        self.browser_action.setEnabled(False)
        self.browser_action.triggered.connect(self.show_browser)

    def _action(self, text: str, name: str, tip: str) -> QAction:
        action = QAction(text, self.widget, objectName=name)
        shortcut = SHORTCUTS.get(name)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(tip)
        self.window.addAction(action)
        return action

    def add_to_menu(self, menu: QMenu) -> None:
        menu.addAction(self.open_action)
        menu.addAction(self.open_folder_action)
        menu.addAction(self.browser_action)

    @property
    def browser(self) -> RolloutsBrowser:
        """The browser, built the first time it is needed."""
        if self._browser is None:
            from grpo_desktop.views.files.rollouts_browser import RolloutsBrowser

            self._browser = RolloutsBrowser(self.window.theme, self.widget)
            self._browser.group_requested.connect(self.open_group)
            self._fit_browser()
        return self._browser

    # --- asking the user (replaced in tests) --------------------------------------------------

    def ask_file(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(
            self._parent(), "Open rollouts", self._folder(), FILE_FILTER
        )
        return path or None

    def ask_folder(self) -> str | None:
        path = QFileDialog.getExistingDirectory(
            self._parent(), "Open a folder of rollouts", self._folder()
        )
        return path or None

    def show_error(self, message: str) -> None:
        """One warning, as plain text: the message quotes a file's name and contents."""
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Cannot open the rollouts",
            "",
            QMessageBox.StandardButton.Ok,
            self._parent(),
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(visible(message))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.error_box = box
        # Window-modal but not a nested event loop: nothing waits on it (with --screenshot on a
        # headless platform no one could press OK).
        box.open()

    def _parent(self) -> QWidget:
        browser = self._browser
        return browser if browser is not None and browser.isVisible() else self.widget

    def _folder(self) -> str:
        if self.source is not None:
            return str(self.source.path.parent)
        return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.HomeLocation)

    # --- opening ------------------------------------------------------------------------------

    def open_file_dialog(self) -> bool:
        path = self.ask_file()
        return self.open_path(path) if path else False

    def open_folder_dialog(self) -> bool:
        path = self.ask_folder()
        return self.open_path(path) if path else False

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Read the rollouts at ``path`` and show them in the browser; False if nothing loaded."""
        if self._reading:
            return False
        self._reading = True
        try:
            source = self.read(Path(path))
        finally:
            self._reading = False
        if source is None:
            return False
        if not source.steps:
            self.show_error(f"{source.path.name}: no rollouts found")
            return False
        self.source = source
        browser = self.browser
        browser.show_source(source.path.name or str(source.path), source.format, source.steps)
        self.browser_action.setEnabled(True)
        self.source_changed.emit(source)
        for remark in (source.problems + source.notes)[:1]:
            self.window.statusBar().showMessage(f"Rollouts read; note: {visible(remark)}")
        self.show_browser()
        return True

    def read(self, path: Path) -> RolloutSource | None:
        """``open_rollouts`` on a worker thread while the window keeps painting.

        A progress dialog appears only if reading takes more than a second; its Cancel stops
        the reading. An unreadable file shows one message; returns None then, or on Cancel.
        """
        progress = QProgressDialog(
            f"Reading {visible(path.name or path)}…", "Cancel", 0, PROGRESS_STEPS, self._parent()
        )
        progress.setObjectName("rolloutsProgress")
        label = QLabel(progress.labelText(), progress)  # a file's name: plain text, never HTML
        label.setTextFormat(Qt.TextFormat.PlainText)
        progress.setLabel(label)
        progress.setWindowTitle("Opening rollouts")
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(SHOW_PROGRESS_AFTER_MS)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        self.progress_dialog = progress  # for tests: whether it showed
        thread = _ReadThread(path, self)
        loop = QEventLoop(self)
        thread.progressed.connect(progress.setValue, Qt.ConnectionType.QueuedConnection)
        thread.finished.connect(loop.quit, Qt.ConnectionType.QueuedConnection)
        progress.canceled.connect(thread.cancel)
        progress.setValue(0)  # starts the one-second clock
        gui_collector.pause()  # Python runs on the thread: no collection there
        try:
            thread.start()
            loop.exec()  # the window keeps painting; the dialog blocks input once shown
            thread.wait()
        finally:
            gui_collector.resume()
        progress.close()
        progress.deleteLater()
        thread.deleteLater()
        if thread.cancelled:
            self.window.statusBar().showMessage("Opening the rollouts was cancelled", 4000)
            return None
        if thread.error is not None:
            self.show_error(thread.error)
            return None
        return thread.source

    # --- the browser and the lab --------------------------------------------------------------

    def show_browser(self) -> None:
        if self.source is None:
            return
        browser = self.browser
        if not browser.isVisible():
            browser.show()  # a dialog shown opens in front, with the focus
        elif QGuiApplication.platformName() not in HEADLESS_PLATFORMS:
            browser.raise_()  # open but behind the window: bring it forward
            browser.activateWindow()

    def open_group(self, step: int, group_index: int) -> bool:
        """Show one group in the Lab (one undo step); the browser steps aside to let it show."""
        if self.source is None:
            return False
        from grpo_desktop.core.lab.recorded_group import recorded_group
        from grpo_desktop.core.runs.rollouts import RolloutError

        try:
            group = recorded_group(self.source, step, group_index)
        except RolloutError as error:
            self.show_error(str(error))
            return False
        self.workbench.open_recorded_group(group)
        if self._browser is not None:
            self._browser.hide()
        key = self.browser_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.window.statusBar().showMessage(
            f"{group.title} · {visible(group.file_name)}. {key}: back to the groups"
        )
        return True

    def set_theme(self, theme: Theme) -> None:
        if self._browser is not None:
            self._browser.set_theme(theme)  # its size stays the lecturer's

    def _fit_browser(self) -> None:
        """Most of the window: big enough to read from the back of a room, the window's edge
        still showing that the lab is behind it."""
        browser = self._browser
        if browser is None:
            return
        size = self.widget.size()
        width = max(720, round(size.width() * 0.85))
        height = max(520, round(size.height() * 0.85))
        browser.resize(width, height)
