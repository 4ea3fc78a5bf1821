"""The problem editor: a lecturer writes their own problem and its traces, graded live.

Every trace is one sampled answer in two versions: the card shows the correct one when its reward is
1 and the wrong one when it is 0. The same checker that grades the cards in the lab
(:func:`grpo_desktop.core.checker.grade`) grades both versions while the lecturer types, so a
problem can only be used when :func:`grpo_desktop.core.problems.parse_problem` accepts it:
every correct version grades 1, every wrong version grades 0, and there are at least
:data:`MIN_TRACES` traces. A problem that passes here can never show "reward 1" next to a wrong
answer on stage.

The dialog edits plain data and returns a new :class:`Problem`; it changes no lab state itself.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import unicodedata
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.checker import grade
from grpo_desktop.core.problems import (
    DIFFICULTIES,
    MAX_GROUP_SIZE,
    MAX_ID_CHARS,
    MAX_KEY_CHARS,
    MAX_PROMPT_CHARS,
    MAX_TITLE_CHARS,
    MAX_TRACE_CHARS,
    MIN_GROUP_SIZE,
    MIN_TRACES,
    SCHEMA_VERSION,
    Problem,
    ProblemError,
    parse_problem,
)
from grpo_desktop.core.theme import LIGHT, Theme

__all__ = [
    "ID_PREFIX",
    "MAX_ID_CHARS",
    "ProblemEditor",
    "VersionCheck",
    "check_version",
    "edit_problem",
    "problem_id_for",
    "slugify",
]

ID_PREFIX = "custom-"
#: A final answer longer than this is shortened with "…" in a verdict line.
_SHOWN_ANSWER_CHARS = 40
#: Up to this group size the default group's pattern is drawn (✓ ✗ ✗ ✓); beyond, only counted.
_SHOWN_PATTERN_CARDS = 12
_SOURCE = "editor"

DEFAULT_SIZE = (900, 640)


def slugify(text: str) -> str:
    """Lower-case ASCII letters, digits and single hyphens: ``"Multiply 23 × 47"`` →
    ``"multiply-23-47"`` (accents are dropped: ``"Café"`` → ``"cafe"``)."""
    # Accents go (their combining marks are dropped); any other non-ASCII character separates
    # words, so "½" (NFKD "1⁄2") reads "1-2", not "12".
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = "".join(
        ch if ch.isascii() else " " for ch in decomposed if not unicodedata.combining(ch)
    )
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def problem_id_for(title: str) -> str:
    """The id of a lecturer's problem: ``custom-`` + the title's slug, at most 64 characters,
    always matching ``[a-z0-9-]+`` (``custom-problem`` when the title has no letter or digit)."""
    slug = slugify(title) or "problem"
    return (ID_PREFIX + slug)[:MAX_ID_CHARS].rstrip("-")


def _shown(answer: str) -> str:
    answer = " ".join(answer.split())
    if len(answer) > _SHOWN_ANSWER_CHARS:
        return answer[: _SHOWN_ANSWER_CHARS - 1] + "…"
    return answer


@dataclasses.dataclass(frozen=True)
class VersionCheck:
    """What the checker says about one version of a trace, in words.

    ``line`` is the checker's verdict ("Checker: final answer 1081 → reward 1 ✓"); ``problem`` is
    None when the version grades as it must, else the reason in plain words.
    """

    line: str
    problem: str | None = None


def check_version(text: str, answer_key: str, *, correct: bool) -> VersionCheck:
    """Grade the ``correct`` (must grade 1) or wrong (must grade 0) version of a trace."""
    kind = "correct" if correct else "wrong"
    key = answer_key.strip()
    if not key:
        return VersionCheck("Checker: waiting for an answer key")
    if not text.strip():
        if correct:
            need = f"write an answer whose final answer is the key {_shown(key)}"
        else:
            need = f"write an answer whose final answer is not the key {_shown(key)}"
        return VersionCheck("Checker: nothing to grade yet", f"the {kind} version is empty: {need}")
    verdict = grade(text, key)
    mark = "✓" if verdict.reward else "✗"
    if verdict.final_answer is None:
        line = f"Checker: no final answer found → reward {verdict.reward} {mark}"
    else:
        line = (
            f"Checker: final answer {_shown(verdict.final_answer)} → reward {verdict.reward} {mark}"
        )
    if len(text) > MAX_TRACE_CHARS:
        return VersionCheck(
            line,
            f"the {kind} version is {len(text):,} characters long; the limit is "
            f"{MAX_TRACE_CHARS:,}",
        )
    if correct and verdict.reward != 1:
        if verdict.final_answer is None:
            return VersionCheck(
                line,
                "the correct version grades 0: the checker finds no final answer in it (end it "
                f"with a line like “Answer: {_shown(key)}”)",
            )
        return VersionCheck(
            line,
            f"the correct version grades 0: its final answer {_shown(verdict.final_answer)} "
            f"does not match the key {_shown(key)}",
        )
    if not correct and verdict.reward != 0:
        return VersionCheck(
            line,
            f"the wrong version grades 1: its final answer {_shown(verdict.final_answer or '')} "
            f"matches the key {_shown(key)}, so it is not wrong",
        )
    return VersionCheck(line)


def _capitalised(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def preset_pattern(original: Problem, pass_rate: float, group_size: int) -> tuple[bool, ...]:
    """The default group's correct/wrong pattern for the edited problem.

    The original problem's preset while its group size and pass rate are unchanged; otherwise
    ``round(pass_rate · G)`` correct answers spread evenly, computed by :meth:`Problem.preset_for`.
    """
    if group_size == original.group_size and pass_rate == original.pass_rate:
        return tuple(bool(r) for r in original.preset_rewards)
    # group_size 0 never matches, so preset_for computes the spread pattern.
    scratch = dataclasses.replace(original, pass_rate=pass_rate, group_size=0, preset_rewards=())
    return scratch.preset_for(group_size)


class ProblemEditor(QDialog):
    """Edit a copy of ``problem``; :meth:`result_problem` is the validated new problem after
    the dialog is accepted ("Use this problem", or Ctrl+Return), else None."""

    def __init__(self, problem: Problem, parent: QWidget | None = None, theme: Theme = LIGHT):
        super().__init__(parent)
        self.setObjectName("problemEditor")
        self.setWindowTitle("Edit problem")
        self.setSizeGripEnabled(True)
        self._original = problem
        self._theme = theme
        self._traces: list[list[str]] = [[t.correct, t.wrong] for t in problem.traces]
        self._checks: list[tuple[VersionCheck, VersionCheck]] = []
        self._problem: Problem | None = None  # the problem the fields describe, when valid
        self._result: Problem | None = None
        self._loading = False

        self._build_widgets()
        self._build_layout()
        self._connect()
        self._fill(problem)
        self.resize(*DEFAULT_SIZE)

    # ----------------------------------------------------------------------------- building
    def _build_widgets(self) -> None:
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        if self.font().pointSizeF() > 0:
            fixed.setPointSizeF(self.font().pointSizeF())

        self.title_edit = QLineEdit(objectName="editorTitle")
        self.title_edit.setMaxLength(MAX_TITLE_CHARS)
        self.title_edit.setPlaceholderText("A short name, e.g. “Multiply 23 × 47”")
        self.id_label = QLabel(objectName="editorId")
        self.id_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.prompt_edit = QPlainTextEdit(objectName="editorPrompt")
        self.prompt_edit.setTabChangesFocus(True)
        self.prompt_edit.setFont(fixed)
        self.prompt_edit.setPlaceholderText("The question the model answers")
        lines = self.prompt_edit.fontMetrics().lineSpacing()
        self.prompt_edit.setFixedHeight(int(lines * 3.2) + 12)
        self.answer_key_edit = QLineEdit(objectName="editorAnswerKey")
        self.answer_key_edit.setMaxLength(MAX_KEY_CHARS)
        self.answer_key_edit.setFont(fixed)
        self.answer_key_edit.setPlaceholderText("e.g. 1081")
        self.answer_key_edit.setToolTip(
            "The checker compares each trace's final answer with this key: equal → reward 1."
        )

        self.difficulty_combo = QComboBox(objectName="editorDifficulty")
        for difficulty in DIFFICULTIES:
            self.difficulty_combo.addItem(difficulty.capitalize(), difficulty)
        self.pass_rate_spin = QDoubleSpinBox(objectName="editorPassRate")
        self.pass_rate_spin.setRange(0.01, 0.99)
        self.pass_rate_spin.setDecimals(2)
        self.pass_rate_spin.setSingleStep(0.05)
        self.pass_rate_spin.setToolTip(
            "How often the model gets this problem right; sets the default group's pattern."
        )
        self.group_size_spin = QSpinBox(objectName="editorGroupSize")
        self.group_size_spin.setRange(MIN_GROUP_SIZE, MAX_GROUP_SIZE)
        self.group_size_spin.setToolTip("How many answers the default group samples (G).")
        self.preset_label = QLabel(objectName="editorPreset")
        self.preset_label.setMinimumHeight(self.preset_label.fontMetrics().lineSpacing() * 2 + 2)
        self.preset_label.setToolTip(
            "Which answers of the default group are right: the original pattern while the group "
            "size and pass rate are unchanged, else round(pass rate × G) right answers spread "
            "evenly."
        )

        self.trace_list = QListWidget(objectName="editorTraceList")
        self.trace_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.trace_list.setAccessibleName("Traces")
        self.trace_list.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.add_button = QPushButton("&Add trace", objectName="editorAddTrace")
        self.add_button.setToolTip("Add an empty trace after the selected one")
        self.duplicate_button = QPushButton("D&uplicate", objectName="editorDuplicateTrace")
        self.duplicate_button.setToolTip("Copy the selected trace, to edit a variation of it")
        self.remove_button = QPushButton("Re&move", objectName="editorRemoveTrace")
        self.remove_button.setToolTip("Remove the selected trace")
        for button in (self.add_button, self.duplicate_button, self.remove_button):
            button.setAutoDefault(False)  # Enter in the dialog means "Use this problem"
        width = max(
            self.trace_list.fontMetrics().horizontalAdvance("Trace 64 ⚠") + 48,
            *(
                b.sizeHint().width()
                for b in (self.add_button, self.duplicate_button, self.remove_button)
            ),
        )
        self.trace_list.setFixedWidth(width)

        self.correct_edit = QPlainTextEdit(objectName="editorCorrectText")
        self.wrong_edit = QPlainTextEdit(objectName="editorWrongText")
        for edit, kind in ((self.correct_edit, "correct"), (self.wrong_edit, "wrong")):
            edit.setTabChangesFocus(True)
            edit.setFont(fixed)
            edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
            edit.setPlaceholderText(
                "A worked answer ending in the key, e.g. “Answer: 1081”"
                if kind == "correct"
                else "The same answer with a slip, ending in a different final answer"
            )
        self.correct_verdict = QLabel(objectName="editorCorrectVerdict")
        self.wrong_verdict = QLabel(objectName="editorWrongVerdict")
        for label in (self.correct_verdict, self.wrong_verdict):
            label.setWordWrap(True)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            label.setTextFormat(Qt.TextFormat.PlainText)
            # Three lines reserved, so the boxes do not jump when a problem appears or goes.
            label.setMinimumHeight(label.fontMetrics().lineSpacing() * 3 + 16)
        self.correct_verdict.setAccessibleName("Checker verdict for the correct version")
        self.wrong_verdict.setAccessibleName("Checker verdict for the wrong version")

        self.status_label = QLabel(objectName="editorStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setMinimumHeight(self.status_label.fontMetrics().lineSpacing() * 2 + 8)
        self.status_label.setAccessibleName("Problem status")

        self.button_box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.button_box.addButton(
            "Use this problem", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.ok_button.setObjectName("editorOk")
        self.ok_button.setDefault(True)
        self.ok_button.setToolTip("Use this problem (Ctrl+Return)")

    def _build_layout(self) -> None:
        def buddy(text: str, widget: QWidget) -> QLabel:
            label = QLabel(text)
            label.setBuddy(widget)
            return label

        left = QFormLayout()
        left.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        left.addRow(buddy("&Title:", self.title_edit), self.title_edit)
        left.addRow("Id:", self.id_label)
        left.addRow(buddy("&Prompt:", self.prompt_edit), self.prompt_edit)
        left.addRow(buddy("Answer &key:", self.answer_key_edit), self.answer_key_edit)

        right = QFormLayout()
        right.addRow(buddy("&Difficulty:", self.difficulty_combo), self.difficulty_combo)
        right.addRow(buddy("Pass &rate:", self.pass_rate_spin), self.pass_rate_spin)
        right.addRow(buddy("&Group size:", self.group_size_spin), self.group_size_spin)
        right.addRow("Default group:", self.preset_label)

        fields = QHBoxLayout()
        fields.addLayout(left, 3)
        fields.addSpacing(16)
        fields.addLayout(right, 1)

        rule = QFrame()
        rule.setFrameShape(QFrame.Shape.HLine)
        rule.setFrameShadow(QFrame.Shadow.Sunken)

        list_column = QVBoxLayout()
        list_column.addWidget(buddy("Trace&s:", self.trace_list))
        list_column.addWidget(self.trace_list, 1)
        for button in (self.add_button, self.duplicate_button, self.remove_button):
            list_column.addWidget(button)

        self.hint_label = QLabel(
            "Each trace is one sampled answer in two versions: a card shows the correct one when "
            "its reward is 1 and the wrong one when it is 0. The checker grades both as you type.",
            objectName="editorHint",
        )
        self.hint_label.setWordWrap(True)
        texts = QGridLayout()
        texts.setHorizontalSpacing(12)
        texts.setVerticalSpacing(4)
        texts.addWidget(self.hint_label, 0, 0, 1, 2)
        texts.addWidget(buddy("&Correct version (must grade 1):", self.correct_edit), 1, 0)
        texts.addWidget(buddy("&Wrong version (must grade 0):", self.wrong_edit), 1, 1)
        texts.addWidget(self.correct_edit, 2, 0)
        texts.addWidget(self.wrong_edit, 2, 1)
        texts.addWidget(self.correct_verdict, 3, 0)
        texts.addWidget(self.wrong_verdict, 3, 1)
        texts.setColumnStretch(0, 1)
        texts.setColumnStretch(1, 1)
        texts.setRowStretch(2, 1)

        traces = QHBoxLayout()
        traces.addLayout(list_column)
        traces.addSpacing(8)
        traces.addLayout(texts, 1)

        bottom = QHBoxLayout()
        bottom.addWidget(self.status_label, 1)
        bottom.addWidget(self.button_box, 0, Qt.AlignmentFlag.AlignBottom)

        page = QVBoxLayout(self)
        page.addLayout(fields)
        page.addWidget(rule)
        page.addLayout(traces, 1)
        page.addLayout(bottom)

        order = (
            self.title_edit,
            self.prompt_edit,
            self.answer_key_edit,
            self.difficulty_combo,
            self.pass_rate_spin,
            self.group_size_spin,
            self.trace_list,
            self.add_button,
            self.duplicate_button,
            self.remove_button,
            self.correct_edit,
            self.wrong_edit,
            self.ok_button,
            self.button_box.button(QDialogButtonBox.StandardButton.Cancel),
        )
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

        theme = self._theme
        self.hint_label.setStyleSheet(f"color: {theme.muted};")
        self.id_label.setStyleSheet(f"color: {theme.muted};")

    def _connect(self) -> None:
        self.button_box.accepted.connect(self.accept)
        self.button_box.rejected.connect(self.reject)
        for sequence in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(sequence), self)
            shortcut.activated.connect(self.accept)
        self.title_edit.textChanged.connect(self._on_title_changed)
        self.prompt_edit.textChanged.connect(self._validate)
        self.answer_key_edit.textChanged.connect(self._on_key_changed)
        self.difficulty_combo.currentIndexChanged.connect(self._validate)
        self.pass_rate_spin.valueChanged.connect(self._on_group_changed)
        self.group_size_spin.valueChanged.connect(self._on_group_changed)
        self.trace_list.currentRowChanged.connect(self._show_trace)
        self.add_button.clicked.connect(self.add_trace)
        self.duplicate_button.clicked.connect(self.duplicate_trace)
        self.remove_button.clicked.connect(self.remove_trace)
        self.correct_edit.textChanged.connect(lambda: self._on_text_edited(0))
        self.wrong_edit.textChanged.connect(lambda: self._on_text_edited(1))

    def _fill(self, problem: Problem) -> None:
        self._loading = True
        try:
            self.title_edit.setText(problem.title)
            self.prompt_edit.setPlainText(problem.prompt)
            self.answer_key_edit.setText(problem.answer_key)
            self.difficulty_combo.setCurrentIndex(
                max(0, self.difficulty_combo.findData(problem.difficulty))
            )
            self.pass_rate_spin.setValue(problem.pass_rate)
            self.group_size_spin.setValue(problem.group_size)
            for _ in self._traces:
                self.trace_list.addItem(QListWidgetItem())
        finally:
            self._loading = False
        self._on_title_changed()
        self._regrade_all()
        self.trace_list.setCurrentRow(0 if self._traces else -1)
        self._show_trace(self.trace_list.currentRow())
        self._on_group_changed()

    # ----------------------------------------------------------------------------- public API
    def result_problem(self) -> Problem | None:
        """The new problem once the dialog was accepted; None before that or after Cancel."""
        return self._result

    def problem_data(self) -> dict[str, Any]:
        """The fields as a problem file's JSON object (``resources/problems/*.json``)."""
        title = self.title_edit.text().strip()
        group_size = self.group_size_spin.value()
        pass_rate = self._pass_rate()
        return {
            "schema": SCHEMA_VERSION,
            "id": problem_id_for(title),
            "title": title,
            "prompt": self.prompt_edit.toPlainText().strip(),
            "answer_key": self.answer_key_edit.text().strip(),
            "difficulty": self.difficulty_combo.currentData(),
            "pass_rate": pass_rate,
            "group_size": group_size,
            "preset_rewards": [
                int(r) for r in preset_pattern(self._original, pass_rate, group_size)
            ],
            "traces": [{"correct": correct, "wrong": wrong} for correct, wrong in self._traces],
        }

    def is_valid(self) -> bool:
        """Whether the fields make a problem :func:`parse_problem` accepts (OK is enabled)."""
        return self._problem is not None

    def traces(self) -> list[tuple[str, str]]:
        """The edited traces as (correct, wrong) texts, in list order."""
        return [(correct, wrong) for correct, wrong in self._traces]

    def add_trace(self) -> None:
        """Add an empty trace after the selected one and start typing its correct version."""
        self._insert_trace(["", ""])

    def duplicate_trace(self) -> None:
        """Copy the selected trace right after it."""
        row = self.trace_list.currentRow()
        if 0 <= row < len(self._traces):
            self._insert_trace(list(self._traces[row]))

    def remove_trace(self) -> None:
        """Remove the selected trace; the next one (or the new last one) is selected."""
        row = self.trace_list.currentRow()
        if not 0 <= row < len(self._traces):
            return
        del self._traces[row]
        del self._checks[row]
        self._loading = True
        try:
            self.trace_list.takeItem(row)
        finally:
            self._loading = False
        self._relabel()
        self.trace_list.setCurrentRow(min(row, len(self._traces) - 1))
        self._show_trace(self.trace_list.currentRow())
        self._validate()

    def accept(self) -> None:
        """Accept only a valid problem (Ctrl+Return on an invalid one does nothing)."""
        if self._problem is None:
            return
        self._result = self._problem
        super().accept()

    # ----------------------------------------------------------------------------- reactions
    def _pass_rate(self) -> float:
        value = round(self.pass_rate_spin.value(), 2)
        # Keep the original's exact value while the (2-decimal) box still shows it.
        if value == round(self._original.pass_rate, 2):
            return self._original.pass_rate
        return value

    def _insert_trace(self, texts: list[str]) -> None:
        row = self.trace_list.currentRow() + 1 if self._traces else 0
        self._traces.insert(row, texts)
        key = self.answer_key_edit.text()
        self._checks.insert(row, self._check_trace(texts, key))
        self._loading = True
        try:
            self.trace_list.insertItem(row, QListWidgetItem())
        finally:
            self._loading = False
        self._relabel()
        self.trace_list.setCurrentRow(row)
        self._show_trace(row)
        self._validate()
        self.correct_edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def _on_title_changed(self) -> None:
        self.id_label.setText(problem_id_for(self.title_edit.text().strip()))
        self._validate()

    def _on_key_changed(self) -> None:
        self._regrade_all()
        self._validate()

    def _on_group_changed(self) -> None:
        pattern = preset_pattern(self._original, self._pass_rate(), self.group_size_spin.value())
        text = f"{sum(pattern)} of {len(pattern)} right"
        if len(pattern) <= _SHOWN_PATTERN_CARDS:
            text += "\n" + " ".join("✓" if r else "✗" for r in pattern)
        self.preset_label.setText(text)
        self._validate()

    def _on_text_edited(self, version: int) -> None:
        if self._loading:
            return
        row = self.trace_list.currentRow()
        if not 0 <= row < len(self._traces):
            return
        edit = self.correct_edit if version == 0 else self.wrong_edit
        self._traces[row][version] = edit.toPlainText()
        self._checks[row] = self._check_trace(self._traces[row], self.answer_key_edit.text())
        self._relabel(row)
        self._show_verdicts(row)
        self._validate()

    def _show_trace(self, row: int) -> None:
        if self._loading:
            return
        has_trace = 0 <= row < len(self._traces)
        self._loading = True
        try:
            self.correct_edit.setPlainText(self._traces[row][0] if has_trace else "")
            self.wrong_edit.setPlainText(self._traces[row][1] if has_trace else "")
        finally:
            self._loading = False
        for widget in (self.correct_edit, self.wrong_edit):
            widget.setEnabled(has_trace)
        self.duplicate_button.setEnabled(has_trace)
        self.remove_button.setEnabled(has_trace)
        self._show_verdicts(row)

    # ----------------------------------------------------------------------------- grading
    @staticmethod
    def _check_trace(texts: list[str], key: str) -> tuple[VersionCheck, VersionCheck]:
        return (
            check_version(texts[0], key, correct=True),
            check_version(texts[1], key, correct=False),
        )

    def _regrade_all(self) -> None:
        key = self.answer_key_edit.text()
        self._checks = [self._check_trace(texts, key) for texts in self._traces]
        self._relabel()
        self._show_verdicts(self.trace_list.currentRow())

    def _relabel(self, only_row: int | None = None) -> None:
        rows = range(len(self._traces)) if only_row is None else (only_row,)
        for row in rows:
            item = self.trace_list.item(row)
            if item is None:
                continue
            problems = [c.problem for c in self._checks[row] if c.problem]
            if problems:
                item.setText(f"Trace {row + 1} ⚠")
                item.setForeground(QColor(self._theme.down))
                tip = "; ".join(problems)
                item.setToolTip(_capitalised(tip))
                item.setData(Qt.ItemDataRole.AccessibleTextRole, f"Trace {row + 1}: needs work")
            else:
                item.setText(f"Trace {row + 1}")
                item.setData(Qt.ItemDataRole.ForegroundRole, None)
                item.setToolTip("")
                item.setData(Qt.ItemDataRole.AccessibleTextRole, f"Trace {row + 1}")

    def _show_verdicts(self, row: int) -> None:
        has_trace = 0 <= row < len(self._checks)
        for index, label in enumerate((self.correct_verdict, self.wrong_verdict)):
            if not has_trace:
                label.setText("Select or add a trace to edit it.")
                self._style_line(label, error=False)
                continue
            check = self._checks[row][index]
            if check.problem:
                label.setText(f"{check.line}\n⚠ {_capitalised(check.problem)}.")
            else:
                label.setText(check.line)
            self._style_line(label, error=check.problem is not None)

    def _style_line(self, label: QLabel, *, error: bool) -> None:
        theme = self._theme
        if error:
            label.setStyleSheet(
                f"color: {theme.down}; background: {theme.down_fill}; border-left: 3px solid"
                f" {theme.down}; padding: 2px 6px; font-weight: bold;"
            )
        else:
            label.setStyleSheet(
                f"color: {theme.text}; border-left: 3px solid transparent; padding: 2px 6px;"
            )
        label.setProperty("error", error)

    # ----------------------------------------------------------------------------- validation
    def _first_reason(self, data: dict[str, Any]) -> str | None:
        """The first thing keeping the fields from being a usable problem, in plain words."""
        if not data["title"]:
            return "Give the problem a title: the problem chooser lists it by that name."
        if not data["prompt"]:
            return "Write the prompt: the question the model answers."
        if len(data["prompt"]) > MAX_PROMPT_CHARS:
            return (
                f"Shorten the prompt to at most {MAX_PROMPT_CHARS:,} characters "
                f"({len(data['prompt']):,} now)."
            )
        if not data["answer_key"]:
            return "Enter the answer key: the checker compares every final answer with it."
        count = len(self._traces)
        if count < MIN_TRACES:
            return (
                f"Add at least {MIN_TRACES} traces ({count} so far): a group of answers needs "
                "samples to draw from."
            )
        for row, checks in enumerate(self._checks):
            for check in checks:
                if check.problem:
                    return f"Trace {row + 1}: {check.problem}."
        return None

    def _validate(self) -> None:
        if self._loading:
            return
        data = self.problem_data()
        reason = self._first_reason(data)
        problem: Problem | None = None
        if reason is None:
            try:
                problem = parse_problem(data, _SOURCE)
            except ProblemError as exc:  # a rule the checks above do not phrase yet
                reason = str(exc).removeprefix(f"{_SOURCE}: ")
        self._problem = problem
        self.ok_button.setEnabled(problem is not None)
        theme = self._theme
        if problem is not None:
            self.status_label.setText(
                f"✓ Ready: {len(problem.traces)} traces, every correct version grades 1 and every "
                "wrong version grades 0. Ctrl+Return uses this problem."
            )
            self.status_label.setStyleSheet(f"color: {theme.up};")
        else:
            self.status_label.setText(f"⚠ {reason}")
            self.status_label.setStyleSheet(f"color: {theme.down}; font-weight: bold;")


def edit_problem(problem: Problem, parent: QWidget | None = None) -> Problem | None:
    """Run the editor modally on ``problem``; the new problem, or None when cancelled."""
    dialog = ProblemEditor(problem, parent)
    try:
        if dialog.exec() == QDialog.DialogCode.Accepted:
            return dialog.result_problem()
        return None
    finally:
        dialog.deleteLater()
