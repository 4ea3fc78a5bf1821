"""Training ▸ Experiment…: one setting of the toy run swept over values, each over the seeds.

A classroom's group-size experiment (G = 4 / 16 / 32, repeated, in a table), or the learning
rate, β, algorithm or convention: the run on screen's settings with one changed, on the same
seeds (:func:`grpo_desktop.core.training.sweep.run_sweep`), shown as a table and a chart and
exported as CSV. The runs go on a worker thread (the default experiment takes about half a
second; a long one must not freeze the window), and the result comes back queued.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from grpo_desktop.core.common.atomic import write_text_atomically
from grpo_desktop.core.common.unsafe_text import visible
from grpo_desktop.core.training.sweep import (
    DEFAULT_TARGET,
    SweepResult,
    parse_sweep,
    run_sweep,
    sweep_csv,
)
from grpo_desktop.core.training.training_config import ALGORITHM_INFO, ALGORITHMS
from grpo_desktop.views.common import gui_collector
from grpo_desktop.views.common.dialog_size import text_sized
from grpo_desktop.views.common.form_label import FormLabel
from grpo_desktop.views.training.sweep_chart import SweepChart

__all__ = ["DEFAULT_VALUES", "ExperimentDialog", "open_experiment"]

#: Each setting's label and the values the dialog suggests first.
DEFAULT_VALUES = {
    "group-size": ("Group size G", "4, 16, 32"),
    "lr": ("Learning rate", "1, 4, 16"),
    "beta": ("β (KL weight)", "0, 0.04, 0.2"),
    "algorithm": ("Algorithm", "grpo, dr_grpo, rloo, dapo"),
    "convention": ("Convention", "textbook, trl, verl"),
}
VISIBLE_ROWS = 6
#: The table's headings; the columns share the width evenly, so the longest heading takes two
#: lines (on one line the projector theme cut it).
COLUMNS = ("value", "final pass rate", "min–max", "steps to target", "degenerate\nat step 1")

#: The window this hangs off: a ``MainWindow`` (not imported: it imports the window's actions).
MainWindow = Any


class _Finished(QObject):
    """Carries the worker's result (or its error) to the GUI thread, queued."""

    done = Signal(object)


class ExperimentDialog(QDialog):
    """The setting and its values, the algorithm, seeds, steps and target; Run; the outcome."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window, objectName="experimentDialog")
        self.setWindowTitle("Experiment: sweep one setting")
        self.workbench = window.workbench
        self.result: SweepResult | None = None
        self._worker: threading.Thread | None = None
        self._finished = _Finished(self)
        self._finished.done.connect(self._show_outcome)
        config = self.workbench.training_config

        about = QLabel(
            "Runs the toy training run once per value, with every other setting as the "
            "Training run has it, on the same seeds. Not a language model: the toy re-weights "
            "each problem's written answers.",
            objectName="experimentAbout",
        )
        about.setWordWrap(True)
        self.setting_combo = QComboBox(objectName="experimentSetting")
        for name, (label, _) in DEFAULT_VALUES.items():
            self.setting_combo.addItem(label, name)
        self.setting_combo.setAccessibleName("Setting to sweep")
        self.values_edit = QLineEdit(objectName="experimentValues")
        self.values_edit.setAccessibleName("Values, separated by commas")
        self.values_edit.setMaxLength(200)
        self.algorithm_combo = QComboBox(objectName="experimentAlgorithm")
        for name in ALGORITHMS:
            self.algorithm_combo.addItem(ALGORITHM_INFO[name].label, name)
        self.algorithm_combo.setCurrentIndex(ALGORITHMS.index("grpo"))
        self.algorithm_combo.setAccessibleName("Algorithm")
        self.seeds_spin = QSpinBox(objectName="experimentSeeds")
        self.seeds_spin.setRange(1, 32)
        self.seeds_spin.setValue(config.seeds)
        self.seeds_spin.setAccessibleName("Seeds per value")
        self.steps_spin = QSpinBox(objectName="experimentSteps")
        self.steps_spin.setRange(1, 2000)
        self.steps_spin.setValue(config.steps)
        self.steps_spin.setAccessibleName("Steps per run")
        self.target_spin = QDoubleSpinBox(objectName="experimentTarget")
        self.target_spin.setRange(0.05, 1.0)
        self.target_spin.setSingleStep(0.05)
        self.target_spin.setValue(DEFAULT_TARGET)
        self.target_spin.setAccessibleName("Target pass rate")
        self.setting_combo.currentIndexChanged.connect(self._setting_changed)
        self._setting_changed()

        form = QFormLayout()
        form.addRow(FormLabel("&Sweep", self.setting_combo), self.setting_combo)
        form.addRow(FormLabel("&Values", self.values_edit), self.values_edit)
        form.addRow(FormLabel("&Algorithm", self.algorithm_combo), self.algorithm_combo)
        form.addRow(FormLabel("S&eeds", self.seeds_spin), self.seeds_spin)
        form.addRow(FormLabel("S&teps", self.steps_spin), self.steps_spin)
        form.addRow(FormLabel("Ta&rget pass rate", self.target_spin), self.target_spin)

        self.run_button = QPushButton("&Run", objectName="experimentRun")
        self.run_button.clicked.connect(self.run)
        self.export_button = QPushButton("E&xport CSV…", objectName="experimentExport")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.ask_export)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)

        self.message = QLabel(objectName="experimentMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS), objectName="experimentTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName("Experiment results")
        self.chart = SweepChart(window.theme)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)

        column = QVBoxLayout(self)
        column.addWidget(about)
        column.addLayout(form)
        column.addLayout(buttons)
        column.addWidget(self.message)
        column.addWidget(self.table)
        column.addWidget(self.chart, 1)
        column.addWidget(close)
        self._sized_for = ""  # the font it was last opened at: it opens sized to its text

    def showEvent(self, event: QShowEvent) -> None:  # Qt override
        if self._sized_for != self.font().key():  # first opened, or a zoom or theme since
            self._sized_for = self.font().key()
            self.resize(text_sized(self, 51.6, 54.5))  # 720 × 760 at 100 % on a laptop
        super().showEvent(event)

    def _setting_changed(self, *_index: int) -> None:
        name = self.setting_combo.currentData()
        self.values_edit.setText(DEFAULT_VALUES[name][1])
        self.algorithm_combo.setEnabled(name != "algorithm")

    # --- running ------------------------------------------------------------------------------

    def run(self) -> bool:
        """Check the values, then run on a worker thread; a bad value is one line here."""
        if self._worker is not None and self._worker.is_alive():
            return False
        name = self.setting_combo.currentData()
        try:
            _, values = parse_sweep(f"{name}={self.values_edit.text()}")
        except ValueError as error:
            self.message.setText(visible(str(error).replace("--sweep ", "")))
            return False
        base = replace(
            self.workbench.training_config,
            algorithms=(self.algorithm_combo.currentData(),),
            seeds=self.seeds_spin.value(),
            steps=self.steps_spin.value(),
        )
        convention, weights = self.workbench.convention, self.workbench.lab.weights
        target = self.target_spin.value()
        self.message.setText(f"Running {len(values)} runs of {base.seeds} seeds…")
        self.run_button.setEnabled(False)

        def work() -> None:
            try:
                outcome: object = run_sweep(base, name, values, convention, weights, target)
            except ValueError as error:
                outcome = error
            self._finished.done.emit(outcome)

        self._worker = gui_collector.start_worker(work, "experiment")
        return True

    def wait(self) -> None:
        """Until the runs are done (the window is closing, or a test)."""
        if self._worker is not None:
            self._worker.join()

    def _show_outcome(self, outcome: object) -> None:
        self.run_button.setEnabled(True)
        if isinstance(outcome, Exception):
            self.message.setText(visible(str(outcome).replace("--sweep ", "")))
            return
        assert isinstance(outcome, SweepResult)
        self.result = outcome
        self.message.setText(
            f"{len(outcome.results)} values × {outcome.seeds} seeds, {outcome.steps} steps each."
        )
        self.table.setRowCount(len(outcome.results))
        for row_index, row in enumerate(outcome.results):
            steps = "not reached" if row.steps_to_target is None else f"{row.steps_to_target:.1f}"
            if row.steps_to_target is not None and row.reached < outcome.seeds:
                steps += f" ({row.reached} of {outcome.seeds} seeds)"
            cells = (
                str(row.value),
                f"{row.final_pass_rate_mean:.3f}",
                f"{row.final_pass_rate_min:.3f}–{row.final_pass_rate_max:.3f}",
                steps,
                f"{row.degenerate_fraction_step1:.3f}",
            )
            for column_index, text in enumerate(cells):
                self.table.setItem(row_index, column_index, QTableWidgetItem(text))
        self.table.setHorizontalHeaderItem(3, QTableWidgetItem(f"steps to {outcome.target:g}"))
        self._fit_table()
        self.chart.show_result(outcome)
        self.export_button.setEnabled(True)

    def _fit_table(self) -> None:
        """Every row in view (up to VISIBLE_ROWS; more scroll): the table is the answer."""
        table = self.table
        rows = min(table.rowCount(), VISIBLE_ROWS)
        height = table.horizontalHeader().height() + 2 * table.frameWidth()
        height += sum(table.rowHeight(row) for row in range(rows))
        table.setMinimumHeight(height)

    # --- CSV ------------------------------------------------------------------------------------

    def ask_path(self) -> str | None:
        """The CSV's path (replaced in tests)."""
        name = f"experiment-{self.result.name if self.result else 'sweep'}.csv"
        path, _ = QFileDialog.getSaveFileName(self, "Export the experiment", name, "CSV (*.csv)")
        return path or None

    def ask_export(self) -> bool:
        path = self.ask_path()
        return bool(path) and self.export(path)

    def export(self, path: str) -> bool:
        """The table as CSV, written whole or not at all; a failure is one line here."""
        if self.result is None:
            return False
        try:
            write_text_atomically(path, sweep_csv(self.result))
        except (OSError, ValueError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            self.message.setText(f"Not exported: {visible(path)}: {visible(reason)}")
            return False
        self.message.setText(f"Exported {visible(path)}.")
        return True


def open_experiment(window: MainWindow) -> ExperimentDialog:
    """Show the window's experiment dialog (made on first use; it keeps the last outcome)."""
    dialog: ExperimentDialog | None = getattr(window, "experiment_dialog", None)
    if dialog is None:
        dialog = ExperimentDialog(window)
        window.experiment_dialog = dialog
    dialog.open()
    return dialog
