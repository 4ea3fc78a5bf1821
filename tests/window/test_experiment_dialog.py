"""View ▸ Experiment…: the group-size experiment of the toy run as a table, a chart and a CSV."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from grpo_desktop.core.training.sweep import SWEEPS
from grpo_desktop.window.experiment_dialog import DEFAULT_VALUES


def open_dialog(window):
    window.experiment_action.trigger()
    QApplication.processEvents()
    return window.experiment_dialog


def finish(dialog) -> None:
    dialog.wait()
    QApplication.processEvents()


def test_every_sweep_has_a_label_and_suggested_values():
    assert set(DEFAULT_VALUES) == set(SWEEPS)


def test_the_group_size_experiment_fills_the_table_and_the_chart(window, tmp_path):
    dialog = open_dialog(window)
    assert dialog.setting_combo.currentData() == "group-size"
    assert dialog.values_edit.text() == "4, 16, 32"
    dialog.steps_spin.setValue(10)
    dialog.seeds_spin.setValue(2)
    assert dialog.run()
    finish(dialog)
    table = dialog.table
    assert table.rowCount() == 3
    assert [table.item(row, 0).text() for row in range(3)] == ["4", "16", "32"]
    assert "group-size 4" in dialog.chart.accessibleDescription()
    path = tmp_path / "experiment.csv"
    assert dialog.export(str(path))
    assert path.read_text(encoding="utf-8").splitlines()[0].startswith("group-size,")


def test_a_bad_value_is_one_plain_line_and_nothing_runs(window):
    dialog = open_dialog(window)
    dialog.values_edit.setText("4, <b>x</b>")
    assert not dialog.run()
    assert "not a whole number" in dialog.message.text()
    assert dialog.table.rowCount() == 0


def test_an_algorithm_sweep_greys_out_the_algorithm_box(window):
    dialog = open_dialog(window)
    dialog.setting_combo.setCurrentIndex(list(DEFAULT_VALUES).index("algorithm"))
    assert not dialog.algorithm_combo.isEnabled()
    assert dialog.values_edit.text() == "grpo, dr_grpo, rloo, dapo"


def test_an_export_onto_a_folder_is_refused_in_one_line(window, tmp_path):
    dialog = open_dialog(window)
    dialog.steps_spin.setValue(4)
    dialog.seeds_spin.setValue(1)
    dialog.run()
    finish(dialog)
    assert not dialog.export(str(tmp_path))
    assert dialog.message.text().startswith("Not exported: ")
