"""A settings form whose labels sit beside their fields when the column is wide enough and above
them when it is not: the Update step's and the Training run's controls share it.

The form measures the width that labels beside fields need (again on every font change, which a
theme or zoom brings) and re-lays itself out across that width on resize. A subclass places its
widgets in :meth:`_place`; settings come in pairs, two per row, through :meth:`_place_pairs`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from grpo_desktop.views.common.form_label import FormLabel

BESIDE = "beside"  # each label left of its field, two settings per row
ABOVE = "above"  # each label over its field: the form for a narrow column

Pair = tuple[QLabel, QWidget]


class AdaptiveForm(QWidget):
    """Four grid columns: label, field, label, field beside; each setting over two columns above."""

    def __init__(self, vertical_spacing: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.labels: dict[str, QLabel] = {}  # by the field's object name
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(4, 4, 4, 4)
        self._grid.setHorizontalSpacing(6)
        self._grid.setVerticalSpacing(vertical_spacing)
        self._mode = ""
        self._side_width = 0  # the narrowest width with each label beside its field

    def layout_mode(self) -> str:
        """``"beside"``: labels left of their fields; ``"above"``: over them (a narrow column)."""
        return self._mode

    def beside_width(self) -> int:
        """The narrowest width at which each label fits beside its field."""
        return self._side_width

    # ------------------------------------------------------------------------ for subclasses

    def _place(self, grid: QGridLayout, beside: bool) -> int:
        """Add every widget to ``grid``; return the row under the last one (it takes the
        stretch, so a tall column keeps the form at the top)."""
        raise NotImplementedError

    def _label(self, text: str, field: QWidget) -> QLabel:
        label = FormLabel(text, field)
        label.setToolTip(field.toolTip())
        self.labels[field.objectName()] = label
        return label

    @staticmethod
    def _place_pairs(
        grid: QGridLayout, pairs: Sequence[Sequence[Pair]], row: int, beside: bool
    ) -> int:
        """Two settings per row, left then right (the order a reader, and Tab, goes through);
        returns the row after them."""
        for pair in pairs:
            for side, (label, field) in enumerate(pair):
                if beside:
                    grid.addWidget(label, row, 2 * side)
                    grid.addWidget(field, row, 2 * side + 1)
                else:
                    grid.addWidget(label, row, 2 * side, 1, 2)
                    grid.addWidget(field, row + 1, 2 * side, 1, 2)
            row += 1 if beside else 2
        return row

    # ------------------------------------------------------------------------------ internals

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._arrange(BESIDE if event.size().width() >= self._side_width else ABOVE)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._measure()

    def _measure(self) -> None:
        """Find the width that labels beside fields need; narrower, they go above the fields."""
        mode = self._mode
        self._arrange(BESIDE)
        self._grid.invalidate()
        self._side_width = self._grid.minimumSize().width()
        self._arrange(ABOVE)
        self._grid.invalidate()
        self.setMinimumWidth(self._grid.minimumSize().width())
        self._arrange(mode or BESIDE)
        if self.width() > 0 and self.isVisible():
            self._arrange(BESIDE if self.width() >= self._side_width else ABOVE)

    def _arrange(self, mode: str) -> None:
        """Lay the form out with each label beside its field or above it."""
        if mode == self._mode:
            return
        self._mode = mode
        grid = self._grid
        for index in reversed(range(grid.count())):
            grid.takeAt(index)
        for row in range(grid.rowCount()):
            grid.setRowStretch(row, 0)
        beside = mode == BESIDE
        last = self._place(grid, beside)
        for column, stretch in enumerate((0, 1, 0, 1) if beside else (1, 1, 1, 1)):
            grid.setColumnStretch(column, stretch)
        grid.setRowStretch(last, 1)
