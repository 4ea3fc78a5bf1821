"""The lesson bar: the lesson's title, "Step k of n", the step's text and the paging buttons.

A view: it shows the step it is given and emits ``*_requested`` when a button is pressed; the
window's lesson controller decides what a step puts on screen.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.files.lessons import Lesson
from grpo_desktop.views.common.fonts import scaled_font

__all__ = ["FINISH_TEXT", "NEXT_TEXT", "LessonBar", "plain_text"]

UNPLACED_WIDTH = 100_000  # "wide enough for one line" before a layout has given the bar a width
NEXT_TEXT = "Next ▶"
FINISH_TEXT = "Finish"
_TAG_RE = re.compile(r"<[^<>]*>")


def plain_text(rich: str) -> str:
    """A step text without its <b>/<i> markup (for screen readers and the status bar)."""
    return html.unescape(_TAG_RE.sub("", rich))


class _ElidedLabel(QLabel):
    """A one-line label that shrinks with "…" instead of widening the window."""

    def __init__(self, name: str) -> None:
        super().__init__(objectName=name)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._full = ""

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self.updateGeometry()
        self._elide()

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        width = metrics.horizontalAdvance(self._full) + margins.left() + margins.right() + 2
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(
            self.fontMetrics().horizontalAdvance("Ab…"), super().minimumSizeHint().height()
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()
            self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self._full, Qt.TextElideMode.ElideRight, max(0, self.contentsRect().width())
        )
        if shown != self.text():
            self.setText(shown)


class LessonBar(QFrame):
    """The lesson's title, "Step k of n", the step's title and text, and the paging buttons.

    Laid out in two rows so it takes little of a laptop screen: the step title (under a muted
    "lesson · step k of n" line) sits beside the buttons, and the step text spans the full width
    below. Its height never changes from one step to the next: the title and text labels reserve
    the height of the tallest step title and text of the running lesson (:meth:`set_reserved_texts`)
    at the current width, so paging never makes the lab below jump.
    """

    previous_requested = Signal()
    next_requested = Signal()
    reveal_requested = Signal()
    exit_requested = Signal()
    _restyling = True  # until __init__ has built the labels, font events have nothing to restyle

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonBar")
        self.setAccessibleName("Lesson")
        self._theme = theme
        self._reserved_titles: tuple[str, ...] = ()
        self._reserved_texts: tuple[str, ...] = ()

        self.lesson_title = _ElidedLabel("lessonTitle")
        self.step_counter = QLabel(objectName="lessonStepCounter")
        self.step_counter.setTextFormat(Qt.TextFormat.PlainText)
        self.step_title = self._wrapping_label("lessonStepTitle", Qt.TextFormat.PlainText)
        self.step_text = self._wrapping_label("lessonStepText", Qt.TextFormat.RichText)
        self.step_text.setAccessibleDescription("What to notice in this step")
        # Probes measure every reserved text with the labels' fonts; never shown.
        self._title_probe = self._wrapping_label("", Qt.TextFormat.PlainText)
        self._text_probe = self._wrapping_label("", Qt.TextFormat.RichText)
        for probe in (self._title_probe, self._text_probe):
            probe.setParent(self)
            probe.hide()

        self.reveal_button = self._button("Reveal", "lessonReveal", self.reveal_requested)
        self.previous_button = self._button("◀ Previous", "lessonPrevious", self.previous_requested)
        self.next_button = self._button(NEXT_TEXT, "lessonNext", self.next_requested)
        self.exit_button = self._button("✕ Exit", "lessonExit", self.exit_requested)
        self.reveal_button.setAccessibleName("Reveal advantages")
        self.previous_button.setAccessibleName("Previous step")
        self.next_button.setAccessibleName("Next step")
        self.exit_button.setAccessibleName("Exit lesson")
        reveal_policy = self.reveal_button.sizePolicy()
        reveal_policy.setRetainSizeWhenHidden(True)  # showing it must not shift the other buttons
        self.reveal_button.setSizePolicy(reveal_policy)
        self.reveal_button.hide()

        caption = QHBoxLayout()
        caption.setSpacing(14)
        caption.addWidget(self.lesson_title)
        caption.addWidget(self.step_counter)
        caption.addStretch(1)
        heading = QVBoxLayout()
        heading.setSpacing(0)
        heading.addLayout(caption)
        heading.addWidget(self.step_title)
        self._buttons = QHBoxLayout()
        self._buttons.setSpacing(8)
        for button in (self.reveal_button, self.previous_button, self.next_button):
            self._buttons.addWidget(button)
        self._buttons.addSpacing(8)
        self._buttons.addWidget(self.exit_button)
        self._top = QHBoxLayout()
        self._top.setSpacing(16)
        self._top.addLayout(heading, 1)
        self._top.addLayout(self._buttons)
        self._top.setAlignment(self._buttons, Qt.AlignmentFlag.AlignTop)

        column = QVBoxLayout(self)
        column.setContentsMargins(14, 6, 14, 8)
        column.setSpacing(4)
        column.addLayout(self._top)
        column.addWidget(self.step_text)
        self.set_tooltips("PgUp", "PgDown", "R", "Esc")
        self.set_theme(theme)
        self._restyling = False

    @staticmethod
    def _wrapping_label(name: str, text_format: Qt.TextFormat) -> QLabel:
        label = QLabel(objectName=name) if name else QLabel()
        label.setTextFormat(text_format)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        return label

    @staticmethod
    def _button(text: str, name: str, signal: Signal) -> QPushButton:
        button = QPushButton(text, objectName=name)
        button.setAutoDefault(False)
        button.clicked.connect(signal)
        return button

    # --- content ----------------------------------------------------------------------------

    def show_step(self, lesson: Lesson, index: int, can_reveal: bool) -> None:
        step = lesson.steps[index]
        count = len(lesson.steps)
        self.lesson_title.set_full_text(f"Lesson: {lesson.title}")
        self.lesson_title.setAccessibleName(f"Lesson: {lesson.title}")
        self.step_counter.setText(f"Step {index + 1} of {count}")
        self.step_counter.setAccessibleName(f"Step {index + 1} of {count}")
        self.step_title.setText(step.title)
        self.step_title.setAccessibleName(f"Step title: {step.title}")
        self.step_text.setText(step.text)
        self.step_text.setAccessibleName(plain_text(step.text))
        self.previous_button.setEnabled(index > 0)
        last = index == count - 1
        self.next_button.setText(FINISH_TEXT if last else NEXT_TEXT)
        self.next_button.setAccessibleName("Finish lesson" if last else "Next step")
        self.set_reveal_visible(can_reveal)
        self._reserve_height()  # covers a title or text that was not in the reserved set

    def set_reveal_visible(self, visible: bool) -> None:
        self.reveal_button.setVisible(visible)

    def set_tooltips(self, previous: str, next_: str, reveal: str, exit_: str) -> None:
        """Each button's tooltip names its keys, e.g. ``"Next step (PgDown, Right or Down)"``."""
        self.previous_button.setToolTip(f"Previous step ({previous})")
        self.next_button.setToolTip(f"Next step; on the last step, finish the lesson ({next_})")
        self.reveal_button.setToolTip(f"Reveal the advantages the class predicted ({reveal})")
        self.exit_button.setToolTip(f"Leave the lesson; the lab keeps this step's group ({exit_})")

    def set_reserved_texts(self, titles: tuple[str, ...], texts: tuple[str, ...]) -> None:
        """Reserve room for the tallest of these step titles and texts (every lesson's)."""
        self._reserved_titles = tuple(titles)
        self._reserved_texts = tuple(texts)
        self._reserve_height()

    # --- look -------------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        scale = theme.type_scale
        self.setStyleSheet(
            f"#lessonBar {{ background: {theme.surface}; border: 2px solid {theme.focus};"
            f" border-radius: 10px; }}"
            f"#lessonBar QLabel {{ background: transparent; border: none; color: {theme.text}; }}"
            f"#lessonBar #lessonTitle, #lessonBar #lessonStepCounter {{ color: {theme.muted}; }}"
            f"#lessonBar QPushButton {{ background: {theme.surface}; color: {theme.text};"
            f" border: 1px solid {theme.border}; border-radius: 6px; padding: 5px 14px; }}"
            f"#lessonBar QPushButton:hover {{ border-color: {theme.focus}; }}"
            f"#lessonBar QPushButton:focus {{ border: 2px solid {theme.focus}; }}"
            f"#lessonBar QPushButton:disabled {{ color: {theme.muted};"
            f" border-color: {theme.neutral_fill}; }}"
            f"#lessonBar #lessonNext, #lessonBar #lessonReveal {{ background: {theme.focus};"
            f" color: {theme.surface}; border: 2px solid {theme.focus}; }}"
            f"#lessonBar #lessonNext:focus, #lessonBar #lessonReveal:focus"
            f" {{ border: 2px solid {theme.text}; }}"
        )
        self.lesson_title.setFont(scaled_font(1.0 * scale, bold=True))
        self.step_counter.setFont(scaled_font(1.0 * scale))
        for label in (self.step_title, self._title_probe):
            label.setFont(scaled_font(1.45 * scale, bold=True))
        for label in (self.step_text, self._text_probe):
            label.setFont(scaled_font(1.25 * scale))
        for button in (self.reveal_button, self.previous_button, self.next_button):
            button.setFont(scaled_font(1.05 * scale, bold=True))
        self.exit_button.setFont(scaled_font(1.05 * scale))
        self._fit_next_button()
        self._reserve_height()

    def theme(self) -> Theme:
        return self._theme

    def _fit_next_button(self) -> None:
        """Wide enough for "Next ▶" and "Finish", so the last step does not shift it."""
        current = self.next_button.text()
        self.next_button.setMinimumWidth(0)
        widths = []
        for text in (NEXT_TEXT, FINISH_TEXT):
            self.next_button.setText(text)
            self.next_button.ensurePolished()
            widths.append(self.next_button.sizeHint().width())
        self.next_button.setText(current)
        self.next_button.setMinimumWidth(max(widths))

    def text_widths(self) -> tuple[int, int]:
        """The widths the step title and the step text get at the bar's current width.

        Until a layout has placed the bar its width is Qt's placeholder, and a reservation made
        for it could only be too tall (and grow the window): assume one line each until then.
        """
        if not self.testAttribute(Qt.WidgetAttribute.WA_Resized):
            return UNPLACED_WIDTH, UNPLACED_WIDTH
        margins = self.layout().contentsMargins()
        text = self.contentsRect().width() - margins.left() - margins.right()
        title = text - self._buttons.sizeHint().width() - self._top.spacing()
        return title, text

    def _reserve_height(self) -> None:
        """Fix the bar's height to what the tallest reserved title and text need at this width."""
        title_width, text_width = self.text_widths()
        if title_width <= 0 or text_width <= 0:
            return
        for label, probe, texts, width in (
            (self.step_title, self._title_probe, self._reserved_titles, title_width),
            (self.step_text, self._text_probe, self._reserved_texts, text_width),
        ):
            needed = 0
            for text in (*texts, label.text()):
                probe.setText(text)
                needed = max(needed, probe.heightForWidth(width))
            label.setMinimumHeight(needed)
        margins = self.layout().contentsMargins()
        frame = self.height() - self.contentsRect().height()
        top = max(
            self.lesson_title.sizeHint().height() + self.step_title.minimumHeight(),
            self._buttons.sizeHint().height(),
        )
        height = (
            frame
            + margins.top()
            + top
            + self.layout().spacing()
            + self.step_text.minimumHeight()
            + margins.bottom()
        )
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)

    # --- Qt overrides -----------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._reserve_height()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._reserve_height()

    def event(self, event: QEvent) -> bool:
        # An app-wide zoom (QApplication.setFont): the labels' fonts derive from the app font.
        zoomed = event.type() in (QEvent.Type.ApplicationFontChange, QEvent.Type.FontChange)
        result = super().event(event)
        if zoomed and not self._restyling:
            self._restyling = True
            try:
                self.set_theme(self._theme)
            finally:
                self._restyling = False
        return result
