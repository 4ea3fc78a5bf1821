"""The groups a training step drew, listed so any one can be opened in the Lab.

A list view: each line is one group (its problem, rewards, the algorithm's advantages and whether
it taught anything). Activating a line (click, Enter) asks for that group; the view only renders.
From the keyboard: Enter on the charts brings the focus here (``focus_list``), on the first group
once the step's groups are listed; ↑ ↓ choose a group and Enter opens it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.training.run import ALGORITHM_INFO
from grpo_desktop.core.training.training_snapshot import TrainingSnapshot
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.label_slot import LabelSlot

HINT = (
    "Click a step on the charts (or press ← → and Enter there) to list the groups it drew; "
    "open any of them in the Lab."
)
TITLE = "A step's groups"  # the heading while no step is chosen (the hint is in the list)


class _GroupList(QListWidget):
    """The list; empty, it shows the hint in its middle rather than a blank box."""

    def __init__(self) -> None:
        super().__init__(objectName="stepGroupsList")
        self.placeholder = HINT
        self.placeholder_colour = QColor(LIGHT.muted)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        super().paintEvent(event)
        if self.count() == 0 and self.placeholder:
            painter = QPainter(self.viewport())
            painter.setPen(self.placeholder_colour)
            painter.setFont(self.font())
            flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
            painter.drawText(self.viewport().rect().adjusted(8, 2, -8, -2), flags, self.placeholder)
            painter.end()


class StepGroups(QWidget):
    """The selected step's groups (objectName ``stepGroups``)."""

    group_requested = Signal(int)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stepGroups")
        self.heading = QLabel(TITLE, objectName="stepGroupsHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading_slot = LabelSlot(self.heading)  # a click's heading re-lays out nothing
        self.list = _GroupList()
        self.list.setAccessibleName("Groups drawn at the selected step")
        # One line per group (a long one ends in "…"; its tooltip has it whole): wrapped lines
        # left a 200 % zoom's short list showing a single group.
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A click asks (itemClicked), and so do Enter and a double click (itemActivated). Where
        # one click also activates (KDE's default), both fire for the same click: ask once.
        self._asked: QListWidgetItem | None = None
        self.list.itemActivated.connect(self._request)
        self.list.itemClicked.connect(self._request)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.heading_slot)
        column.addWidget(self.list, 1)
        self._lines = 5
        self.set_visible_lines(self._lines)
        self._shown: tuple = ()
        self.set_theme(theme)

    def row_height(self) -> int:
        """The px one group's line takes in the list: its text and the item's padding."""
        if self.list.count():
            return max(1, self.list.sizeHintForRow(0))
        blocked = self.list.blockSignals(True)
        try:  # measured on a line of the list's own (an empty list has no row to ask)
            self.list.addItem("#1 probe · rewards 1 0 · taught")
            return max(1, self.list.sizeHintForRow(0))
        finally:
            self.list.takeItem(0)
            self.list.blockSignals(blocked)

    def set_visible_lines(self, lines: int) -> None:
        """Room for exactly ``lines`` whole groups (never half a line); more scroll inside."""
        self._lines = lines
        height = self.row_height() * lines + 2 * self.list.frameWidth()
        if self.list.height() != height or self.list.minimumHeight() != height:
            self.list.setFixedHeight(height)

    def shown_lines(self) -> float:
        """How many lines the list's viewport shows (whole lines: an integer)."""
        return self.list.viewport().height() / self.row_height()

    @property
    def visible_lines(self) -> int:
        return self._lines

    def focus_list(self) -> None:
        """Keyboard focus to the list, on its first group (or on the first group listed, when
        the step's groups arrive with the next snapshot)."""
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)
        if self.list.count() and self.list.currentRow() < 0:
            self.list.setCurrentRow(0)

    def placeholder_text(self) -> str:
        """What the empty list shows ("" once it lists groups)."""
        return self.list.placeholder if self.list.count() == 0 else ""

    def _request(self, item: QListWidgetItem) -> None:
        if item is self._asked:
            return  # the same click's second signal
        self._asked = item
        QTimer.singleShot(0, self._forget_request)  # once this event is handled
        self.group_requested.emit(item.data(Qt.ItemDataRole.UserRole))

    def _forget_request(self) -> None:
        self._asked = None

    def show_snapshot(self, snapshot: TrainingSnapshot) -> None:
        key = (snapshot.selected_step, snapshot.focus, snapshot.groups, snapshot.groups_note)
        if key == self._shown:
            return
        self._shown = key
        self.list.clear()
        self.list.placeholder = snapshot.groups_note or HINT
        if snapshot.selected_step is None:
            self.heading_slot.set_text(TITLE)
            self.list.viewport().update()  # the hint, drawn in the empty list
            return
        # One short line (a 200 % zoom has no height to spare); the algorithm is the frontier's.
        label = ALGORITHM_INFO[snapshot.focus].label if snapshot.focus in ALGORITHM_INFO else ""
        who = f"{label}, seed 1" if label else "seed 1"
        action = "no groups" if snapshot.groups_note else "click a group to open it in the Lab"
        self.heading_slot.set_text(f"Step {snapshot.selected_step} · {who}: {action}")
        for group in snapshot.groups:
            text = f"#{group.index + 1} {group.title} · rewards {group.rewards} · {group.verdict}"
            item = QListWidgetItem(text)
            item.setToolTip(f"{text}\nadvantages {group.advantages}")
            item.setData(Qt.ItemDataRole.UserRole, group.index)
            self.list.addItem(item)
        if self.list.hasFocus() and self.list.count():
            self.list.setCurrentRow(0)  # a keyboard user is here: a group to move from

    def set_theme(self, theme: Theme) -> None:
        self.heading.setFont(scaled_font(theme.type_scale))
        self.heading.setStyleSheet(f"color: {theme.muted};")
        self.list.setFont(scaled_font(theme.type_scale))
        self.list.placeholder_colour = QColor(theme.muted)
        self.list.viewport().update()
        self.set_visible_lines(self._lines)
