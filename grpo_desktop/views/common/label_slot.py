"""A wrapped label whose new text re-lays out nothing unless it needs another height.

A QLabel's ``setText`` asks its parent's layout to recompute, and every layout that recomputes
asks its parent's in turn, up to the window: the Training page's status sentence, set in every
frame of a playing run, laid the whole window out again each time, and so did a chosen step's
captions on every click. A widget without a layout only hears of its child's request (a posted
event, nothing recomputed). So the layout holds a :class:`LabelSlot` in the label's place, and
the label, the slot's only child, fills the slot: it draws exactly where it drew before. The
slot reports the label's size hints and height for its width, and asks its own layout to
recompute only when a new text needs another height at the width it has (a line more or less),
or when the label's font or style changed.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["LabelSlot"]

_RESTYLED = (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange)


class LabelSlot(QWidget):
    """The place of ``label`` (word-wrapped, always shown) in a layout; set its text with
    :meth:`set_text`."""

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{label.objectName()}Slot")
        self.label = label
        label.setParent(self)
        label.move(0, 0)
        self.setSizePolicy(label.sizePolicy())
        self._fitted = -1  # the label's height for the slot's width, as last laid out
        label.installEventFilter(self)

    def set_text(self, text: str) -> None:
        """Show ``text``; the layout hears of it only if it needs another height."""
        label = self.label
        if text == label.text():
            return
        label.setText(text)
        if label.heightForWidth(self.width()) != self._fitted:
            self.updateGeometry()

    # --- the label's hints, as the layout saw them before ----------------------------------

    def sizeHint(self) -> QSize:  # Qt override
        return self.label.sizeHint()

    def minimumSizeHint(self) -> QSize:  # Qt override
        return self.label.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:  # Qt override
        return self.label.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:  # Qt override
        return self.label.heightForWidth(width)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self.label.resize(self.size())
        self._fitted = self.label.heightForWidth(self.width())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if watched is self.label and event.type() in _RESTYLED:
            self.updateGeometry()  # another font or style: other hints, whatever the text
        return False
