"""The problem the group answered, its answer key, and the problem chooser."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetricsF, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QVBoxLayout,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.problems import Problem
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.render_cache import RoundedBox

if TYPE_CHECKING:
    from grpo_desktop.core.lab.recorded_group import RecordedGroup

CUSTOM_ROLE_MARK = "custom"
CHOOSER_CHARS = 26  # the chooser's width in characters: most problem titles whole
CHOOSER_CHARS_COMPACT = 16  # half a window (easy vs hard): the prompt keeps its width
RUN_PROMPT_LINES = 4  # a run's prompt shows this many lines whole; a longer one scrolls

#: A run of this many characters without a space gets break opportunities, so a label can wrap it.
_LONG_RUN = re.compile(r"\S{24,}")
_ZERO_WIDTH_SPACE = "\u200b"


def breakable(text: str) -> str:
    """``text`` with an invisible break opportunity every 12 characters of any word longer than
    24, for display only: a QLabel wraps at word boundaries, so one long "word" (a pasted number,
    a URL) would otherwise set the window's minimum width and push it past ``--size``."""
    return _LONG_RUN.sub(
        lambda match: _ZERO_WIDTH_SPACE.join(
            match.group(0)[start : start + 12] for start in range(0, len(match.group(0)), 12)
        ),
        text,
    )


def _plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally (Qt guesses rich text from a tooltip's tags)."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


class NameChooser(QComboBox):
    """A combo box that shows a long name whole where it can, else cut in the middle.

    Qt clips the current item at the box's edge ("Remainder of 7¹⁰⁰ m"); this one elides the
    middle, so the start and the end (a custom problem's "(custom)") both show, puts the whole
    name in the tooltip, and opens its list wide enough for every item.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.currentTextChanged.connect(self._update_tooltip)

    def shown_text(self) -> str:
        """The current item's text as drawn: whole, or cut in the middle with "…"."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        room = max(0, field.width() - 4)  # the label is drawn 1 px in from each side, and a gap
        return self.fontMetrics().elidedText(self.currentText(), Qt.TextElideMode.ElideMiddle, room)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override: the text cut in the middle
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        shown = self.shown_text()
        option.currentText = shown
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._update_tooltip()

    def _update_tooltip(self) -> None:
        whole = self.currentText()
        self.setToolTip("" if self.shown_text() == whole else _plain_tooltip(whole))

    def popup_width(self) -> int:
        """The list's width: the widest item's text, its margins and a scroll bar."""
        metrics = self.view().fontMetrics()
        widest = max(
            (metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0
        )
        scroll_bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        return max(self.width(), widest + scroll_bar + 4 * metrics.averageCharWidth())

    def showPopup(self) -> None:  # Qt override: every item whole in the list
        self.view().setMinimumWidth(self.popup_width())
        super().showPopup()


class RunPromptBox(QPlainTextEdit):
    """A real run's prompt, as high as its wrapped lines up to RUN_PROMPT_LINES; a longer one
    shows half a line more, so it is seen to scroll. A tiny model's one-line prompt then leaves
    no blank band above the cards; a page of a system prompt still stops at a few lines."""

    def fit_height(self) -> None:
        """Take the height the prompt needs at the width the text wraps at now."""
        document = self.document()
        layout = document.documentLayout()
        lines = 0
        block = document.firstBlock()
        while block.isValid() and lines <= RUN_PROMPT_LINES:
            layout.blockBoundingRect(block)  # lays the block out at the box's width
            lines += max(1, block.lineCount())
            block = block.next()
        line_px = math.ceil(QFontMetricsF(self.font()).height())  # as the box lays a line out
        if lines > RUN_PROMPT_LINES:
            height = round(line_px * (RUN_PROMPT_LINES + 0.5))
        else:  # every line whole: without the pixel more, the box scrolls by one
            height = line_px * max(lines, 1) + math.ceil(2 * document.documentMargin()) + 1
        if self.minimumHeight() != height or self.maximumHeight() != height:
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)  # the text is wrapped at the new width here
        if event.size().width() != event.oldSize().width():
            self.fit_height()


class ProblemPanel(QFrame):
    """Shows the prompt and answer key; emits ``problem_requested(id)`` from its chooser."""

    problem_requested = Signal(str)

    def __init__(self, problems: Sequence[Problem], theme: Theme = LIGHT, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("problemPanel")
        # Drawn over the window's colour, covering every pixel: a repaint of the panel or of
        # anything in it (the chooser's hover, a new prompt) paints nothing beneath it.
        self.box = RoundedBox(self, opaque=True)
        self._problems = tuple(problems)
        self._theme = theme
        self._compact = False
        self._problem: Problem | None = None
        self._recorded: RecordedGroup | None = None

        # A problem may come from a scenario file: its text is shown as text, never as HTML
        # (an <img> in a prompt must not load, or size the window to a 20000-pixel image).
        self.prompt = QLabel(objectName="problemPrompt")
        self.prompt.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt.setWordWrap(True)
        self.prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer_key = QLabel(objectName="answerKey")
        self.answer_key.setTextFormat(Qt.TextFormat.RichText)  # the key is escaped into <b>
        self.answer_key.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.answer_key.setWordWrap(True)  # a key of up to 100 characters wraps, never widens
        # A real run's prompt can be a page (a system prompt, few-shot examples): it scrolls in
        # a box a few lines high instead of pushing the cards off the screen. Built with the
        # first run's group (the first text box of the app costs 4 ms of start-up).
        self.run_prompt: RunPromptBox | None = None
        self.details = QLabel(objectName="problemDetails")
        self.details.setProperty("role", "details")  # muted, in every panel (see set_theme)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setWordWrap(True)

        self.chooser = NameChooser(objectName="problemCombo")
        self.chooser.setAccessibleName("Problem")
        self.chooser.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.chooser.setMinimumContentsLength(CHOOSER_CHARS)
        for problem in self._problems:
            self.chooser.addItem(problem.title, problem.id)
            self.chooser.setItemData(
                self.chooser.count() - 1,
                _plain_tooltip(f"{problem.prompt} ({problem.difficulty})"),
                Qt.ItemDataRole.ToolTipRole,
            )
        self.chooser.activated.connect(self._on_chosen)

        text_column = self._text_column = QVBoxLayout()
        text_column.setSpacing(2)
        text_column.addWidget(self.details)
        text_column.addWidget(self.prompt)
        right_column = QVBoxLayout()
        right_column.setSpacing(4)
        right_column.addWidget(self.chooser, 0, Qt.AlignmentFlag.AlignRight)
        right_column.addWidget(self.answer_key)
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 14, 8)
        row.addLayout(text_column, 1)
        row.addLayout(right_column)
        self.set_theme(theme)

    def show_problem(self, problem: Problem, recorded: RecordedGroup | None = None) -> None:
        """The problem's prompt and key; a real run's group (``recorded``) says where it is from
        and shows its prompt, however long, in a box that scrolls."""
        self._recorded = recorded
        self.prompt.setVisible(recorded is None)
        if recorded is not None and self.run_prompt is None:
            self.run_prompt = self._make_run_prompt()
        if self.run_prompt is not None:
            self.run_prompt.setVisible(recorded is not None)
        if recorded is None:
            self.prompt.setText(breakable(problem.prompt))
        elif self.run_prompt.toPlainText() != problem.prompt:
            self.run_prompt.setPlainText(problem.prompt)
            self.run_prompt.fit_height()
        if problem.answer_key:
            key = html.escape(breakable(problem.answer_key))
            self.answer_key.setText(f"Answer key: <b>{key}</b>")
        else:
            self.answer_key.setText("No answer key logged")
        self._problem = problem
        self._show_details()
        index = self.chooser.findData(problem.id)
        custom = self.chooser.findData(CUSTOM_ROLE_MARK, Qt.ItemDataRole.UserRole + 1)
        if custom >= 0 and self.chooser.itemData(custom) != problem.id:
            self.chooser.removeItem(custom)
            index = self.chooser.findData(problem.id)
        if index < 0:
            # A lecturer's own problem: listed first, marked, until another problem is chosen.
            label = recorded.chooser_label if recorded is not None else "(custom)"
            self.chooser.insertItem(0, f"✎ {problem.title} {label}", problem.id)
            self.chooser.setItemData(0, CUSTOM_ROLE_MARK, Qt.ItemDataRole.UserRole + 1)
            index = 0
        self.chooser.setCurrentIndex(index)

    def _make_run_prompt(self) -> RunPromptBox:
        box = RunPromptBox(objectName="runPrompt")
        box.setReadOnly(True)
        box.setFrameShape(QFrame.Shape.NoFrame)
        box.setAccessibleName("Prompt")
        self._text_column.addWidget(box)
        self._style_run_prompt(box)
        return box

    def _style_run_prompt(self, box: RunPromptBox) -> None:
        box.setFont(scaled_font(1.0 * self._theme.type_scale))
        box.fit_height()

    def _show_details(self) -> None:
        problem = self._problem
        if problem is None:
            return
        recorded = self._recorded
        if recorded is not None:
            text = f"{recorded.kind} · {recorded.origin} · {recorded.title}"
        elif self._compact:
            text = f"{problem.difficulty} · solved about {problem.pass_rate:.0%} of the time"
        else:
            text = (
                f"Verifiable problem · {problem.difficulty} · the model solves it about "
                f"{problem.pass_rate:.0%} of the time"
            )
        self.details.setText(breakable(text))

    def _on_chosen(self, index: int) -> None:
        self.problem_requested.emit(self.chooser.itemData(index))

    def set_compact(self, compact: bool) -> None:
        """Half a window wide (easy vs hard): a smaller prompt and a narrower chooser, so the
        prompt keeps its width and the cards and chart below keep their height."""
        self._compact = compact
        self.chooser.setMinimumContentsLength(CHOOSER_CHARS_COMPACT if compact else CHOOSER_CHARS)
        self._show_details()
        self.set_theme(self._theme)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override: the box, kept
        self.box.paint()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.box.set_colours(theme.surface, theme.border)
        # By class and property, not object name: the comparison's panels are "easy.problemPanel"
        # and "hard.problemPanel", which an id selector never matched.
        self.setStyleSheet(
            f"ProblemPanel QLabel, ProblemPanel QPlainTextEdit {{ color: {theme.text};"
            f" background: transparent; }}"
            f'ProblemPanel QLabel[role="details"] {{ color: {theme.muted}; }}'
        )
        prompt_scale = 1.25 if self._compact else 1.6
        self.prompt.setFont(scaled_font(prompt_scale * theme.type_scale, bold=True))
        if self.run_prompt is not None:
            self._style_run_prompt(self.run_prompt)
        self.answer_key.setFont(scaled_font(1.3 * theme.type_scale))
        self.details.setFont(scaled_font(0.95 * theme.type_scale))
