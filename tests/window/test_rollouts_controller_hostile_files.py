"""File ▸ Open rollouts… with files that changed or that carry disguised names: one message or an
escaped label, never a crash dialog or a name that reads as something else."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QProgressDialog
from rollout_files import needs_pyarrow, pq, write_trl

HIDDEN = "\u202e\u200b\u2066\ufeff"
ESCAPED = "\\u202e\\u200b\\u2066\\ufeff"


@needs_pyarrow
def test_a_trl_file_with_rows_removed_after_browsing_says_it_changed(
    window, tmp_path, errors, opened
):
    path = write_trl(tmp_path / "completions")
    assert window.rollouts.open_path(path)
    pq.write_table(pq.read_table(path).slice(0, 4), path)  # rows of groups 2 and 3 removed
    assert window.rollouts.open_group(10, 2) is False
    assert errors == [
        "completions_00010.parquet: the file changed since it was read; open it again"
    ]
    assert opened == []


def test_a_disguised_file_name_is_escaped_in_the_status_bar_and_the_error_box(
    window, tmp_path, opened
):
    folder = tmp_path / "run"
    folder.mkdir()
    path = folder / f"7{HIDDEN}.jsonl"  # not named {step}.jsonl: the lines give the step
    lines = [{"input": "q", "output": f"a{i}", "score": float(i % 2), "step": 7} for i in range(4)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert window.rollouts.open_path(path)
    assert window.rollouts.open_group(7, 0)
    message = window.statusBar().currentMessage()
    assert f"7{ESCAPED}.jsonl" in message and not any(char in message for char in HIDDEN)

    window.rollouts.show_error(f"evil{HIDDEN}exe.jsonl: line 1 is not valid JSON")
    box = window.rollouts.error_box
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert box.text() == f"evil{ESCAPED}exe.jsonl: line 1 is not valid JSON"
    box.close()


def test_the_progress_label_shows_a_file_name_as_plain_text(window, tmp_path, monkeypatch):
    labels: list[tuple[str, Qt.TextFormat]] = []
    original = QProgressDialog.setLabel

    def record(dialog: QProgressDialog, label: QLabel) -> None:
        labels.append((label.text(), label.textFormat()))
        original(dialog, label)

    monkeypatch.setattr(QProgressDialog, "setLabel", record)
    path = tmp_path / f"<b>bold{HIDDEN}.jsonl"  # no "/" in a name
    path.write_text('{"input": "q", "output": "a", "score": 1, "step": 1}\n', encoding="utf-8")
    assert window.rollouts.open_path(path)
    assert labels == [(f"Reading <b>bold{ESCAPED}.jsonl…", Qt.TextFormat.PlainText)]
