"""The groups one step of the tiny model's run drew, listed so any one can be opened in the Lab.

A view: each line is one group (the prompt and its right answer, how many of the G answers were
right, their rewards, whether the group taught anything). A click, Enter or a double click asks
for that group; the view only renders the snapshot's lines.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.tinylm.lm_run_snapshot import LMRunSnapshot
from grpo_desktop.views.common.fonts import scaled_font

__all__ = ["LMStepGroups", "heading_text"]

VISIBLE_LINES = 4


def heading_text(snapshot: LMRunSnapshot) -> str:
    if snapshot.selected_step is None:
        return "A step's groups: take a step to list the groups it drew."
    return (
        f"Step {snapshot.selected_step}'s groups (click a step on the charts for another): "
        "open one in the Lab to see the model's own answers as cards."
    )


class LMStepGroups(QWidget):
    """The listed step's groups (objectName ``lmStepGroups``)."""

    group_requested = Signal(int)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lmStepGroups")
        self.heading = QLabel(objectName="lmStepGroupsHeading")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        self.list = QListWidget(objectName="lmStepGroupsList")
        self.list.setAccessibleName("Groups drawn at the listed step; Enter opens one in the Lab")
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.itemActivated.connect(self._request)
        self.list.itemClicked.connect(self._request)
        self._asked: QListWidgetItem | None = None
        self._lines: tuple = ()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.heading)
        column.addWidget(self.list)
        self.set_theme(theme)

    def show_snapshot(self, snapshot: LMRunSnapshot) -> None:
        heading = heading_text(snapshot)
        if heading != self.heading.text():
            self.heading.setText(heading)
        lines = tuple(line.text for line in snapshot.groups)
        if lines == self._lines:
            return
        self._lines = lines
        row = self.list.currentRow()
        self.list.clear()
        self._asked = None
        for line in snapshot.groups:
            item = QListWidgetItem(line.text)
            item.setToolTip(line.text)
            item.setData(Qt.ItemDataRole.UserRole, line.index)
            self.list.addItem(item)
        if 0 <= row < self.list.count():
            self.list.setCurrentRow(row)
        self._fit_height()

    def set_theme(self, theme: Theme) -> None:
        scale = theme.type_scale
        self.heading.setFont(scaled_font(0.95 * scale, bold=True))
        self.list.setFont(scaled_font(0.95 * scale))
        self.heading.setStyleSheet(f"color: {theme.text};")
        self.list.setStyleSheet(
            f"QListWidget {{ background: {theme.surface}; color: {theme.text}; "
            f"border: 1px solid {theme.border}; }}"
        )
        self._fit_height()

    def _fit_height(self) -> None:
        """Room for exactly VISIBLE_LINES whole groups (a line measured on the list itself)."""
        if self.list.count():
            row = self.list.sizeHintForRow(0)
        else:
            self.list.addItem("#1 probe")
            row = self.list.sizeHintForRow(0)
            self.list.takeItem(0)
        height = max(1, row) * VISIBLE_LINES + 2 * self.list.frameWidth()
        if self.list.height() != height:
            self.list.setFixedHeight(height)

    def _request(self, item: QListWidgetItem) -> None:
        if item is self._asked:
            return  # the same click's second signal (click and activate)
        self._asked = item
        self.group_requested.emit(int(item.data(Qt.ItemDataRole.UserRole)))
