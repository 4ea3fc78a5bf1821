"""The problem editor: a lecturer writes their own problem and its traces, graded live.

Every trace is one sampled answer in two versions: the card shows the correct one when its reward is
1 and the wrong one when it is 0. While the lecturer types, the dialog reads its fields into a
:class:`~grpo_desktop.core.lab.problem_draft.ProblemDraft` and renders what the draft answers: each
version's checker verdict, the default group's pattern, and whether the fields make a usable
problem (every correct version grades 1, every wrong version grades 0, at least
:data:`~grpo_desktop.core.lab.problems.MIN_TRACES` traces, and
:func:`~grpo_desktop.core.lab.problems.parse_problem` accepts it) or the one reason they do not. The
grading and the rules live in that pure module; this one only shows them. The lecturer also picks
the answer format the format reward checks (or none) and a trace's partial credit, and sees for
each version whether it follows that format.

The dialog edits plain data and returns a new :class:`Problem`; it changes no lab state itself.
"""

from __future__ import annotations

import html
import itertools
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QKeySequence, QResizeEvent, QShortcut
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

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.format_check import ANSWER_FORMATS, describe_format

# ID_PREFIX, VersionCheck, check_version, default_pattern, problem_id_for and slugify lived here
# before the grading moved to the pure layer; they stay importable from this module.
from grpo_desktop.core.lab.problem_draft import (
    ID_PREFIX,
    DraftValidation,
    ProblemDraft,
    TraceCheck,
    VersionCheck,
    check_version,
    default_pattern,
    default_summary,
    problem_id_for,
    slugify,
)
from grpo_desktop.core.lab.problems import (
    DIFFICULTIES,
    MAX_GROUP_SIZE,
    MAX_ID_CHARS,
    MAX_KEY_CHARS,
    MAX_TITLE_CHARS,
    MIN_GROUP_SIZE,
    Problem,
)
from grpo_desktop.views.common.theme_palette import palette_for

__all__ = [
    "ID_PREFIX",
    "MAX_ID_CHARS",
    "ProblemEditor",
    "VersionCheck",
    "check_version",
    "default_pattern",
    "edit_problem",
    "problem_id_for",
    "slugify",
    "theme_of",
]

DEFAULT_SIZE = (900, 640)
#: The format box's item for "no format check" (a QComboBox holds no None reliably).
_NO_FORMAT = ""


class ProblemEditor(QDialog):
    """Edit a copy of ``problem``; :meth:`result_problem` is the validated new problem after
    the dialog is accepted ("Use this problem", or Ctrl+Return), else None."""

    def __init__(self, problem: Problem, parent: QWidget | None = None, theme: Theme | None = None):
        super().__init__(parent)
        self.setObjectName("problemEditor")
        self.setWindowTitle("Edit problem")
        self.setSizeGripEnabled(True)
        self._original = problem
        # The window's theme unless told otherwise: the verdicts are coloured from the theme,
        # so a light theme's colours over a dark window's background could not be read (1.1:1).
        self._theme = theme if theme is not None else theme_of(parent)
        # Its own window's theme, whatever the application's palette: every text colour the
        # editor picks is drawn over the background it was checked against (text_pairs).
        self.setPalette(palette_for(self._theme))
        self._traces: list[list[str]] = [[t.correct, t.wrong] for t in problem.traces]
        # Each trace's partial credit, beside its texts: inserted and removed with them.
        self._partials: list[float | None] = [t.partial for t in problem.traces]
        self._checks: tuple[TraceCheck, ...] = ()  # the last draft's verdicts, one per trace
        self._problem: Problem | None = None  # the problem the fields describe, when valid
        self._result: Problem | None = None
        self._loading = False

        self._build_widgets()
        self._build_layout()
        self._connect()
        self._fill(problem)
        self.resize(*DEFAULT_SIZE)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        """No shorter than its wrapped lines need at this width.

        Qt's minimum for a layout counts each wrapped label at its own narrowest hint: at 200 %
        the hint, verdicts and format lines wrap to more lines than that, and the layout then
        overlapped its rows ("Partial credit when wrong" over the Format line).
        """
        super().resizeEvent(event)
        needed = self.layout().totalMinimumHeightForWidth(self.width())
        if needed > self.minimumHeight() and needed > self.height():
            self.setMinimumHeight(needed)  # grows the dialog to it

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

        self.format_combo = QComboBox(objectName="editorAnswerFormat")
        self.format_combo.addItem("None: no format reward", _NO_FORMAT)
        for answer_format in ANSWER_FORMATS:
            self.format_combo.addItem(_capitalised(describe_format(answer_format)), answer_format)
        self.format_combo.setToolTip(
            "The form the format reward checks each answer for; None leaves the format "
            "component out. An answer that misses it still grades by its final answer."
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
        self.default_group_label = QLabel(objectName="editorPreset")
        self.default_group_label.setMinimumHeight(
            self.default_group_label.fontMetrics().lineSpacing() * 2 + 2
        )
        self.default_group_label.setToolTip(
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
        self.correct_verdict.setAccessibleName("Checker verdict for the correct version")
        self.wrong_verdict.setAccessibleName("Checker verdict for the wrong version")
        self.correct_format = QLabel(objectName="editorCorrectFormat")
        self.wrong_format = QLabel(objectName="editorWrongFormat")
        for label in (self.correct_format, self.wrong_format):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.correct_format.setAccessibleName("Answer format check for the correct version")
        self.wrong_format.setAccessibleName("Answer format check for the wrong version")

        self.partial_spin = QDoubleSpinBox(objectName="editorPartial")
        self.partial_spin.setRange(0.0, 0.99)
        self.partial_spin.setDecimals(2)
        self.partial_spin.setSingleStep(0.05)
        self.partial_spin.setSpecialValueText("None")
        self.partial_spin.setToolTip(
            "Partial credit the wrong version earns when its method is right and only the "
            "arithmetic slipped (between 0 and 1); None gives it no credit."
        )

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
        left.addRow(buddy("Answer &format:", self.format_combo), self.format_combo)

        right = QFormLayout()
        right.addRow(buddy("&Difficulty:", self.difficulty_combo), self.difficulty_combo)
        right.addRow(buddy("Pass &rate:", self.pass_rate_spin), self.pass_rate_spin)
        right.addRow(buddy("&Group size:", self.group_size_spin), self.group_size_spin)
        right.addRow("Default group:", self.default_group_label)

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
        for column, (verdict, answer_format) in enumerate(
            ((self.correct_verdict, self.correct_format), (self.wrong_verdict, self.wrong_format))
        ):
            # The checker's verdict, its advice when there is some, then the format line; five
            # lines reserved, so the text boxes do not jump when advice appears or goes.
            cell = QWidget()
            stack = QVBoxLayout(cell)
            stack.setContentsMargins(0, 0, 0, 0)
            stack.setSpacing(0)
            stack.addWidget(verdict)
            stack.addWidget(answer_format)
            stack.addStretch(1)
            cell.setMinimumHeight(verdict.fontMetrics().lineSpacing() * 5 + 16)
            texts.addWidget(cell, 3, column)
        partial_row = QHBoxLayout()
        partial_label = buddy("Part&ial credit when wrong:", self.partial_spin)
        partial_label.setObjectName("editorPartialLabel")
        partial_row.addWidget(partial_label)
        partial_row.addWidget(self.partial_spin)
        partial_row.addStretch(1)
        texts.addLayout(partial_row, 4, 1)
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
            self.format_combo,
            self.difficulty_combo,
            self.pass_rate_spin,
            self.group_size_spin,
            self.trace_list,
            self.add_button,
            self.duplicate_button,
            self.remove_button,
            self.correct_edit,
            self.wrong_edit,
            self.partial_spin,
            self.ok_button,
            self.button_box.button(QDialogButtonBox.StandardButton.Cancel),
        )
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

        theme = self._theme
        self.hint_label.setStyleSheet(f"color: {theme.muted};")
        self.id_label.setStyleSheet(f"color: {theme.muted};")
        for label in (self.correct_format, self.wrong_format):
            label.setStyleSheet(f"color: {theme.muted}; padding: 0px 9px;")

    def _connect(self) -> None:
        self.button_box.accepted.connect(self.accept)
        self.button_box.rejected.connect(self.reject)
        for sequence in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(sequence), self)
            shortcut.activated.connect(self.accept)
        self.title_edit.textChanged.connect(self._refresh)
        self.prompt_edit.textChanged.connect(self._refresh)
        self.answer_key_edit.textChanged.connect(self._refresh)
        self.format_combo.currentIndexChanged.connect(self._refresh)
        self.partial_spin.valueChanged.connect(self._on_partial_edited)
        self.difficulty_combo.currentIndexChanged.connect(self._refresh)
        self.pass_rate_spin.valueChanged.connect(self._refresh)
        self.group_size_spin.valueChanged.connect(self._refresh)
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
            self.format_combo.setCurrentIndex(
                max(0, self.format_combo.findData(problem.answer_format or _NO_FORMAT))
            )
            self.difficulty_combo.setCurrentIndex(
                max(0, self.difficulty_combo.findData(problem.difficulty))
            )
            self.pass_rate_spin.setValue(problem.pass_rate)
            self.group_size_spin.setValue(problem.group_size)
            for _ in self._traces:
                self.trace_list.addItem(QListWidgetItem())
        finally:
            self._loading = False
        self.trace_list.setCurrentRow(0 if self._traces else -1)
        self._show_trace(self.trace_list.currentRow())

    # ----------------------------------------------------------------------------- public API
    def result_problem(self) -> Problem | None:
        """The new problem once the dialog was accepted; None before that or after Cancel."""
        return self._result

    def problem_data(self) -> dict[str, Any]:
        """The fields as a problem file's JSON object (``resources/problems/*.json``)."""
        return self._draft().to_data()

    def is_valid(self) -> bool:
        """Whether the fields make a problem :func:`parse_problem` accepts (OK is enabled)."""
        return self._problem is not None

    def traces(self) -> list[tuple[str, str]]:
        """The edited traces as (correct, wrong) texts, in list order."""
        return [(correct, wrong) for correct, wrong in self._traces]

    def partials(self) -> list[float | None]:
        """Each edited trace's partial credit (None: none), in list order."""
        return list(self._partials)

    def add_trace(self) -> None:
        """Add an empty trace after the selected one and start typing its correct version."""
        self._insert_trace(["", ""])

    def duplicate_trace(self) -> None:
        """Copy the selected trace right after it."""
        row = self.trace_list.currentRow()
        if 0 <= row < len(self._traces):
            self._insert_trace(list(self._traces[row]), self._partials[row])

    def remove_trace(self) -> None:
        """Remove the selected trace; the next one (or the new last one) is selected."""
        row = self.trace_list.currentRow()
        if not 0 <= row < len(self._traces):
            return
        del self._traces[row]
        del self._partials[row]
        self._loading = True
        try:
            self.trace_list.takeItem(row)
        finally:
            self._loading = False
        self.trace_list.setCurrentRow(min(row, len(self._traces) - 1))
        self._show_trace(self.trace_list.currentRow())

    def accept(self) -> None:
        """Accept only a valid problem (Ctrl+Return on an invalid one does nothing)."""
        if self._problem is None:
            return
        self._result = self._problem
        super().accept()

    # ----------------------------------------------------------------------------- reactions
    def _draft(self) -> ProblemDraft:
        """The fields as typed; the draft grades and validates them."""
        return ProblemDraft(
            original=self._original,
            title=self.title_edit.text(),
            prompt=self.prompt_edit.toPlainText(),
            answer_key=self.answer_key_edit.text(),
            difficulty=self.difficulty_combo.currentData(),
            shown_pass_rate=self.pass_rate_spin.value(),
            group_size=self.group_size_spin.value(),
            traces=tuple((correct, wrong) for correct, wrong in self._traces),
            answer_format=self.format_combo.currentData() or None,
            partials=tuple(self._partials),
        )

    def _insert_trace(self, texts: list[str], partial: float | None = None) -> None:
        row = self.trace_list.currentRow() + 1 if self._traces else 0
        self._traces.insert(row, texts)
        self._partials.insert(row, partial)
        self._loading = True
        try:
            self.trace_list.insertItem(row, QListWidgetItem())
        finally:
            self._loading = False
        self.trace_list.setCurrentRow(row)
        self._show_trace(row)
        self.correct_edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def _on_text_edited(self, version: int) -> None:
        if self._loading:
            return
        row = self.trace_list.currentRow()
        if not 0 <= row < len(self._traces):
            return
        edit = self.correct_edit if version == 0 else self.wrong_edit
        self._traces[row][version] = edit.toPlainText()
        self._refresh()

    def _on_partial_edited(self, value: float) -> None:
        """Keep the box's value (two decimals) once the lecturer changes it; an untouched trace
        keeps its exact credit from the file."""
        if self._loading:
            return
        row = self.trace_list.currentRow()
        if not 0 <= row < len(self._partials):
            return
        credit = round(value, 2)
        self._partials[row] = credit if credit > 0 else None
        self._refresh()

    def _show_trace(self, row: int) -> None:
        if self._loading:
            return
        has_trace = 0 <= row < len(self._traces)
        self._loading = True
        try:
            self.correct_edit.setPlainText(self._traces[row][0] if has_trace else "")
            self.wrong_edit.setPlainText(self._traces[row][1] if has_trace else "")
            self.partial_spin.setValue((self._partials[row] or 0.0) if has_trace else 0.0)
        finally:
            self._loading = False
        for widget in (self.correct_edit, self.wrong_edit, self.partial_spin):
            widget.setEnabled(has_trace)
        self.duplicate_button.setEnabled(has_trace)
        self.remove_button.setEnabled(has_trace)
        self._refresh()

    # ----------------------------------------------------------------------------- rendering
    def _refresh(self) -> None:
        """Ask a draft of the fields for its verdicts and show them all."""
        if self._loading:
            return
        draft = self._draft()
        self._checks = draft.trace_checks
        validation = draft.validate()
        self._problem = validation.problem
        self.id_label.setText(draft.problem_id)
        self.default_group_label.setText(default_summary(draft.default_group))
        self._relabel()
        self._show_verdicts(self.trace_list.currentRow())
        self._show_formats(draft, self.trace_list.currentRow())
        self._show_status(validation)

    def _relabel(self) -> None:
        for row, check in enumerate(self._checks):
            item = self.trace_list.item(row)
            if item is None:
                continue
            if check.problems:
                item.setText(f"Trace {row + 1} ⚠")
                item.setForeground(QColor(self._theme.down))
                # The advice quotes typed answers: show them as text, never as tooltip HTML.
                item.setToolTip(f"<p style='white-space:pre-wrap'>{html.escape(check.advice)}</p>")
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
            check = self._checks[row].versions[index]
            if check.advice:
                label.setText(f"{check.line}\n⚠ {check.advice}")
            else:
                label.setText(check.line)
            self._style_line(label, error=check.problem is not None)

    def _show_formats(self, draft: ProblemDraft, row: int) -> None:
        """Whether each version follows the answer format: information, never an error (missing
        the format is what the format reward scores lower, not a broken trace)."""
        lines: tuple[str | None, str | None] = (None, None)
        if 0 <= row < len(draft.traces):
            lines = draft.format_lines(row)
        for label, line in zip((self.correct_format, self.wrong_format), lines):
            label.setText(line or "")

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

    def _show_status(self, validation: DraftValidation) -> None:
        self.ok_button.setEnabled(validation.ok)
        theme = self._theme
        if validation.ok:
            self.status_label.setText(f"✓ {validation.message} Ctrl+Return uses this problem.")
            self.status_label.setStyleSheet(f"color: {theme.up};")
        else:
            self.status_label.setText(f"⚠ {validation.message}")
            self.status_label.setStyleSheet(f"color: {theme.down}; font-weight: bold;")


def _capitalised(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:]


def theme_of(widget: QWidget | None) -> Theme:
    """The theme of the window ``widget`` belongs to (its ``theme`` attribute), else light."""
    while widget is not None:
        theme = getattr(widget, "theme", None)
        if isinstance(theme, Theme):
            return theme
        widget = widget.parentWidget()
    return LIGHT


def edit_problem(
    problem: Problem, parent: QWidget | None = None, theme: Theme | None = None
) -> Problem | None:
    """Run the editor modally on ``problem`` in ``theme`` (default: the parent window's); the
    new problem, or None when cancelled."""
    dialog = ProblemEditor(problem, parent, theme)
    try:
        if dialog.exec() == QDialog.DialogCode.Accepted:
            return dialog.result_problem()
        return None
    finally:
        dialog.deleteLater()
