"""ProblemEditor: a lecturer's own problem, graded live by the same checker the lab uses."""

from __future__ import annotations

import dataclasses
import re

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QPlainTextEdit

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.core.lab import problem_draft
from grpo_desktop.core.lab.checker import grade
from grpo_desktop.core.lab.format_check import ANSWER_FORMATS
from grpo_desktop.core.lab.problems import MIN_TRACES, get_problem, parse_problem
from grpo_desktop.views.lab import problem_editor
from grpo_desktop.views.lab.problem_editor import ProblemEditor, edit_problem

SEED = get_problem("mult-23x47")
ID_RE = re.compile(r"[a-z0-9-]+")


@pytest.fixture
def editor(qtbot):
    dialog = ProblemEditor(SEED)
    qtbot.addWidget(dialog)
    with qtbot.waitExposed(dialog):
        dialog.show()
    return dialog


def type_at_end(qtbot, edit: QPlainTextEdit, text: str) -> None:
    edit.setFocus()
    edit.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(edit, text)


def trace_labels(dialog: ProblemEditor) -> list[str]:
    return [dialog.trace_list.item(i).text() for i in range(dialog.trace_list.count())]


# ------------------------------------------------------------------------------ pure helpers
# Grading, ids and the reasons in words live in grpo_desktop.core.lab.problem_draft and are tested
# in
# tests/core/test_problem_draft.py; this module only renders them.
def test_the_pure_helpers_stay_importable_from_the_editor():
    for name in ("ID_PREFIX", "VersionCheck", "check_version", "problem_id_for", "slugify"):
        assert getattr(problem_editor, name) is getattr(problem_draft, name), name
    assert problem_editor.default_pattern is problem_draft.default_pattern
    assert problem_editor.MAX_ID_CHARS == 64
    for name in problem_editor.__all__:
        assert hasattr(problem_editor, name), name


# ------------------------------------------------------------------------------ the dialog
def test_prefilled_from_the_problem_and_valid(editor):
    assert editor.objectName() == "problemEditor"
    assert editor.windowTitle() == "Edit problem"
    assert editor.title_edit.text() == SEED.title
    assert editor.prompt_edit.toPlainText() == SEED.prompt
    assert editor.answer_key_edit.text() == "1081"
    assert editor.difficulty_combo.currentData() == SEED.difficulty
    assert editor.pass_rate_spin.value() == pytest.approx(SEED.pass_rate)
    assert editor.group_size_spin.value() == SEED.group_size
    assert trace_labels(editor) == [f"Trace {i}" for i in range(1, 9)]
    assert editor.trace_list.currentRow() == 0
    assert editor.correct_edit.toPlainText() == SEED.traces[0].correct
    assert editor.wrong_edit.toPlainText() == SEED.traces[0].wrong
    assert editor.correct_verdict.text() == "Checker: final answer 1081 → reward 1 ✓"
    assert editor.wrong_verdict.text() == "Checker: final answer 1071 → reward 0 ✗"
    assert editor.ok_button.isEnabled()
    assert editor.ok_button.text() == "Use this problem"
    assert editor.status_label.text().startswith("✓ Ready")


def test_every_named_widget_exists(editor):
    for name in (
        "editorTitle",
        "editorPrompt",
        "editorAnswerKey",
        "editorAnswerFormat",
        "editorDifficulty",
        "editorPassRate",
        "editorGroupSize",
        "editorTraceList",
        "editorCorrectText",
        "editorWrongText",
        "editorCorrectVerdict",
        "editorWrongVerdict",
        "editorCorrectFormat",
        "editorWrongFormat",
        "editorPartial",
        "editorStatus",
    ):
        assert editor.findChild(QLabel, name) or editor.findChild(object, name), name
    assert editor.pass_rate_spin.minimum() == pytest.approx(0.01)
    assert editor.pass_rate_spin.maximum() == pytest.approx(0.99)
    assert (editor.group_size_spin.minimum(), editor.group_size_spin.maximum()) == (2, 64)


def test_typing_a_wrong_final_answer_updates_the_verdict_live_and_disables_ok(qtbot, editor):
    editor.trace_list.setCurrentRow(1)  # "...\nAnswer: 1081"
    edit = editor.correct_edit
    for _ in range(4):  # delete "1081"
        edit.moveCursor(QTextCursor.MoveOperation.End)
        edit.textCursor().deletePreviousChar()
    type_at_end(qtbot, edit, "1071")
    verdict = editor.correct_verdict.text()
    assert verdict.startswith("Checker: final answer 1071 → reward 0 ✗")
    assert "the correct version grades 0: its final answer 1071 does not match the key 1081" in (
        verdict.lower()
    )
    assert LIGHT.down in editor.correct_verdict.styleSheet()
    assert editor.correct_verdict.property("error") is True
    assert not editor.ok_button.isEnabled()
    assert editor.status_label.text() == (
        "⚠ Trace 2: the correct version grades 0: its final answer 1071 does not match the "
        "key 1081."
    )
    assert trace_labels(editor)[1] == "Trace 2 ⚠"
    assert trace_labels(editor)[0] == "Trace 1"

    # Fix it: OK comes back, the warning goes.
    edit.moveCursor(QTextCursor.MoveOperation.End)
    edit.textCursor().deletePreviousChar()
    edit.textCursor().deletePreviousChar()
    type_at_end(qtbot, edit, "81")
    assert editor.correct_verdict.text() == "Checker: final answer 1081 → reward 1 ✓"
    assert editor.correct_verdict.property("error") is False
    assert editor.ok_button.isEnabled()
    assert trace_labels(editor)[1] == "Trace 2"


def test_a_wrong_version_that_grades_1_is_flagged(editor):
    editor.trace_list.setCurrentRow(4)
    editor.wrong_edit.setPlainText("23 × 47\nThe answer is 1081.")
    assert "the wrong version grades 1" in editor.wrong_verdict.text().lower()
    assert editor.wrong_verdict.text().startswith("Checker: final answer 1081 → reward 1 ✓")
    assert not editor.ok_button.isEnabled()
    assert editor.status_label.text().startswith("⚠ Trace 5: the wrong version grades 1")
    assert trace_labels(editor)[4] == "Trace 5 ⚠"


def test_edits_stay_with_their_trace_when_switching(editor):
    editor.trace_list.setCurrentRow(2)
    editor.correct_edit.setPlainText("47 × 23 = 1081")
    editor.trace_list.setCurrentRow(3)
    assert editor.correct_edit.toPlainText() == SEED.traces[3].correct
    editor.trace_list.setCurrentRow(2)
    assert editor.correct_edit.toPlainText() == "47 × 23 = 1081"
    assert editor.traces()[2] == ("47 × 23 = 1081", SEED.traces[2].wrong)


def test_changing_the_answer_key_regrades_every_trace(editor):
    editor.answer_key_edit.setText("1071")
    labels = trace_labels(editor)
    assert all(label.endswith("⚠") for label in labels), labels
    assert not editor.ok_button.isEnabled()
    # Trace 1's wrong version now matches the key, and its correct version does not.
    assert editor.correct_verdict.text().startswith("Checker: final answer 1081 → reward 0 ✗")
    assert "key 1071" in editor.correct_verdict.text()
    assert editor.wrong_verdict.text().startswith("Checker: final answer 1071 → reward 1 ✓")
    assert editor.status_label.text().startswith("⚠ Trace 1:")

    editor.answer_key_edit.setText("1,081")  # same value, written differently
    assert trace_labels(editor) == [f"Trace {i}" for i in range(1, 9)]
    assert editor.ok_button.isEnabled()


def test_removing_traces_below_the_minimum_disables_ok_with_the_reason(qtbot, editor):
    editor.trace_list.setCurrentRow(7)
    qtbot.mouseClick(editor.remove_button, Qt.MouseButton.LeftButton)
    assert editor.trace_list.count() == MIN_TRACES - 1
    assert trace_labels(editor) == [f"Trace {i}" for i in range(1, 8)]
    assert editor.trace_list.currentRow() == 6
    assert editor.correct_edit.toPlainText() == SEED.traces[6].correct
    assert not editor.ok_button.isEnabled()
    assert editor.status_label.text() == (
        "⚠ Add at least 8 traces (7 so far): a group of answers needs samples to draw from."
    )
    for _ in range(2):
        editor.remove_trace()
    assert "(5 so far)" in editor.status_label.text()

    # Duplicating brings the count back; a copy of a good trace is good.
    for _ in range(3):
        editor.duplicate_trace()
    assert editor.trace_list.count() == MIN_TRACES
    assert editor.ok_button.isEnabled()


def test_removing_every_trace_leaves_a_usable_dialog(editor):
    while editor.trace_list.count():
        editor.remove_trace()
    assert not editor.correct_edit.isEnabled()
    assert not editor.remove_button.isEnabled()
    assert "(0 so far)" in editor.status_label.text()
    editor.add_trace()
    assert editor.trace_list.count() == 1
    assert editor.correct_edit.isEnabled()


def test_an_added_trace_starts_empty_and_flagged_until_written(qtbot, editor):
    editor.trace_list.setCurrentRow(3)
    qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    assert editor.trace_list.count() == 9
    assert editor.trace_list.currentRow() == 4
    assert trace_labels(editor)[4] == "Trace 5 ⚠"
    assert editor.correct_edit.toPlainText() == ""
    assert not editor.ok_button.isEnabled()
    assert editor.status_label.text().startswith("⚠ Trace 5: the correct version is empty")
    qtbot.keyClicks(editor.correct_edit, "Answer: 1081")
    qtbot.keyClicks(editor.wrong_edit, "Answer: 1080")
    assert trace_labels(editor)[4] == "Trace 5"
    assert editor.ok_button.isEnabled()


def test_missing_fields_give_a_plain_reason(editor):
    editor.title_edit.setText("   ")
    assert not editor.ok_button.isEnabled()
    assert "title" in editor.status_label.text()
    editor.title_edit.setText("Mine")
    editor.answer_key_edit.setText("")
    assert not editor.ok_button.isEnabled()
    assert "answer key" in editor.status_label.text()
    assert editor.correct_verdict.text() == "Checker: waiting for an answer key"


def test_result_problem_after_accept_parses_and_holds_the_edited_texts(qtbot, editor):
    assert editor.result_problem() is None
    editor.title_edit.setText("My own: 23 × 47, take 2!")
    editor.difficulty_combo.setCurrentIndex(editor.difficulty_combo.findData("hard"))
    editor.trace_list.setCurrentRow(0)
    editor.correct_edit.setPlainText("23 × 47 = 1081")
    editor.wrong_edit.setPlainText("23 × 47 = 1080")
    editor.trace_list.setCurrentRow(7)
    editor.correct_edit.setFocus()
    editor.correct_edit.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClick(editor.correct_edit, Qt.Key.Key_Return)  # keyClicks cannot type "\n"
    qtbot.keyClicks(editor.correct_edit, "Answer: 1081")
    expected = list(editor.traces())
    assert editor.ok_button.isEnabled()

    qtbot.mouseClick(editor.ok_button, Qt.MouseButton.LeftButton)
    assert editor.result() == QDialog.DialogCode.Accepted
    problem = editor.result_problem()
    assert problem is not None
    assert [(t.correct, t.wrong) for t in problem.traces] == expected
    assert problem.traces[0].correct == "23 × 47 = 1081"
    assert problem.traces[7].correct == SEED.traces[7].correct + "\nAnswer: 1081"
    assert problem.id == "custom-my-own-23-47-take-2"
    assert ID_RE.fullmatch(problem.id)
    assert problem.title == "My own: 23 × 47, take 2!"
    assert problem.difficulty == "hard"
    assert problem.default_rewards == SEED.default_rewards  # G and pass rate unchanged
    assert parse_problem(editor.problem_data(), "test") == problem
    for trace in problem.traces:
        assert grade(trace.correct, problem.answer_key).reward == 1
        assert grade(trace.wrong, problem.answer_key).reward == 0


def test_a_new_group_size_spreads_round_pass_rate_times_g_correct_answers(editor):
    editor.group_size_spin.setValue(8)
    editor.pass_rate_spin.setValue(0.25)
    data = editor.problem_data()
    assert data["group_size"] == 8
    assert data["preset_rewards"] == [1, 0, 0, 0, 1, 0, 0, 0]
    assert editor.default_group_label.text() == "2 of 8 right\n✓ ✗ ✗ ✗ ✓ ✗ ✗ ✗"
    editor.group_size_spin.setValue(64)
    assert editor.default_group_label.text() == "16 of 64 right"
    editor.group_size_spin.setValue(8)
    editor.accept()
    problem = editor.result_problem()
    assert problem.group_size == 8
    assert problem.pass_rate == pytest.approx(0.25)


def test_ctrl_return_accepts_only_when_valid(qtbot, editor):
    editor.answer_key_edit.setText("7")
    editor.correct_edit.setFocus()
    qtbot.keyClick(editor.correct_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert editor.isVisible()
    assert editor.result_problem() is None
    editor.answer_key_edit.setText("1081")
    qtbot.keyClick(editor.correct_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert not editor.isVisible()
    assert editor.result() == QDialog.DialogCode.Accepted
    assert editor.result_problem() is not None


def test_escape_cancels(qtbot, editor):
    editor.correct_edit.setFocus()
    qtbot.keyClick(editor.correct_edit, Qt.Key.Key_Escape)
    assert not editor.isVisible()
    assert editor.result() == QDialog.DialogCode.Rejected
    assert editor.result_problem() is None


def test_tab_reaches_every_field_and_text_boxes_do_not_eat_tab(qtbot, editor):
    editor.title_edit.setFocus()
    seen = []
    for _ in range(34):
        widget = QApplication.focusWidget()
        seen.append(widget.objectName())
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
    for name in (
        "editorTitle",
        "editorPrompt",
        "editorAnswerKey",
        "editorAnswerFormat",
        "editorDifficulty",
        "editorPassRate",
        "editorGroupSize",
        "editorTraceList",
        "editorAddTrace",
        "editorDuplicateTrace",
        "editorRemoveTrace",
        "editorCorrectText",
        "editorWrongText",
        "editorPartial",
        "editorOk",
    ):
        assert name in seen, (name, seen)
    assert "\t" not in editor.prompt_edit.toPlainText()
    assert "\t" not in editor.correct_edit.toPlainText()


def test_labels_have_buddies_and_mnemonics(editor):
    buddies = {
        label.buddy().objectName(): label.text()
        for label in editor.findChildren(QLabel)
        if label.buddy() is not None
    }
    for name in (
        "editorTitle",
        "editorPrompt",
        "editorAnswerKey",
        "editorAnswerFormat",
        "editorDifficulty",
        "editorPassRate",
        "editorGroupSize",
        "editorTraceList",
        "editorCorrectText",
        "editorWrongText",
        "editorPartial",
    ):
        assert "&" in buddies[name], name
    mnemonics = [text[text.index("&") + 1].lower() for text in buddies.values() if "&" in text]
    mnemonics += [
        b.text()[b.text().index("&") + 1].lower()
        for b in (editor.add_button, editor.duplicate_button, editor.remove_button)
    ]
    assert len(mnemonics) == len(set(mnemonics)), mnemonics


def test_text_boxes_use_the_fixed_system_font(editor):
    for edit in (editor.correct_edit, editor.wrong_edit, editor.prompt_edit):
        assert edit.font().fixedPitch() or "mono" in edit.font().family().lower()


def test_default_size_fits_a_1024x768_screen(editor):
    assert (editor.width(), editor.height()) == (900, 640)
    hint = editor.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 700


def test_edit_problem_returns_none_on_cancel_and_the_problem_on_accept(qtbot):
    def close_with(accept: bool) -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, ProblemEditor)
        if accept:
            dialog.accept()
        else:
            dialog.reject()

    QTimer.singleShot(0, lambda: close_with(False))
    assert edit_problem(SEED, None) is None
    QTimer.singleShot(0, lambda: close_with(True))
    problem = edit_problem(SEED, None)
    assert problem is not None
    assert problem.traces == SEED.traces
    assert problem.answer_format == SEED.answer_format
    assert problem.id == "custom-multiply-23-47"


def test_screenshot_at_default_size(qtbot, editor, tmp_path):
    editor.trace_list.setCurrentRow(1)
    editor.correct_edit.setPlainText("23 × 50 = 1150\n23 × 3 = 69\n1150 − 69 = 1071\nAnswer: 1071")
    path = tmp_path / "problem_editor.png"
    assert editor.grab().save(str(path))
    assert path.stat().st_size > 0


def test_trace_advice_tooltips_show_typed_markup_as_text(editor):
    from PySide6.QtGui import QTextDocument

    key = "<img src=x width=900>"
    editor.answer_key_edit.setText(key)
    tooltip = editor.trace_list.item(0).toolTip()
    document = QTextDocument()
    document.setHtml(tooltip)
    assert key in document.toPlainText()
    assert document.toPlainText() == editor._checks[0].advice


# ------------------------------------------------------------------------------ reward components
def test_the_answer_format_box_offers_none_and_every_format(editor):
    combo = editor.format_combo
    assert [combo.itemData(i) for i in range(combo.count())] == ["", *ANSWER_FORMATS]
    assert combo.itemText(0) == "None: no format reward"
    assert combo.itemText(1) == "A final “Answer:” line"
    assert combo.currentData() == (SEED.answer_format or "")


@pytest.mark.parametrize("answer_format", [None, *ANSWER_FORMATS])
def test_the_chosen_answer_format_reaches_the_problem(qtbot, answer_format):
    dialog = ProblemEditor(dataclasses.replace(SEED, answer_format=answer_format))
    qtbot.addWidget(dialog)
    assert dialog.format_combo.currentData() == (answer_format or "")
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("boxed"))
    assert dialog.problem_data()["answer_format"] == "boxed"
    dialog.format_combo.setCurrentIndex(0)
    assert "answer_format" not in dialog.problem_data()
    dialog.accept()
    assert dialog.result_problem().answer_format is None


def test_each_version_shows_whether_it_follows_the_format(editor):
    editor.format_combo.setCurrentIndex(editor.format_combo.findData("answer-line"))
    editor.trace_list.setCurrentRow(0)  # bare "940 + 141 = 1081"
    assert editor.correct_format.text() == "Format (a final “Answer:” line): no → 0 ✗"
    editor.trace_list.setCurrentRow(1)  # "...\nAnswer: 1081"
    assert editor.correct_format.text() == "Format (a final “Answer:” line): yes → 1 ✓"
    assert editor.wrong_format.text() == "Format (a final “Answer:” line): yes → 1 ✓"
    editor.wrong_edit.setPlainText(SEED.traces[1].wrong + "\nor so I think")
    assert editor.wrong_format.text() == "Format (a final “Answer:” line): no → 0 ✗"
    assert editor.ok_button.isEnabled()  # missing the format is no error
    assert editor.wrong_format.property("error") is None
    editor.format_combo.setCurrentIndex(0)
    assert editor.correct_format.text() == editor.wrong_format.text() == ""


def test_partial_credit_is_shown_and_edited_per_trace(editor):
    spin = editor.partial_spin
    assert spin.specialValueText() == "None"
    assert (spin.minimum(), spin.maximum()) == (0.0, pytest.approx(0.99))
    expected = [t.partial for t in SEED.traces]
    assert editor.partials() == expected
    for row, credit in enumerate(expected):
        editor.trace_list.setCurrentRow(row)
        assert spin.value() == pytest.approx(credit or 0.0)
    editor.trace_list.setCurrentRow(2)
    spin.setValue(0.3)
    editor.trace_list.setCurrentRow(0)
    spin.setValue(0.0)  # "None": no credit
    assert editor.partials()[2] == pytest.approx(0.3)
    assert editor.partials()[0] is None
    editor.accept()
    problem = editor.result_problem()
    assert problem.traces[2].partial == pytest.approx(0.3)
    assert problem.traces[0].partial is None


def test_an_untouched_partial_keeps_its_exact_value(qtbot):
    traces = list(SEED.traces)
    traces[0] = dataclasses.replace(traces[0], partial=0.125)
    dialog = ProblemEditor(dataclasses.replace(SEED, traces=tuple(traces)))
    qtbot.addWidget(dialog)
    assert dialog.partial_spin.value() == pytest.approx(0.13)  # the box shows two decimals
    assert dialog.problem_data()["traces"][0]["partial"] == 0.125


def test_partial_credit_moves_with_its_trace(editor):
    editor.trace_list.setCurrentRow(0)
    editor.partial_spin.setValue(0.4)
    editor.duplicate_trace()
    assert editor.trace_list.currentRow() == 1
    assert editor.partials()[:2] == [pytest.approx(0.4), pytest.approx(0.4)]
    editor.add_trace()
    assert editor.partials()[2] is None
    assert editor.partial_spin.value() == 0.0
    editor.trace_list.setCurrentRow(0)
    editor.remove_trace()
    assert len(editor.partials()) == len(editor.traces()) == len(SEED.traces) + 1
    while editor.traces():
        editor.remove_trace()
    assert not editor.partial_spin.isEnabled()


# ------------------------------------------------------------------------------ themes


def _drawn_contrast(label: QLabel) -> float:
    """The contrast of a label as drawn: its most common pixel is the background, the pixel
    farthest from it in luminance is the text (anti-aliasing only blends between the two)."""
    from collections import Counter

    from grpo_desktop.core.common.contrast import contrast_ratio

    image = label.grab().toImage()
    counts = Counter(
        image.pixelColor(x, y).name()
        for y in range(0, image.height())
        for x in range(0, image.width())
    )
    background = counts.most_common(1)[0][0]
    return max(contrast_ratio(colour, background) for colour in counts)


@pytest.fixture
def dark_window(qtbot):
    """A window in the dark theme, with the application palette the app gives it."""
    from PySide6.QtWidgets import QWidget

    from grpo_desktop.core.common.theme import DARK
    from grpo_desktop.views.common.theme_palette import palette_for

    app = QApplication.instance()
    before = app.palette()
    app.setPalette(palette_for(DARK))
    window = QWidget()
    window.theme = DARK  # as MainWindow.theme
    qtbot.addWidget(window)
    yield window
    app.setPalette(before)


@pytest.mark.parametrize("broken", [False, True], ids=["ready", "flagged"])
def test_the_editor_of_a_dark_window_draws_its_live_verdict_and_status_readably(
    qtbot, dark_window, broken
):
    from grpo_desktop.core.common.contrast import AA_TEXT
    from grpo_desktop.core.common.theme import DARK

    dialog = edit_dialog = ProblemEditor(SEED, dark_window)
    qtbot.addWidget(dialog)
    with qtbot.waitExposed(dialog):
        dialog.show()
    assert edit_dialog.palette().window().color().name() == DARK.window
    dialog.trace_list.setCurrentRow(1)
    if broken:
        dialog.correct_edit.setPlainText("23 × 47 = 1071\nAnswer: 1071")
    assert dialog.status_label.text().startswith("⚠" if broken else "✓")
    for label in (
        dialog.status_label,
        dialog.correct_verdict,
        dialog.wrong_verdict,
        dialog.hint_label,
        dialog.id_label,
        dialog.correct_format,
    ):
        assert label.text(), label.objectName()
        assert _drawn_contrast(label) >= AA_TEXT, (label.objectName(), label.text())


def test_the_editor_takes_the_theme_it_is_given_over_its_window(qtbot, dark_window):
    from grpo_desktop.core.common.theme import PROJECTOR

    dialog = ProblemEditor(SEED, dark_window, theme=PROJECTOR)
    qtbot.addWidget(dialog)
    assert dialog.palette().window().color().name() == PROJECTOR.window
    assert problem_editor.theme_of(None) is LIGHT


@pytest.fixture
def font_at_200_percent(qapp):
    from PySide6.QtGui import QFont

    before = QFont(qapp.font())
    doubled = QFont(before)
    doubled.setPointSizeF(before.pointSizeF() * 2)
    qapp.setFont(doubled)
    yield
    qapp.setFont(before)


def test_at_200_percent_the_partial_credit_row_stays_clear_of_the_format_lines(
    qtbot, font_at_200_percent
):
    """At 200 % the verdict and format lines wrap to more lines than Qt's minimum counts, and
    "Partial credit when wrong" was drawn over the wrong version's Format line."""
    from PySide6.QtCore import QRect

    dialog = ProblemEditor(get_problem("mult-23x47"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for _ in range(3):
        QApplication.processEvents()

    def rect(widget) -> QRect:
        return QRect(widget.mapTo(dialog, widget.rect().topLeft()), widget.size())

    partial_label = dialog.findChild(QLabel, "editorPartialLabel")
    assert dialog.wrong_format.text() and dialog.correct_format.text()
    for line in (
        dialog.correct_verdict,
        dialog.wrong_verdict,
        dialog.correct_format,
        dialog.wrong_format,
    ):
        assert line.height() >= line.heightForWidth(line.width()), f"{line.objectName()} is cut"
        for other in (dialog.partial_spin, partial_label):
            assert not rect(line).intersects(rect(other)), f"{line.objectName()} is overlapped"
    assert not rect(dialog.wrong_verdict).intersects(rect(dialog.wrong_format))
