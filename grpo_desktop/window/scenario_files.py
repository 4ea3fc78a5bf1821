"""File ▸ Open, Save, Save as and Open recent: the dialogs around the workbench's document.

The workbench holds the document (its path, and "modified": something to undo since the last
save); this controller asks the user, reads and writes the files, and says why when it cannot.
Opening a file that cannot be loaded changes nothing.
"""

from __future__ import annotations

import html
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QStandardPaths, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QMessageBox

from grpo_desktop.model.settings import AppSettings, recent_file_key
from grpo_desktop.model.workbench import Workbench

if TYPE_CHECKING:  # the scenario reader and writer load with the first Open or Save
    from grpo_desktop.core.files.scenario import Scenario

SCENARIO_SUFFIX = ".grpo.json"  # core.scenario's; a test keeps the two the same
FILE_FILTER = f"GRPO scenarios (*{SCENARIO_SUFFIX});;All files (*)"


class ScenarioFiles(QObject):
    """The file actions of one window; ``window`` is only the dialogs' parent and status bar."""

    def __init__(self, window: QMainWindow, workbench: Workbench, settings: AppSettings) -> None:
        super().__init__(window)
        self.window = window
        self.workbench = workbench
        self.settings = settings
        self.open_action = self._action("&Open scenario…", "openAction", "Ctrl+O")
        self.open_action.triggered.connect(self.open_dialog)
        self.save_action = self._action("&Save scenario", "saveAction", "Ctrl+S")
        self.save_action.triggered.connect(self.save)
        self.save_as_action = self._action(
            "Save scenario &as…", "saveAsAction", QKeySequence("Ctrl+Shift+S")
        )
        self.save_as_action.triggered.connect(self.save_as)
        self.recent_menu = QMenu("Open &recent", window)
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._fill_recent_menu()

    def _action(self, text: str, name: str, shortcut) -> QAction:
        action = QAction(text, self.window, objectName=name)
        action.setShortcut(QKeySequence(shortcut))
        self.window.addAction(action)
        return action

    def add_to_menu(self, menu: QMenu) -> None:
        menu.addAction(self.open_action)
        menu.addMenu(self.recent_menu)
        menu.addAction(self.save_action)
        menu.addAction(self.save_as_action)

    # --- asking the user (injectable in tests) ----------------------------------------------

    def ask_open_path(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open scenario", str(self._folder()), FILE_FILTER
        )
        return path or None

    def ask_save_path(self) -> str | None:
        problem_id = self.workbench.lab.problem.id
        name = self.path.name if self.path else f"{problem_id}{SCENARIO_SUFFIX}"
        path, _ = QFileDialog.getSaveFileName(
            self.window, "Save scenario", str(self._folder() / name), FILE_FILTER
        )
        return path or None

    def show_error(self, title: str, message: str) -> None:
        self.message_box(QMessageBox.Icon.Warning, title, message).exec()

    def message_box(self, icon: QMessageBox.Icon, title: str, text: str) -> QMessageBox:
        """A box that shows ``text`` as plain text: messages quote file names and values from
        files, which must never render as HTML."""
        box = QMessageBox(icon, title, "", QMessageBox.StandardButton.Ok, self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(text)
        return box

    def ask_replace_read_only(self, path: Path) -> bool:
        """True when the user agrees to replace ``path``, which is read-only."""
        box = self.message_box(
            QMessageBox.Icon.Question,
            "Replace a read-only file?",
            f"{path.name} is read-only. Replace it anyway?",
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Yes

    def ask_keep_changes(self) -> str:
        """'save', 'discard' or 'cancel' for unsaved changes."""
        buttons = (
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        answer = QMessageBox.question(
            self.window,
            "Unsaved changes",
            f"Save the changes to {self.display_name}?",
            buttons,
            QMessageBox.StandardButton.Save,
        )
        return {
            QMessageBox.StandardButton.Save: "save",
            QMessageBox.StandardButton.Discard: "discard",
        }.get(answer, "cancel")

    def _folder(self) -> Path:
        if self.path is not None:
            return self.path.parent
        documents = QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation
        )
        return Path(documents) if documents else Path.home()

    # --- state -------------------------------------------------------------------------------

    @property
    def path(self) -> Path | None:
        return self.workbench.path

    @property
    def modified(self) -> bool:
        return self.workbench.modified

    @property
    def display_name(self) -> str:
        return self.path.name if self.path else "Untitled"

    def confirm_discard(self) -> bool:
        """True when it is safe to replace the lab: saved, discarded, or nothing to lose."""
        if not self.modified:
            return True
        choice = self.ask_keep_changes()
        if choice == "save":
            return self.save()
        return choice == "discard"

    # --- open and save ----------------------------------------------------------------------

    def open_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path = self.ask_open_path()
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path) -> bool:
        """Load a scenario; on failure say why and leave the lab exactly as it was."""
        from grpo_desktop.core.files.scenario import ScenarioError, load_scenario

        try:
            scenario = load_scenario(path)
        except ScenarioError as error:
            self.show_error("Could not open the scenario", str(error))
            key = recent_file_key(path)  # never raises, even on a symlink loop
            if key in self.settings.recent_files:
                self.settings.remove_recent_file(key)
                self._fill_recent_menu()  # its last file gone: the menu greys again
            return False
        try:
            self.apply(scenario, path)
        except (ValueError, ArithmeticError) as error:  # its group cannot be computed
            self.show_error("Could not open the scenario", f"{Path(path).name}: {error}")
            return False
        title = f": {scenario.title}" if scenario.title else ""
        self.window.statusBar().showMessage(f"Opened {Path(path).name}{title}", 4000)
        return True

    def apply(self, scenario: Scenario, path: str | Path | None = None) -> None:
        """Show ``scenario`` as the document (read from ``path``, remembered as recent)."""
        self.workbench.open_scenario(scenario, path)
        if path is not None:
            self.settings.add_recent_file(path)
            self._fill_recent_menu()

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self) -> bool:
        path = self.ask_save_path()
        if not path:
            return False
        target = Path(path)
        if not target.name.endswith(SCENARIO_SUFFIX):
            target = target.with_name(target.name.removesuffix(".json") + SCENARIO_SUFFIX)
        return self._write(target)

    def _write(self, path: Path) -> bool:
        if _is_read_only(path) and not self.ask_replace_read_only(path):
            return False
        try:
            from grpo_desktop.core.files.scenario import save_scenario

            save_scenario(self.workbench.current_scenario(), path)
        except (OSError, ValueError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            self.show_error("Could not save the scenario", f"{path}: {reason}")
            return False
        self.workbench.mark_saved(path)
        self.settings.add_recent_file(path)
        # A disabled submenu never opens, so never refills itself on aboutToShow: refill now,
        # or the first save of a fresh profile leaves Open recent greyed.
        self._fill_recent_menu()
        self.window.statusBar().showMessage(f"Saved {path.name}", 4000)
        return True

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files
        for index, file in enumerate(files, start=1):
            action = self.recent_menu.addAction(f"&{index} {Path(file).name}")
            action.setToolTip(f"<p>{html.escape(file)}</p>")  # a path is text, never HTML
            action.setStatusTip(file)
            action.triggered.connect(lambda _=False, f=file: self._open_recent(f))
        self.recent_menu.setEnabled(bool(files))

    def _open_recent(self, path: str) -> None:
        if self.confirm_discard():
            self.open_path(path)


def _is_read_only(path: Path) -> bool:
    """Whether ``path`` (through symlinks) is an existing file nobody may write (mode 0444):
    root can replace it, so the permission bits are read rather than ``os.access``."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
