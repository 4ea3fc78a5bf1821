"""The Lab's One step tab: each answer's probability before and after one GRPO step.

The seed's "pushed up" made visible as "more likely next time": a row per answer with its
probability before (an outline) and after (a filled bar, green when it rose, red when it fell),
the two numbers, and a caption that says what moved. Before the step is taken the tab asks the
class to predict first. It renders a picture the model built and emits ``take_requested``;
it computes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.views.common.fonts import scaled_font

if TYPE_CHECKING:
    from grpo_desktop.core.training.one_step import AnswerStep, OneStepPicture

__all__ = ["PREDICT_TEXT", "OneStepPanel", "StepBars"]

PREDICT_TEXT = (
    "Predict first: after one GRPO step on this group, which answers will be more likely next "
    "time, and which less? Then take the step (Ctrl+K); Ctrl+Z takes it back."
)


class StepBars(QWidget):
    """One row per answer: before as an outline, after as a filled bar, and the numbers."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("oneStepBars")
        self.setAccessibleName("Each answer's probability before and after")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._theme = theme
        self._answers: tuple[AnswerStep, ...] = ()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.updateGeometry()
        self.update()

    def show_answers(self, answers: tuple[AnswerStep, ...]) -> None:
        self._answers = answers
        self.setAccessibleDescription(
            "; ".join(
                f"answer {a.index + 1}: {a.p_before:.4f} before, {a.p_after:.4f} after, {a.change}"
                for a in answers
            )
        )
        self.updateGeometry()
        self.update()

    def _font(self):
        return scaled_font(0.95 * self._theme.type_scale)

    def _row_height(self) -> float:
        return QFontMetricsF(self._font()).height() * 1.45

    def sizeHint(self) -> QSize:  # Qt override
        return QSize(320, int(self._row_height() * max(1, len(self._answers))) + 4)

    def minimumSizeHint(self) -> QSize:  # Qt override
        return QSize(240, self.sizeHint().height())

    def paintEvent(self, event) -> None:  # Qt override
        if not self._answers:
            return
        theme = self._theme
        font = self._font()
        metrics = QFontMetricsF(font)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(font)
        row = self._row_height()
        label_width = metrics.horizontalAdvance("#64  A −0.00 ")
        numbers_width = metrics.horizontalAdvance("0.0000 → 0.0000 ▲")
        bar_left = label_width + 6
        bar_width = max(40.0, self.width() - bar_left - numbers_width - 14)
        top_p = max(max(a.p_before, a.p_after) for a in self._answers) or 1.0
        for position, answer in enumerate(self._answers):
            y = position * row + 2
            painter.setPen(QColor(theme.text))
            painter.drawText(
                QRectF(0, y, label_width, row),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                f"#{answer.index + 1}  A {signed(answer.advantage, 2)}",
            )
            bar_height = row * 0.55
            bar_top = y + (row - bar_height) / 2
            rose = answer.p_after > answer.p_before
            fell = answer.p_after < answer.p_before
            colour = QColor(theme.up if rose else theme.down if fell else theme.neutral)
            painter.fillRect(
                QRectF(bar_left, bar_top, bar_width * answer.p_after / top_p, bar_height), colour
            )
            outline = QPen(QColor(theme.text), theme.stroke_width)
            painter.setPen(outline)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(
                QRectF(bar_left, bar_top, bar_width * answer.p_before / top_p, bar_height)
            )
            arrow = "▲" if rose else "▼" if fell else "="
            painter.setPen(colour if (rose or fell) else QColor(theme.text))
            painter.drawText(
                QRectF(self.width() - numbers_width - 4, y, numbers_width, row),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                f"{answer.p_before:.4f} → {answer.p_after:.4f} {arrow}",
            )


class OneStepPanel(QWidget):
    """The tab: predict, take the step, see each answer become more or less likely."""

    take_requested = Signal()

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("oneStepPanel")
        self.title = QLabel("One step: more likely next time?", objectName="oneStepTitle")
        self.prompt = QLabel(PREDICT_TEXT, objectName="oneStepPrompt")
        self.policy = QLabel(objectName="oneStepPolicy")
        self.caption = QLabel(objectName="oneStepCaption")
        self.legend = QLabel(
            "Each answer's probability of being written: outline before the step, filled bar "
            "after (▲ more likely next time, ▼ less).",
            objectName="oneStepLegend",
        )
        for label in (self.title, self.prompt, self.policy, self.caption, self.legend):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self.take_button = QPushButton("Take one step", objectName="takeOneStepButton")
        self.take_button.setToolTip("One GRPO update on this group, then each answer's odds")
        self.take_button.clicked.connect(self.take_requested)
        self.bars = StepBars(theme)
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(6)
        for widget in (
            self.title,
            self.prompt,
            self.take_button,
            self.caption,
            self.legend,
            self.bars,
        ):
            column.addWidget(widget)
        column.addWidget(self.policy)
        column.addStretch(1)
        self.take_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.set_theme(theme)
        self.show_picture(None)

    def set_theme(self, theme: Theme) -> None:
        self.bars.set_theme(theme)
        scale = theme.type_scale
        self.title.setFont(scaled_font(1.1 * scale, bold=True))
        for label in (self.prompt, self.caption):
            label.setFont(scaled_font(scale))
            label.setStyleSheet(f"color: {theme.text};")
        for label in (self.policy, self.legend):
            label.setFont(scaled_font(0.9 * scale))
            label.setStyleSheet(f"color: {theme.muted};")
        self.title.setStyleSheet(f"color: {theme.text};")

    def show_picture(self, picture: OneStepPicture | None) -> None:
        taken = picture is not None and picture.taken
        self.prompt.setVisible(not taken)
        self.take_button.setVisible(not taken)
        step = picture.step if picture is not None else None
        if picture is not None and picture.unavailable:
            self.caption.setText(picture.unavailable)
        else:
            self.caption.setText(picture.caption if taken and picture is not None else "")
        self.caption.setVisible(bool(self.caption.text()))
        self.policy.setText(picture.policy if taken and picture is not None else "")
        self.policy.setVisible(bool(self.policy.text()))
        self.bars.show_answers(step.answers if taken and step is not None else ())
        self.bars.setVisible(taken and step is not None)
        self.legend.setVisible(self.bars.isVisibleTo(self))
        self.setAccessibleDescription(self.caption.text() or PREDICT_TEXT)
