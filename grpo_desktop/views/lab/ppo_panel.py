"""“One model, not four”: PPO's networks beside GRPO's, drawn, with the deleted critic struck out.

A drawing says it faster than a paragraph: the rows line up so the class sees which box replaces
which, and that the baseline moved from a trained critic to the group's own mean.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.views.common.fonts import scaled_font


@dataclass(frozen=True)
class Box:
    title: str
    note: str
    style: str  # "trained", "frozen", "program", "deleted", "learned"


PPO_COLUMN = (
    Box("Policy", "trained", "trained"),
    Box("Reference", "frozen copy, KL term", "frozen"),
    Box("Reward model", "a learned network", "learned"),
    Box("Value / critic", "trained to predict par", "trained"),
)
GRPO_COLUMN = (
    Box("Policy", "trained", "trained"),
    Box("Reference", "frozen copy, KL term", "frozen"),
    Box("Checker", "a program: answer = key?", "program"),
    Box("Value / critic", "deleted: the group mean is par", "deleted"),
)
PPO_ADVANTAGE = "A = reward-model score − value estimate"
GRPO_ADVANTAGE = "A = checker score − group mean"
POINT = (
    "“Checker score minus group mean” stands exactly where “reward-model score minus value "
    "estimate” used to: the group is its own baseline."
)


MIN_SCALE, MAX_SCALE = 0.5, 1.6


class PpoPanel(QWidget):
    """PPO's four networks beside GRPO's policy plus a checker, critic struck out."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ppoPanel")
        self.setAccessibleName("One model, not four")
        self.setAccessibleDescription(
            "PPO keeps four networks: policy, reference, reward model and value critic. GRPO "
            "trains only the policy, grades with a checker program and deletes the critic: "
            f"'{GRPO_ADVANTAGE}' stands exactly where '{PPO_ADVANTAGE}' used to."
        )
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._theme = theme

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.updateGeometry()
        self.update()

    def _fonts(self):
        scale = self._theme.type_scale
        return (
            scaled_font(1.15 * scale, bold=True),  # column heading
            scaled_font(1.0 * scale, bold=True),  # box title
            scaled_font(0.85 * scale),  # box note
            scaled_font(1.0 * scale, bold=True),  # advantage lines
        )

    def _row_height(self) -> float:
        _, title, note, _ = self._fonts()
        return QFontMetricsF(title).height() + QFontMetricsF(note).height() + 14

    def sizeHint(self) -> QSize:  # Qt override
        heading, title, note, formula = self._fonts()
        texts = [(heading, h) for h, _, _ in self._columns()]
        texts += [(note, box.note) for box in PPO_COLUMN + GRPO_COLUMN]
        texts += [(title, box.title) for box in PPO_COLUMN + GRPO_COLUMN]
        column = max(QFontMetricsF(font).horizontalAdvance(text) for font, text in texts) + 24
        height = (
            QFontMetricsF(heading).height() * 1.6
            + 4 * (self._row_height() + 8)
            + QFontMetricsF(formula).height() * 2.6
            + QFontMetricsF(note).height() * 2.4
            + 16
        )
        return QSize(int(2 * column + 24 + 20), int(height))

    @staticmethod
    def _columns() -> tuple[tuple[str, tuple[Box, ...], str], ...]:
        return (
            ("PPO: four networks", PPO_COLUMN, PPO_ADVANTAGE),
            ("GRPO: one trained network", GRPO_COLUMN, GRPO_ADVANTAGE),
        )

    def minimumSizeHint(self) -> QSize:  # Qt override: the drawing scales down to half size
        hint = self.sizeHint()
        return QSize(round(hint.width() * MIN_SCALE), round(hint.height() * MIN_SCALE))

    def paintEvent(self, event) -> None:  # Qt override
        theme = self._theme
        heading_font, title_font, note_font, formula_font = self._fonts()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(theme.surface))
        # Drawn at its natural size, then scaled to fit the space the panel has (never so small
        # that it cannot be read, never so large that it looks blown up), centred horizontally.
        natural = self.sizeHint()
        scale = min(self.width() / natural.width(), self.height() / natural.height())
        scale = max(MIN_SCALE, min(MAX_SCALE, scale))
        painter.translate(max(0.0, (self.width() - natural.width() * scale) / 2), 0)
        painter.scale(scale, scale)
        width, height = natural.width(), natural.height()

        margin = 10.0
        gap = 24.0
        column_width = (width - 2 * margin - gap) / 2
        heading_height = QFontMetricsF(heading_font).height() * 1.6
        row_height = self._row_height()

        for column_index, (heading, boxes, advantage) in enumerate(self._columns()):
            left = margin + column_index * (column_width + gap)
            painter.setFont(heading_font)
            painter.setPen(QColor(theme.text))
            painter.drawText(
                QRectF(left, margin, column_width, heading_height),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                heading,
            )
            top = margin + heading_height
            for row, box in enumerate(boxes):
                rect = QRectF(left, top + row * (row_height + 8), column_width, row_height)
                self._draw_box(painter, rect, box, title_font, note_font)
            formula_top = top + 4 * (row_height + 8) + 4
            painter.setFont(formula_font)
            painter.setPen(QColor(theme.up if column_index else theme.muted))
            painter.drawText(
                QRectF(left, formula_top, column_width, QFontMetricsF(formula_font).height() * 2.4),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                advantage,
            )
        point_top = margin + heading_height + 4 * (row_height + 8) + 4
        point_top += QFontMetricsF(formula_font).height() * 2.6
        painter.setFont(note_font)
        painter.setPen(QColor(theme.text))
        painter.drawText(
            QRectF(margin, point_top, width - 2 * margin, height - point_top),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
            POINT,
        )
        # An arrow between the columns at the critic row: this is where the baseline moved.
        arrow_y = margin + heading_height + 3 * (row_height + 8) + row_height / 2
        start = QPointF(margin + column_width + 4, arrow_y)
        end = QPointF(margin + column_width + gap - 4, arrow_y)
        painter.setPen(QPen(QColor(theme.muted), theme.stroke_width))
        painter.drawLine(start, end)
        head = QPainterPath(end)
        head.lineTo(end + QPointF(-6, -4))
        head.lineTo(end + QPointF(-6, 4))
        head.closeSubpath()
        painter.fillPath(head, QColor(theme.muted))
        painter.end()

    def _draw_box(self, painter: QPainter, rect: QRectF, box: Box, title_font, note_font) -> None:
        theme = self._theme
        pen = QPen(QColor(theme.border), theme.stroke_width)
        fill = QColor(theme.surface)
        text_colour = QColor(theme.text)
        if box.style == "trained":
            pen.setColor(QColor(theme.focus))
            fill = QColor(theme.neutral_fill)
        elif box.style == "frozen":
            pen.setStyle(Qt.PenStyle.DashLine)
        elif box.style == "program":
            pen.setColor(QColor(theme.up))
            fill = QColor(theme.up_fill)
        elif box.style == "deleted":
            pen.setColor(QColor(theme.down))
            pen.setStyle(Qt.PenStyle.DashLine)
            text_colour = QColor(theme.down)
        painter.setPen(pen)
        painter.setBrush(fill)
        radius = 4.0 if box.style == "program" else 10.0
        painter.drawRoundedRect(rect.adjusted(1, 1, -1, -1), radius, radius)

        inner = rect.adjusted(10, 5, -10, -5)
        title_height = QFontMetricsF(title_font).height()
        painter.setPen(text_colour)
        painter.setFont(title_font)
        title_rect = QRectF(inner.left(), inner.top(), inner.width(), title_height)
        painter.drawText(
            title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, box.title
        )
        painter.setFont(note_font)
        painter.setPen(QColor(theme.down if box.style == "deleted" else theme.muted))
        painter.drawText(
            QRectF(inner.left(), inner.top() + title_height, inner.width(), inner.height()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
            box.note,
        )
        if box.style == "deleted":
            strike = QPen(QColor(theme.down), theme.stroke_width * 2)
            painter.setPen(strike)
            title_width = QFontMetricsF(title_font).horizontalAdvance(box.title)
            y = title_rect.center().y()
            painter.drawLine(
                QPointF(inner.left() - 2, y), QPointF(inner.left() + title_width + 2, y)
            )
            painter.setFont(title_font)
            painter.drawText(
                title_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop, "✗"
            )
