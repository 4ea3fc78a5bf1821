"""Lesson ▸ Export worksheet…: a lesson's printable worksheet or answer key, saved as a PDF.

A small dialog asks for the lesson (the one running, if any), the paper (A4, or Letter where the
system measures in US units) and the version (the student's sheet or the answer key); a save
dialog asks for the file. The PDF is rendered in memory (``worksheet_pdf.py``) and written
atomically (a temporary file beside the target, then a rename), so a failure never leaves half a
PDF or harms the file already there; it shows one plain-text warning.

:func:`add_worksheet_action` puts the action in a menu; the lesson controller calls it for the
Lesson menu. ``WorksheetExporter.ask_options`` and ``ask_path`` are the two dialogs, which tests
replace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QLocale, QObject, QStandardPaths, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QMenu,
    QMessageBox,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common import atomic

__all__ = ["WorksheetExporter", "WorksheetOptions", "add_worksheet_action"]

log = logging.getLogger(__name__)

PDF_FILTER = "PDF document (*.pdf)"
PAPER_LABELS = {"a4": "A4 (210 × 297 mm)", "letter": "Letter (8.5 × 11 in)"}


@dataclass(frozen=True)
class WorksheetOptions:
    lesson_id: str
    paper: str  # "a4" or "letter"
    answers: bool  # the answer key instead of the student's sheet


def default_paper() -> str:
    """Letter where the system measures in US units, A4 everywhere else."""
    imperial = QLocale.MeasurementSystem.ImperialUSSystem
    return "letter" if QLocale.system().measurementSystem() == imperial else "a4"


class WorksheetOptionsDialog(QDialog):
    """Which lesson, which paper, which version: the three choices a printed handout needs."""

    def __init__(
        self, parent: QWidget | None, lessons: list[tuple[str, str]], current: str | None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("worksheetDialog")
        self.setWindowTitle("Export worksheet")
        self.lesson_box = QComboBox(objectName="worksheetLesson")
        for lesson_id, title in lessons:
            self.lesson_box.addItem(title, lesson_id)
        if current is not None and self.lesson_box.findData(current) >= 0:
            self.lesson_box.setCurrentIndex(self.lesson_box.findData(current))
        self.paper_box = QComboBox(objectName="worksheetPaper")
        for paper, label in PAPER_LABELS.items():
            self.paper_box.addItem(label, paper)
        self.paper_box.setCurrentIndex(self.paper_box.findData(default_paper()))
        self.student_button = QRadioButton("Student worksheet (blank tables, room to write)")
        self.student_button.setObjectName("worksheetStudent")
        self.key_button = QRadioButton("Answer key (the app's numbers filled in)")
        self.key_button.setObjectName("worksheetKey")
        self.student_button.setChecked(True)
        versions = QButtonGroup(self)
        versions.addButton(self.student_button)
        versions.addButton(self.key_button)
        form = QFormLayout()
        form.addRow("&Lesson:", self.lesson_box)
        form.addRow("&Paper:", self.paper_box)
        form.addRow("Version:", self.student_button)
        form.addRow("", self.key_button)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def options(self) -> WorksheetOptions:
        return WorksheetOptions(
            str(self.lesson_box.currentData()),
            str(self.paper_box.currentData()),
            self.key_button.isChecked(),
        )


class WorksheetExporter(QObject):
    """The action's code: ask, render, write atomically, report in the status bar."""

    def __init__(self, window: QWidget, current_lesson: Callable[[], str | None]) -> None:
        super().__init__(window)
        self.setObjectName("worksheetExporter")
        self.window = window
        self.current_lesson = current_lesson
        self.last_folder: Path | None = None

    # --- dialogs (tests replace these) ---------------------------------------------------------

    def ask_options(self) -> WorksheetOptions | None:
        """The lesson, paper and version chosen, or None if the user cancelled."""
        from grpo_desktop.core.files.lessons import load_lessons

        lessons = [(lesson.id, lesson.title) for lesson in load_lessons()]
        dialog = WorksheetOptionsDialog(self.window, lessons, self.current_lesson())
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.options()

    def ask_path(self, default_name: str) -> str | None:
        """The path chosen in a save dialog, or None if the user cancelled."""
        folder = self.last_folder
        if folder is None or not folder.is_dir():
            location = QStandardPaths.writableLocation(
                QStandardPaths.StandardLocation.DocumentsLocation
            )
            folder = Path(location) if location and Path(location).is_dir() else Path.home()
        dialog = QFileDialog(self.window, "Save worksheet", str(folder / default_name), PDF_FILTER)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        dialog.setDefaultSuffix("pdf")
        if dialog.exec() != QFileDialog.DialogCode.Accepted:
            return None
        files = dialog.selectedFiles()
        return files[0] if files else None

    def warn(self, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, "Export failed", message, parent=self.window)
        box.setTextFormat(Qt.TextFormat.PlainText)  # a path or a lesson title is not markup
        box.exec()

    # --- the action ----------------------------------------------------------------------------

    def export(self) -> Path | None:
        """Ask, render and write; the path written, or None (cancelled, or an error shown)."""
        try:
            options = self.ask_options()
        except Exception as exc:  # a broken lesson file: say so, leave the lab alone
            log.exception("reading the lessons failed")
            self.warn(f"Could not list the lessons: {exc}")
            return None
        if options is None:
            return None
        suffix = "answer-key" if options.answers else "worksheet"
        answer = self.ask_path(f"{options.lesson_id}-{suffix}-{options.paper}.pdf")
        if not answer:
            return None
        path = Path(answer)
        if path.suffix.lower() != ".pdf":
            path = path.with_name(path.name + ".pdf")
        noun = "answer key" if options.answers else "worksheet"
        try:
            data = self.render(options)
        except Exception as exc:  # a renderer can fail in many ways; none may reach the lab
            log.exception("drawing the worksheet failed")
            self.warn(f"Could not save the {noun} to {path}: it could not be drawn ({exc}).")
            return None
        try:
            atomic.write_bytes_atomically(path, data)
        except OSError as exc:
            reason = (exc.strerror or str(exc)).rstrip(".").lower()
            if not path.parent.is_dir():
                reason = f"the folder {path.parent} does not exist"
            self.warn(f"Could not save the {noun} to {path}: {reason}.")
            return None
        self.last_folder = path.parent
        status_bar = getattr(self.window, "statusBar", None)
        if callable(status_bar):
            status_bar().showMessage(f"Saved the {noun} as {path}")
        return path

    @staticmethod
    def render(options: WorksheetOptions) -> bytes:
        from grpo_desktop.core.files.worksheet import lesson_worksheet
        from grpo_desktop.window.worksheet_pdf import worksheet_pdf_bytes

        worksheet = lesson_worksheet(options.lesson_id)
        return worksheet_pdf_bytes(worksheet, paper=options.paper, answers=options.answers)


def add_worksheet_action(
    window: QWidget, menu: QMenu, current_lesson: Callable[[], str | None] = lambda: None
) -> QAction:
    """Lesson ▸ Export worksheet…: added to ``menu``; ``current_lesson`` names the lesson the
    dialog starts on (the one running). The exporter is a child of ``window``
    (``window.findChild(WorksheetExporter)``)."""
    exporter = WorksheetExporter(window, current_lesson)
    action = QAction("Export &worksheet…", window, objectName="exportWorksheet")
    tip = "Save a lesson's printable predict-and-observe worksheet, or its answer key, as a PDF"
    action.setToolTip(tip)
    action.setStatusTip(tip)
    action.triggered.connect(exporter.export)
    menu.addAction(action)
    return action
