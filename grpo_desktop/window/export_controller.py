"""File ▸ Export and Edit ▸ Copy image: the lab as pictures for slides and as a table.

The controller makes the actions; the window places them in its menus. Every export renders to
bytes first and only then writes the file atomically (``atomic.write_bytes_atomically``), so a
failed render or a full disk never leaves a half-written file or harms the one already there; a
failure shows one warning and leaves the lab untouched.

Charts are exported as figures made for slides (``core/files/chart_figure.py`` builds one from the
snapshot the chart on screen renders, ``views/files/export_figures.py`` paints it): a title and
subtitle, a legend, axis labels and tick numbers, at 1920 × 1080 (PNG) or 1280 × 720 units
(SVG). The widgets on screen are never touched: they create their items once and keep them, and
a figure must not depend on how large their panel happens to be.

The file dialog is one method, ``ExportController.ask_path(title, default_name, filters)``,
that tests replace.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QStandardPaths
from PySide6.QtGui import QAction, QGuiApplication, QImage, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import QFileDialog, QMessageBox, QStatusBar

from grpo_desktop.core.common import atomic
from grpo_desktop.core.files.group_csv import default_file_stem, group_csv_bytes
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.lab.advantage_chart import AdvantageChart

if TYPE_CHECKING:
    from grpo_desktop.core.common.theme import Theme
    from grpo_desktop.core.files.chart_figure import Figure

__all__ = ["SHORTCUTS", "ExportController", "ExportWindow"]

log = logging.getLogger(__name__)

PNG_FILTER = "PNG image (*.png)"
SVG_FILTER = "SVG image (*.svg)"
CSV_FILTER = "CSV table (*.csv)"

# Keys free elsewhere in the window (which uses digits, [ ] V ?, Ctrl+1..5, Ctrl+ D E O R S Y Z Q
# = - 0, Ctrl+Shift+ E S Z, F1, F11, PageUp/Down, Escape). No single letters: those belong to the
# lab. A key some other part of the window already took is skipped, with a log warning.
SHORTCUTS = {
    "exportWindowPng": "Ctrl+Shift+W",  # W: the whole window
    "exportChartPng": "Ctrl+Shift+P",  # P: a PNG of the chart, the one made for slides
    "copyWindowImage": "Ctrl+Shift+C",
}


class ExportWindow(Protocol):
    """What exports ask of the window: its picture, its lab charts, the shown workspace's chart
    as a figure, the training run, its theme and its status bar."""

    theme: Theme

    @property
    def charts(self) -> tuple[AdvantageChart, ...]: ...

    def export_figure(self) -> Figure:
        """The shown workspace's chart as a figure (in the lab: the active lab's chart)."""
        ...

    def training_run(self) -> object | None:
        """The Training workspace's run, or None if it was never opened."""
        ...

    def grab(self) -> QPixmap: ...

    def statusBar(self) -> QStatusBar: ...


class ExportController(QObject):
    """The export and copy actions of one window, and the code behind them."""

    def __init__(self, window: ExportWindow, workbench: Workbench) -> None:
        super().__init__(window)
        self.setObjectName("exportActions")
        self.window = window
        self.workbench = workbench
        self.last_folder: Path | None = None  # remembered while the app runs, not saved

        self.window_png_action = self._action(
            "Window as PNG…",
            "exportWindowPng",
            "Save a picture of the whole window, exactly as it looks now",
        )
        self.window_png_action.triggered.connect(self.export_window_png)
        self.chart_png_action = self._action(
            "Chart as PNG…",
            "exportChartPng",
            "Save the shown chart as a 1920 × 1080 PNG for slides, with its title, legend, "
            "axis labels and numbers",
        )
        self.chart_png_action.triggered.connect(self.export_chart_png)
        self.chart_svg_action = self._action(
            "Chart as SVG…",
            "exportChartSvg",
            "Save the shown chart as an SVG that scales to any size, with its title, legend, "
            "axis labels and numbers",
        )
        self.chart_svg_action.triggered.connect(self.export_chart_svg)
        self.csv_action = self._action(
            "Group as CSV…",
            "exportGroupCsv",
            "Save each answer's trace, reward and advantage as a table for a spreadsheet",
        )
        self.csv_action.triggered.connect(self.export_group_csv)
        self.training_csv_action = self._action(
            "Training run as CSV…",
            "exportTrainingCsv",
            "Save every step of every algorithm and seed of the training run as a table",
        )
        self.training_csv_action.triggered.connect(self.export_training_csv)
        self.copy_action = self._action(
            "Copy image of the window",
            "copyWindowImage",
            "Copy a picture of the whole window to the clipboard",
        )
        self.copy_action.triggered.connect(self.copy_window_image)
        from grpo_desktop.window.animation_export import AnimationExport

        self.animation = AnimationExport(self)  # File ▸ Export ▸ Animation… (a GIF for slides)

        self.export_menu = None  # the window's File ▸ Export menu, once it placed the actions

    def _action(self, text: str, name: str, tip: str) -> QAction:
        action = QAction(text, self.window, objectName=name)
        key = SHORTCUTS.get(name)
        if key:
            sequence = QKeySequence(key)
            if _shortcut_taken(self.window, sequence):
                log.warning("%s is already taken; %r gets no shortcut", key, text)
            else:
                action.setShortcut(sequence)
        shown = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{tip} ({shown})" if shown else tip)
        action.setStatusTip(tip)
        self.window.addAction(action)  # the shortcut works even with the menu bar hidden
        return action

    @property
    def file_actions(self) -> tuple[QAction, ...]:
        """What File ▸ Export lists."""
        return (
            self.window_png_action,
            self.chart_png_action,
            self.chart_svg_action,
            self.csv_action,
            self.training_csv_action,
            self.animation.action,
        )

    @property
    def actions(self) -> tuple[QAction, ...]:
        return (*self.file_actions, self.copy_action)

    # --- what is exported ---------------------------------------------------------------------

    def _finish_animations(self) -> None:
        """Jump every chart to its final view: no stage caption or half-grown bar in a picture."""
        for chart in self.window.charts:
            if chart.is_animating():
                chart.set_view(chart.view(), animate=False)

    def window_png_bytes(self) -> bytes:
        self._finish_animations()
        return png_bytes(self.window.grab())

    def chart_figure(self) -> Figure:
        """The shown workspace's chart as a figure that reads alone on a slide: title, legend,
        axis labels and ticks, built from the same snapshot the chart on screen renders."""
        self._finish_animations()
        return self.window.export_figure()

    def chart_png_bytes(self) -> bytes:
        """The chart as a 1920 × 1080 PNG figure (a slide's size), never blank."""
        from grpo_desktop.views.files.export_figures import figure_png_image

        image = figure_png_image(self.chart_figure(), self.window.theme)
        if image.isNull():
            raise ValueError("the chart could not be drawn")
        return png_bytes(image)

    def chart_svg_bytes(self) -> bytes:
        """The chart as an SVG figure (1280 × 720 units) whose words are ``<text>`` elements."""
        from grpo_desktop.views.files.export_figures import figure_svg_bytes

        return figure_svg_bytes(self.chart_figure(), self.window.theme)

    def group_csv_bytes(self) -> bytes:
        return group_csv_bytes(self.workbench.active_lab.snapshot)

    def training_csv_bytes(self) -> bytes:
        from grpo_desktop.core.files.training_csv import training_csv_bytes

        run = self.window.training_run()
        if run is None:
            raise ValueError("the Training workspace has not been opened")
        return training_csv_bytes(run)

    # --- the actions --------------------------------------------------------------------------

    def export_window_png(self) -> Path | None:
        return self._export(
            "Save window as PNG", "window", ".png", PNG_FILTER, self.window_png_bytes
        )

    def export_chart_png(self) -> Path | None:
        return self._export("Save chart as PNG", "chart", ".png", PNG_FILTER, self.chart_png_bytes)

    def export_chart_svg(self) -> Path | None:
        return self._export("Save chart as SVG", "chart", ".svg", SVG_FILTER, self.chart_svg_bytes)

    def export_group_csv(self) -> Path | None:
        return self._export("Save group as CSV", "group", ".csv", CSV_FILTER, self.group_csv_bytes)

    def export_training_csv(self) -> Path | None:
        if self.window.training_run() is None:
            self._warn("Open the Training workspace (Ctrl+T) and run it first.")
            return None
        return self._export(
            "Save training run as CSV",
            "training run",
            ".csv",
            CSV_FILTER,
            self.training_csv_bytes,
            stem="training-run",
        )

    def copy_window_image(self) -> None:
        self._finish_animations()
        QGuiApplication.clipboard().setPixmap(self.window.grab())
        self.window.statusBar().showMessage("Copied an image of the window to the clipboard.")

    def _export(
        self,
        title: str,
        noun: str,
        suffix: str,
        filters: str,
        render: Callable[[], bytes],
        stem: str | None = None,
    ) -> Path | None:
        """Ask for a path, render, write atomically; the path written, or None (cancel, error)."""
        default_name = (stem or default_file_stem(self.workbench.active_lab.snapshot)) + suffix
        answer = self.ask_path(title, default_name, filters)
        if not answer:
            return None
        path = Path(answer)
        if path.suffix.lower() != suffix:
            path = path.with_name(path.name + suffix)  # the dialog could not confirm this name
            if path.exists() and not self.confirm_overwrite(path):
                return None
        try:
            data = render()
        except Exception as exc:  # an exporter can fail in many ways; none may reach the lab
            log.exception("rendering the %s failed", noun)
            self._warn(f"Could not save the {noun} to {path}: it could not be drawn ({exc}).")
            return None
        try:
            atomic.write_bytes_atomically(path, data)
        except OSError as exc:
            self._warn(f"Could not save the {noun} to {path}: {_reason(exc, path)}.")
            return None
        self.last_folder = path.parent
        self.window.statusBar().showMessage(f"Saved {noun} as {path}")
        return path

    def _warn(self, message: str) -> None:
        QMessageBox.warning(self.window, "Export failed", message)

    # --- dialogs (tests replace these) ---------------------------------------------------------

    def default_folder(self, suffix: str) -> Path:
        """The last folder saved to, else Pictures (images) or Documents (tables), else home."""
        if self.last_folder is not None and self.last_folder.is_dir():
            return self.last_folder
        kind = (
            QStandardPaths.StandardLocation.DocumentsLocation
            if suffix == ".csv"
            else QStandardPaths.StandardLocation.PicturesLocation
        )
        location = QStandardPaths.writableLocation(kind)
        if location and Path(location).is_dir():
            return Path(location)
        return Path.home()

    def ask_path(self, title: str, default_name: str, filters: str) -> str | None:
        """The path the user chose in a save dialog, or None if they cancelled."""
        match = re.search(r"\*\.(\w+)", filters)
        suffix = f".{match.group(1)}" if match else ""
        dialog = QFileDialog(
            self.window, title, str(self.default_folder(suffix) / default_name), filters
        )
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setFileMode(QFileDialog.FileMode.AnyFile)
        if suffix:
            dialog.setDefaultSuffix(suffix[1:])  # added before the dialog's overwrite question
        if dialog.exec() != QFileDialog.DialogCode.Accepted:
            return None
        files = dialog.selectedFiles()
        return files[0] if files else None

    def confirm_overwrite(self, path: Path) -> bool:
        """Asked only when a suffix was added after the dialog and that file exists."""
        answer = QMessageBox.question(
            self.window,
            "Replace file?",
            f"{path} already exists. Replace it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes


def png_bytes(picture: QPixmap | QImage) -> bytes:
    """The picture encoded as PNG in memory, so a file is written whole or not at all."""
    data = QByteArray()
    buffer = QBuffer(data)
    if not buffer.open(QIODevice.OpenModeFlag.WriteOnly):
        raise OSError("could not open a memory buffer for the image")
    try:
        if picture.isNull() or not picture.save(buffer, "PNG"):
            raise ValueError("the image could not be encoded as PNG")
    finally:
        buffer.close()
    return bytes(data)


def _reason(exc: OSError, path: Path) -> str:
    """The reason in words, naming a missing folder rather than the temporary file's name."""
    if not path.parent.is_dir():
        return f"the folder {path.parent} does not exist"
    return (exc.strerror or str(exc)).rstrip(".").lower()


def _shortcut_taken(window: QObject, sequence: QKeySequence) -> bool:
    for action in window.findChildren(QAction):
        if sequence in action.shortcuts():
            return True
    return any(shortcut.key() == sequence for shortcut in window.findChildren(QShortcut))
