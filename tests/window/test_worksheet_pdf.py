"""The worksheet's PDF: every shipped lesson prints on A4 and Letter in both versions, its words
are text (the questions can be searched), the student's sheet holds no answer and the key holds
them all; Lesson ▸ Export worksheet… writes it atomically and reports a failure once."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from grpo_desktop.core.files.lessons import load_lessons
from grpo_desktop.core.files.worksheet import Worksheet
from grpo_desktop.window.worksheet_dialog import (
    WorksheetExporter,
    WorksheetOptions,
    add_worksheet_action,
)
from grpo_desktop.window.worksheet_pdf import worksheet_pdf_bytes

LESSONS = load_lessons()
PAGE_POINTS = {"a4": (595, 842), "letter": (612, 792)}


@pytest.fixture
def worksheets(lesson_worksheets) -> dict[str, Worksheet]:
    """Every lesson's worksheet, built once per test process (``tests/conftest.py``)."""
    return dict(lesson_worksheets)


def _read(data: bytes) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(data))
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    return reader, text


def _flat(text: str) -> str:
    return " ".join(text.split())


def _contains_number(text: str, number: str) -> bool:
    """``number`` as a whole number in ``text`` (``0.500`` is not inside ``10.500``)."""
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d])", text) is not None


def lesson_papers() -> list:
    """Every lesson on both papers; beyond the first lesson on A4 they are ``slow`` (about 2.5 s
    each), so the development loop keeps one representative and ``.ci/run`` prints them all."""
    cases = [(lesson.id, paper) for lesson in LESSONS for paper in ("a4", "letter")]
    return [
        pytest.param(*case, marks=() if index == 0 else pytest.mark.slow)
        for index, case in enumerate(cases)
    ]


@pytest.mark.parametrize(("lesson_id", "paper"), lesson_papers())
def test_every_lesson_prints_both_versions_on_both_papers(qapp, worksheets, lesson_id, paper):
    sheet = worksheets[lesson_id]
    student, student_text = _read(worksheet_pdf_bytes(sheet, paper, answers=False))
    key, key_text = _read(worksheet_pdf_bytes(sheet, paper, answers=True))
    for reader in (student, key):
        box = reader.pages[0].mediabox
        assert (round(float(box.width)), round(float(box.height))) == PAGE_POINTS[paper]
        count = len(reader.pages)
        assert count >= 2
        for number, page in enumerate(reader.pages, start=1):
            text = _flat(page.extract_text())
            assert f"Page {number} of {count}" in text  # numbered, and no page is empty
            assert sheet.title in text  # the running header
    for step in sheet.steps:
        for question in step.questions:
            assert _flat(question) in student_text, question
            assert _flat(question) in key_text
    answers = set(sheet.answers())
    assert answers
    assert [a for a in answers if _contains_number(student_text, a)] == []
    assert [a for a in answers if a not in key_text] == []
    assert "Answer key" in key_text and "Answer key" not in student_text


def test_the_text_is_searchable_without_ligatures(qapp, worksheets):
    _, text = _read(worksheet_pdf_bytes(worksheets["why-runs-stall"], "a4"))
    assert "slide off the learning frontier" in text
    assert "first" in text


def test_an_unknown_paper_is_refused(qapp, worksheets):
    with pytest.raises(ValueError, match="letter"):
        worksheet_pdf_bytes(worksheets["group-is-baseline"], "a3")


# --- Lesson ▸ Export worksheet… -----------------------------------------------------------------


def test_the_lesson_menu_offers_the_export(window):
    window.install_deferred_features()  # the Lesson menu comes right after the first paint
    names = [action.objectName() for action in window.lessons.menu.actions()]
    assert "exportWorksheet" in names
    assert window.lessons.worksheet_action.text() == "Export &worksheet…"


def _exporter(window, monkeypatch, options: WorksheetOptions, path: Path | None):
    exporter = WorksheetExporter(window, lambda: None)
    warnings: list[str] = []
    monkeypatch.setattr(exporter, "ask_options", lambda: options)
    monkeypatch.setattr(exporter, "ask_path", lambda name: None if path is None else str(path))
    monkeypatch.setattr(exporter, "warn", warnings.append)
    return exporter, warnings


def test_the_export_writes_the_answer_key_atomically(window, monkeypatch, tmp_path):
    target = tmp_path / "key"  # the suffix is added
    options = WorksheetOptions("update-step-length-bias", "letter", answers=True)
    exporter, warnings = _exporter(window, monkeypatch, options, target)
    written = exporter.export()
    assert warnings == [] and written == tmp_path / "key.pdf"
    reader, text = _read(written.read_bytes())
    assert round(float(reader.pages[0].mediabox.height)) == 792
    assert "Answer key" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.pdf"]  # no temporary left
    assert "key.pdf" in window.statusBar().currentMessage()


def test_a_failed_write_is_one_plain_message_and_leaves_nothing(window, monkeypatch, tmp_path):
    options = WorksheetOptions("group-is-baseline", "a4", answers=False)
    missing = tmp_path / "no such folder" / "sheet.pdf"
    exporter, warnings = _exporter(window, monkeypatch, options, missing)
    assert exporter.export() is None
    assert len(warnings) == 1 and "does not exist" in warnings[0]
    assert list(tmp_path.iterdir()) == []


def test_cancelling_writes_nothing(window, monkeypatch, tmp_path):
    options = WorksheetOptions("group-is-baseline", "a4", answers=False)
    exporter, warnings = _exporter(window, monkeypatch, options, None)
    assert exporter.export() is None and warnings == []


def test_the_dialog_starts_on_the_running_lesson(qtbot):
    from PySide6.QtWidgets import QMainWindow, QMenu

    from grpo_desktop.window.worksheet_dialog import WorksheetOptionsDialog

    host = QMainWindow()
    qtbot.addWidget(host)
    menu = QMenu(host)
    action = add_worksheet_action(host, menu, lambda: "why-runs-stall")
    assert action in menu.actions()
    lessons = [(lesson.id, lesson.title) for lesson in LESSONS]
    dialog = WorksheetOptionsDialog(host, lessons, "why-runs-stall")
    qtbot.addWidget(dialog)
    dialog.key_button.setChecked(True)
    options = dialog.options()
    assert options.lesson_id == "why-runs-stall" and options.answers
    assert options.paper in ("a4", "letter")
