"""Easy vs hard, side by side: the same formula on two groups, each fully interactive.

The seed's point is that the same reward means different things in different groups: the lone
wrong answer of an easy group gets −2.0, the lone right answer of a hard group +2.0. Each side is a
complete ``LabPane``; the loud rare answers are starred and one sentence under each chart says why.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from grpo_desktop.lab_pane import LabPane
from grpo_desktop.snapshot import LabSnapshot
from grpo_desktop.theme import Theme
from grpo_desktop.widgets.fonts import scaled_font

EASY_REWARDS = (True, True, True, True, False)
HARD_REWARDS = (True, False, False, False, False)


class CompareSide(QFrame):
    """One column: the pane's views stacked, plus the sentence on its loudest answer."""

    def __init__(self, pane: LabPane, heading: str, object_name: str) -> None:
        super().__init__()
        self.setObjectName(object_name)
        self.pane = pane
        self.heading = QLabel(heading, objectName="compareHeading")
        self.note = QLabel(objectName="loudestNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addWidget(self.heading)
        column.addWidget(pane.problem_panel)
        column.addWidget(pane.stats_panel)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(pane.trace_grid)
        split.addWidget(pane.chart)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        column.addWidget(split, 1)
        column.addWidget(self.note)
        column.addWidget(pane.banner)
        pane.set_highlight_loudest(True)
        pane.state.snapshot_changed.connect(self.show_snapshot)
        self.show_snapshot(pane.state.snapshot)

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        note = snapshot.worked_math.loudest_note
        self.note.setText(f"★ {note}" if note else "No answer is rare in this group.")

    def set_theme(self, theme: Theme) -> None:
        self.heading.setFont(scaled_font(1.4 * theme.type_scale, bold=True))
        self.note.setFont(scaled_font(1.15 * theme.type_scale))
        self.setStyleSheet(
            f"#compareHeading {{ color: {theme.text}; }} #loudestNote {{ color: {theme.text}; }}"
        )


class CompareView(QWidget):
    """Two labs side by side (objectName ``compareView``)."""

    def __init__(self, left: LabPane, right: LabPane, theme: Theme) -> None:
        super().__init__()
        self.setObjectName("compareView")
        self.left = CompareSide(left, "Easy problem", "compareEasy")
        self.right = CompareSide(right, "Hard problem", "compareHard")
        self.summary = QLabel(
            "Same formula, two groups: a reward means something only relative to its own group. "
            "Being the rare outcome makes an answer loud.",
            objectName="compareSummary",
        )
        self.summary.setWordWrap(True)
        row = QHBoxLayout()
        row.setSpacing(16)
        row.addWidget(self.left, 1)
        row.addWidget(self.right, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        column.addWidget(self.summary)
        column.addLayout(row, 1)
        self.set_theme(theme)

    @property
    def panes(self) -> tuple[LabPane, LabPane]:
        return (self.left.pane, self.right.pane)

    def set_theme(self, theme: Theme) -> None:
        self.summary.setFont(scaled_font(1.15 * theme.type_scale))
        self.summary.setStyleSheet(f"color: {theme.text};")
        for side in (self.left, self.right):
            side.set_theme(theme)
            side.pane.set_theme(theme)
